package mongodb_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// serverStatus as the server answers it: MongoDB's operation counters, or
// FerretDB's part of it (the commands it ran) with what it lacks named
// missing. Either way the commands counted grow by the operations.
func TestServerSide(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_MONGODB_URL")
	dropDB(t, url, "sbsample")
	doc, src := dbtest.ServerSide(t, "mongodb", "a", 1000, 1000, "mongodb.url", url, "mongodb.database", "sbsample")
	if strings.HasPrefix(doc.Server, "FerretDB") {
		if !slices.Contains(src.Missing, "opcounters") || !slices.Contains(src.Missing, "wiredTiger") {
			t.Errorf("FerretDB: missing %v, want opcounters and wiredTiger named", src.Missing)
		}
		if got := dbtest.Total(t, src, "commands_run"); got < float64(doc.Operations) {
			t.Errorf("commands run grew by %v over %d operations", got, doc.Operations)
		}
		return
	}
	if got := dbtest.Total(t, src, "queries") + dbtest.Total(t, src, "updates"); got < float64(doc.Operations) {
		t.Errorf("queries and updates grew by %v over %d operations", got, doc.Operations)
	}
}
