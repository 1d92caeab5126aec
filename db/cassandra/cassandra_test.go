package cassandra_test

import (
	"context"
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

func dropKeyspace(t *testing.T, host, port, ks string) {
	t.Helper()
	c := gocql.NewCluster(host)
	c.Port = 9042
	if port != "" {
		c.Port = atoi(port)
	}
	s, err := c.CreateSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
		t.Fatal(err)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

func TestCassandra(t *testing.T) {
	addr := dbtest.ServerURL(t, "SERVBENCH_CASSANDRA_URL")
	host, port, _ := strings.Cut(addr, ":")
	dropKeyspace(t, host, port, "sbtest")
	d := dbtest.Open(t, "cassandra", "cassandra.url", "cassandra://"+addr+"/sbtest")
	dbtest.Operations(t, d, "sbdirect", false)
	if v, _ := d.(db.Describer).ServerVersion(context.Background()); !strings.HasPrefix(v, "Apache Cassandra 5") {
		t.Errorf("server version %q", v)
	}
	dbtest.Workloads(t, "cassandra", 10000, 2000, 500, "hosts", host, "port", port, "cassandra.keyspace", "sbtest",
		"cassandra.readconsistencylevel", "ONE", "cassandra.writeconsistencylevel", "ONE")
}

// batchsize=100 loads as concurrent prepared inserts; every record reads
// back intact.
func TestBatchedLoad(t *testing.T) {
	addr := dbtest.ServerURL(t, "SERVBENCH_CASSANDRA_URL")
	host, port, _ := strings.Cut(addr, ":")
	dropKeyspace(t, host, port, "sbbatch")
	dbtest.BatchLoad(t, "cassandra", "usertable", 2000, "cassandra.url", "cassandra://"+addr+"/sbbatch",
		"cassandra.readconsistencylevel", "ONE", "cassandra.writeconsistencylevel", "ONE")
}

func TestBadProperties(t *testing.T) {
	b, _ := db.Lookup("cassandra")
	for _, kv := range [][]string{
		{"cassandra.readconsistencylevel", "SOMETIMES"},
		{"cassandra.keyspace", "bad-name"},
		{"cassandra.replicationfactor", "0"},
		{"cassandra.url", "http://127.0.0.1"},
		{"cassandra.url", "cassandra://127.0.0.1:x/ks"},
		{"cassandra.url", "cassandra://bob:s3cr/et@127.0.0.1:x/ks"},
	} {
		if _, err := b.Open(context.Background(), dbtest.Props(kv...), db.Options{Threads: 1}); err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%v: err = %v", kv, err)
		} else if strings.Contains(err.Error(), "s3cr") {
			t.Errorf("%v: the error shows the password: %v", kv, err)
		}
	}
	// Credentials in the URL are credentials, not part of the port.
	if _, err := b.Open(context.Background(), dbtest.Props("cassandra.url", "cassandra://bob:s3cr/et@127.0.0.1:9042/ks"), db.Options{CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}}); err != nil {
		t.Errorf("a URL with credentials: %v", err)
	}
}

func TestPagination(t *testing.T) {
	addr := dbtest.ServerURL(t, "SERVBENCH_CASSANDRA_URL")
	host, port, _ := strings.Cut(addr, ":")
	dropKeyspace(t, host, port, "sbpage")
	url := "cassandra://" + addr + "/sbpage"
	d := dbtest.Open(t, "cassandra", "cassandra.url", url, "document", "customer")
	r := dbtest.Pagination(t, d, "cassandra", 3000, 1000, "cassandra.url", url)
	if !strings.HasPrefix(r.QueryModel, "data-model change") {
		t.Errorf("query model %q does not say the data model changed", r.QueryModel)
	}
}

// A setup statement is CQL; a query answers its first row.
func TestAdmin(t *testing.T) {
	addr := dbtest.ServerURL(t, "SERVBENCH_CASSANDRA_URL")
	host, port, _ := strings.Cut(addr, ":")
	dropKeyspace(t, host, port, "sbadmin")
	got := dbtest.Admin(t, "cassandra", []string{
		"ALTER TABLE sbadmin.{table} WITH comment = 'set up by servbench'",
		"SELECT comment FROM system_schema.tables WHERE keyspace_name = 'sbadmin' AND table_name = '{table}'",
		"ALTER TABLE nonsense",
	}, "cassandra.url", "cassandra://"+addr+"/sbadmin")
	if len(got) != 3 || got[0] != "done" || got[1] != "[set up by servbench]" || !strings.HasPrefix(got[2], "error: cassandra: ") {
		t.Errorf("answers %q", got)
	}
}

// An empty value is written as an empty column, never a null (gocql sends
// a nil []byte as null, and an empty field's value may be nil), by the
// insert of every field and of some. A read's row is used again by the
// next read: an empty value stays an empty field and a column never
// written stays absent, whatever the row held before (an empty value after
// a null in the same column), in reads of every field and of one, and in
// scans.
func TestNullAndEmptyAcrossReads(t *testing.T) {
	addr := dbtest.ServerURL(t, "SERVBENCH_CASSANDRA_URL")
	host, port, _ := strings.Cut(addr, ":")
	dropKeyspace(t, host, port, "sbnull")
	d := dbtest.Open(t, "cassandra", "cassandra.url", "cassandra://"+addr+"/sbnull", "fieldcount", "3")
	ctx := context.Background()
	if err := d.(db.Preparer).Prepare(ctx, "t", true); err != nil {
		t.Fatal(err)
	}
	put := func(key string, kv ...string) {
		var r db.Record
		for i := 0; i < len(kv); i += 2 {
			r.Add(kv[i], []byte(kv[i+1]))
		}
		if err := d.Insert(ctx, "t", key, &r); err != nil {
			t.Fatal(err)
		}
	}
	put("full", "field0", strings.Repeat("a", 300), "field1", "b", "field2", "c")
	put("sparse", "field0", "", "field1", "x") // field2 never written
	put("emptylast", "field0", "z", "field1", "y", "field2", "")
	show := func(r *db.Record) string {
		var out []string
		for _, f := range r.Fields() {
			out = append(out, f.Name+"="+string(f.Value))
		}
		return strings.Join(out, " ")
	}
	want := map[string]string{"full": "field0=" + strings.Repeat("a", 300) + " field1=b field2=c", "sparse": "field0= field1=x",
		"emptylast": "field0=z field1=y field2="}
	for _, key := range []string{"full", "sparse", "emptylast", "sparse", "full", "sparse", "emptylast"} {
		var r db.Record
		if err := d.Read(ctx, "t", key, nil, &r); err != nil {
			t.Fatal(err)
		}
		if got := show(&r); got != want[key] {
			t.Errorf("read %s: %q, want %q", key, got, want[key])
		}
	}
	// One field's rows are pooled too (readallfields=false).
	wantOne := map[string]string{"full": "field2=c", "sparse": "", "emptylast": "field2="}
	for _, key := range []string{"emptylast", "sparse", "emptylast", "full", "sparse", "emptylast"} {
		var r db.Record
		if err := d.Read(ctx, "t", key, []string{"field2"}, &r); err != nil {
			t.Fatal(err)
		}
		if got := show(&r); got != wantOne[key] {
			t.Errorf("read field2 of %s: %q, want %q", key, got, wantOne[key])
		}
	}
	var rs db.RecordSet
	if err := d.Scan(ctx, "t", "", 10, nil, &rs); err == nil {
		for i := 0; i < rs.Len(); i++ {
			r := rs.Row(i)
			if got := show(r); got != want[string(r.Key)] {
				t.Errorf("scan row %s: %q, want %q", r.Key, got, want[string(r.Key)])
			}
		}
		if rs.Len() != 3 {
			t.Errorf("scan: %d rows, want 3", rs.Len())
		}
	} else {
		t.Fatal(err)
	}
}
