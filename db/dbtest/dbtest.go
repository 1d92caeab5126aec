// Package dbtest is the conformance suite every network binding runs
// against its real server: direct checks of each operation, then YCSB
// workloads A to F with data integrity through the engine.
package dbtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workload"
	"github.com/servbench/servbench/workload/customer"
	"github.com/servbench/servbench/workloads"
)

// ServerURL returns the connection URL in the environment variable name
// (set by scripts/test from scripts/servers). Without it the test is
// skipped, or fails when SERVBENCH_REQUIRE_SERVERS=1 (the test command sets
// it, so CI never passes with untested bindings).
func ServerURL(t testing.TB, name string) string {
	t.Helper()
	u := os.Getenv(name)
	if u == "" {
		if os.Getenv("SERVBENCH_REQUIRE_SERVERS") == "1" {
			t.Fatalf("%s is not set but servers are required; start them with scripts/servers", name)
		}
		t.Skipf("integration test: set %s (scripts/servers start ...; eval $(scripts/servers env ...)) to run it", name)
	}
	return u
}

// Open opens binding with the properties given as key, value pairs.
func Open(t testing.TB, binding string, kv ...string) db.DB {
	t.Helper()
	b, err := db.Lookup(binding)
	if err != nil {
		t.Fatal(err)
	}
	p := Props(kv...)
	cfg, err := workload.ParseConfig(p.Clone())
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.Open(context.Background(), p, db.Options{Threads: 1, Schema: cfg.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// workloadProps is built-in workload wl's properties with the key, value
// pairs set over them.
func workloadProps(t *testing.T, wl string, kv ...string) *props.Props {
	t.Helper()
	p := props.New()
	if err := workloads.Load(p, wl); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test")
	}
	return p
}

// Props builds properties from key, value pairs.
func Props(kv ...string) *props.Props {
	p := props.New()
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test")
	}
	return p
}

func rec(kv ...string) *db.Record {
	r := &db.Record{}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Add(kv[i], []byte(kv[i+1]))
	}
	return r
}

// Operations checks each operation directly on table: insert and read
// back, read of some fields, update keeping the other fields, scans in key
// order from the start key, delete, and NOT_FOUND for missing keys.
// ordered is false for bindings whose scan order is not key order.
func Operations(t *testing.T, d db.DB, table string, ordered bool) {
	operations(t, d, table, ordered, true)
}

// OperationsNoScan is Operations for a server that cannot scan (a
// key-value-only stand-in).
func OperationsNoScan(t *testing.T, d db.DB, table string) {
	operations(t, d, table, false, false)
}

func operations(t *testing.T, d db.DB, table string, ordered, scan bool) {
	t.Helper()
	ctx := context.Background()
	if p, ok := d.(db.Preparer); ok {
		if err := p.Prepare(ctx, table, true); err != nil {
			t.Fatalf("prepare: %v", err)
		}
	}
	for i := 0; i < 30; i++ {
		key := fmt.Sprintf("sbkey%03d", i)
		if err := d.Insert(ctx, table, key, rec("field0", "v0-"+key, "field1", "v1-"+key, "field2", "x")); err != nil {
			t.Fatalf("insert %s: %v", key, err)
		}
	}
	var r db.Record
	if err := d.Read(ctx, table, "sbkey007", nil, &r); err != nil {
		t.Fatalf("read: %v", err)
	}
	if v, _ := r.Get("field1"); string(v) != "v1-sbkey007" || r.Len() != 3 {
		t.Errorf("read all fields: field1=%q, %d fields", v, r.Len())
	}
	namedFields(t, d, table, &r)
	if err := d.Update(ctx, table, "sbkey007", rec("field1", "updated")); err != nil {
		t.Fatalf("update: %v", err)
	}
	r.Reset()
	d.Read(ctx, table, "sbkey007", nil, &r)
	f0, _ := r.Get("field0")
	f1, _ := r.Get("field1")
	if string(f0) != "v0-sbkey007" || string(f1) != "updated" {
		t.Errorf("after update: field0=%q field1=%q (update must keep other fields)", f0, f1)
	}

	if scan {
		scans(t, d, table, ordered)
	}

	if err := d.Delete(ctx, table, "sbkey007"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	r.Reset()
	err := d.Read(ctx, table, "sbkey007", nil, &r)
	if !errors.Is(err, db.ErrNotFound) || db.Classify(err, false) != db.NotFound {
		t.Errorf("read of a deleted key: %v, want NOT_FOUND", err)
	}
	r.Reset()
	if err := d.Read(ctx, table, "no-such-key", nil, &r); db.Classify(err, false) != db.NotFound {
		t.Errorf("read of a missing key: %v, want NOT_FOUND", err)
	}
	if ds, ok := d.(db.Describer); ok {
		if v, err := ds.ServerVersion(ctx); err != nil || v == "" {
			t.Errorf("server version: %q, %v", v, err)
		}
	}
	tablesApart(t, d, table)
}

// namedFields checks reads of named fields (readallfields=false) of
// sbkey007, as operations wrote it, into r: one, as YCSB's workloads
// read, then two in an order of their own.
func namedFields(t *testing.T, d db.DB, table string, r *db.Record) {
	t.Helper()
	ctx := context.Background()
	for _, names := range [][]string{{"field0"}, {"field2"}, {"field2", "field1"}} {
		r.Reset()
		err := d.Read(ctx, table, "sbkey007", names, r)
		want := map[string]string{"field0": "v0-sbkey007", "field1": "v1-sbkey007", "field2": "x"}
		if err != nil || r.Len() != len(names) {
			t.Errorf("read %v: %v, %d fields", names, err, r.Len())
			continue
		}
		for _, n := range names {
			if v, ok := r.Get(n); !ok || string(v) != want[n] {
				t.Errorf("read %v: %s=%q, want %q", names, n, v, want[n])
			}
		}
	}
}

// scans checks scans from sbkey010 of the 30 records operations wrote:
// the rows in key order when ordered, else 1 to 5 of them; then a scan
// of one named field.
func scans(t *testing.T, d db.DB, table string, ordered bool) {
	t.Helper()
	ctx := context.Background()
	var rs db.RecordSet
	if err := d.Scan(ctx, table, "sbkey010", 5, nil, &rs); err != nil {
		t.Fatalf("scan: %v", err)
	}
	var keys []string
	for i := 0; i < rs.Len(); i++ {
		keys = append(keys, string(rs.Row(i).Key))
		if rs.Row(i).Len() != 3 {
			t.Errorf("scan row %s has %d fields", rs.Row(i).Key, rs.Row(i).Len())
		}
	}
	if ordered {
		want := []string{"sbkey010", "sbkey011", "sbkey012", "sbkey013", "sbkey014"}
		if fmt.Sprint(keys) != fmt.Sprint(want) {
			t.Errorf("scan from sbkey010: %v, want %v", keys, want)
		}
	} else if len(keys) == 0 || len(keys) > 5 {
		// Hash order: the scan may end before 5 rows, but not return none
		// or more than asked.
		t.Errorf("scan returned %d rows, want 1 to 5", len(keys))
	}
	rs.Reset()
	if err := d.Scan(ctx, table, "sbkey010", 5, []string{"field1"}, &rs); err != nil || rs.Len() == 0 {
		t.Fatalf("scan of field1: %v, %d rows", err, rs.Len())
	}
	for i := 0; i < rs.Len(); i++ {
		row := rs.Row(i)
		if v, _ := row.Get("field1"); row.Len() != 1 || string(v) != "v1-"+string(row.Key) {
			t.Errorf("scan of field1, row %s: %d fields, field1=%q", row.Key, row.Len(), v)
		}
	}
}

// tablesApart checks that a record written in one table is not in
// another (a plan keeps each data set in a table of its own), or, for a
// binding that says it keeps every table's records in one place
// (db.OneTable), that it is.
func tablesApart(t *testing.T, d db.DB, table string) {
	t.Helper()
	ctx := context.Background()
	other := table + "_apart"
	if p, ok := d.(db.Preparer); ok {
		if err := p.Prepare(ctx, other, true); err != nil {
			t.Fatalf("prepare %s: %v", other, err)
		}
	}
	d.Delete(ctx, table, "sbapart")
	d.Delete(ctx, other, "sbapart")
	if err := d.Insert(ctx, other, "sbapart", rec("field0", "in-"+other, "field1", "x", "field2", "x")); err != nil {
		t.Fatalf("insert into %s: %v", other, err)
	}
	var r db.Record
	err := d.Read(ctx, table, "sbapart", nil, &r)
	_, one := d.(db.OneTable)
	switch {
	case one && err != nil:
		t.Errorf("the binding says it keeps every table in one place, but a record written in %s is not read in %s: %v", other, table, err)
	case !one && db.Classify(err, false) != db.NotFound:
		t.Errorf("a record written in %s is read in %s (%v): data sets in tables of their own would share records; a binding that keeps one table says so (db.OneTable)", other, table, err)
	}
	d.Delete(ctx, other, "sbapart")
}

// runPhase runs one phase through the engine and returns its result document.
func runPhase(t *testing.T, phase engine.Phase, binding, wl string, kv ...string) *result.Doc {
	t.Helper()
	p := workloadProps(t, wl, kv...)
	var log errorBuffer
	res, err := engine.Run(context.Background(), engine.Spec{Binding: binding, Properties: p, Phase: phase, Threads: 4, Log: &log})
	if err != nil {
		t.Fatalf("%s %s, workload %s: %v\n%s", phase, binding, wl, err, log)
	}
	if res.Err != nil {
		t.Fatalf("%s %s, workload %s: %v", phase, binding, wl, res.Err)
	}
	if res.CloseErr != nil {
		t.Errorf("%s %s: close: %v", phase, binding, res.CloseErr)
	}
	return res.Doc()
}

type errorBuffer []byte

func (b *errorBuffer) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }
func (b errorBuffer) String() string               { return string(b) }

// Workloads loads records (with data integrity) through the engine
// and runs YCSB workloads A, B, C, F, D and E on them, each with
// dataintegrity=true: every operation must succeed and every VERIFY must be
// OK. E runs after D with insertcount set, so its inserts go to keys of
// their own (servbench's per-client insert range).
//
// scanOps is workload E's operation count: a stand-in that scans slowly
// (FerretDB v1 sorts in Go) can take fewer.
func Workloads(t *testing.T, binding string, records, ops, scanOps int, kv ...string) {
	t.Helper()
	WorkloadsOf(t, []string{"a", "b", "c", "f", "d", "e"}, binding, records, ops, scanOps, kv...)
}

// WorkloadsOf is Workloads for the listed built-in workloads only.
func WorkloadsOf(t *testing.T, list []string, binding string, records, ops, scanOps int, kv ...string) {
	t.Helper()
	common := append([]string{"dataintegrity", "true", "recordcount", strconv.Itoa(records)}, kv...)
	load := runPhase(t, engine.LoadPhase, binding, "a", common...)
	if load.Operations != int64(records) || load.OKOperations != int64(records) {
		t.Fatalf("load: %d operations, %d ok; want %d", load.Operations, load.OKOperations, records)
	}
	if load.Server == "" {
		t.Error("the result does not record the server's version")
	}
	for _, w := range list {
		n := ops
		if w == "e" {
			n = scanOps
		}
		args := append([]string{"operationcount", strconv.Itoa(n)}, common...)
		if w == "e" {
			args = append(args, "recordcount", strconv.Itoa(2*records), "insertcount", strconv.Itoa(records))
		}
		d := runPhase(t, engine.RunPhase, binding, w, args...)
		if d.Stop != result.Completed || d.Operations != int64(n) || d.OKOperations != d.Operations {
			t.Errorf("workload %s: %s, %d operations, %d ok", w, d.Stop, d.Operations, d.OKOperations)
		}
		verified := false
		for _, op := range d.Ops {
			for status, n := range op.Outcomes {
				if status != "OK" {
					t.Errorf("workload %s: %s %s = %d (the first: %s)", w, op.Name, status, n, op.Errors[status])
				}
			}
			if op.Name == "VERIFY" {
				verified = op.Outcomes["OK"] > 0
			}
		}
		if w != "e" && !verified && verifying(kv) {
			t.Errorf("workload %s: nothing was verified", w)
		}
	}
}

// verifying reports whether the caller left data integrity on: a binding
// that stores nothing (basic) runs the workloads with dataintegrity=false.
func verifying(kv []string) bool {
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "dataintegrity" && kv[i+1] == "false" {
			return false
		}
	}
	return true
}

// BatchLoad loads records with batchsize=100 into table through the command
// line, then reads them back with workload C and data integrity: every
// record must be there with the right values.
func BatchLoad(t *testing.T, binding, table string, records int, kv ...string) {
	t.Helper()
	common := append([]string{"dataintegrity", "true", "recordcount", strconv.Itoa(records), "table", table}, kv...)
	load := runPhase(t, engine.LoadPhase, binding, "c", append([]string{"batchsize", "100"}, common...)...)
	batches := int64(0)
	for _, op := range load.Ops {
		if op.Name == "BATCH-INSERT" {
			batches = op.Outcomes["OK"]
		}
	}
	if load.OKOperations != int64(records) || batches == 0 || batches > int64(records/100+4) {
		t.Fatalf("batched load: %d records ok in %d batch calls", load.OKOperations, batches)
	}
	run := runPhase(t, engine.RunPhase, binding, "c", append([]string{"operationcount", "500", "requestdistribution", "uniform"}, common...)...)
	for _, op := range run.Ops {
		for status, n := range op.Outcomes {
			if status != "OK" {
				t.Errorf("after a batched load: %s %s = %d", op.Name, status, n)
			}
		}
	}
}

// Pagination loads records customer documents into their table with
// createindexes=true through the engine, checks pages directly on d
// (d may be nil to skip that), then runs the pagination workload with data
// integrity (ids only, then whole documents) and a mix of reads, updates
// and queries on the same documents: every operation must succeed and
// every query must verify. It returns the run's JSON result.
func Pagination(t *testing.T, d db.DB, binding string, records, ops int, kv ...string) *result.Doc {
	t.Helper()
	common := append([]string{"recordcount", strconv.Itoa(records)}, kv...)
	load := runPhase(t, engine.LoadPhase, binding, "pagination", append([]string{"createindexes", "true"}, common...)...)
	if load.OKOperations != int64(records) {
		t.Fatalf("load: %d of %d customers ok", load.OKOperations, records)
	}
	if load.QueryModel == "" {
		t.Error("the result does not say how the binding answers queries")
	}
	if d != nil {
		if ix, ok := d.(db.Indexer); ok { // d learns the field, as the command's instances did
			q := db.NewQuery(customer.FilterField)
			if _, err := ix.Index(context.Background(), "customer", db.Index{Field: q.Field, Path: q.Path}); err != nil {
				t.Fatal(err)
			}
		}
		Pages(t, d, "customer", records)
	}
	run := func(name string, args ...string) *result.Doc {
		t.Helper()
		r := runPhase(t, engine.RunPhase, binding, "pagination", append(append([]string{"dataintegrity", "true"}, args...), common...)...)
		var queries, verified int64
		for _, op := range r.Ops {
			for status, n := range op.Outcomes {
				if status != "OK" {
					t.Errorf("%s: %s %s = %d (the first: %s)", name, op.Name, status, n, op.Errors[status])
				}
			}
			switch op.Name {
			case "QUERY":
				queries = op.Count
			case "VERIFY":
				verified = op.Outcomes["OK"]
			}
		}
		if r.Stop != result.Completed || queries == 0 || verified < queries {
			t.Errorf("%s: %s, %d queries, %d verified", name, r.Stop, queries, verified)
		}
		return r
	}
	doc := run("pagination", "operationcount", strconv.Itoa(ops))
	run("pagination with documents", "operationcount", strconv.Itoa(ops/4+1), "querydocuments", "true")
	run("reads, updates and queries", "operationcount", strconv.Itoa(ops),
		"query1proportion", "0.3", "readproportion", "0.3", "updateproportion", "0.4", "requestdistribution", "zipfian")
	return doc
}

// Pages checks queries directly on the customers loaded into table: a page
// holds exactly the documents of the filtered country (read back), LIMIT
// bounds it, OFFSET skips into the same order, and a value nobody has
// returns nothing.
func Pages(t *testing.T, d db.DB, table string, records int) {
	t.Helper()
	ctx := context.Background()
	qr, ok := d.(db.Querier)
	if !ok {
		t.Fatal("the binding does not answer queries")
	}
	country := customer.Country(0)
	have := 0
	for n := 0; n < records; n++ {
		if customer.Country(int64(n)) == country {
			have++
		}
	}
	q := db.NewQuery(customer.FilterField)
	q.Value, q.Offset, q.Limit = country, 0, 10
	var all, page db.RecordSet
	if err := qr.Query(ctx, table, q, &all); err != nil {
		t.Fatalf("query %s: %v", country, err)
	}
	if all.Len() != min(10, have) {
		t.Fatalf("query %s LIMIT 10: %d rows, want %d", country, all.Len(), min(10, have))
	}
	var r db.Record
	for i := 0; i < all.Len(); i++ {
		r.Reset()
		key := string(all.Row(i).Key)
		if err := d.Read(ctx, table, key, []string{"doc_id", "address"}, &r); err != nil {
			t.Fatalf("read back %s: %v", key, err)
		}
		if v, _ := jsondoc.FieldValue(&r, q.Path); string(v) != country {
			t.Errorf("%s has address.country %q, not %q", key, v, country)
		}
	}
	q.Offset, q.Limit = 4, 6
	if err := qr.Query(ctx, table, q, &page); err != nil {
		t.Fatal(err)
	}
	if page.Len() != min(6, max(0, have-4)) {
		t.Fatalf("OFFSET 4 LIMIT 6: %d rows", page.Len())
	}
	for i := 0; i < page.Len(); i++ {
		if got, want := string(page.Row(i).Key), string(all.Row(4+i).Key); got != want {
			t.Errorf("OFFSET 4 row %d is %s, LIMIT 10 row %d is %s", i, got, 4+i, want)
		}
	}
	q.Value = "Atlantis"
	page.Reset()
	if err := qr.Query(ctx, table, q, &page); err != nil || page.Len() != 0 {
		t.Errorf("query for a country nobody has: %d rows, %v", page.Len(), err)
	}
}

// ServerSide loads records and runs ops operations of workload wl through
// the engine, and returns the run's result and its binding's server-side
// source, which must be there and read without error.
func ServerSide(t *testing.T, binding, wl string, records, ops int, kv ...string) (*result.Doc, *result.Source) {
	t.Helper()
	kv = append(kv, "recordcount", strconv.Itoa(records), "operationcount", strconv.Itoa(ops))
	runPhase(t, engine.LoadPhase, binding, wl, kv...)
	d := runPhase(t, engine.RunPhase, binding, wl, kv...)
	src := d.ServerSide.Find(result.SourceBinding, binding)
	if src == nil {
		t.Fatalf("%s: no server-side source in the result", binding)
	}
	if src.Error != "" {
		t.Fatalf("%s: server side: %s", binding, src.Error)
	}
	return d, src
}

// Total is the growth of the counter name (summed over its nodes) in src,
// failing the test when src has no such series.
func Total(t *testing.T, src *result.Source, name string) float64 {
	t.Helper()
	v, found := 0.0, false
	for _, x := range src.Series {
		if x.Name == name {
			v, found = v+x.Total, true
		}
	}
	if !found {
		t.Fatalf("%s: no series %s", src.Name, name)
	}
	return v
}

// Admin runs setup statements through the engine as a plan's setup steps
// do (the binding opened for a load, its table prepared, {table}
// replaced) and returns each statement's answer, or its error as text
// ("error: ..."); the statements after a failed one are not run.
func Admin(t *testing.T, binding string, statements []string, kv ...string) []string {
	t.Helper()
	s, err := engine.Check(engine.Spec{Binding: binding, Properties: workloadProps(t, "a", kv...), Phase: engine.LoadPhase, Threads: 1})
	if err != nil {
		t.Fatalf("%s: %v", binding, err)
	}
	out := make([]string, 0, len(statements))
	err = s.Admin(context.Background(), statements, func(i int, answer string, _ time.Duration, err error) {
		if err != nil {
			answer = "error: " + err.Error()
		}
		out = append(out, answer)
	})
	if err != nil && len(out) == 0 {
		t.Fatalf("%s: %v", binding, err)
	}
	return out
}

// BenchmarkOperations measures a binding's own cost per operation on one
// thread against a real server: it inserts 1,000 records of ten 100-byte
// fields into table (prepared), then reads all fields (workload C) and
// one (readallfields=false), updates one (A), scans ten records of all fields (E) and inserts new
// records of ten fields (a load) as sub-benchmarks.
func BenchmarkOperations(b *testing.B, d db.DB, table string) {
	ctx := context.Background()
	if p, ok := d.(db.Preparer); ok {
		if err := p.Prepare(ctx, table, true); err != nil {
			b.Fatal(err)
		}
	}
	var rec db.Record
	value := bytes.Repeat([]byte("v"), 100)
	const records = 1000
	keys := make([]string, records)
	fields := make([]string, 10)
	for f := range fields {
		fields[f] = "field" + strconv.Itoa(f)
	}
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
	b.Run("read-field", func(b *testing.B) { // readallfields=false
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			rec.Reset()
			if err := d.Read(ctx, table, keys[i%records], fields[i%10:i%10+1], &rec); err != nil || rec.Len() != 1 {
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
	b.Run("scan", func(b *testing.B) {
		b.ReportAllocs()
		var rs db.RecordSet
		for i := 0; b.Loop(); i++ {
			rs.Reset()
			if err := d.Scan(ctx, table, keys[i%records], 10, nil, &rs); err != nil || rs.Len() == 0 {
				b.Fatal(rs.Len(), err)
			}
		}
	})
	b.Run("insert", func(b *testing.B) {
		b.ReportAllocs()
		key := []byte("new")
		for i := 0; b.Loop(); i++ {
			rec.Reset()
			for f := range 10 {
				rec.Add(fields[f], value)
			}
			if err := d.Insert(ctx, table, string(strconv.AppendInt(key[:3], int64(i), 10)), &rec); err != nil {
				b.Fatal(err)
			}
		}
	})
}
