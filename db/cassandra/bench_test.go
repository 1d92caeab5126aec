package cassandra_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// The binding's own cost per operation against a real server (see
// dbtest.BenchmarkOperations). With SERVBENCH_CASSANDRA_URL set
// (scripts/servers env cassandra):
//
//	go test -run - -bench . -benchmem ./db/cassandra
func BenchmarkOperations(b *testing.B) {
	addr := dbtest.ServerURL(b, "SERVBENCH_CASSANDRA_URL")
	dbtest.BenchmarkOperations(b, dbtest.Open(b, "cassandra", "cassandra.url", "cassandra://"+addr+"/sbbench"), "sbbench")
}
