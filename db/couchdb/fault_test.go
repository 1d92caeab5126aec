package couchdb_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// TestFault kills and pauses the shared server under a run (with
// SERVBENCH_FAULTS=1, after every other test). The server is
// pouchdb-server; its LevelDB files survive SIGKILL.
func TestFault(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHDB_URL")
	dbtest.Faults(t, dbtest.Fault{Server: "couchdb", Binding: "couchdb",
		Props: []string{"couchdb.url", url, "table", "sbfault"},
		Reset: func(t *testing.T) { destroy(t, url, "sbfault") }})
}
