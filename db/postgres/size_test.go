package postgres_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// The pool's size is bounded before the driver is given it.
func TestSizeBounded(t *testing.T) {
	dbtest.SizeBounded(t, "postgres", []string{"postgres.poolsize"})
}

// The pool options postgres.url names are bounded as postgres.poolsize
// is, in a URL or a keyword string.
func TestURLSizeBounded(t *testing.T) {
	opts := []string{"pool_max_conns", "pool_min_conns", "pool_min_idle_conns"}
	dbtest.URLSizeBounded(t, "postgres", "postgres.url", "postgres://postgres@127.0.0.1:1/postgres?%s", opts)
	dbtest.URLSizeBounded(t, "postgres", "postgres.url", "host=127.0.0.1 port=1 user=postgres %s", opts)
}
