package couchbase_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/couchbase"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/db/jsondoc"
)

// Key-value operations against CouchbaseMock (which has no query engine
// and no range scans: scans and workload E are not run against it).
func TestCouchbaseMockKV(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	d := dbtest.Open(t, "couchbase", "couchbase.url", url)
	for i := 0; i < 30; i++ { // a rerun against the same mock starts clean
		d.Delete(context.Background(), "usertable", fmt.Sprintf("sbkey%03d", i))
	}
	dbtest.OperationsNoScan(t, d, "usertable")
	v, err := d.(db.Describer).ServerVersion(context.Background())
	if err != nil || !strings.Contains(v, "CouchbaseMock") || !strings.Contains(v, "SQL++ scans not exercised") {
		t.Errorf("server version %q (%v): the mock must be labelled as such", v, err)
	}
	dbtest.WorkloadsOf(t, []string{"a", "b", "c", "f", "d"}, "couchbase", 10000, 2000, 0,
		"couchbase.url", url, "couchbase.upsert", "true")
}

func TestReplaceUpdateAndBadInput(t *testing.T) {
	b, _ := db.Lookup("couchbase")
	for _, kv := range [][]string{
		{"couchbase.url", "http://127.0.0.1"},
		{"couchbase.durability", "sometimes"},
		{"couchbase.scanmode", "random"},
	} {
		if _, err := b.Open(context.Background(), dbtest.Props(kv...), db.Options{Threads: 1}); err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%v: err = %v", kv, err)
		}
	}
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	// replace (YCSB's couchbase2 binding) and upsert (collection.upsert,
	// the 2023 study's and YCSB's couchbase3 binding's) write the updated
	// fields as the whole document; subdoc keeps the others. An upsert
	// also writes a document that is not there; a replace does not.
	for mode, left := range map[string]int{"replace": 1, "upsert": 1, "subdoc": 2} {
		d := dbtest.Open(t, "couchbase", "couchbase.url", url, "couchbase.update", mode, "couchbase.upsert", "true")
		ctx := context.Background()
		r := &db.Record{}
		r.Add("field0", []byte("a"))
		r.Add("field1", []byte("b"))
		key := "sbupdate-" + mode
		if err := d.Insert(ctx, "", key, r); err != nil {
			t.Fatal(err)
		}
		u := &db.Record{}
		u.Add("field1", []byte("c"))
		if err := d.Update(ctx, "", key, u); err != nil {
			t.Fatal(err)
		}
		var got db.Record
		if err := d.Read(ctx, "", key, nil, &got); err != nil || got.Len() != left {
			t.Errorf("%s update left %d fields, want %d: %v", mode, got.Len(), left, err)
		}
		d.Delete(ctx, "", key+"-none")
		err := d.Update(ctx, "", key+"-none", u)
		if (err == nil) != (mode == "upsert") {
			t.Errorf("%s update of a missing document: %v", mode, err)
		}
		d.Delete(ctx, "", key+"-none")
	}
}

// Customer documents through the key-value paths (the mock has no query
// engine: the pagination query itself is checked by its statement tests).
func TestCustomerDocumentsKV(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	dbtest.WorkloadsOf(t, []string{"a", "c", "f"}, "couchbase", 2000, 1000, 0,
		"couchbase.url", url, "couchbase.upsert", "true", "document", "customer")
	d := dbtest.Open(t, "couchbase", "couchbase.url", url)
	var r db.Record
	if err := d.Read(context.Background(), "usertable", "user6284781860667377211", []string{"address", "doc_id"}, &r); err != nil {
		t.Fatal(err)
	}
	if v, ok := jsondoc.FieldValue(&r, []string{"address", "country"}); !ok || len(v) == 0 || !r.JSON {
		t.Errorf("address.country of customer 0: %q (JSON %v)", v, r.JSON)
	}
}

// A scan's documents are read with one bulk get (every get sent before
// an answer is awaited, as YCSB's couchbase2 binding's asynchronous
// gets), each in the order of the ids found, to the fields asked for,
// one deleted since left out. (The ids come from SQL++ or a range scan,
// which the mock has not: given here.)
func TestScanReadsItsDocumentsAtOnce(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	d := dbtest.Open(t, "couchbase", "couchbase.url", url, "couchbase.upsert", "true")
	ctx := context.Background()
	var ids []string
	for i := range 50 {
		id := fmt.Sprintf("sbscan%03d", i)
		ids = append(ids, id)
		r := &db.Record{}
		r.Add("field0", []byte("a"+id))
		r.Add("field1", []byte("b"+id))
		if err := d.Insert(ctx, "", id, r); err != nil {
			t.Fatal(err)
		}
	}
	d.Delete(ctx, "", "sbscan007")
	var dst db.RecordSet
	if err := couchbase.GetAll(ctx, d, "", ids, []string{"field1"}, &dst); err != nil {
		t.Fatal(err)
	}
	if dst.Len() != 49 {
		t.Fatalf("%d documents, want 49 (one deleted)", dst.Len())
	}
	for i, k := 0, 0; i < 50; i++ {
		if i == 7 {
			continue
		}
		r := dst.Row(k)
		k++
		v, _ := r.Get("field1")
		if string(r.Key) != ids[i] || r.Len() != 1 || string(v) != "b"+ids[i] {
			t.Errorf("document %d: key %q, %d fields, field1 %q", i, r.Key, r.Len(), v)
		}
	}
}
