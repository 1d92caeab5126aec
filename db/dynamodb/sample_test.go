package dynamodb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

// The consumed capacity DynamoDB Local reports, summed, matches DynamoDB's
// documented rounding for the items written and read: a write of up to
// 1 KB is one write unit (rounded up per KB), a strongly consistent read
// of up to 4 KB one read unit, an eventually consistent one half.
func TestConsumedCapacity(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	for _, consistent := range []bool{false, true} {
		table := fmt.Sprintf("sbcap%v", consistent)
		dropTables(t, endpoint, table)
		d := dbtest.Open(t, "dynamodb", "dynamodb.endpoint", endpoint, "dynamodb.consistentreads", fmt.Sprint(consistent))
		ctx := context.Background()
		if err := d.(db.Preparer).Prepare(ctx, table, true); err != nil {
			t.Fatal(err)
		}
		small, large := &db.Record{}, &db.Record{}
		small.Add("field0", []byte(strings.Repeat("x", 100)))  // about 130 bytes: 1 WU
		large.Add("field0", []byte(strings.Repeat("x", 2500))) // about 2.5 KB: 3 WU
		const items, reads = 10, 5
		for i := range items {
			rec := small
			if i%2 == 1 {
				rec = large
			}
			if err := d.Insert(ctx, table, fmt.Sprintf("key%02d", i), rec); err != nil {
				t.Fatal(err)
			}
		}
		dst := &db.Record{}
		for i := range items * reads {
			dst.Reset()
			if err := d.Read(ctx, table, fmt.Sprintf("key%02d", i%items), nil, dst); err != nil {
				t.Fatal(err)
			}
		}
		s, err := d.(db.Sampler).Sample(ctx)
		if err != nil || !s.PerClient {
			t.Fatalf("sample %+v, %v: want this client's units", s, err)
		}
		got := map[string]float64{}
		for _, st := range s.Stats {
			got[st.Name] = st.Value
		}
		wantWrite := float64(items/2*1 + items/2*3)
		wantRead := float64(items*reads) * 0.5
		if consistent {
			wantRead *= 2
		}
		if got["write_units"] != wantWrite || got["read_units"] != wantRead {
			t.Errorf("consistent reads %v: %v write and %v read units, want %v and %v", consistent, got["write_units"], got["read_units"], wantWrite, wantRead)
		}
	}
}
