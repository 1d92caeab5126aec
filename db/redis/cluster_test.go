package redis

import (
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// Without retries (the default), a cluster client tries a command on the
// nodes MOVED and ASK point to at once: a dead node's operations fail in a
// millisecond and the threads go on with the live nodes' keys. With the
// client's backoff they waited up to a second between attempts, eight
// times, and a cluster with one dead node of three served almost nothing
// (TestFaultClusterCrash shows the failures and answers it does measure).
func TestClusterWithoutRetriesHasNoBackoff(t *testing.T) {
	for _, c := range []struct {
		retries string
		backoff bool
	}{{"0", false}, {"2", true}} {
		p := props.New()
		p.Set("redis.cluster", "true", "test")
		p.Set("redis.url", "redis://127.0.0.1:7101,127.0.0.1:7102", "test")
		p.Set("redis.retries", c.retries, "test")
		cfg, err := parseConfig(p, db.Options{Threads: 4})
		if err != nil {
			t.Fatal(err)
		}
		o := clusterOptions(cfg)
		if got := o.MinRetryBackoff >= 0 && o.MaxRetryBackoff >= 0; got != c.backoff {
			t.Errorf("redis.retries=%s: backoff %v..%v", c.retries, o.MinRetryBackoff, o.MaxRetryBackoff)
		}
		if o.MaxRedirects < 3 {
			t.Errorf("redis.retries=%s: %d redirects: MOVED and ASK must still be followed", c.retries, o.MaxRedirects)
		}
	}
}
