package cassandra

import "time"

// SetConnectTimeout sets the connect timeout for a test and returns the
// one it replaces.
func SetConnectTimeout(d time.Duration) time.Duration {
	old := connectTimeout
	connectTimeout = d
	return old
}
