package postgres_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// The binding's own cost per operation against a real server, in either
// layout (see dbtest.BenchmarkOperations). With SERVBENCH_POSTGRES_URL set
// (scripts/servers env postgres):
//
//	go test -run - -bench . -benchmem ./db/postgres
func BenchmarkColumns(b *testing.B) {
	url := dbtest.ServerURL(b, "SERVBENCH_POSTGRES_URL")
	for _, layout := range []string{"columns", "jsonb"} {
		table := "sbbench" + layout
		drop(b, url, table)
		d := dbtest.Open(b, "postgres", "postgres.url", url, "postgres.layout", layout)
		b.Run(layout, func(b *testing.B) { dbtest.BenchmarkOperations(b, d, table) })
	}
}
