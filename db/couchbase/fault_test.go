package couchbase_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// TestFault kills and pauses the shared server under a run (with
// SERVBENCH_FAULTS=1, after every other test).
func TestFault(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	dbtest.Faults(t, dbtest.Fault{Server: "couchbase", Binding: "couchbase",
		Props: []string{"couchbase.url", url, "couchbase.upsert", "true"},
		Unreachable: "CouchbaseMock comes back with new data ports under the same configuration revision (3), " +
			"which the SDK takes for the configuration it has; Couchbase Server keeps its data port (11210)"})
}
