package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seriesClient is client i of 2 of a 10 s run of 2,000 reads, its
// intervals a second each, 200 reads in each, its start moved by shift.
func seriesClient(i int, start time.Time, shift float64) *Doc {
	d := windowClient(i, "c0ffee", start, 10*time.Second)
	d.Version, d.Operations, d.OKOperations, d.Throughput = FormatVersion, 2000, 2000, 200
	d.Ops[0].Count, d.Ops[0].Outcomes["OK"] = 2000, 2000
	for k := range 10 {
		s, e := float64(k)+shift, float64(k+1)+shift
		if k == 0 {
			s = 0
		}
		if k == 9 {
			e = 10
		}
		d.Series = append(d.Series, Point{StartS: s, EndS: e, Operations: 200, Throughput: 200 / (e - s), Ops: PointOps{{Name: "READ", PointOp: PointOp{Count: 200}}}})
	}
	return d
}

// A merge counts its throughput from the clients' intervals, which the
// reader checks against each client's totals and window: an interval of
// 10^9 operations (merged to 4.9e11 ops/s), a series given three times
// (the merged throughput doubled) or an interval ending at 10^6 s (halved
// it) is refused naming the file; the clients as a run writes them read
// and merge to their operations over the window.
func TestMergeReadsOnlyASeriesWithinItsTotals(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	write := func(name string, d *Doc) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := WriteJSON(f, d); err != nil {
			t.Fatal(err)
		}
		f.Close()
		return path
	}
	a, b := write("a.json", seriesClient(0, t0, 0)), write("b.json", seriesClient(1, t0, 0))
	var docs []*Doc
	for _, p := range []string{a, b} {
		d, err := ReadFile(p)
		if err != nil {
			t.Fatalf("a client as a run writes it: %v", err)
		}
		docs = append(docs, d)
	}
	m, err := Merge(docs)
	if err != nil || m.Throughput < 399 || m.Throughput > 401 {
		t.Fatalf("merged: %v, throughput %v, want 400", err, m.Throughput)
	}
	if err := m.Validate(); err != nil {
		t.Errorf("the merged result: %v", err)
	}
	for name, change := range map[string]func(d *Doc){
		"an interval of 10^9 operations": func(d *Doc) { d.Series[0].Operations = 1e9 },
		"the series three times":         func(d *Doc) { d.Series = append(append(d.Series, d.Series...), d.Series...) },
		"an end at 10^6 s":               func(d *Doc) { d.Series[9].EndS = 1e6 },
		"an interval's reads past READ's count": func(d *Doc) {
			d.Series[0].Ops = PointOps{{Name: "READ", PointOp: PointOp{Count: 1e9}}}
		},
	} {
		d := seriesClient(1, t0, 0)
		change(d)
		path := write("bad.json", d)
		if _, err := ReadFile(path); err == nil || !strings.HasPrefix(err.Error(), path+": timeseries") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want refused in one line naming the file and timeseries", name, err)
		}
	}
}

// Clients whose intervals' boundaries drift (a busy machine moves them by
// tens of milliseconds) merge into intervals that end within the merged
// window: a client's interval rounded to a later slot reached past it,
// and its merged result was one no reader should take.
func TestMergedSeriesWithinItsWindow(t *testing.T) {
	t0 := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	a := seriesClient(0, t0, -0.4)
	b := seriesClient(1, t0, -0.4)
	b.End = b.End.Add(-50 * time.Millisecond) // the earlier end: the window's
	b.RuntimeMs -= 50
	b.Series[9].EndS -= 0.05
	m, err := Merge([]*Doc{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Series) == 0 {
		t.Fatal("no merged series")
	}
	runtime := m.RuntimeMs / 1000
	for i, p := range m.Series {
		if p.EndS > runtime+1e-9 || p.StartS >= runtime {
			t.Errorf("merged interval %d: %v to %v s, past the window's %v s", i, p.StartS, p.EndS, runtime)
		}
	}
	if err := m.Validate(); err != nil {
		t.Errorf("the merged result: %v", err)
	}
}
