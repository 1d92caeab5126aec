package redis_test

import (
	"context"
	"strings"
	"testing"

	"github.com/redis/rueidis"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	sbredis "github.com/servbench/servbench/db/redis"
)

func flush(t *testing.T, url string, cluster bool) {
	t.Helper()
	o := rueidis.ClientOption{InitAddress: strings.Split(strings.TrimPrefix(url, "redis://"), ","), ForceSingleClient: !cluster}
	if !cluster {
		var err error
		if o, err = rueidis.ParseURL(url); err != nil {
			t.Fatal(err)
		}
	}
	c, err := rueidis.NewClient(o)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for addr, node := range c.Nodes() {
		if err := node.Do(context.Background(), node.B().Flushall().Build()).Error(); err != nil && !strings.Contains(err.Error(), "READONLY") {
			t.Fatalf("flush %s: %v", addr, err)
		}
	}
}

func TestStandalone(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	flush(t, url, false)
	d := dbtest.Open(t, "redis", "redis.url", url)
	dbtest.Operations(t, d, "usertable", true)
	if v, _ := d.(db.Describer).ServerVersion(context.Background()); !strings.HasPrefix(v, "Redis 7") {
		t.Errorf("server version %q", v)
	}
	if c := d.(db.DriverNamer).Driver(); !strings.HasPrefix(c, "rueidis") || !strings.HasSuffix(c, ", a connection per thread") {
		t.Errorf("client %q", c)
	}
	flush(t, url, false)
	dbtest.Workloads(t, "redis", 10000, 2000, 2000, "redis.url", url)
}

// batchsize=100 loads a pipeline of 100 records per round trip, on one
// server and on a cluster (the client splits it by node); every record
// reads back intact.
func TestBatchedLoad(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	flush(t, url, false)
	dbtest.BatchLoad(t, "redis", "usertable", 2000, "redis.url", url)
	addrs := dbtest.ServerURL(t, "SERVBENCH_REDIS_CLUSTER_URL")
	flush(t, "redis://"+addrs, true)
	dbtest.BatchLoad(t, "redis", "usertable", 2000, "redis.url", "redis://"+addrs, "redis.cluster", "true")
}

// With redis.pipelining=auto the threads' requests share connections; every
// operation still gets its own answer, on one server and on a cluster.
func TestAutoPipelining(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	flush(t, url, false)
	d := dbtest.Open(t, "redis", "redis.url", url, "redis.pipelining", "auto")
	if c := d.(db.DriverNamer).Driver(); !strings.HasPrefix(c, "rueidis") || !strings.HasSuffix(c, ", auto-pipelining") {
		t.Errorf("client %q", c)
	}
	dbtest.Operations(t, d, "usertable", true)
	flush(t, url, false)
	dbtest.Workloads(t, "redis", 10000, 2000, 2000, "redis.url", url, "redis.pipelining", "auto")
	addrs := dbtest.ServerURL(t, "SERVBENCH_REDIS_CLUSTER_URL")
	flush(t, "redis://"+addrs, true)
	dbtest.Workloads(t, "redis", 10000, 2000, 2000, "redis.url", "redis://"+addrs, "redis.cluster", "true", "redis.pipelining", "auto")
}

// With redis.pipelining=16 each thread sends its reads and updates in
// windows of 16: every workload's operations are answered and verified, on
// one server, on a cluster (each node gets its part), with JSON documents,
// and the pagination workload's updates still move keys between value sets.
func TestWindow(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	flush(t, url, false)
	d := dbtest.Open(t, "redis", "redis.url", url, "redis.pipelining", "16")
	if c := d.(db.DriverNamer).Driver(); !strings.HasSuffix(c, ", windows of 16") {
		t.Errorf("client %q", c)
	}
	if n := d.(db.Pipeliner).Window(); n != 16 {
		t.Errorf("window %d", n)
	}
	dbtest.Workloads(t, "redis", 10000, 4000, 2000, "redis.url", url, "redis.pipelining", "16")
	flush(t, url, false)
	dbtest.Pagination(t, d, "redis", 3000, 2000, "redis.url", url, "redis.pipelining", "16")
	addrs := dbtest.ServerURL(t, "SERVBENCH_REDIS_CLUSTER_URL")
	flush(t, "redis://"+addrs, true)
	dbtest.Workloads(t, "redis", 10000, 4000, 2000, "redis.url", "redis://"+addrs, "redis.cluster", "true", "redis.pipelining", "16")
	stack := dbtest.ServerURL(t, "SERVBENCH_REDIS_STACK_URL")
	flush(t, stack, false)
	dbtest.WorkloadsOf(t, []string{"a", "c", "f"}, "redis", 5000, 2000, 500, "redis.url", stack, "redis.model", "json", "redis.pipelining", "16")
}

func TestYCSBScoreScan(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	flush(t, url, false)
	d := dbtest.Open(t, "redis", "redis.url", url, "redis.scanmode", "score")
	dbtest.Operations(t, d, "usertable", false)
}

func TestCluster(t *testing.T) {
	addrs := dbtest.ServerURL(t, "SERVBENCH_REDIS_CLUSTER_URL")
	url := "redis://" + addrs
	flush(t, url, true)
	d := dbtest.Open(t, "redis", "redis.url", url, "redis.cluster", "true")
	dbtest.Operations(t, d, "usertable", true)
	if v, _ := d.(db.Describer).ServerVersion(context.Background()); !strings.HasSuffix(v, "(cluster)") {
		t.Errorf("server version %q does not say cluster", v)
	}
	flush(t, url, true)
	dbtest.Workloads(t, "redis", 10000, 2000, 2000, "redis.url", url, "redis.cluster", "true")
}

func TestConfigErrors(t *testing.T) {
	for _, kv := range [][]string{
		{"redis.url", "http://127.0.0.1"},
		{"redis.url", "redis://127.0.0.1"},
		{"redis.host", "127.0.0.1:1,127.0.0.1:2"},
		{"redis.scanmode", "random"},
		{"redis.timeout", "0"},
	} {
		b, _ := db.Lookup("redis")
		_, err := b.Open(context.Background(), dbtest.Props(kv...), db.Options{Threads: 1})
		if err == nil || !strings.Contains(err.Error(), kv[0]) {
			t.Errorf("%v: err = %v", kv, err)
		}
	}
	// Nothing listens on port 1: the error says where, without a password.
	b, _ := db.Lookup("redis")
	_, err := b.Open(context.Background(), dbtest.Props("redis.url", "redis://u:hunter2@127.0.0.1:1", "redis.timeout", "200"), db.Options{Threads: 1})
	if err == nil || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Errorf("err = %v", err)
	}
	_ = sbredis.Store{}
}

// The hash model emulates the index with a sorted set per country, and
// the results say so.
func TestPaginationHashes(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	flush(t, url, false)
	d := dbtest.Open(t, "redis", "redis.url", url)
	r := dbtest.Pagination(t, d, "redis", 3000, 2000, "redis.url", url)
	if !strings.HasPrefix(r.QueryModel, "emulated") {
		t.Errorf("query model %q does not say emulated", r.QueryModel)
	}
	// Deleting a customer takes it out of its country's set.
	ctx := context.Background()
	q := db.NewQuery("address.country")
	q.Value, q.Limit = "Atlantis", 10
	var rows db.RecordSet
	key := "user-atlantis"
	var doc db.Record
	doc.JSON = true
	doc.Add("address", []byte(`{"city":"Poseidonia","country":"Atlantis"}`))
	if err := d.Insert(ctx, "customer", key, &doc); err != nil {
		t.Fatal(err)
	}
	if err := d.(db.Querier).Query(ctx, "customer", q, &rows); err != nil || rows.Len() != 1 {
		t.Fatalf("after insert: %d rows, %v", rows.Len(), err)
	}
	doc.Reset()
	doc.JSON = true
	doc.Add("address", []byte(`{"city":"Paris","country":"France"}`))
	if err := d.Update(ctx, "customer", key, &doc); err != nil {
		t.Fatal(err)
	}
	rows.Reset()
	if err := d.(db.Querier).Query(ctx, "customer", q, &rows); err != nil || rows.Len() != 0 {
		t.Fatalf("after moving to France: %d rows in Atlantis, %v", rows.Len(), err)
	}
	if err := d.Delete(ctx, "customer", key); err != nil {
		t.Fatal(err)
	}
	q.Value, q.Offset, q.Limit = "France", 0, 100000
	rows.Reset()
	if err := d.(db.Querier).Query(ctx, "customer", q, &rows); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < rows.Len(); i++ {
		if string(rows.Row(i).Key) == key {
			t.Error("a deleted key is still in its country's set")
		}
	}
}

// The JSON model on Redis Stack: YCSB's operations and workloads on
// RedisJSON documents, and the studies' RediSearch pagination query.
func TestJSONModel(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_STACK_URL")
	flush(t, url, false)
	d := dbtest.Open(t, "redis", "redis.url", url, "redis.model", "json")
	dbtest.Operations(t, d, "usertable", true)
	flush(t, url, false)
	dbtest.WorkloadsOf(t, []string{"a", "c", "f", "e"}, "redis", 5000, 1000, 500, "redis.url", url, "redis.model", "json")
	flush(t, url, false)
	r := dbtest.Pagination(t, d, "redis", 3000, 2000, "redis.url", url, "redis.model", "json")
	if !strings.HasPrefix(r.QueryModel, "native: RediSearch") {
		t.Errorf("query model %q", r.QueryModel)
	}
}

// On a cluster the country sets live on other shards than the hashes.
func TestPaginationCluster(t *testing.T) {
	addrs := dbtest.ServerURL(t, "SERVBENCH_REDIS_CLUSTER_URL")
	url := "redis://" + addrs
	flush(t, url, true)
	d := dbtest.Open(t, "redis", "redis.url", url, "redis.cluster", "true")
	dbtest.Pagination(t, d, "redis", 1500, 500, "redis.url", url, "redis.cluster", "true")
}

// Setup statements are Redis commands, quoted words held together.
func TestAdmin(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	got := dbtest.Admin(t, "redis", []string{
		"CONFIG SET slowlog-max-len 777",
		"CONFIG GET slowlog-max-len",
		`SET "sb admin key" 'a "b" c'`,
		`GET "sb admin key"`,
		"DEL 'sb admin key'",
		"CONFIG SET slowlog-max-len 128",
		"NOSUCHCOMMAND",
		"PING",
	}, "redis.url", url)
	want := []string{"OK", "slowlog-max-len=777", "OK", `a "b" c`, "1", "OK"} // a setting name=value, as the redaction reads it
	if len(got) != 7 || strings.Join(got[:6], "|") != strings.Join(want, "|") || !strings.Contains(got[6], "error: redis: NOSUCHCOMMAND: ") || !strings.Contains(got[6], "unknown command") {
		t.Errorf("answers %q", got)
	}
}
