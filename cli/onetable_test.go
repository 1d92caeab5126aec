package cli

import (
	"bytes"
	"context"
	"fmt"
	"github.com/servbench/servbench/experiment"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workload"
)

// benchTwoDataSets runs a plan of two record counts of workload C on one
// deployment and checks that every load inserted every record and every
// run read every key it chose; it returns what the command said.
func benchTwoDataSets(t *testing.T, binding, urlKey, url, records string) string {
	t.Helper()
	pf := writePlan(t, `name: twosets
deployments: [{label: srv, binding: `+binding+`, properties: {`+urlKey+`: "`+url+`"}}]
workloads: [c]
records: `+records+`
threads: [2]
operations: 200
`)
	dir := filepath.Join(t.TempDir(), "out")
	var errb bytes.Buffer
	code := MainContext(context.Background(), []string{"bench", "-o", dir, pf}, &bytes.Buffer{}, &errb)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
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
	if len(loads) != 2 {
		t.Errorf("%d loads", len(loads))
	}
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
	return errb.String()
}

// A plan of two record counts on Couchbase (CouchbaseMock here) keeps
// each data set in a table of its own, its documents named table:key as
// YCSB's Couchbase bindings name them: the second load inserts beside the
// first. (The binding ignored the table: the second load met the first's
// keys, each loading thread stopped at its first "document exists", and
// the second data set's runs never happened; a plan hid it with
// couchbase.upsert.)
func TestPlanOfTwoDataSetsOnCouchbase(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	d := dbtest.Open(t, "couchbase", "couchbase.url", url)
	for n := range int64(1000) { // the tables of an earlier run of this test
		key := string(workload.AppendKey(nil, n, 1, false))
		d.Delete(context.Background(), "usertable_r300", key)
		d.Delete(context.Background(), "usertable_r1000", key)
	}
	said := benchTwoDataSets(t, "couchbase", "couchbase.url", url, "[300, 1000]")
	if strings.Contains(said, "emptying") {
		t.Errorf("a data set emptied: %s", said)
	}
	var r db.Record
	if err := d.Read(context.Background(), "usertable_r300", string(workload.AppendKey(nil, 7, 1, false)), nil, &r); err != nil {
		t.Errorf("the first data set's record, in its own table: %v", err)
	}
}

// redisOfItsOwn is the test Redis' database 9, which other tests do not
// use, without the keys an earlier run of these tests left there.
func redisOfItsOwn(t *testing.T) string {
	t.Helper()
	url := strings.TrimSuffix(dbtest.ServerURL(t, "SERVBENCH_REDIS_URL"), "/") + "/9"
	d := dbtest.Open(t, "redis", "redis.url", url)
	for n := range int64(5000) {
		d.Delete(context.Background(), "usertable", string(workload.AppendKey(nil, n, 1, false)))
	}
	return url
}

// A plan of two record counts on a binding that keeps every table's
// records in one place (Redis, as YCSB's): the first data set is emptied,
// after its runs, before the second is loaded, so that the second holds
// its own records only (the larger one first: its records past the
// smaller's were left in the smaller data set).
func TestPlanOfTwoDataSetsInOneTable(t *testing.T) {
	url := redisOfItsOwn(t)
	said := benchTwoDataSets(t, "redis", "redis.url", url, "[1000, 300]")
	if !strings.Contains(said, "emptied srv-r1000") || !strings.Contains(said, "1000 records deleted") {
		t.Errorf("the first data set not emptied before the second's load: %s", said)
	}
	d := dbtest.Open(t, "redis", "redis.url", url)
	var r db.Record
	if err := d.Read(context.Background(), "usertable", string(workload.AppendKey(nil, 500, 1, false)), nil, &r); db.Classify(err, false) != db.NotFound {
		t.Errorf("record 500 of the first data set, after the second's load: %v, want NOT_FOUND", err)
	}
}

// Emptying a data set deletes the inserts its runs left after its loaded
// records (workload D's, cleanupinserts off), and no key past those: a
// key this plan did not write (another data set's in the same store) is
// left as it was.
func TestEmptyingDeletesTheRunsInsertsOnly(t *testing.T) {
	url := redisOfItsOwn(t)
	d := dbtest.Open(t, "redis", "redis.url", url)
	ctx := context.Background()
	foreign := []int64{1300, 1301, 2500} // another's keys, past the runs' inserts
	insertKeys(t, d, foreign...)
	pf := writePlan(t, `name: twosets
deployments: [{label: srv, binding: redis, properties: {redis.url: "`+url+`"}}]
workloads: [d]
records: [1000, 300]
threads: [1]
operations: 200
properties: {insertproportion: 0.5, readproportion: 0.5, cleanupinserts: false}
`)
	dir := filepath.Join(t.TempDir(), "out")
	var errb bytes.Buffer
	if code := MainContext(ctx, []string{"bench", "-o", dir, pf}, &bytes.Buffer{}, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	first, err := result.ReadFile(filepath.Join(dir, readIndex(t, dir).Runs[0].Result))
	if err != nil {
		t.Fatal(err)
	}
	var inserts int64
	for _, op := range first.Ops {
		if op.Name == "INSERT" {
			inserts = op.Outcomes["OK"]
		}
	}
	if inserts == 0 || inserts > 200 {
		t.Fatalf("the first data set's run inserted %d", inserts)
	}
	if want := fmt.Sprintf("%d records deleted", 1000+inserts); !strings.Contains(errb.String(), want) {
		t.Errorf("want %q: %s", want, errb.String())
	}
	for n := int64(1000); n < 1000+inserts; n++ {
		var r db.Record
		if err := d.Read(ctx, "usertable", string(workload.AppendKey(nil, n, 1, false)), nil, &r); db.Classify(err, false) != db.NotFound {
			t.Errorf("the run's insert %d after the emptying: %v, want NOT_FOUND", n, err)
		}
	}
	for _, n := range foreign {
		var r db.Record
		if err := d.Read(ctx, "usertable", string(workload.AppendKey(nil, n, 1, false)), nil, &r); err != nil {
			t.Errorf("key %d the plan did not write: %v, want it kept", n, err)
		}
	}
}

// cleanupinserts reads a run's insert keys before it in batches the
// binding's replies are bounded for: against Redis, a first insert key
// that is there (recordcount below the records loaded) is said as such,
// not as a reply over its bound (the probe's batch of 256 reads was
// bounded as one thread's one reply).
func TestCleanupProbeWithinRedisBounds(t *testing.T) {
	url := redisOfItsOwn(t)
	ctx := context.Background()
	var errb bytes.Buffer
	if code := MainContext(ctx, []string{"load", "redis", "-w", "d", "-p", "redis.url=" + url, "-p", "recordcount=1000"}, &bytes.Buffer{}, &errb); code != ExitOK {
		t.Fatalf("load: exit %d: %s", code, errb.String())
	}
	for _, window := range []string{"auto", "off", "300"} {
		errb.Reset()
		code := MainContext(ctx, []string{"run", "redis", "-w", "d", "-p", "redis.url=" + url, "-p", "recordcount=500", "-p", "operationcount=200",
			"-p", "cleanupinserts=true", "-p", "redis.pipelining=" + window}, &bytes.Buffer{}, &errb)
		if code != ExitOK || !strings.Contains(errb.String(), "is there before the run") || strings.Contains(errb.String(), "cannot tell") {
			t.Errorf("window %s: exit %d: %s", window, code, errb.String())
		}
	}
}

// A rehearsal loads only into a table that holds none of its keys (a
// Redis insert replaces one silently), and removes what it loaded and
// inserted when it ends, nothing else.
func TestRehearsalTouchesOnlyItsOwnKeys(t *testing.T) {
	url := redisOfItsOwn(t)
	d := dbtest.Open(t, "redis", "redis.url", url)
	ctx := context.Background()
	pf := writePlan(t, `name: reh
deployments: [{label: r, binding: redis, properties: {redis.url: "redis://CHANGE-ME:6379"}}]
workloads: [d]
records: [100000]
threads: [1]
operations: 100000
properties: {insertproportion: 0.5, readproportion: 0.5, cleanupinserts: false}
`)
	rehearse := func() (int, string, string) {
		var out, errb bytes.Buffer
		code := MainContext(ctx, []string{"bench", pf, "--rehearse", "--at", "redis=" + url, "-o", filepath.Join(t.TempDir(), "out")}, &out, &errb)
		return code, out.String(), errb.String()
	}
	// A key of the user's where the rehearsal would load: refused, kept.
	user := string(workload.AppendKey(nil, 50, 1, false))
	insertKeys(t, d, 50)
	code, table, said := rehearse()
	if code != ExitFailure || !strings.Contains(table, "already holds "+user) {
		t.Errorf("a table holding a key of the user's: exit %d: %s%s", code, table, said)
	}
	var r db.Record
	if err := d.Read(ctx, "usertable", user, nil, &r); err != nil {
		t.Errorf("the user's key after a refused rehearsal: %v", err)
	} else if v, _ := r.Get("field0"); string(v) != "x" {
		t.Errorf("the user's key after a refused rehearsal holds %q", v)
	}
	d.Delete(ctx, "usertable", user)
	// A key past the rehearsal's: kept; the rehearsal's: removed.
	other := string(workload.AppendKey(nil, 4000, 1, false))
	insertKeys(t, d, 4000)
	code, table, said = rehearse()
	if code != ExitOK || !strings.Contains(table, "1 completed") || !strings.Contains(said, "removed from its endpoint") {
		t.Fatalf("rehearsal: exit %d: %s%s", code, table, said)
	}
	for n := range int64(300) {
		if err := d.Read(ctx, "usertable", string(workload.AppendKey(nil, n, 1, false)), nil, &r); db.Classify(err, false) != db.NotFound {
			t.Errorf("key %d after the rehearsal: %v, want NOT_FOUND", n, err)
		}
	}
	if err := d.Read(ctx, "usertable", other, nil, &r); err != nil {
		t.Errorf("a key the rehearsal did not write: %v", err)
	}
}

// Emptying a data set loaded from insertstart deletes the keys it loaded,
// not those before them (the user's own).
func TestEmptyingKeepsKeysBeforeInsertStart(t *testing.T) {
	url := redisOfItsOwn(t)
	d := dbtest.Open(t, "redis", "redis.url", url)
	ctx := context.Background()
	insertKeys(t, d, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9)
	pf := writePlan(t, `name: start
deployments: [{label: srv, binding: redis, properties: {redis.url: "`+url+`"}}]
workloads: [c]
records: [200, 300]
threads: [1]
operations: 50
properties: {insertstart: 100, insertcount: 100}
`)
	var errb bytes.Buffer
	if code := MainContext(ctx, []string{"bench", "-o", filepath.Join(t.TempDir(), "out"), pf}, &bytes.Buffer{}, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(errb.String(), "100 records deleted") {
		t.Errorf("want the 100 loaded records deleted: %s", errb.String())
	}
	for n := range int64(10) {
		var r db.Record
		if err := d.Read(ctx, "usertable", string(workload.AppendKey(nil, n, 1, false)), nil, &r); err != nil {
			t.Errorf("key %d before insertstart: %v, want it kept", n, err)
		}
	}
}

// insertKeys inserts a record of one field under each key number ns.
func insertKeys(t *testing.T, d db.DB, ns ...int64) {
	t.Helper()
	rec := &db.Record{}
	rec.Add("field0", []byte("x"))
	for _, n := range ns {
		if err := d.Insert(context.Background(), "usertable", string(workload.AppendKey(nil, n, 1, false)), rec); err != nil {
			t.Fatal(err)
		}
	}
}

// A rehearsal into a table that is not there yet makes it first, as the
// load would, to ask it for the data set's keys (DynamoDB's read of a
// table not made failed the load as BAD_REQUEST).
func TestRehearsalOfATableNotThereYet(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	table := fmt.Sprintf("sbfresh%d", time.Now().UnixNano())
	pf := writePlan(t, `name: fresh
deployments: [{label: d, binding: dynamodb, properties: {dynamodb.endpoint: "http://CHANGE-ME:8000", table: `+table+`}}]
workloads: [c]
records: [1000]
threads: [1]
operations: 1000
`)
	code, out, e := servbench(t, "bench", pf, "--rehearse", "--at", "dynamodb="+url, "-o", filepath.Join(t.TempDir(), "out"))
	if code != ExitOK || !strings.Contains(out, "1 completed") {
		t.Errorf("a rehearsal into a table not there yet: exit %d: %s%s", code, out, e)
	}
}

// Deployments a rehearsal runs at one endpoint share its one table: each
// data set is emptied after its runs, before the next deployment's is
// loaded (S1's four Redis services, rehearsed on one server: the second
// found the first's keys and failed its load).
func TestRehearsalOfDeploymentsAtOneEndpoint(t *testing.T) {
	url := redisOfItsOwn(t)
	pf := writePlan(t, `name: one
deployments:
  - {label: small, binding: redis, records: [100000], properties: {redis.url: "redis://small.CHANGE-ME:6379"}}
  - {label: large, binding: redis, records: [200000], properties: {redis.url: "redis://large.CHANGE-ME:6379"}}
workloads: [c]
threads: [1]
operations: 100000
`)
	code, out, e := servbench(t, "bench", pf, "--rehearse", "--at", "redis="+url, "-o", filepath.Join(t.TempDir(), "out"))
	if code != ExitOK || !strings.Contains(out, "2 completed") || !strings.Contains(e, "emptying small-r100-fields before loading large-r200-fields") {
		t.Errorf("two deployments at one endpoint: exit %d: %s%s", code, out, e)
	}
}

// A secret a rule finds in a setup statement's answer (CONFIG GET
// masterauth) is known from then on: the answer's other mention of it,
// a later step's output and every file of the directory hide it.
func TestStatementAnswerSecretLearned(t *testing.T) {
	url := redisOfItsOwn(t)
	dbtest.Admin(t, "redis", []string{"CONFIG SET masterauth hunter31x"}, "redis.url", url)
	t.Cleanup(func() { dbtest.Admin(t, "redis", []string{`CONFIG SET masterauth ""`}, "redis.url", url) })
	pf := writePlan(t, `name: answers
deployments:
  - label: r
    binding: redis
    properties: {redis.url: "`+url+`"}
    setup:
      - statement: CONFIG GET masterauth
      - shell: 'echo "it is hun""ter31x"'
workloads: [c]
records: [100]
threads: [1]
operations: 100
`)
	dir := filepath.Join(t.TempDir(), "out")
	code, _, e := servbench(t, "bench", pf, "-o", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	if strings.Contains(e, "hunter") {
		t.Errorf("the terminal shows the secret: %s", e)
	}
	filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("hunter")) {
				t.Errorf("%s holds the secret", path)
			}
		}
		return nil
	})
}

// A rehearsal of a plan it need not scale (100 records, 100 operations)
// measures at its own endpoint: with the index that says so removed, the
// plan does not take that result for its run's.
func TestRehearsalResultNotThePlans(t *testing.T) {
	url := redisOfItsOwn(t)
	pf := writePlan(t, `name: small
deployments: [{label: r, binding: redis, properties: {redis.url: "redis://127.0.0.1:1"}}]
workloads: [c]
records: [100]
threads: [1]
operations: 100
`)
	dir := filepath.Join(t.TempDir(), "out")
	if code, out, e := servbench(t, "bench", pf, "--rehearse", "--at", "redis="+url, "-o", dir); code != ExitOK {
		t.Fatalf("rehearsal: exit %d: %s%s", code, out, e)
	}
	os.Remove(filepath.Join(dir, "index.json"))
	code, _, e := servbench(t, "bench", pf, "-o", dir)
	ix := readIndex(t, dir)
	want := "holds another run's result (measured at " + strings.Join(plan.Endpoints(url), ",") + ", not 127.0.0.1:1 (redis.url))"
	if code != ExitFailure || len(ix.Runs) != 1 || !strings.Contains(ix.Runs[0].Error, want) {
		t.Errorf("the plan over its rehearsal's result: exit %d, %+v: %s", code, ix.Runs, e)
	}
}

// A rehearsal whose cells all completed or were not rehearsable on its
// endpoint passed: it exits 0, its table saying why (the pagination
// queries are SQL++, which CouchbaseMock does not run). A run that failed
// so as a whole (S1's Capella, whose spread load's clients make the
// index) made it exit 1: rehearsed decides from the cells.
func TestRehearsedFromTheCells(t *testing.T) {
	cells := []experiment.Cell{{ID: "a", Outcome: experiment.Completed}, {ID: "b", Outcome: experiment.NotRehearsable, Why: "load: NOT_IMPLEMENTED"},
		{ID: "c", Outcome: experiment.Overloaded, Why: "2 UPDATE SERVICE_UNAVAILABLE"}, {ID: "d", Outcome: experiment.Skipped}}
	if !rehearsed(cells) {
		t.Errorf("%v: want rehearsed", cells)
	}
	for _, o := range []string{experiment.Failed, experiment.NotRun} {
		if rehearsed(append(cells, experiment.Cell{ID: "c", Outcome: o})) {
			t.Errorf("a cell %s: want not rehearsed", o)
		}
	}
	if rehearsed(nil) {
		t.Error("no cells: want not rehearsed")
	}
}

// A rehearsal of a cell completed and one not rehearsable exits 0.
func TestRehearsalNotRehearsableExitsZero(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL")
	d := dbtest.Open(t, "couchbase", "couchbase.url", url)
	for n := range int64(100) { // the rehearsal's keys, in usertable, which other tests of the server load
		d.Delete(context.Background(), "usertable", string(workload.AppendKey(nil, n, 1, false)))
	}
	pf := writePlan(t, `name: scans
deployments: [{label: cb, binding: couchbase, properties: {couchbase.url: "couchbase://CHANGE-ME"}}]
workloads: [c, pagination]
records: [1000]
threads: [2]
clients: [2]
operations: 100
`)
	code, out, e := servbench(t, "bench", pf, "--rehearse", "--at", "couchbase="+url, "-o", filepath.Join(t.TempDir(), "out"))
	if code != ExitOK || !strings.Contains(out, "1 completed, 0 failed, 1 not rehearsable") {
		t.Errorf("exit %d, want %d:\n%s%s", code, ExitOK, out, e)
	}
}
