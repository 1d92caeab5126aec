package postgres_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// TestFault kills and pauses the shared server under a run (with
// SERVBENCH_FAULTS=1, after every other test). PostgreSQL killed with
// SIGKILL (the postmaster and its backends) recovers from its write-ahead
// log when started again.
func TestFault(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	dbtest.Faults(t, dbtest.Fault{Server: "postgres", Binding: "postgres",
		Props: []string{"postgres.url", url, "table", "sbfault"},
		Reset: func(t *testing.T) { drop(t, url, "sbfault") }})
}
