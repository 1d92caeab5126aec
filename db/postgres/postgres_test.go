package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

func drop(t testing.TB, url string, tables ...string) {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	for _, tb := range tables {
		if _, err := c.Exec(context.Background(), "DROP TABLE IF EXISTS "+pgx.Identifier{tb}.Sanitize()); err != nil {
			t.Fatal(err)
		}
	}
}

func TestJSONB(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	drop(t, url, "sbdirect", "usertable")
	d := dbtest.Open(t, "postgres", "postgres.url", url)
	dbtest.Operations(t, d, "sbdirect", true)
	if v, _ := d.(db.Describer).ServerVersion(context.Background()); !strings.HasPrefix(v, "PostgreSQL 15") {
		t.Errorf("server version %q", v)
	}
	dbtest.Workloads(t, "postgres", 10000, 2000, 2000, "postgres.url", url)
}

func TestColumns(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	drop(t, url, "sbdirectcols", "usertablecols")
	d := dbtest.Open(t, "postgres", "postgres.url", url, "postgres.layout", "columns", "fieldcount", "3")
	dbtest.Operations(t, d, "sbdirectcols", true)
	dbtest.Workloads(t, "postgres", 10000, 2000, 2000, "postgres.url", url, "postgres.layout", "columns", "table", "usertablecols")
}

// batchsize=100 loads with COPY, in either layout; every record reads
// back intact. A batch over an earlier load's records (key 0 is
// user6284781860667377211) says how to start again, as a single insert
// does.
func TestBatchedLoad(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	drop(t, url, "sbbatch", "sbbatchcols")
	dbtest.BatchLoad(t, "postgres", "sbbatch", 2000, "postgres.url", url)
	dbtest.BatchLoad(t, "postgres", "sbbatchcols", 2000, "postgres.url", url, "postgres.layout", "columns")
	d := dbtest.Open(t, "postgres", "postgres.url", url)
	r := &db.Record{}
	r.Add("field0", []byte("x"))
	err := d.(db.BatchInserter).BatchInsert(context.Background(), "sbbatch", []string{"userNew", "user6284781860667377211"}, []*db.Record{r, r})
	if err == nil {
		t.Fatal("a batch over existing keys was accepted")
	}
	if db.Classify(err, false) != db.UnexpectedState || !strings.Contains(err.Error(), "DROP TABLE sbbatch") {
		t.Errorf("batch over existing keys: %s, %v", db.Classify(err, false), err)
	}
}

// Loading over an earlier load's records says how to start again.
func TestLoadOverAnEarlierLoad(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	drop(t, url, "sbreload")
	d := dbtest.Open(t, "postgres", "postgres.url", url)
	ctx := context.Background()
	if err := d.(db.Preparer).Prepare(ctx, "sbreload", true); err != nil {
		t.Fatal(err)
	}
	rec := &db.Record{}
	rec.Add("field0", []byte("v"))
	if err := d.Insert(ctx, "sbreload", "user1", rec); err != nil {
		t.Fatal(err)
	}
	err := d.Insert(ctx, "sbreload", "user1", rec)
	if db.Classify(err, false) != db.UnexpectedState || err == nil || !strings.Contains(err.Error(), "sbreload holds records of an earlier load; drop it (DROP TABLE sbreload) or load into another table") {
		t.Errorf("a second insert of a key: %v", err)
	}
}

func TestConnectErrorHidesPassword(t *testing.T) {
	b, _ := db.Lookup("postgres")
	_, err := b.Open(context.Background(), dbtest.Props("postgres.url", "postgres://u:hunter2@127.0.0.1:1/x?connect_timeout=1"), db.Options{Threads: 1})
	if err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("err = %v", err)
	}
}

func TestPagination(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	drop(t, url, "customer")
	d := dbtest.Open(t, "postgres", "postgres.url", url)
	r := dbtest.Pagination(t, d, "postgres", 3000, 2000, "postgres.url", url)
	if !strings.Contains(r.QueryModel, "native") {
		t.Errorf("query model %q", r.QueryModel)
	}
	// The planner must use the index, not a sequential scan.
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	rows, _ := c.Query(context.Background(), `EXPLAIN SELECT ycsb_key FROM customer WHERE (doc->'address'->>'country') = 'France' OFFSET 1 LIMIT 10`)
	lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	plan := strings.Join(lines, "\n")
	if !strings.Contains(plan, "customer_query1") {
		t.Errorf("plan does not use the index: %s", plan)
	}
}

// A server that accepts but never answers fails the connection in
// postgres.connecttimeout, with the property named.
func TestConnectTimeout(t *testing.T) {
	addr := dbtest.SilentServer(t)
	b, _ := db.Lookup("postgres")
	_, err := b.Open(context.Background(), dbtest.Props("postgres.url", "postgres://u@"+addr+"/x?sslmode=disable", "postgres.connecttimeout", "300"), db.Options{Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "no answer within 300ms (postgres.connecttimeout)") {
		t.Errorf("err = %v, want a timeout naming postgres.connecttimeout", err)
	}
}

// Setup statements run as a plan's setup steps run them: DDL answers its
// command tag, a query its first row, a bad statement the server's error.
func TestAdmin(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	drop(t, url, "sbadmin")
	got := dbtest.Admin(t, "postgres", []string{
		"CREATE INDEX IF NOT EXISTS {table}_desc ON {table} (ycsb_key DESC)",
		"SELECT count(*) FROM pg_indexes WHERE tablename = '{table}' AND indexname = '{table}_desc'",
		"CREATE INDEX nonsense",
		"SELECT 1",
	}, "postgres.url", url, "table", "sbadmin")
	if len(got) != 3 || got[0] != "CREATE INDEX" || got[1] != "SELECT 1: [1]" || !strings.HasPrefix(got[2], "error: postgres: ERROR: syntax error") {
		t.Errorf("answers %q", got)
	}
}

// The column layout's statements are built once per table: one field, all
// fields in order, others in any order, and two tables used by turns each
// get their own (the cache holds one table at a time). An empty value
// reads back as an empty field, not as a missing one.
func TestColumnStatements(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	drop(t, url, "sbstmta", "sbstmtb")
	d := dbtest.Open(t, "postgres", "postgres.url", url, "postgres.layout", "columns", "fieldcount", "3")
	ctx := context.Background()
	get := func(table, key string, fields ...string) string {
		t.Helper()
		var r db.Record
		if err := d.Read(ctx, table, key, fields, &r); err != nil {
			t.Fatalf("read %s %s: %v", table, key, err)
		}
		var out []string
		for _, f := range r.Fields() {
			out = append(out, f.Name+"="+string(f.Value))
		}
		return strings.Join(out, " ")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, table := range []string{"sbstmta", "sbstmtb"} {
		must(d.(db.Preparer).Prepare(ctx, table, true))
	}
	rec := func(kv ...string) *db.Record {
		var r db.Record
		for i := 0; i < len(kv); i += 2 {
			r.Add(kv[i], []byte(kv[i+1]))
		}
		return &r
	}
	must(d.Insert(ctx, "sbstmta", "k", rec("field0", "a0", "field1", "a1", "field2", "a2")))
	must(d.Insert(ctx, "sbstmtb", "k", rec("field2", "b2", "field0", "b0"))) // not in order, one missing
	must(d.Insert(ctx, "sbstmta", "e", rec("field0", "", "field1", "x", "field2", "y")))
	for _, c := range []struct{ table, key, want string }{
		{"sbstmta", "k", "field0=a0 field1=a1 field2=a2"},
		{"sbstmtb", "k", "field0=b0 field2=b2"},
		{"sbstmta", "e", "field0= field1=x field2=y"},
	} {
		if got := get(c.table, c.key); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.table, c.key, got, c.want)
		}
	}
	must(d.Update(ctx, "sbstmtb", "k", rec("field1", "u1")))
	must(d.Update(ctx, "sbstmta", "e", rec("field1", "")))
	if got := get("sbstmta", "e"); got != "field0= field1= field2=y" {
		t.Errorf("after an update to an empty value: %q", got)
	}
	must(d.Update(ctx, "sbstmta", "k", rec("field2", "u2", "field0", "u0")))
	must(d.Update(ctx, "sbstmta", "e", rec("field0", "w0", "field1", "w1", "field2", "w2")))
	for _, c := range []struct {
		table, key string
		fields     []string
		want       string
	}{
		{"sbstmtb", "k", nil, "field0=b0 field1=u1 field2=b2"},
		{"sbstmta", "k", nil, "field0=u0 field1=a1 field2=u2"},
		{"sbstmta", "e", nil, "field0=w0 field1=w1 field2=w2"},
		{"sbstmta", "k", []string{"field1"}, "field1=a1"},
		{"sbstmtb", "k", []string{"field2", "field0"}, "field2=b2 field0=b0"},
	} {
		if got := get(c.table, c.key, c.fields...); got != c.want {
			t.Errorf("%s %s %v: %q, want %q", c.table, c.key, c.fields, got, c.want)
		}
	}
	must(d.Delete(ctx, "sbstmtb", "k"))
	var r db.Record
	if err := d.Read(ctx, "sbstmtb", "k", nil, &r); db.Classify(err, false) != db.NotFound {
		t.Errorf("read after delete: %v", err)
	}
}
