package redis_test

import (
	"context"
	"strings"

	"github.com/servbench/servbench/db"
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// The pool's size is bounded before the driver is given it.
func TestSizeBounded(t *testing.T) {
	dbtest.SizeBounded(t, "redis", []string{"redis.poolsize"})
}

// redis.url reads no option: pool_size=N was taken for part of the port
// and failed when connecting ("unknown port"); it is refused when the
// run is checked, in one line naming redis.url.
func TestURLOptionsRefused(t *testing.T) {
	b, err := db.Lookup("redis")
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"redis://127.0.0.1:6379?pool_size=100000000", "redis://127.0.0.1:6379/0?pool_size=1&x=2", "rediss://u:p?w@127.0.0.1:6379?dial_timeout=1"} {
		_, err := b.Open(context.Background(), dbtest.Props("redis.url", u), db.Options{Threads: 1, CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}})
		if err == nil || !strings.Contains(err.Error(), "property redis.url: options after ?") || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "p?w") {
			t.Errorf("%s: %v, want a refusal naming redis.url", u, err)
		}
	}
}
