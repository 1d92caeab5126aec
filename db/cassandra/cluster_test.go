package cassandra_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

// node is one node of the cluster, asked alone: its virtual tables
// (system_views) speak of that node only.
type node struct {
	addr  string
	token int64
	s     *gocql.Session
}

// clusterNodes connects to each node of a cassandra://a,b,c:port URL on
// its own (no other host looked up) and reads its one token.
func clusterNodes(t *testing.T, url string) []*node {
	t.Helper()
	hostPart, _, _ := strings.Cut(strings.TrimPrefix(url, "cassandra://"), "/")
	hosts, port, _ := strings.Cut(hostPart, ":")
	var nodes []*node
	for _, h := range strings.Split(hosts, ",") {
		c := gocql.NewCluster(h)
		c.Port = atoi(port)
		c.DisableInitialHostLookup = true
		c.Events.DisableNodeStatusEvents, c.Events.DisableTopologyEvents = true, true
		c.HostFilter = gocql.WhiteListHostFilter(h)
		s, err := c.CreateSession()
		if err != nil {
			t.Fatalf("node %s: %v", h, err)
		}
		t.Cleanup(s.Close)
		var tokens []string
		if err := s.Query("SELECT tokens FROM system.local").Scan(&tokens); err != nil {
			t.Fatalf("node %s: %v", h, err)
		}
		if len(tokens) != 1 {
			t.Fatalf("node %s has %d tokens; the cluster of scripts/servers gives each one", h, len(tokens))
		}
		n := &node{addr: h, s: s}
		if _, err := fmt.Sscan(tokens[0], &n.token); err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	if len(nodes) < 3 {
		t.Fatalf("%d nodes in %s, want 3 or more", len(nodes), url)
	}
	sort.Slice(nodes, func(i, j int) bool { return nodes[i].token < nodes[j].token })
	return nodes
}

// replicas are the nodes that hold a partition of token k with rf copies
// under SimpleStrategy: the first node whose token is k or above (the
// ring wraps), and the next ones along the ring.
func replicas(nodes []*node, k int64, rf int) map[string]bool {
	first := sort.Search(len(nodes), func(i int) bool { return nodes[i].token >= k }) % len(nodes)
	r := map[string]bool{}
	for i := 0; i < rf; i++ {
		r[nodes[(first+i)%len(nodes)].addr] = true
	}
	return r
}

// coordinated is how many reads and writes of ks.table a node has
// coordinated (its own count: the request reached it from a client).
func (n *node) coordinated(t *testing.T, ks, table string) (reads, writes int64) {
	t.Helper()
	for _, c := range []struct {
		view string
		dst  *int64
	}{{"coordinator_read_latency", &reads}, {"coordinator_write_latency", &writes}} {
		err := n.s.Query("SELECT count FROM system_views."+c.view+" WHERE keyspace_name = ? AND table_name = ?", ks, table).Scan(c.dst)
		if err != nil && err != gocql.ErrNotFound {
			t.Fatalf("node %s: %s: %v", n.addr, c.view, err)
		}
	}
	return reads, writes
}

// On a cluster of three nodes with two copies (S2's shape), every read
// and update the binding sends reaches a replica of its record, as
// YCSB's binding's driver routes them (token-aware), seen from the
// servers' side: for each record, the nodes that coordinated its
// requests (each node's own count, system_views) are among its replicas,
// which the ring's tokens give. Sent to every node in turn
// (cassandra.routing=roundrobin), requests reach the node that holds no
// copy, which sends them on: the check sees the hop it is for.
func TestRequestsReachAReplica(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_CASSANDRA_CLUSTER_URL")
	nodes := clusterNodes(t, url)
	const ks, table, keys, each = "sbroute", "usertable", 12, 4
	if err := nodes[0].s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, c := range []struct {
		routing  string
		hopsWant bool
	}{{"", false}, {"roundrobin", true}} {
		t.Run("routing="+c.routing, func(t *testing.T) {
			kv := []string{"cassandra.url", url + "/" + ks, "cassandra.replicationfactor", "2", "fieldcount", "2",
				"cassandra.readconsistencylevel", "ONE", "cassandra.writeconsistencylevel", "ONE"}
			if c.routing != "" {
				kv = append(kv, "cassandra.routing", c.routing)
			}
			d := dbtest.Open(t, "cassandra", kv...)
			if err := d.(db.Preparer).Prepare(ctx, table, true); err != nil {
				t.Fatal(err)
			}
			var rec, got db.Record
			hops, requests := 0, 0
			for i := 0; i < keys; i++ {
				key := fmt.Sprintf("user%s%d", c.routing, i)
				rec.Reset()
				rec.Add("field0", []byte("a"))
				rec.Add("field1", []byte("b"))
				if err := d.Insert(ctx, table, key, &rec); err != nil {
					t.Fatal(err)
				}
				var k int64
				if err := nodes[0].s.Query("SELECT token(y_id) FROM "+ks+"."+table+" WHERE y_id = ?", key).Scan(&k); err != nil {
					t.Fatal(err)
				}
				holds := replicas(nodes, k, 2)
				before := make([][2]int64, len(nodes))
				for j, n := range nodes {
					before[j][0], before[j][1] = n.coordinated(t, ks, table)
				}
				for r := 0; r < each; r++ {
					got.Reset()
					if err := d.Read(ctx, table, key, nil, &got); err != nil {
						t.Fatal(err)
					}
					if err := d.Update(ctx, table, key, &rec); err != nil {
						t.Fatal(err)
					}
				}
				seen := int64(0)
				for j, n := range nodes {
					reads, writes := n.coordinated(t, ks, table)
					did := reads - before[j][0] + writes - before[j][1]
					seen += did
					if did > 0 && !holds[n.addr] {
						hops += int(did)
					}
				}
				requests += 2 * each
				if seen != 2*each {
					t.Fatalf("%s: the nodes coordinated %d requests, the binding sent %d", key, seen, 2*each)
				}
			}
			if c.hopsWant && hops == 0 {
				t.Errorf("routed in turn, none of %d requests reached a node without a copy: the check cannot see a hop", requests)
			}
			if !c.hopsWant && hops != 0 {
				t.Errorf("%d of %d requests reached a node that holds no copy of their record", hops, requests)
			}
			t.Logf("%d of %d requests reached a node without a copy", hops, requests)
		})
	}
}
