package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	_ "github.com/servbench/servbench/db/pebble"
	"github.com/servbench/servbench/result"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/servbench/servbench/coordinator"
	_ "github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/workloads"
)

// A second servbench on a directory in use is refused in one line naming
// the holder, and leaves the first one's files alone; the lock goes with
// its holder.
func TestDirectoryLock(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	release, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	pf := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(pf, []byte("deployments: [{binding: basic}]\nworkloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\n"), 0o644)
	pl, err := plan.Load(pf, func(n string) bool { return slices.Contains(workloads.Names(), n) })
	if err != nil {
		t.Fatal(err)
	}
	err = New(pl, dir, io.Discard).Run(context.Background())
	if want := fmt.Sprintf("%s is in use by another servbench (pid %d)", dir, os.Getpid()); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a second run on a locked directory: %v, want %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "plan.yaml")); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote into the directory: %v", err)
	}
	release()
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatalf("after the first released it: %v", err)
	}
}

// resumePlan expands to 16 runs, one priced deployment.
const resumePlan = `name: resume
deployments: [{label: pebble, binding: pebble, price_per_hour: 3.6}, {label: basic, binding: basic}]
workloads: [a, c]
records: [2000]
threads: [1, 2]
operations: 3000
repetitions: 2
`

func loadPlan(t *testing.T, text string) *plan.Plan {
	t.Helper()
	pf := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(pf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	pl, err := plan.Load(pf, func(n string) bool { return slices.Contains(workloads.Names(), n) })
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// statuses counts the index's runs by status.
func statuses(t *testing.T, dir string) (*plan.Index, map[string]int) {
	t.Helper()
	ix, err := plan.ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, c := range ix.Runs {
		n[c.Status]++
	}
	return ix, n
}

// A plan runs every cell once, loads each data set once, computes cost,
// survives an interruption and, run again, finishes only what is missing:
// all read from index.json and the result files it names.
func TestPlanResumesFromIndex(t *testing.T) {
	pl := loadPlan(t, resumePlan)
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := New(pl, dir, io.Discard)
	var first []plan.IndexRun
	r.OnRun = func(ic plan.IndexRun) {
		first = append(first, ic)
		if len(first) == 3 {
			cancel()
		}
	}
	if err := r.Run(ctx); err != ErrInterrupted {
		t.Fatalf("interrupted plan: %v, want ErrInterrupted", err)
	}
	ix, n := statuses(t, dir)
	if len(ix.Runs) != 16 || n["done"] != 3 || n["pending"] != 13 {
		t.Fatalf("after the interruption: %d runs listed, by status %v; want 3 done and 13 pending", len(ix.Runs), n)
	}
	for i, ic := range first {
		if ix.Runs[i].ID != ic.ID || ix.Runs[i].Status != "done" {
			t.Errorf("OnRun saw %s, the index holds %s (%s) at %d", ic.ID, ix.Runs[i].ID, ix.Runs[i].Status, i)
		}
	}
	loads, err := filepath.Glob(filepath.Join(dir, "loads", "*.json"))
	if err != nil || len(loads) == 0 {
		t.Fatalf("no load results: %v", err)
	}
	before := map[string][]byte{}
	for _, f := range loads {
		before[f], _ = os.ReadFile(f)
	}

	r = New(pl, dir, io.Discard)
	var second []string
	r.OnRun = func(ic plan.IndexRun) { second = append(second, ic.ID) }
	if err := r.Run(context.Background()); err != nil {
		t.Fatalf("resumed plan: %v", err)
	}
	if len(second) != 13 || slices.ContainsFunc(second, func(id string) bool {
		return slices.ContainsFunc(first, func(ic plan.IndexRun) bool { return ic.ID == id })
	}) {
		t.Errorf("the resumed plan ran %v, want the 13 the first left", second)
	}
	for f, raw := range before {
		if now, _ := os.ReadFile(f); !bytes.Equal(now, raw) {
			t.Errorf("%s was loaded again", f)
		}
	}
	ix, n = statuses(t, dir)
	if n["done"] != 16 {
		t.Fatalf("after resuming: by status %v, want 16 done", n)
	}
	for _, c := range ix.Runs {
		d, err := result.ReadFile(filepath.Join(dir, c.Result))
		if err != nil {
			t.Fatal(err)
		}
		if d.Operations != 3000 || d.Threads != c.Threads || d.Throughput != c.Throughput || d.Label != c.Deployment {
			t.Errorf("%s: the result says %d operations, %d threads, %v ops/s, label %q", c.ID, d.Operations, d.Threads, d.Throughput, d.Label)
		}
		// $3.60 an hour: cost per billion = 3.6e9 / (3600 · throughput).
		if c.Deployment == "pebble" && (c.CostPerBillion <= 0 || math.Abs(c.CostPerBillion*c.Throughput-1e6) > 1e-3) {
			t.Errorf("%s: cost %v at %v ops/s", c.ID, c.CostPerBillion, c.Throughput)
		}
		if c.Deployment == "basic" && c.CostPerBillion != 0 {
			t.Errorf("%s: a cost without a price", c.ID)
		}
	}
	// Nothing left: a third run runs nothing.
	r = New(pl, dir, io.Discard)
	r.OnRun = func(ic plan.IndexRun) { t.Errorf("a finished plan ran %s again", ic.ID) }
	if err := r.Run(context.Background()); err != nil {
		t.Errorf("finished plan run again: %v", err)
	}
}

// capacityPlan: the basic binding waits 2 ms per operation on each of 2
// threads, a capacity of 1,000 ops/s. Above it, response times from the
// intended starts grow with the backlog: at 1,100 ops/s for a second the
// last operations wait about 100 ms, over the 20 ms bound. Sleeps only
// ever take longer than asked, so a busy machine can lower the capacity
// the search finds, never raise it.
const capacityPlan = `name: capacity
deployments:
  - label: basic
    binding: basic
    properties: {basicdb.simulatedelay: 2, basicdb.randomizedelay: false}
workloads: [c]
records: [100]
threads: [2]
rates: [250, 4000]
duration: 1
repetitions: 2
slo: {search: rate, latency: p99, bound_ms: 20, precision_percent: 10}
`

// The capacity search finds a known capacity within its precision in
// fewer runs than a list of steps of that precision, repeats its answer,
// writes every point it tried into the index, and a plan run again runs
// nothing more.
func TestCapacitySearchRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("about ten one-second runs")
	}
	pl := loadPlan(t, capacityPlan)
	dir := filepath.Join(t.TempDir(), "out")
	var log bytes.Buffer
	r := New(pl, dir, &log)
	var ran []string
	r.OnRun = func(ic plan.IndexRun) { ran = append(ran, ic.ID) }
	if err := r.Run(context.Background()); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	ix, n := statuses(t, dir)
	if ix.SLO == nil || ix.SLO.Search != "rate" || len(ix.SLO.Curves) != 1 || len(ix.SLO.Curves[0].Answers) != 1 {
		t.Fatalf("index SLO %+v\n%s", ix.SLO, log.String())
	}
	cv := ix.SLO.Curves[0]
	a := cv.Answers[0]
	const capacity, precision = 1000.0, 0.10
	if a.Step == 0 {
		// A machine so busy that even the lowest rate waited past the
		// bound (seen under two test suites at once): the search went
		// down to its floor, each step judged as measured.
		if len(cv.Steps) == 0 {
			t.Fatalf("no answer and no step tried\n%s", log.String())
		}
		low := cv.Steps[0].Step
		for _, p := range cv.Steps {
			low = min(low, p.Step)
			if p.Met || p.LatencyUs <= 20000 {
				t.Errorf("no step met the bound, yet step %+v is within it", p)
			}
		}
		if low != 1 || !strings.Contains(log.String(), "no step met it, down to rate 1") {
			t.Errorf("no step met the bound, and the search stopped at rate %v:\n%s", low, log.String())
		}
		t.Skipf("the machine too busy for a capacity of %g ops/s: no rate met the bound", capacity)
	}
	if a.Step > capacity*(1+precision) || a.Below == 0 || a.Below-a.Step > max(1, precision*a.Step) || a.Runs != 2 || a.LatencyUs > 20000 {
		t.Fatalf("answer %+v for a capacity of %g ops/s\n%s", a, capacity, log.String())
	}
	// A list of 10% steps from 250 runs every step up to the answer and
	// one beyond it.
	list := 0
	for x := 250.0; x <= a.Step; x *= 1 + precision {
		list++
	}
	// On a busy machine the sleeps run long and the capacity found is
	// lower (86 ops/s seen): a list from 250 then has nothing to beat, and
	// only the counts are checked.
	if a.Step >= capacity/2 && cv.Tried >= list+1 || n["done"] != cv.Tried || len(ran) != cv.Tried {
		t.Errorf("the search made %d runs (index: %v, OnRun: %d); a list of steps of 10%% makes %d", cv.Tried, n, len(ran), list+1)
	}
	for _, p := range cv.Steps {
		if p.Met != (p.LatencyUs <= 20000) || (p.Step > a.Step && p.Step < a.Below) {
			t.Errorf("step %+v inside the answer's interval or judged wrongly", p)
		}
	}
	if !strings.Contains(log.String(), "p99 ≤ 20 ms: ") || !strings.Contains(log.String(), fmt.Sprintf("the capacity between rate %s and rate", thousands(a.Step))) {
		t.Errorf("closing lines:\n%s", log.String())
	}
	t.Logf("%d runs; answer %+v", cv.Tried, a)
	r = New(pl, dir, io.Discard)
	r.OnRun = func(ic plan.IndexRun) { t.Errorf("a finished search ran %s again", ic.ID) }
	if err := r.Run(context.Background()); err != nil {
		t.Errorf("finished search run again: %v", err)
	}
	if again, _ := statuses(t, dir); len(again.SLO.Curves[0].Answers) != 1 || again.SLO.Curves[0].Answers[0] != a {
		t.Errorf("run again, the answer is %+v, was %+v", again.SLO.Curves[0].Answers, a)
	}
}

func thousands(v float64) string { return format.Thousands(int64(v)) }

// A plan that names its table and gives a server deployment several
// record counts is refused before anything runs, in one line naming the
// deployment (the second load failed at the first's keys, after the first
// data set's runs).
func TestNamedTableOfSeveralDataSetsRefused(t *testing.T) {
	pl := loadPlan(t, "name: t\ndeployments: [{label: pg, binding: basic, properties: {table: mytable}}]\nworkloads: [c]\nrecords: [1000, 300]\nthreads: [1]\noperations: 10\n")
	err := New(pl, filepath.Join(t.TempDir(), "out"), io.Discard).Check()
	if err == nil || !strings.Contains(err.Error(), "deployment pg: the plan names its table (mytable) and 2 record counts") || strings.Contains(err.Error(), "\n") {
		t.Errorf("%v", err)
	}
	pl = loadPlan(t, "name: t\ndeployments: [{label: pg, binding: basic}]\nworkloads: [c]\nrecords: [1000, 300]\nthreads: [1]\noperations: 10\n")
	if err := New(pl, filepath.Join(t.TempDir(), "out"), io.Discard).Check(); err != nil {
		t.Errorf("without a table named: %v", err)
	}
}

// The directory's lock is never taken through a link (one planted there
// to a user's file had it emptied and a pid written in it), nor a pipe;
// the holder is read from the lock's first bytes only (a 3 GB lock file
// was read whole).
func TestDirectoryLockTrustsNothingThere(t *testing.T) {
	dir := t.TempDir()
	users := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(users, []byte("the user's own"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(users, filepath.Join(dir, ".lock")); err != nil {
		t.Fatal(err)
	}
	if _, err := lockDir(dir); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link: %v", err)
	}
	if b, _ := os.ReadFile(users); string(b) != "the user's own" {
		t.Errorf("the user's file: %q", b)
	}
	piped := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(piped, ".lock"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := lockDir(piped); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a pipe: %v", err)
	}
	sparse := filepath.Join(t.TempDir(), ".lock")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("4242\n")
	f.Truncate(3 << 30)
	f.Close()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	pid := holder(sparse)
	runtime.ReadMemStats(&m1)
	if pid != 0 && pid != 4242 || m1.TotalAlloc-m0.TotalAlloc > 1<<20 {
		t.Errorf("holder %d, %d bytes read", pid, m1.TotalAlloc-m0.TotalAlloc)
	}
}

// A run whose result was written and another output not says so once,
// a spread phase's ("not written: ...") as a run here's.
func TestWrittenNotSaysItOnce(t *testing.T) {
	spread := (&coordinator.OutputError{}).Add("client 1's result", errors.New("is a directory"))
	for _, err := range []error{&unwrittenError{spread}, &unwrittenError{errors.New("the text report: disk full")}} {
		if got := writtenNot(err); strings.Count(got, "not") != 1 || !strings.HasPrefix(got, "its result is written, not ") {
			t.Errorf("%v: %q", err, got)
		}
	}
}
