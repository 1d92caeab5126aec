package redis_test

import (
	"context"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/result"
)

// The server's own count of commands grows by at least the operations the
// run sent (each a command; the INFO of the sampling adds a few), its
// keyspace hits by the reads that found their key, and its main thread's
// CPU is read.
func TestServerSide(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	flush(t, url, false)
	doc, src := dbtest.ServerSide(t, "redis", "a", 2000, 3000, "redis.url", url)
	if got := dbtest.Total(t, src, "commands"); got < float64(doc.Operations) || got > float64(doc.Operations)+100 {
		t.Errorf("commands processed grew by %v over a run of %d operations", got, doc.Operations)
	}
	reads := int64(0)
	for _, op := range doc.Ops {
		if op.Name == "READ" {
			reads = op.Outcomes["OK"]
		}
	}
	if hits := dbtest.Total(t, src, "keyspace_hits"); hits < float64(reads) {
		t.Errorf("keyspace hits grew by %v, fewer than the %d reads", hits, reads)
	}
	if x := src.Get("cpu_busy_pct", ""); x == nil || x.Max <= 0 || x.Unit != "%" {
		t.Errorf("cpu_busy_pct %+v: want a busy share", x)
	}
	// The client's own count of its connections' bytes: at least a
	// command's worth per operation and a record's per read, and no more
	// than Redis received and sent (other clients add to Redis' counts;
	// the slack is an INFO answer, sampled a moment apart on both sides).
	client := doc.ServerSide.Find(result.SourceClient, "redis")
	if client == nil || !client.PerClient {
		t.Fatalf("no client source: %+v", doc.ServerSide)
	}
	sent, recv := dbtest.Total(t, client, "sent_bytes"), dbtest.Total(t, client, "received_bytes")
	in, out := dbtest.Total(t, src, "network_receive_bytes"), dbtest.Total(t, src, "network_transmit_bytes")
	if sent < 30*float64(doc.Operations) || recv < 500*float64(reads) || sent > in+200 || recv > out+20000 {
		t.Errorf("the client sent %v and received %v bytes for %d operations (%d reads); Redis received %v and sent %v", sent, recv, doc.Operations, reads, in, out)
	}
	t.Logf("client sent %v, received %v; Redis received %v, sent %v", sent, recv, in, out)
}

// A cluster is sampled on every node: each shard's commands, adding up to
// at least the operations.
func TestServerSideCluster(t *testing.T) {
	addrs := dbtest.ServerURL(t, "SERVBENCH_REDIS_CLUSTER_URL")
	flush(t, "redis://"+addrs, true)
	doc, src := dbtest.ServerSide(t, "redis", "a", 2000, 3000, "redis.url", "redis://"+addrs, "redis.cluster", "true")
	nodes := map[string]bool{}
	for _, x := range src.Series {
		if x.Name == "commands" {
			nodes[x.Node] = x.Total > 0
		}
	}
	if len(nodes) != 3 || nodes[""] {
		t.Errorf("commands of nodes %v: want the 3 shards, each named", nodes)
	}
	if got := dbtest.Total(t, src, "commands"); got < float64(doc.Operations) {
		t.Errorf("commands over the shards grew by %v over %d operations", got, doc.Operations)
	}
}

// A user that may not run INFO (an ACL without it, as a managed service
// keeps it from its clients) gets one line that says why the server side
// is not sampled.
func TestServerSideRefused(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	admin := dbtest.Open(t, "redis", "redis.url", url).(db.Administrator)
	ctx := context.Background()
	if _, err := admin.Admin(ctx, "usertable", "ACL SETUSER sbnoinfo on >sbnoinfo-pw ~* +@all -info"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Admin(ctx, "usertable", "ACL DELUSER sbnoinfo") })
	d := dbtest.Open(t, "redis", "redis.url", url, "redis.username", "sbnoinfo", "redis.password", "sbnoinfo-pw")
	_, err := d.(db.Sampler).Sample(ctx)
	t.Log(err)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "refused to this user") ||
		!strings.Contains(err.Error(), "+info") || strings.Contains(err.Error(), "sbnoinfo-pw") {
		t.Errorf("INFO refused: %v, want one line that says so", err)
	}
}
