package pebble_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
	_ "github.com/servbench/servbench/db/pebble"
)

// The conformance kit against the embedded store: it runs in every go
// test, with no server.
func TestConformance(t *testing.T) {
	dir := t.TempDir()
	d := dbtest.Open(t, "pebble", "pebble.dir", t.TempDir())
	dbtest.Operations(t, d, "sbdirect", true)
	dbtest.Workloads(t, "pebble", 5000, 2000, 500, "pebble.dir", dir)
	dbtest.Pagination(t, nil, "pebble", 2000, 500, "pebble.dir", t.TempDir())
}
