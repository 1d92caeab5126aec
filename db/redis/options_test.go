package redis

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/rueidis"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

func options(t *testing.T, kv ...string) (*config, error) {
	t.Helper()
	p := props.New()
	p.Set("redis.url", "redis://127.0.0.1:7101,127.0.0.1:7102", "test")
	p.Set("redis.cluster", "true", "test")
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test")
	}
	return parseConfig(p, db.Options{Threads: 4})
}

// Without retries (the default) the client does not retry: a dead node's
// operations fail at once and the threads go on with the live nodes' keys
// (TestFaultCluster shows the failures and answers a run measures). MOVED
// and ASK are followed all the same. With redis.retries=N an operation is
// tried at most N more times.
func TestRetries(t *testing.T) {
	for _, c := range []struct {
		retries string
		tries   int // attempts the delay function allows after the first
	}{{"0", 0}, {"2", 2}} {
		cfg, err := options(t, "redis.retries", c.retries)
		if err != nil {
			t.Fatal(err)
		}
		o := clientOptions(cfg)
		if o.DisableRetry != (c.tries == 0) {
			t.Errorf("redis.retries=%s: DisableRetry %v", c.retries, o.DisableRetry)
		}
		if o.ClusterOption.MaxMovedRedirections < 3 {
			t.Errorf("redis.retries=%s: %d redirects: MOVED and ASK must still be followed", c.retries, o.ClusterOption.MaxMovedRedirections)
		}
		if c.tries == 0 {
			continue
		}
		n := 0
		for a := 1; a < 10 && o.RetryDelay(a, rueidis.Completed{}, nil) >= 0; a++ {
			n++
		}
		if n != c.tries {
			t.Errorf("redis.retries=%s: %d retries allowed", c.retries, n)
		}
	}
}

// redis.pipelining: off gives a connection per thread from a pool as large
// as the threads; auto shares connections among threads.
func TestPipelining(t *testing.T) {
	for _, c := range []struct {
		mode      string
		pipelined bool
	}{{"", false}, {"off", false}, {"auto", true}} {
		var kv []string
		if c.mode != "" {
			kv = []string{"redis.pipelining", c.mode}
		}
		cfg, err := options(t, kv...)
		if err != nil {
			t.Fatal(err)
		}
		o := clientOptions(cfg)
		if o.DisableAutoPipelining == c.pipelined || o.BlockingPoolSize < 4 {
			t.Errorf("redis.pipelining=%q: DisableAutoPipelining %v, pool %d", c.mode, o.DisableAutoPipelining, o.BlockingPoolSize)
		}
	}
	for _, bad := range []string{"window", "1", "0", "-4", "10001", "16x"} {
		if _, err := options(t, "redis.pipelining", bad); err == nil || !strings.Contains(err.Error(), "redis.pipelining") {
			t.Errorf("redis.pipelining=%s: %v", bad, err)
		}
	}
	// A window of 16: each thread's own connection, no auto-pipelining.
	cfg, err := options(t, "redis.pipelining", "16")
	if err != nil {
		t.Fatal(err)
	}
	if o := clientOptions(cfg); cfg.window != 16 || !o.DisableAutoPipelining {
		t.Errorf("redis.pipelining=16: window %d, auto-pipelining %v", cfg.window, !o.DisableAutoPipelining)
	}
	cfg, err = options(t, "redis.pipelining", "auto", "redis.flushdelay", "200")
	if err != nil {
		t.Fatal(err)
	}
	if d := clientOptions(cfg).MaxFlushDelay; d != 200*time.Microsecond {
		t.Errorf("redis.flushdelay=200: the writer pauses %v", d)
	}
	if _, err := options(t, "redis.flushdelay", "200"); err == nil || !strings.Contains(err.Error(), "redis.pipelining=auto") {
		t.Errorf("redis.flushdelay without auto-pipelining: %v", err)
	}
}
