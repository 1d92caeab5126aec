package pebble_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// Pebble's own counters move with a run: the WAL takes the updates' bytes,
// the block cache answers reads (a hit or a miss each block), and the
// store has a size on disk.
func TestServerSide(t *testing.T) {
	dir := t.TempDir()
	doc, src := dbtest.ServerSide(t, "pebble", "a", 5000, 5000, "pebble.dir", dir)
	if wal := dbtest.Total(t, src, "wal_bytes"); wal < float64(doc.Operations)/2*100 {
		t.Errorf("WAL bytes grew by %v over %d operations (half of them updates of 100 bytes or more)", wal, doc.Operations)
	}
	if c := dbtest.Total(t, src, "cache_hits") + dbtest.Total(t, src, "cache_misses"); c == 0 {
		t.Error("the block cache saw no reads")
	}
	if x := src.Get("disk_used_bytes", ""); x == nil || x.Max <= 0 {
		t.Errorf("disk_used_bytes %+v", x)
	}
}
