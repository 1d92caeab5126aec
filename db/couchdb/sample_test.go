package couchdb_test

import (
	"strings"
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// The node's statistics where the server serves them; PouchDB Server does
// not, and the result says so instead of failing.
func TestServerSide(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHDB_URL")
	destroy(t, url, "sbsample")
	doc, src := dbtest.ServerSide(t, "couchdb", "a", 200, 300, "couchdb.url", url, "table", "sbsample")
	if strings.HasPrefix(doc.Server, "PouchDB") {
		if len(src.Missing) != 1 || src.Missing[0] != "/_node/_local/_stats" || len(src.Series) != 0 {
			t.Errorf("PouchDB Server: missing %v, series %d: want the statistics named missing", src.Missing, len(src.Series))
		}
		return
	}
	if got := dbtest.Total(t, src, "requests"); got < float64(doc.Operations) {
		t.Errorf("requests grew by %v over %d operations", got, doc.Operations)
	}
}
