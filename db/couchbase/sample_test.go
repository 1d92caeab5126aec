package couchbase_test

import (
	"strings"
	"testing"

	"github.com/servbench/servbench/db/dbtest"
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
