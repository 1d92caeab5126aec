package couchbase_test

import (
	"context"
	"strings"
	"testing"

	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workloads"
)

// The bucket's statistics where the cluster manager serves them;
// CouchbaseMock does not, and the result says so instead of failing.
func TestServerSide(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	doc, src := dbtest.ServerSide(t, "couchbase", "a", 200, 300, "couchbase.url", url, "couchbase.upsert", "true")
	if strings.HasPrefix(doc.Server, "CouchbaseMock") {
		if len(src.Missing) != 1 || !strings.HasPrefix(src.Missing[0], "bucket statistics") || len(src.Series) != 0 {
			t.Errorf("CouchbaseMock: missing %v, series %d: want the statistics named missing", src.Missing, len(src.Series))
		}
		return
	}
	if x := src.Get("ops_per_s", ""); x == nil || x.Max <= 0 {
		t.Errorf("ops_per_s %+v", x)
	}
}

// Over couchbase:// with a password the run does not sample the bucket's
// statistics (the password would cross in clear) and says why and how
// in its server side's one line; the operations are measured as ever.
func TestServerSidePlainPassword(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	p := props.New()
	if err := workloads.Load(p, "c"); err != nil {
		t.Fatal(err)
	}
	// CouchbaseMock's administrator and password.
	for k, v := range map[string]string{"couchbase.url": url, "couchbase.username": "Administrator", "couchbase.password": "password", "recordcount": "50", "operationcount": "100"} {
		p.Set(k, v, "test")
	}
	res, err := engine.Run(context.Background(), engine.Spec{Binding: "couchbase", Properties: p, Phase: engine.RunPhase, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Doc()
	src := d.ServerSide.Find(result.SourceBinding, "couchbase")
	if d.Operations != 100 || src == nil || !strings.Contains(src.Error, "couchbase.password would cross the network in clear; connect with couchbases://") ||
		strings.Contains(src.Error, "\n") {
		t.Errorf("%d operations; server side %+v", d.Operations, src)
	}
}
