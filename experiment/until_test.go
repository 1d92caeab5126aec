package experiment

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/report"
	"github.com/servbench/servbench/workloads"
)

// noisy is a binding made noisy on purpose: every other run it opens
// takes 4 ms an operation, the others none, so a cell's throughput over
// its repetitions never settles.
type noisy struct{ opens atomic.Int64 }

type noisyDB struct{ delay time.Duration }

func (n *noisy) Open(_ context.Context, _ *props.Props, o db.Options) (db.DB, error) {
	if o.CheckOnly {
		return nil, nil
	}
	d := noisyDB{}
	if n.opens.Add(1)%2 == 0 {
		d.delay = 4 * time.Millisecond
	}
	return d, nil
}

func (n *noisy) Summary() string { return "a test's store whose runs alternate slow and fast" }

func (d noisyDB) wait() {
	if d.delay > 0 {
		time.Sleep(d.delay)
	}
}
func (d noisyDB) Read(context.Context, string, string, []string, *db.Record) error {
	d.wait()
	return nil
}
func (d noisyDB) Scan(context.Context, string, string, int, []string, *db.RecordSet) error {
	d.wait()
	return nil
}
func (d noisyDB) Update(context.Context, string, string, *db.Record) error { d.wait(); return nil }
func (d noisyDB) Insert(context.Context, string, string, *db.Record) error { return nil }
func (d noisyDB) Delete(context.Context, string, string) error             { return nil }
func (d noisyDB) Close() error                                             { return nil }

func init() { db.Register("noisy", &noisy{}) }

// A plan that repeats its cells until their intervals are tight stops a
// steady cell at its least repetitions and runs a noisy one to its most
// (a bound of 20%: a paced run of a tenth of a second on a busy machine
// can lose a few percent; the noisy cell's runs differ fourfold);
// the index and the report say how many each took and whether it met
// its bounds.
func TestRepetitionsUntilTight(t *testing.T) {
	t.Parallel()
	pl := loadPlan(t, `name: until
deployments: [{label: steady, binding: basic}, {label: noisy, binding: noisy}]
workloads: [c]
records: [10]
threads: [1]
rates: [1000]
operations: 100
repetitions: {min: 3, max: 6, until: {throughput: 20%}}
`)
	dir := filepath.Join(t.TempDir(), "out")
	var said strings.Builder
	if err := New(pl, dir, &said).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	ix, _ := statuses(t, dir)
	done := map[string]int{}
	skipped := map[string]int{}
	for _, c := range ix.Runs {
		switch c.Status {
		case "done":
			done[c.Deployment]++
		case "skipped":
			skipped[c.Deployment]++
			if !strings.Contains(c.Error, "met the plan's bounds after 3 repetitions") {
				t.Errorf("%s skipped: %s", c.ID, c.Error)
			}
		}
	}
	if done["steady"] != 3 || skipped["steady"] != 3 || done["noisy"] != 6 || skipped["noisy"] != 0 {
		t.Fatalf("done %v, skipped %v: want the steady cell stopped at 3, the noisy one at 6", done, skipped)
	}
	u := ix.Until
	if u == nil || len(u.Cells) != 2 || u.Min != 3 || u.Max != 6 {
		t.Fatalf("index until: %+v", u)
	}
	for _, c := range u.Cells {
		steady := strings.HasPrefix(c.Cell, "steady/")
		if c.Reached != steady || steady && (c.Repetitions != 3 || c.Throughput > 0.2) || !steady && (c.Repetitions != 6 || c.Throughput <= 0.2) {
			t.Errorf("cell %+v", c)
		}
	}
	if !strings.Contains(said.String(), "1 of 2 cells did") || !strings.Contains(said.String(), "noisy/c/r10-t1-q1000: not within its bounds after 6 repetitions") {
		t.Errorf("closing lines:\n%s", said.String())
	}
	set, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var found bool
	for _, s := range set.Sections() {
		if s.ID == "repetitions" {
			found = len(s.Tables) == 1 && len(s.Tables[0].Rows) == 2 && s.Tables[0].Note == "1 of 2 cells met the bounds."
		}
	}
	if !found {
		t.Error("the report has no section on the repetitions")
	}
}

func TestRepetitionsUntilRefused(t *testing.T) {
	base := "name: u\ndeployments: [{label: b, binding: basic}]\nworkloads: [c]\nrecords: [10]\nthreads: [1]\n"
	for _, c := range []struct{ yaml, want string }{
		{"repetitions: {min: 1, max: 5, until: {throughput: 2%}}", "min must be at least 2"},
		{"repetitions: {min: 4, max: 3, until: {throughput: 2%}}", "max (3) must be at least min (4)"},
		{"repetitions: {min: 2, max: 3}", "needs until"},
		{"repetitions: {min: 2, max: 3, until: {p50: 2%}}", `unknown figure "p50"`},
		{"repetitions: {min: 2, max: 3, until: {throughput: 0}}", "not a percentage"},
		{"repetitions: {min: 2, max: 3000, until: {p99: 5%}}", "more than 1000"},
		{"repetitions: {min: 2, max: 3, until: {throughput: 2%}, each: 1}", `unknown key "each"`},
		{"repetitions: {min: 2, max: 3, until: {p99: 5%}}\nslo: {search: threads, bound_ms: 1}", "a capacity search repeats"},
	} {
		pf := filepath.Join(t.TempDir(), "p.yaml")
		if err := os.WriteFile(pf, []byte(base+c.yaml+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := plan.Load(pf, func(n string) bool { return slices.Contains(workloads.Names(), n) }); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "p.yaml") {
			t.Errorf("%s: %v", c.yaml, err)
		}
	}
}

// flaky is a binding whose third open fails (the second run of a plan
// of one cell, after its load and first run).
type flaky struct{ opens atomic.Int64 }

func (f *flaky) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	if o.CheckOnly {
		return nil, nil
	}
	if f.opens.Add(1) == 3 {
		return nil, errors.New("flaky: this open fails")
	}
	return noisyDB{}, nil
}

func (f *flaky) Summary() string { return "a test's store whose third open fails" }

func init() { db.Register("flaky", &flaky{}) }

// A plan resumed after a failed repetition takes the repetitions that
// finished before, never skips them: its cell counts them all.
func TestRepetitionsUntilResumed(t *testing.T) {
	t.Parallel()
	pl := loadPlan(t, `name: resumed
deployments: [{label: f, binding: flaky}]
workloads: [c]
records: [10]
threads: [1]
rates: [1000]
operations: 40
repetitions: {min: 3, max: 5, until: {throughput: 99%}}
`)
	dir := filepath.Join(t.TempDir(), "out")
	// rep 1 done, rep 2 failed, reps 3 and 4 done (two results, then
	// three), rep 5 skipped (reps 1, 3 and 4 met the bound).
	if err := New(pl, dir, io.Discard).Run(context.Background()); err == nil {
		t.Fatal("the failed repetition was not said")
	}
	_, n := statuses(t, dir)
	if n["done"] != 3 || n["failed"] != 1 || n["skipped"] != 1 {
		t.Fatalf("first: %v", n)
	}
	// Resumed: rep 2 runs again; then the cell has three results, and rep
	// 4's, finished before, is taken, not skipped.
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	ix, n := statuses(t, dir)
	if n["done"] != 4 || n["skipped"] != 1 || ix.Until == nil || ix.Until.Cells[0].Repetitions != 4 {
		t.Errorf("resumed: %v, until %+v", n, ix.Until)
	}
	for _, c := range ix.Runs {
		if c.Repetition == 4 && c.Status != "done" {
			t.Errorf("repetition 4, finished before: %s (%s)", c.Status, c.Error)
		}
	}
}
