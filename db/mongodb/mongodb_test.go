package mongodb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func dropDB(t *testing.T, url, name string) {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(url))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	if err := c.Database(name).Drop(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// The test server is FerretDB (MongoDB wire protocol), and the results say
// so: the server version names FerretDB, never MongoDB.
func TestFerretDB(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_MONGODB_URL")
	dropDB(t, url, "sbtest")
	d := dbtest.Open(t, "mongodb", "mongodb.url", url, "mongodb.database", "sbtest")
	dbtest.Operations(t, d, "sbdirect", true)
	v, err := d.(db.Describer).ServerVersion(context.Background())
	if err != nil || !strings.HasPrefix(v, "FerretDB") {
		t.Errorf("server version %q (%v): a FerretDB server must be labelled FerretDB", v, err)
	}
	dbtest.Workloads(t, "mongodb", 10000, 1000, 40, "mongodb.url", url, "mongodb.database", "sbtest",
		"mongodb.writeconcern", "acknowledged")
}

func TestBatchedLoad(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_MONGODB_URL")
	dropDB(t, url, "sbbatch")
	dbtest.BatchLoad(t, "mongodb", "usertable", 2000, "mongodb.url", url, "mongodb.database", "sbbatch")
}

func TestBadProperties(t *testing.T) {
	b, _ := db.Lookup("mongodb")
	for _, kv := range [][]string{
		{"mongodb.url", "http://127.0.0.1"},
		{"mongodb.writeconcern", "sometimes"},
		{"mongodb.readpreference", "anywhere"},
	} {
		_, err := b.Open(context.Background(), dbtest.Props(kv...), db.Options{Threads: 1})
		if err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%v: err = %v", kv, err)
		}
	}
	_, err := b.Open(context.Background(), dbtest.Props("mongodb.url", "mongodb://admin:hunter2@127.0.0.1:1/", "mongodb.connecttimeout", "300"), db.Options{Threads: 1})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("connect error %v: must name the server and hide the password", err)
	}
}

func TestPagination(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_MONGODB_URL")
	dropDB(t, url, "sbpage")
	d := dbtest.Open(t, "mongodb", "mongodb.url", url, "mongodb.database", "sbpage")
	// FerretDB 1.x rejects arrays nested in arrays (linked_devices).
	r := dbtest.Pagination(t, d, "mongodb", 300, 40, "mongodb.url", url, "mongodb.database", "sbpage", "batchsize", "100",
		"mongodb.nestedarrays", "object")
	if !strings.Contains(r.QueryModel, "nestedarrays=object") {
		t.Errorf("the results do not say the documents were changed: %q", r.QueryModel)
	}
	c, err := mongo.Connect(options.Client().ApplyURI(url))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Disconnect(context.Background())
	specs, err := c.Database("sbpage").Collection("customer").Indexes().ListSpecifications(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range specs {
		found = found || s.Name == "query1" && strings.Contains(string(s.KeysDocument), "address.country")
	}
	if !found {
		t.Errorf("no query1 index on address.country: %v", specs)
	}
}

// A server that accepts but never answers fails the connection in
// mongodb.connecttimeout, with the property named.
func TestConnectTimeout(t *testing.T) {
	addr := dbtest.SilentServer(t)
	b, _ := db.Lookup("mongodb")
	_, err := b.Open(context.Background(), dbtest.Props("mongodb.url", "mongodb://"+addr+"/x", "mongodb.connecttimeout", "300"), db.Options{Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "no answer within 300ms (mongodb.connecttimeout)") {
		t.Errorf("err = %v, want a timeout naming mongodb.connecttimeout", err)
	}
}

// A setup statement is a command as JSON, on the binding's database or
// the one "$db" names.
func TestAdmin(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_MONGODB_URL")
	got := dbtest.Admin(t, "mongodb", []string{
		`{"createIndexes": "{table}", "indexes": [{"key": {"field1": 1}, "name": "sb_admin_f1"}]}`,
		`{"listIndexes": "{table}"}`,
		`{"ping": 1, "$db": "admin"}`,
		`{"ping": 1, "$db": 3}`,
	}, "mongodb.url", url, "table", "sbadmin")
	if len(got) != 4 || !strings.Contains(got[0], `"ok":`) || !strings.Contains(got[1], "sb_admin_f1") || !strings.Contains(got[2], `"ok":`) || got[3] != `error: mongodb: "$db" names a database` {
		t.Errorf("answers %q", got)
	}
	got = dbtest.Admin(t, "mongodb", []string{`{"ping": `}, "mongodb.url", url, "table", "sbadmin")
	if len(got) != 1 || !strings.HasPrefix(got[0], "error: mongodb: a command is a JSON document") {
		t.Errorf("bad JSON: %q", got)
	}
	// A command the server does not have (sharding on a server that is
	// no router: FerretDB here) is NOT_IMPLEMENTED, which a rehearsal
	// states as not rehearsable instead of failing its data set.
	got = dbtest.Admin(t, "mongodb", []string{`{"servbenchNoSuchCommand": 1}`}, "mongodb.url", url, "table", "sbadmin")
	if len(got) != 1 || !strings.Contains(got[0], "NOT_IMPLEMENTED: the server has no such command") {
		t.Errorf("a command the server does not have: %q", got)
	}
	// What FerretDB, the stand-in here, cannot run (a hashed index, S1's
	// Atlas setup) is NOT_IMPLEMENTED on it too.
	got = dbtest.Admin(t, "mongodb", []string{`{"createIndexes": "{table}", "indexes": [{"key": {"_id": "hashed"}, "name": "_id_hashed"}]}`}, "mongodb.url", url, "table", "sbadmin")
	if len(got) != 1 || strings.HasPrefix(got[0], "error: ") && !strings.Contains(got[0], "NOT_IMPLEMENTED: FerretDB") {
		t.Errorf("a hashed index on the stand-in: %q", got)
	}
}

// More updates at once than FerretDB's PostgreSQL pool held by default
// (50: each update holds one connection while it waits for a second)
// all complete: scripts/servers sizes the stand-in's pool past what its
// runs send (S2's rehearsal sends 512 at once), where it used to stop
// answering every client for good.
func TestManyUpdatesAtOnce(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_MONGODB_URL")
	dropDB(t, url, "sbmany")
	const writers = 120
	d := dbtest.Open(t, "mongodb", "mongodb.url", url, "mongodb.database", "sbmany", "mongodb.poolsize", "200")
	ctx := context.Background()
	if err := d.(db.Preparer).Prepare(ctx, "usertable", true); err != nil {
		t.Fatal(err)
	}
	rec := func(v string) *db.Record { r := &db.Record{}; r.Add("field0", []byte(v)); return r }
	for i := range 10 {
		if err := d.Insert(ctx, "usertable", fmt.Sprintf("k%d", i), rec("x")); err != nil {
			t.Fatal(err)
		}
	}
	// A wedged server answers nothing: each update is given long enough
	// for any machine, and one that ends with its context failed.
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	errs := make(chan error, writers)
	for w := range writers {
		go func() {
			var err error
			for i := range 5 {
				if err = d.Update(ctx, "usertable", fmt.Sprintf("k%d", (w+i)%10), rec(fmt.Sprintf("w%d-%d", w, i))); err != nil {
					break
				}
			}
			errs <- err
		}()
	}
	failed := 0
	for range writers {
		if err := <-errs; err != nil {
			if failed++; failed == 1 {
				t.Errorf("update: %v", err)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d writers failed: the server stopped answering updates at once", failed, writers)
	}
}
