package cassandra_test

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

// The binding's own cost per operation against a real server: one thread,
// ten 100-byte fields, reads of all fields and updates of one (workloads A
// and C). With SERVBENCH_CASSANDRA_URL set (scripts/servers env cassandra):
//
//	go test -run - -bench . -benchmem ./db/cassandra
func BenchmarkOperations(b *testing.B) {
	addr := dbtest.ServerURL(b, "SERVBENCH_CASSANDRA_URL")
	ctx := context.Background()
	const table = "sbbench"
	d := dbtest.Open(b, "cassandra", "cassandra.url", "cassandra://"+addr+"/sbbench")
	if err := d.(db.Preparer).Prepare(ctx, table, true); err != nil {
		b.Fatal(err)
	}
	var rec db.Record
	value := bytes.Repeat([]byte("v"), 100)
	const records = 1000
	keys := make([]string, records)
	for i := range keys {
		keys[i] = "user" + strconv.Itoa(i)
		rec.Reset()
		for f := range 10 {
			rec.Add("field"+strconv.Itoa(f), value)
		}
		if err := d.Insert(ctx, table, keys[i], &rec); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("read", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			rec.Reset()
			if err := d.Read(ctx, table, keys[i%records], nil, &rec); err != nil || rec.Len() != 10 {
				b.Fatal(rec.Len(), err)
			}
		}
	})
	b.Run("update", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			rec.Reset()
			rec.Add("field3", value)
			if err := d.Update(ctx, table, keys[i%records], &rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}
