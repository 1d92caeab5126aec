package experiment

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "github.com/servbench/servbench/db/couchbase" // register
	_ "github.com/servbench/servbench/db/redis"     // register
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/report"
	"github.com/servbench/servbench/result"
)

// A rehearsal keeps the plan's shape and changes only its sizes, its
// endpoints and where its clients run.
func TestRehearseReshapes(t *testing.T) {
	pl := loadPlan(t, `name: r
deployments:
  - {label: cb, binding: couchbase, records: [25000000], properties: {couchbase.url: "couchbases://cb.CHANGE-ME", couchbase.password: CHANGE-ME, couchbase.tls.ca: ca.pem, couchbase.update: upsert}}
  - {label: rd, binding: redis, properties: {redis.url: "rediss://default:pw@r.CHANGE-ME:12000"}}
  - {label: b, binding: basic}
workloads: [a, c]
records: [100000, 1000000, 10000000]
threads: [1, 400]
clients: [10]
duration: 600
warmup: 60
repetitions: 3
properties: {orchestrator: ssh, ssh.hosts: "10.0.0.1,10.0.0.2", fieldcount: 10}
`)
	got, err := Rehearse(pl, Rehearsal{At: map[string]string{"couchbase": "couchbase://127.0.0.1", "rd": "redis://127.0.0.1:6379"},
		Properties: []plan.Property{{Key: "couchbase.username", Value: "Administrator"}, {Key: "redis.timeout", Value: "5s"}}})
	if err != nil {
		t.Fatal(err)
	}
	if g := got.Records; len(g) != 3 || g[0] != 100 || g[1] != 1000 || g[2] != 10000 {
		t.Errorf("records %v", g)
	}
	if g := got.Deployments[0].Records; len(g) != 1 || g[0] != 25000 {
		t.Errorf("cb's records %v", g)
	}
	if got.Duration != 0.6 || math.Abs(got.Warmup-0.06) > 1e-12 || got.Repetitions != 3 || len(got.Threads) != 2 || got.Clients[0] != 10 || len(got.Workloads) != 2 {
		t.Errorf("duration %v warmup %v repetitions %d threads %v clients %v", got.Duration, got.Warmup, got.Repetitions, got.Threads, got.Clients)
	}
	props := func(d plan.Deployment) string {
		var b strings.Builder
		for _, p := range d.Properties {
			b.WriteString(p.Key + "=" + p.Value + " ")
		}
		return b.String()
	}
	if s := props(got.Deployments[0]); s != "couchbase.update=upsert couchbase.url=couchbase://127.0.0.1 couchbase.username=Administrator " {
		t.Errorf("cb's properties: %s", s)
	}
	if s := props(got.Deployments[1]); s != "redis.url=redis://127.0.0.1:6379 redis.timeout=5s " {
		t.Errorf("rd's properties: %s", s)
	}
	for _, p := range got.Deployments[0].Properties {
		if p.Key == "couchbase.url" && p.Source != "--at couchbase" || p.Key == "couchbase.username" && p.Source != "-p" {
			t.Errorf("%s comes from %q", p.Key, p.Source)
		}
	}
	if p := got.Deployments[1].Properties[0]; p.Source != "--at rd" {
		t.Errorf("%s comes from %q", p.Key, p.Source)
	}
	if s := props(got.Deployments[2]); s != "" {
		t.Errorf("b's properties: %s", s)
	}
	for _, p := range got.Properties {
		if p.Key == "orchestrator" || strings.HasPrefix(p.Key, "ssh.") {
			t.Errorf("the plan's clients are still placed: %s=%s", p.Key, p.Value)
		}
	}
	if pl.Records[0] != 100000 || len(pl.Deployments[0].Properties) != 4 || pl.Rehearsal != nil {
		t.Error("the plan itself was changed")
	}
	// Record counts that would meet are kept apart; a plan's own counts
	// below the least stay data sets of their own.
	if g := scaleRecords([]int64{1000, 50000, 100}, 0.001); g[0] != 100 || g[1] != 101 || g[2] != 102 {
		t.Errorf("kept apart: %v", g)
	}
	// A binding named beside every one of its deployments' labels is used.
	if _, err := Rehearse(pl, Rehearsal{At: map[string]string{"cb": "couchbase://127.0.0.1", "couchbase": "couchbase://127.0.0.2", "redis": "redis://127.0.0.1"}}); err != nil {
		t.Errorf("a binding and a label both named: %v", err)
	}
	for _, bad := range []Rehearsal{
		{At: map[string]string{"couchbase": "couchbase://127.0.0.1"}},                                                                 // rd has none
		{At: map[string]string{"couchbase": "couchbase://127.0.0.1", "redis": "redis://127.0.0.1", "mongodb": "mongodb://127.0.0.1"}}, // no mongodb
		{At: map[string]string{"couchbase": "x", "redis": "y"}, Scale: 2},
	} {
		if _, err := Rehearse(pl, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
}

// A rehearsal's results and the plan's never share a directory: each
// would be taken for the other's finished runs.
func TestRehearsalKeepsItsOwnDirectory(t *testing.T) {
	text := "name: r\ndeployments: [{label: b, binding: basic}]\nworkloads: [c]\nrecords: [100000]\nthreads: [1]\noperations: 100000\n"
	rehearsal := func() *Runner {
		pl, err := Rehearse(loadPlan(t, text), Rehearsal{})
		if err != nil {
			t.Fatal(err)
		}
		return New(pl, "", io.Discard)
	}
	dir := filepath.Join(t.TempDir(), "out")
	r := rehearsal()
	r.dir = dir
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Its report says so first.
	set, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if secs := set.Sections(); secs[0].ID != "rehearsal" || !strings.Contains(secs[0].Intro, "at 0.001 of its sizes") {
		t.Errorf("the report's first section: %+v", secs[0])
	}
	if err := New(loadPlan(t, text), dir, io.Discard).Run(context.Background()); err == nil || !strings.Contains(err.Error(), "holds a rehearsal's results") {
		t.Errorf("the plan into a rehearsal's directory: %v", err)
	}
	dir2 := filepath.Join(t.TempDir(), "out")
	if err := New(loadPlan(t, strings.Replace(text, "operations: 100000", "operations: 100", 1)), dir2, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	r = rehearsal()
	r.dir = dir2
	if err := r.Run(context.Background()); err == nil || !strings.Contains(err.Error(), "holds the plan's own results") {
		t.Errorf("a rehearsal into the plan's directory: %v", err)
	}
	// Without the index that says whose they are, a result of the run's
	// name but of other sizes (a rehearsal's of a plan's smallest data
	// set) is neither taken for the run's nor written over.
	text = strings.Replace(text, "records: [100000]", "records: [100]", 1)
	dir3 := filepath.Join(t.TempDir(), "out")
	r = rehearsal()
	r.dir = dir3
	if err := r.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir3, "index.json"))
	res := filepath.Join(dir3, "runs", "b", "c", "r100-t1-qmax-1.json")
	before, _ := os.ReadFile(res)
	err = New(loadPlan(t, text), dir3, io.Discard).Run(context.Background())
	ix, _ := plan.ReadIndex(dir3)
	if err == nil || ix == nil || len(ix.Runs) != 1 || !strings.Contains(ix.Runs[0].Error, "holds another run's result (operationcount 100, not 100000)") {
		t.Errorf("the plan over a rehearsal's results without its index: %v, %+v", err, ix)
	}
	if after, _ := os.ReadFile(res); len(before) == 0 || !bytes.Equal(before, after) {
		t.Errorf("the rehearsal's result was written over")
	}
}

// A rehearsal's -p that no deployment reads (another binding's password:
// Redis', the deployment's binding basic)
// is a secret known all the same: a step that prints it shows it hidden,
// on the terminal and in every file.
func TestRehearsalKnowsItsOwnSecrets(t *testing.T) {
	text := "name: r\ndeployments: [{label: b, binding: basic, setup: [{shell: 'echo hun\"\"ter21x'}]}]\nworkloads: [c]\nrecords: [100]\nthreads: [1]\noperations: 100\n"
	pl, err := Rehearse(loadPlan(t, text), Rehearsal{Properties: []plan.Property{{Key: "redis.password", Value: "hunter21x"}}})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	var stderr bytes.Buffer
	if err := New(pl, dir, &stderr).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stderr.String(), "hunter") {
		t.Errorf("the terminal shows the secret: %s", stderr.String())
	}
	noFileHolds(t, dir, "hunter")
}

// A rehearsal's run of a number of operations ends at maxOpsSeconds too:
// 100 operations of 200 ms each (a stand-in that reads a collection
// whole for each scan) stop at the bound (lowered to 0.5 s here), said as
// the run's stop.
func TestRehearsalBoundsARunOfOperations(t *testing.T) {
	t.Parallel()
	defer func(s float64) { maxOpsSeconds = s }(maxOpsSeconds)
	maxOpsSeconds = 0.5
	text := "name: r\ndeployments: [{label: b, binding: basic, properties: {basicdb.simulatedelay: 200}}]\nworkloads: [c]\nrecords: [100000]\nthreads: [1]\nload_threads: 100\noperations: records\n"
	pl, err := Rehearse(loadPlan(t, text), Rehearsal{})
	if err != nil {
		t.Fatal(err)
	}
	if pl.Operations != minOperations || pl.Duration != maxOpsSeconds {
		t.Fatalf("operations %d, duration %v: want %d and %v", pl.Operations, pl.Duration, minOperations, maxOpsSeconds)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	d, err := result.ReadFile(filepath.Join(dir, "runs", "b", "c", "r100-t1-qmax-1.json"))
	if err != nil {
		t.Fatal(err)
	}
	if d.Stop != result.TimeLimit || d.Operations >= minOperations {
		t.Errorf("the run stopped at %q after %d operations: want maxexecutiontime, before %d", d.Stop, d.Operations, minOperations)
	}
}

// Deployments that a rehearsal puts on one endpoint keep their data sets
// apart: S1's 1M and 5M customers both scale to 100 records at 0.00001,
// and the second load met the first's keys in one table. The plan's own
// record counts, given to deployments without theirs, too.
func TestRehearsalKeepsEndpointsDataSetsApart(t *testing.T) {
	pl := loadPlan(t, `name: r
deployments:
  - {label: a3, binding: redis, records: [1000000]}
  - {label: a6, binding: redis, records: [5000000]}
  - {label: p1, binding: redis}
  - {label: p2, binding: redis}
  - {label: b, binding: basic, records: [1000000]}
workloads: [c]
records: [100, 200]
threads: [1]
duration: 10
`)
	got, err := Rehearse(pl, Rehearsal{At: map[string]string{"redis": "redis://127.0.0.1:6379"}, Scale: 0.00001})
	if err != nil {
		t.Fatal(err)
	}
	var all []string
	for _, d := range got.Deployments {
		all = append(all, fmt.Sprint(d.Label, d.Records))
	}
	if s := strings.Join(all, " "); s != "a3[100] a6[101] p1[102 103] p2[104 105] b[100]" {
		t.Errorf("records: %s", s)
	}
}

// A rehearsal with Ends runs each walk's first and last thread step and
// rate only, every other dimension whole; its directory says so (the
// report's rehearsal section), and a rehearsal of every step is not
// resumed into it.
func TestRehearsalEnds(t *testing.T) {
	t.Parallel()
	text := "name: r\ndeployments: [{label: b, binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [1, 2, 3, 4]\nrates: [100, 200, 300]\nclients: [1]\nrepetitions: 2\nduration: 10\n"
	pl, err := Rehearse(loadPlan(t, text), Rehearsal{Ends: true})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(pl.Threads, pl.Rates) != "[1 4] [100 300]" {
		t.Fatalf("threads %v, rates %v: want [1 4] [100 300]", pl.Threads, pl.Rates)
	}
	var ids []string
	for _, r := range pl.Runs() {
		ids = append(ids, r.ID())
	}
	if len(ids) != 2*2*2 {
		t.Errorf("%d runs, want 8 (2 steps x 2 rates x 2 repetitions): %v", len(ids), ids)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	ix, err := plan.ReadIndex(dir)
	if err != nil || ix.Rehearsal == nil || !ix.Rehearsal.Ends {
		t.Fatalf("index rehearsal %+v (%v): want ends", ix.Rehearsal, err)
	}
	whole, err := Rehearse(loadPlan(t, text), Rehearsal{})
	if err != nil {
		t.Fatal(err)
	}
	if len(whole.Threads) != 4 || len(whole.Rates) != 3 {
		t.Errorf("a whole rehearsal's threads %v, rates %v", whole.Threads, whole.Rates)
	}
	err = New(whole, dir, io.Discard).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "--ends") {
		t.Errorf("a whole rehearsal into an --ends rehearsal's directory: %v", err)
	}
}

// A cell's outcome is read from its result's operations: some failed for
// the endpoint's load alone (SERVICE_UNAVAILABLE) is overloaded, not
// failed; every one failing so, or a failure of another cause, is failed.
func TestRehearsalCellOutcomes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i, c := range []struct {
		outcomes map[string]int64
		want     string
	}{
		{map[string]int64{"OK": 98}, Completed},
		{map[string]int64{"OK": 98, "SERVICE_UNAVAILABLE": 2}, Overloaded},
		{map[string]int64{"OK": 1, "TIMEOUT": 5, "THROTTLED": 1}, Overloaded},
		{map[string]int64{"TIMEOUT": 5}, Failed},
		{map[string]int64{"OK": 98, "SERVICE_UNAVAILABLE": 1, "ERROR": 1}, Failed},
		{map[string]int64{"OK": 10, "NOT_IMPLEMENTED": 3}, NotRehearsable},
	} {
		var n int64
		for _, k := range c.outcomes {
			n += k
		}
		d := &result.Doc{Format: result.Format, Version: result.FormatVersion, Operations: n, Ops: result.Ops{{Name: "UPDATE", Count: n, Outcomes: c.outcomes}}}
		path := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := result.WriteJSON(f, d); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if got, why := resultOutcome(path); got != c.want {
			t.Errorf("%v: %s (%s), want %s", c.outcomes, got, why, c.want)
		}
	}
}

// A rehearsal of a plan whose repetitions stop at their until counts the
// repetitions the cell did not need as skipped, not failed.
func TestRehearsalSkippedRepetitions(t *testing.T) {
	t.Parallel()
	text := "name: r\ndeployments: [{label: b, binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [1]\nrates: [500]\nrepetitions: {min: 2, max: 4, until: {throughput: 90%}}\nduration: 10\n"
	pl, err := Rehearse(loadPlan(t, text), Rehearsal{})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	cells, err := Cells(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, c := range cells {
		n[c.Outcome]++
	}
	if n[Failed] != 0 || n[Skipped] != 2 || n[Completed] != 2 {
		t.Errorf("outcomes %v: want 2 completed, 2 skipped", n)
	}
}
