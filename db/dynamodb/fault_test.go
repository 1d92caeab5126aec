package dynamodb_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// TestFault kills and pauses the shared server under a run (with
// SERVBENCH_FAULTS=1, after every other test). DynamoDB Local keeps its
// tables on disk (scripts/servers), so it comes back with them.
func TestFault(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	dbtest.Faults(t, dbtest.Fault{Server: "dynamodb", Binding: "dynamodb",
		Props: []string{"dynamodb.endpoint", endpoint, "table", "sbfault"},
		Reset: func(t *testing.T) { dropTables(t, endpoint, "sbfault") }})
}
