package postgres_test

import (
	"bytes"
	"context"
	"strconv"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

// The binding's own cost per operation against a real server: one thread,
// YCSB's column layout, ten 100-byte fields, reads of all fields and
// updates of one (workloads A and C). Run with
// SERVBENCH_POSTGRES_URL set (scripts/servers env postgres):
//
//	go test -run - -bench . -benchmem ./db/postgres
func BenchmarkColumns(b *testing.B) {
	url := dbtest.ServerURL(b, "SERVBENCH_POSTGRES_URL")
	ctx := context.Background()
	for _, layout := range []string{"columns", "jsonb"} {
		table := "sbbench" + layout
		drop(b, url, table)
		d := dbtest.Open(b, "postgres", "postgres.url", url, "postgres.layout", layout)
		if err := d.(db.Preparer).Prepare(ctx, table, true); err != nil {
			b.Fatal(err)
		}
		var rec db.Record
		value := bytes.Repeat([]byte("v"), 100)
		const records = 1000
		for i := range records {
			rec.Reset()
			for f := range 10 {
				rec.Add("field"+strconv.Itoa(f), value)
			}
			if err := d.Insert(ctx, table, "user"+strconv.Itoa(i), &rec); err != nil {
				b.Fatal(err)
			}
		}
		keys := make([]string, records)
		for i := range keys {
			keys[i] = "user" + strconv.Itoa(i)
		}
		b.Run(layout+"/read", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				rec.Reset()
				if err := d.Read(ctx, table, keys[i%records], nil, &rec); err != nil || rec.Len() != 10 {
					b.Fatal(rec.Len(), err)
				}
			}
		})
		b.Run(layout+"/update", func(b *testing.B) {
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
}
