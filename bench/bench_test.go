package bench

import (
	"bytes"
	"context"
	"fmt"
	_ "github.com/servbench/servbench/db/pebble"
	"github.com/servbench/servbench/result"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/workloads"
)

// A second servbench on a directory in use is refused in one line naming
// the holder, and leaves the first one's files alone; the lock goes with
// its holder.
func TestDirectoryLock(t *testing.T) {
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
