package plan

import (
	"slices"
	"strings"
	"testing"

	"github.com/servbench/servbench/result"
)

const sloPlan = `
targets:
  - binding: pebble
workloads: [a]
records: [1000]
threads: [1, 2, 4, 8, 16]
duration: 5
repetitions: 2
slo:
  latency: p99
  bound_ms: 1
  after: 1
`

func TestSLOParse(t *testing.T) {
	p, err := Parse([]byte(sloPlan), "s2.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	s := p.SLO
	if s == nil || s.Step != "threads" || s.BoundUs != 1000 || s.Percentile != 99 || s.After != 1 || s.MaxFailedPct != -1 || s.Operation != "" {
		t.Fatalf("slo %+v", s)
	}
	if got := s.String(); got != "p99 ≤ 1 ms (every operation, stepping threads)" {
		t.Errorf("String() = %q", got)
	}
	for _, tc := range []struct{ edit, want string }{
		{"  after: 1\n  colour: red\n", `s2.yaml:13: slo: unknown key "colour"`},
		{"  after: 1\n  latency: p42\n", `s2.yaml:13: slo latency "p42"`},
		{"  after: 1\n  step: memory\n", `s2.yaml:13: slo step "memory"`},
		{"  after: -1\n", `s2.yaml:12: "-1" is not a number of steps`},
	} {
		text := strings.Replace(sloPlan, "  after: 1\n", tc.edit, 1)
		if _, err := Parse([]byte(text), "s2.yaml", builtin); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want %q", tc.edit, err, tc.want)
		}
	}
	text := strings.Replace(sloPlan, "[1, 2, 4, 8, 16]", "[1, 4, 2]", 1)
	if _, err := Parse([]byte(text), "s2.yaml", builtin); err == nil || !strings.Contains(err.Error(), "s2.yaml:10: slo steps threads: list threads ascending") {
		t.Errorf("unsorted threads: %v", err)
	}
	text = strings.Replace(sloPlan, "  bound_ms: 1\n", "", 1)
	if _, err := Parse([]byte(text), "s2.yaml", builtin); err == nil || !strings.Contains(err.Error(), "no bound_ms") {
		t.Errorf("no bound: %v", err)
	}
	text = strings.Replace(sloPlan, "threads: [1, 2, 4, 8, 16]", "threads: [4]\nrates: [100, 200, 400]", 1)
	if p, err := Parse([]byte(text), "s2.yaml", builtin); err != nil || p.SLO.Step != "rate" {
		t.Errorf("one thread count and several rates step the rate: %v", err)
	}
}

// The search averages repetitions, finds the first step over the bound,
// runs After more steps, skips the rest, and reports the best step under
// the bound and the peak.
func TestSLOSearch(t *testing.T) {
	p, err := Parse([]byte(sloPlan), "s2.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	// threads → (throughput, p99 µs) of each of the two repetitions.
	measured := map[int][2][2]float64{
		1:  {{100, 300}, {120, 500}},
		2:  {{200, 700}, {220, 900}},   // mean p99 800 µs: met
		4:  {{300, 900}, {340, 1300}},  // mean 1100 µs: broken
		8:  {{400, 2000}, {420, 2400}}, // run: after = 1
		16: {{1, 1}, {1, 1}},           // skipped
	}
	x := p.SLO.NewSearch()
	var ran, skipped []int
	cells := p.Runs()
	for i := range cells {
		c := &cells[i]
		if _, skip := x.Skip(c); skip {
			skipped = append(skipped, c.Threads)
			continue
		}
		m := measured[c.Threads][c.Repetition-1]
		ran = append(ran, c.Threads)
		x.Add(c, m[0], m[1], 0)
		if i == 0 {
			// The index is rewritten mid-step; that must not end the step.
			x.Result()
		}
	}
	if len(ran) != 8 || len(skipped) != 2 || skipped[0] != 16 {
		t.Fatalf("ran %v, skipped %v", ran, skipped)
	}
	res := x.Result()
	if len(res.Curves) != 1 {
		t.Fatalf("curves %+v", res.Curves)
	}
	c := res.Curves[0]
	if len(c.Steps) != 4 || c.BrokeAt != 4 || c.Best == nil || c.Best.Step != 2 || c.Best.Throughput != 210 ||
		c.Peak == nil || c.Peak.Step != 8 || c.Peak.Throughput != 410 || c.Steps[2].LatencyUs != 1100 || c.Steps[2].Met {
		t.Errorf("curve %+v", c)
	}
}

func TestSLOValue(t *testing.T) {
	d := &result.Doc{Ops: []result.OpResult{
		{Name: "READ", Latency: &result.Latency{MeanUs: 100, Percentiles: map[string]float64{"99": 400, "99.9": 900}}},
		{Name: "UPDATE", Latency: &result.Latency{MeanUs: 200, Percentiles: map[string]float64{"99": 700}},
			Response: &result.Latency{MeanUs: 250, Percentiles: map[string]float64{"99": 800}}},
	}}
	for _, tc := range []struct {
		s    SLO
		want float64
	}{
		{SLO{Percentile: 99}, 800},                      // worst operation, response time when measured
		{SLO{Percentile: 99, Operation: "READ"}, 400},   // one operation
		{SLO{Percentile: 99.9, Operation: "READ"}, 900}, // another percentile
		{SLO{}, 250}, // mean
	} {
		if got, ok := tc.s.Value(d); !ok || got != tc.want {
			t.Errorf("%+v: %v %v, want %v", tc.s, got, ok, tc.want)
		}
	}
	if _, ok := (&SLO{Operation: "SCAN"}).Value(d); ok {
		t.Error("an operation the run lacks has no value")
	}
}

// A cold first step over the bound does not hide the later steps within
// it: the best is the highest throughput that met the bound.
func TestSLOBestAfterAColdStart(t *testing.T) {
	p, err := Parse([]byte(strings.Replace(sloPlan, "repetitions: 2", "repetitions: 1", 1)), "s2.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	lat := map[int]float64{1: 2900, 2: 900, 4: 800, 8: 1500, 16: 1600}
	x := p.SLO.NewSearch()
	var skipped []int
	cells := p.Runs()
	for i := range cells {
		c := &cells[i]
		if _, skip := x.Skip(c); skip {
			skipped = append(skipped, c.Threads)
			continue
		}
		x.Add(c, float64(100*c.Threads), lat[c.Threads], 0)
	}
	c := x.Result().Curves[0]
	if c.BrokeAt != 1 || c.Best == nil || c.Best.Step != 4 || len(skipped) != 1 || skipped[0] != 16 {
		t.Errorf("broke at %v, best %+v, skipped %v", c.BrokeAt, c.Best, skipped)
	}
}

// after: all walks every listed step, so a curve over the bound from its
// first step still reaches its peak.
func TestSLOWalkAll(t *testing.T) {
	p, err := Parse([]byte(strings.Replace(sloPlan, "after: 1", "after: all", 1)), "s2.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	if p.SLO.After != -1 {
		t.Fatalf("after %d", p.SLO.After)
	}
	x := p.SLO.NewSearch()
	ran := 0
	cells := p.Runs()
	for i := range cells {
		c := &cells[i]
		if why, skip := x.Skip(c); skip {
			t.Fatalf("%d threads skipped: %s", c.Threads, why)
		}
		ran++
		x.Add(c, float64(100*c.Threads), 5000, 0) // every step over the 1 ms bound
	}
	c := x.Result().Curves[0]
	if ran != 10 || c.Peak == nil || c.Peak.Step != 16 || c.Best != nil || c.BrokeAt != 1 {
		t.Errorf("ran %d; curve %+v", ran, c)
	}
}

// A walk takes several bounds: each bound's best step is read off the
// same points, and the walk ends only after the loosest is broken.
func TestSLOWalkSeveralBounds(t *testing.T) {
	p, err := Parse([]byte(strings.Replace(strings.Replace(sloPlan, "bound_ms: 1", "bound_ms: [0.6, 1]", 1), "after: 1", "after: 0", 1)), "s2.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	// threads → mean latency µs, throughput = 100·threads
	lat := map[int]float64{1: 500, 2: 700, 4: 900, 8: 1500, 16: 400}
	x := p.SLO.NewSearch()
	var ran []int
	cells := p.Runs()
	for i := range cells {
		c := &cells[i]
		if _, skip := x.Skip(c); skip {
			continue
		}
		ran = append(ran, c.Threads)
		x.Add(c, float64(100*c.Threads), lat[c.Threads], 0)
	}
	res := x.Result()
	c := res.Curves[0]
	if len(res.BoundsUs) != 2 || len(c.Answers) != 2 {
		t.Fatalf("bounds %v, answers %+v", res.BoundsUs, c.Answers)
	}
	// 0.6 ms: 1 thread (500 µs); 1 ms: 4 threads (900 µs); the walk
	// goes past 2 threads (over 0.6 ms) and stops after 8 (over 1 ms).
	if a := c.Answers; a[0].Step != 1 || a[0].Throughput != 100 || a[1].Step != 4 || a[1].Throughput != 400 {
		t.Errorf("answers %+v", a)
	}
	if slices.Contains(ran, 16) || !slices.Contains(ran, 8) {
		t.Errorf("ran %v: want the walk through 8 threads and no further", ran)
	}
}
