package cassandra_test

import (
	"strings"
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// TestFault kills and pauses the shared server under a run (with
// SERVBENCH_FAULTS=1, after every other test). Cassandra killed with
// SIGKILL replays its commit log when started again; the driver reconnects
// by itself.
func TestFault(t *testing.T) {
	addr := dbtest.ServerURL(t, "SERVBENCH_CASSANDRA_URL")
	host, port, _ := strings.Cut(addr, ":")
	dbtest.Faults(t, dbtest.Fault{Server: "cassandra", Binding: "cassandra",
		Props: []string{"cassandra.url", "cassandra://" + addr + "/sbfault"},
		Reset: func(t *testing.T) { dropKeyspace(t, host, port, "sbfault") }})
}
