package mongodb_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// TestFault kills and pauses the shared server under a run (with
// SERVBENCH_FAULTS=1, after every other test). The server is FerretDB;
// its PostgreSQL backend keeps running.
func TestFault(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_MONGODB_URL")
	dbtest.Faults(t, dbtest.Fault{Server: "mongodb", Binding: "mongodb",
		Props: []string{"mongodb.url", url, "mongodb.database", "sbfault"},
		Reset: func(t *testing.T) { dropDB(t, url, "sbfault") }})
}
