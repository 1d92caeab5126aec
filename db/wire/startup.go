package wire

import (
	"fmt"
	"net"
	"sync/atomic"

	"github.com/servbench/servbench/internal/format"
)

// MaxStartup bounds what a connection reads before it is established (a
// PostgreSQL server's TLS handshake, authentication, ParameterStatus and
// BackendKeyData messages): 1 MiB, where a real server's take a few KiB
// (a TLS handshake with a long certificate chain some tens). The driver
// keeps every ParameterStatus a server sends before it is ready (pgx: a
// map), each message within the message bound.
const MaxStartup = 1 << 20

// StartupError is a connection refused for what it read before it was
// established: over MaxStartup.
type StartupError struct{ Max int64 }

func (e *StartupError) Error() string {
	return fmt.Sprintf("the server sent more than %s before its connection was ready: the connection is closed", format.Bytes(e.Max))
}

// startupConn counts what its connection reads until Ready is called on
// it (StartupReady).
type startupConn struct {
	net.Conn
	max   int64
	read  int64 // until ready; read by the reading goroutine only
	ready atomic.Bool
}

// BoundStartup wraps c: the reads that bring what it read past max before
// StartupReady is called on it fail with a *StartupError, and every read
// after them; once it is ready its reads pass as they are.
func BoundStartup(c net.Conn, max int64) net.Conn { return &startupConn{Conn: c, max: max} }

func (c *startupConn) Read(p []byte) (int, error) {
	if c.ready.Load() {
		return c.Conn.Read(p)
	}
	if c.read >= c.max {
		return 0, &StartupError{c.max}
	}
	if left := c.max - c.read + 1; int64(len(p)) > left {
		p = p[:left] // a read past the bound by a byte at most
	}
	n, err := c.Conn.Read(p)
	if c.read += int64(n); c.read > c.max {
		return 0, &StartupError{c.max}
	}
	return n, err
}

// StartupReady marks c, or the connection c runs over (a TLS connection's,
// through NetConn), established: BoundStartup's bound no longer applies.
// It says whether it found a connection BoundStartup made.
func StartupReady(c net.Conn) bool {
	for c != nil {
		if s, ok := c.(*startupConn); ok {
			s.ready.Store(true)
			return true
		}
		u, ok := c.(interface{ NetConn() net.Conn })
		if !ok {
			return false
		}
		c = u.NetConn()
	}
	return false
}
