package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workload"
)

// A plan of two record counts on a binding that keeps every table's
// records in one collection (Couchbase, here CouchbaseMock): the second
// data set's load follows the first's emptying, and inserts, so every
// run of both data sets completes. (Its load met the first's keys, each
// loading thread stopped at its first "document exists", and the second
// data set's runs never happened; a plan hid it with couchbase.upsert.)
func TestPlanOfTwoDataSetsInOneTable(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	// The mock's one bucket starts without the keys other tests loaded.
	d := dbtest.Open(t, "couchbase", "couchbase.url", url)
	for n := range int64(20000) {
		d.Delete(context.Background(), "", string(workload.AppendKey(nil, n, 1, false)))
	}
	pf := writePlan(t, `name: onetable
deployments: [{label: mock, binding: couchbase, properties: {couchbase.url: "`+url+`"}}]
workloads: [c]
records: [300, 1000]
threads: [2]
operations: 200
`)
	dir := filepath.Join(t.TempDir(), "out")
	var errb bytes.Buffer
	code := MainContext(context.Background(), []string{"bench", "-o", dir, pf}, &bytes.Buffer{}, &errb)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "emptied mock-r300") || !strings.Contains(errb.String(), "300 records deleted") {
		t.Errorf("the first data set not emptied before the second's load: %s", errb.String())
	}
	ix := readIndex(t, dir)
	if len(ix.Runs) != 2 {
		t.Fatalf("%d runs", len(ix.Runs))
	}
	for _, run := range ix.Runs {
		d, err := result.ReadFile(filepath.Join(dir, run.Result))
		if run.Status != "done" || err != nil || d.Operations != 200 {
			t.Errorf("run %s: %s (%v)", run.Result, run.Status, err)
			continue
		}
		for _, op := range d.Ops {
			if op.Name == "READ" && op.Outcomes["OK"] != 200 {
				t.Errorf("run %s: READ outcomes %v, want 200 OK", run.Result, op.Outcomes)
			}
		}
	}
	loads, _ := filepath.Glob(filepath.Join(dir, "loads", "*.json"))
	for _, f := range loads {
		d, err := result.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range d.Ops {
			if op.Name == "INSERT" && op.Outcomes["OK"] != op.Count {
				t.Errorf("%s: INSERT outcomes %v of %d", filepath.Base(f), op.Outcomes, op.Count)
			}
		}
	}
}
