package couchbase_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

// The local CouchbaseMock runs several nodes with a replica of every
// vbucket (scripts/servers), as the studies' clusters do. Asked of the
// mock itself (its keyinfo command, which says which node holds a copy of
// a document, as master or replica), the documents the binding writes are
// each on one node as master and another as replica, and every node is
// the master of some: the binding routes each to its vbucket's node.
func TestDocumentsSpreadOverTheNodes(t *testing.T) {
	u := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	d := dbtest.Open(t, "couchbase", "couchbase.url", u, "couchbase.upsert", "true")
	ctx := context.Background()
	parsed, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	rest := "http://" + parsed.Hostname() + ":8091"
	masters := map[int]int{}
	nodes := 0
	for i := range 60 {
		key := fmt.Sprintf("sbnodes%03d", i)
		r := &db.Record{}
		r.Add("field0", []byte(key))
		if err := d.Insert(ctx, "", key, r); err != nil {
			t.Fatal(err)
		}
		var copies []*struct {
			Conf struct{ Type string }
		}
		for try := 0; ; try++ { // the replica is written after the master answers
			copies = keyInfo(t, rest, key)
			n := 0
			for _, c := range copies {
				if c != nil {
					n++
				}
			}
			if n >= 2 || try == 500 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		nodes = len(copies)
		var master, replica []int
		for n, c := range copies {
			switch {
			case c == nil:
			case c.Conf.Type == "master":
				master = append(master, n)
			case c.Conf.Type == "replica":
				replica = append(replica, n)
			}
		}
		if len(master) != 1 || len(replica) != 1 || master[0] == replica[0] {
			t.Fatalf("%s: master on nodes %v, replica on %v: want one each, on two nodes", key, master, replica)
		}
		masters[master[0]]++
	}
	if nodes < 3 || len(masters) != nodes {
		t.Errorf("%d nodes; masters by node %v: want at least 3 nodes, each the master of some", nodes, masters)
	}
}

// keyInfo asks the mock where key's copies are: one entry per node, nil
// where the node holds none.
func keyInfo(t *testing.T, rest, key string) []*struct {
	Conf struct{ Type string }
} {
	t.Helper()
	q := url.Values{"Key": {`"` + key + `"`}, "Bucket": {`"default"`}}
	resp, err := http.Get(rest + "/mock/keyinfo?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var info struct {
		Payload []*struct {
			Conf struct{ Type string }
		}
	}
	if err := json.Unmarshal(body, &info); err != nil {
		t.Fatalf("keyinfo %s: %v: %.200s", key, err, body)
	}
	return info.Payload
}
