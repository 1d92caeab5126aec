package cassandra_test

import (
	"strings"
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// The node's native-transport requests (one per CQL statement) grow by at
// least the operations; its read and mutation stages by the reads and
// updates.
func TestServerSide(t *testing.T) {
	addr := dbtest.ServerURL(t, "SERVBENCH_CASSANDRA_URL")
	host, port, _ := strings.Cut(addr, ":")
	dropKeyspace(t, host, port, "sbsample")
	doc, src := dbtest.ServerSide(t, "cassandra", "a", 500, 1000, "hosts", host, "port", port, "cassandra.keyspace", "sbsample")
	if got := dbtest.Total(t, src, "native_transport_completed"); got < float64(doc.Operations) {
		t.Errorf("requests completed grew by %v over %d operations", got, doc.Operations)
	}
	if r, w := dbtest.Total(t, src, "read_stage_completed"), dbtest.Total(t, src, "mutation_stage_completed"); r == 0 || w == 0 {
		t.Errorf("read stage %v, mutation stage %v: want both to move", r, w)
	}
}
