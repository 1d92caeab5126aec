package cli

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/sink"
)

func readDoc(t *testing.T, path string) *result.Doc {
	t.Helper()
	d, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// madeClient writes the result of a client made here rather than
// measured: workload wl from start for 3 s, in six 0.5 s intervals of 1,000
// operations each (2,000 ops/s), half READ and half UPDATE, all OK.
func madeClient(t *testing.T, path, label, wl string, start time.Time) {
	t.Helper()
	total, series := &measure.Set{}, &sink.Series{}
	const every = 500 * time.Millisecond
	for k := range 6 {
		rec := measure.NewRecorder()
		for i := range 1000 {
			op := measure.Read
			if i%2 == 1 {
				op = measure.Update
			}
			ns := int64(100+i%50) * 1000
			rec.Record(op, db.OK, ns, ns+5000)
			rec.RecordTxn(db.OK)
		}
		iv := &measure.Set{}
		rec.DrainInto(iv)
		total.Merge(iv)
		from, to := time.Duration(k)*every, time.Duration(k+1)*every
		series.Interval(runner.Progress{Start: from, End: to, Elapsed: to, Now: start.Add(to), Final: k == 5, Interval: iv, Total: total})
	}
	res := &runner.Result{Total: total, Start: start, End: start.Add(6 * every), Runtime: 6 * every, Threads: 2,
		Config: runner.Config{Rate: 2000}, Reason: result.TimeLimit}
	doc := sink.NewDoc(res, series.Points, sink.Meta{Command: "run", Binding: "basic", Workload: "workload " + wl, Label: label,
		CPU: 1500 * time.Millisecond, ID: result.NewID()},
		sink.Options{Percentiles: []float64{50, 99}})
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := result.WriteJSON(f, doc); err != nil {
		t.Fatal(err)
	}
}

// Two clients at 2,000 ops/s each, started 0.25 s apart, merge into one
// of 4,000 ops/s over the 2.75 s both were measuring, whose histograms
// hold every operation of both. The results are made, not measured, so
// the figures are exact whatever the machine is doing.
func TestMergeClientsThatRanTogether(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	madeClient(t, filepath.Join(dir, "1.json"), "client1", "a", t0)
	madeClient(t, filepath.Join(dir, "2.json"), "client2", "a", t0.Add(250*time.Millisecond))
	madeClient(t, filepath.Join(dir, "3.json"), "client3", "c", t0)
	out := filepath.Join(dir, "merged.json")
	code, stdout, e := servbench(t, "merge", filepath.Join(dir, "1.json"), filepath.Join(dir, "2.json"), "-o", out)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	m := readDoc(t, out)
	a, b := readDoc(t, filepath.Join(dir, "1.json")), readDoc(t, filepath.Join(dir, "2.json"))
	if m.Clients != 2 || m.Threads != 4 || m.Operations != a.Operations+b.Operations || m.Label != "client1+client2" {
		t.Errorf("merged %d clients, %d threads, %d operations (%d + %d), label %q", m.Clients, m.Threads, m.Operations, a.Operations, b.Operations, m.Label)
	}
	if m.ClientCPUS != a.ClientCPUS+b.ClientCPUS || a.ClientCPUS != 1.5 {
		t.Errorf("merged client CPU %v s, want %v + %v", m.ClientCPUS, a.ClientCPUS, b.ClientCPUS)
	}
	if math.Abs(m.Throughput-4000) > 1e-6 || m.RuntimeMs != 2750 {
		t.Errorf("merged throughput %v over %v ms, want 4000 over the common 2750 ms", m.Throughput, m.RuntimeMs)
	}
	if !strings.Contains(stdout, "merged 2 clients") {
		t.Errorf("stdout %q", stdout)
	}
	// The time series: the intervals both clients measured, matched by
	// wall clock and counted from the later start (the second client's
	// 0.5 s intervals start a quarter of a second later, half an interval:
	// its 2nd to 6th go with the first one's 2nd to 6th, its 1st with
	// nothing), counts and histograms added; the last cut at the end of
	// the window (2.75 s), shorter than the others and so partial.
	if len(m.Series) != 5 {
		t.Fatalf("merged series of %d intervals, want 5", len(m.Series))
	}
	for k, p := range m.Series {
		r, _ := p.Ops.Get("READ")
		h, err := result.DecodeHistogram(r.Histogram)
		if p.Operations != 2000 || r.Count != 1000 || err != nil || h.TotalCount() != 1000 || r.P99Us < 100 || r.P99Us > 150 ||
			p.StartS != float64(k+1)*0.5 || p.EndS != min(float64(k+2)*0.5, 2.75) || p.Partial != (k == 4) {
			t.Errorf("interval %d: %+v (%v)", k, p, err)
		}
	}
	for _, o := range m.Ops {
		var want int64
		for _, d := range []*result.Doc{a, b} {
			for _, x := range d.Ops {
				if x.Name == o.Name {
					want += x.Outcomes["OK"]
				}
			}
		}
		h, err := result.DecodeHistogram(o.Histograms["OK"])
		if err != nil || h.TotalCount() != want || o.Latency.Count != want || o.Outcomes["OK"] != want {
			t.Errorf("%s: histogram %v, latency count %d, outcomes %d; want %d (%v)", o.Name, h.TotalCount(), o.Latency.Count, o.Outcomes["OK"], want, err)
		}
		if o.Response == nil || o.Response.Count != want {
			t.Errorf("%s: response times not merged", o.Name)
		}
	}
	// Different workloads are different experiments.
	if code, _, e := servbench(t, "merge", filepath.Join(dir, "1.json"), filepath.Join(dir, "3.json"), "-o", out); code != ExitUsage || !strings.Contains(e, "one experiment") {
		t.Errorf("merging workloads a and c: exit %d: %s", code, e)
	}
	later := filepath.Join(dir, "later.json")
	madeClient(t, later, "later", "a", t0.Add(time.Hour))
	if code, _, e := servbench(t, "merge", filepath.Join(dir, "1.json"), later, "-o", out); code != ExitUsage || !strings.Contains(e, "did not overlap") {
		t.Errorf("runs at different times: exit %d: %s", code, e)
	}
	// One client's result twice would double the throughput.
	if code, _, e := servbench(t, "merge", filepath.Join(dir, "1.json"), filepath.Join(dir, ".", "1.json"), "-o", out); code != ExitUsage || !strings.Contains(e, "are the same result") {
		t.Errorf("one result twice: exit %d: %s", code, e)
	}
	copied := filepath.Join(dir, "copy.json")
	raw, err := os.ReadFile(filepath.Join(dir, "1.json"))
	if err != nil {
		t.Fatal(err)
	}
	// A driver used another way (pipelined, say) is another experiment.
	piped := filepath.Join(dir, "piped.json")
	if err := os.WriteFile(piped, bytes.Replace(raw, []byte(`"binding":`), []byte(`"driver":"rueidis, auto-pipelining","binding":`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, e := servbench(t, "merge", filepath.Join(dir, "1.json"), piped, "-o", out); code != ExitUsage || !strings.Contains(e, `used driver "rueidis, auto-pipelining"`) {
		t.Errorf("results of two drivers: exit %d: %s", code, e)
	}
	if err := os.WriteFile(copied, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, e := servbench(t, "merge", filepath.Join(dir, "1.json"), copied, "-o", out); code != ExitUsage || !strings.Contains(e, "results 1 and 2 both hold run") {
		t.Errorf("a copy of one result: exit %d: %s", code, e)
	}
	if code, _, e := servbench(t, "merge", filepath.Join(dir, "1.json"), "-o", out); code != ExitUsage || !strings.Contains(e, "two results") {
		t.Errorf("one result: exit %d: %s", code, e)
	}
	// The output is never one of the inputs, even through a link.
	link := filepath.Join(dir, "link.json")
	os.Symlink(filepath.Join(dir, "2.json"), link)
	before, _ := os.ReadFile(filepath.Join(dir, "2.json"))
	if code, _, e := servbench(t, "merge", filepath.Join(dir, "1.json"), filepath.Join(dir, "2.json"), "-o", link); code != ExitUsage || !strings.Contains(e, "which is merged") {
		t.Errorf("-o one of the inputs: exit %d: %s", code, e)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "2.json")); !bytes.Equal(before, after) {
		t.Error("an input was overwritten")
	}
	// A merged result merged again with one of its clients counts twice.
	if code, _, e := servbench(t, "merge", out, filepath.Join(dir, "1.json"), "-o", filepath.Join(dir, "again.json")); code != ExitUsage || !strings.Contains(e, "both hold run") {
		t.Errorf("a merged result with one of its clients: exit %d: %s", code, e)
	}
}
