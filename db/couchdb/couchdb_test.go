package couchdb_test

import (
	"context"
	"strings"
	"testing"

	kivik "github.com/go-kivik/kivik/v4"
	_ "github.com/go-kivik/kivik/v4/couchdb"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

func destroy(t *testing.T, url string, names ...string) {
	t.Helper()
	c, err := kivik.New("couch", url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, n := range names {
		if ok, _ := c.DBExists(context.Background(), n); ok {
			if err := c.DestroyDB(context.Background(), n); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// The test server is pouchdb-server (CouchDB HTTP API), and the results
// say so.
func TestPouchDBServer(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHDB_URL")
	destroy(t, url, "sbdirect", "usertable")
	d := dbtest.Open(t, "couchdb", "couchdb.url", url)
	dbtest.Operations(t, d, "sbdirect", true)
	v, err := d.(db.Describer).ServerVersion(context.Background())
	if err != nil || !strings.HasPrefix(v, "PouchDB Server") {
		t.Errorf("server version %q (%v): a pouchdb-server must be labelled as such", v, err)
	}
	dbtest.Workloads(t, "couchdb", 10000, 1000, 500, "couchdb.url", url)
}

func TestBatchedLoad(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHDB_URL")
	destroy(t, url, "sbbatch")
	dbtest.BatchLoad(t, "couchdb", "sbbatch", 2000, "couchdb.url", url)
}

func TestBadInput(t *testing.T) {
	b, _ := db.Lookup("couchdb")
	if _, err := b.Open(context.Background(), dbtest.Props("couchdb.url", "ftp://x"), db.Options{Threads: 1}); err == nil || !strings.Contains(err.Error(), "couchdb.url") {
		t.Errorf("err = %v", err)
	}
	_, err := b.Open(context.Background(), dbtest.Props("couchdb.url", "http://admin:hunter2@127.0.0.1:1/", "couchdb.timeout", "500"), db.Options{Threads: 1})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("connect error %v: must name the server and hide the password", err)
	}
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHDB_URL")
	d := dbtest.Open(t, "couchdb", "couchdb.url", url)
	if err := d.(db.Preparer).Prepare(context.Background(), "UserTable", true); err == nil {
		t.Error("an upper-case database name was accepted")
	}
}

func TestPagination(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHDB_URL")
	destroy(t, url, "customer")
	d := dbtest.Open(t, "couchdb", "couchdb.url", url)
	dbtest.Pagination(t, d, "couchdb", 1500, 300, "couchdb.url", url, "batchsize", "100")
	// The query uses the index servbench created (_explain names it).
	c, err := kivik.New("couch", url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	plan, err := c.DB("customer").Explain(context.Background(), map[string]any{"selector": map[string]any{"address.country": "France"}, "skip": 1, "limit": 10})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Index["name"] != "query1" && plan.Index["ddoc"] != "_design/query1" {
		t.Errorf("_find uses index %+v, not query1", plan.Index)
	}
}
