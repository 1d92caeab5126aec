package plan

import (
	"math"
	"strings"
	"testing"
)

// model is a system of known capacity: below it a step's latency is
// flat, above it latency is at least three times as high and grows with
// the excess (a queue), and throughput stays at the capacity.
type model struct {
	capacity float64 // in steps (ops/s or threads)
	baseUs   float64
}

func (m model) run(step float64) (thr, latUs float64) {
	if step <= m.capacity {
		return step, m.baseUs
	}
	return m.capacity, m.baseUs * (3 + 10*(step-m.capacity)/m.capacity)
}

func searchSLO(t *testing.T, yaml string) *SLO {
	t.Helper()
	text := strings.Replace(sloPlan, "  after: 1\n", yaml, 1)
	text = strings.Replace(text, "  bound_ms: 1\n", "", 1)
	text = strings.Replace(text, "[1, 2, 4, 8, 16]", "[4]", 1)
	p, err := Parse([]byte(text), "s.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	return p.SLO
}

// drive runs a search against f until it ends (at most 1,000 runs).
func drive(t *testing.T, c *Capacity, f func(step float64, rep int) (thr, latUs float64)) (asked []float64) {
	t.Helper()
	for range 1000 {
		step, rep, ok := c.Next()
		if !ok {
			return asked
		}
		if rep != c.runs(step)+1 {
			t.Fatalf("step %g: repetition %d after %d runs", step, rep, c.runs(step))
		}
		asked = append(asked, step)
		thr, lat := f(step, rep)
		c.Add(step, thr, lat, 0)
	}
	t.Fatalf("the search did not end in 1,000 runs: %v", asked[len(asked)-20:])
	return nil
}

// stepList is how many runs a walk over listed steps of the same
// precision (each step PrecisionPct above the last, from From) makes
// before it breaks the bound: the walk the search replaces.
func stepList(s *SLO, m model) int {
	n := 0
	for x := s.From; x <= s.Max; x = math.Max(x+1, math.Round(x*(1+s.PrecisionPct/100))) {
		n++
		if _, lat := m.run(x); lat > s.BoundUs {
			break
		}
	}
	return n
}

func TestCapacitySearch(t *testing.T) {
	for _, tc := range []struct {
		name     string
		yaml     string
		capacity float64
		reps     int
		atMax    bool
		none     bool
	}{
		{"rate, capacity inside", "  search: rate\n  bound_ms: 1\n  from: 1000\n  max: 200000\n  precision_percent: 2\n", 37000, 3, false, false},
		{"rate, capacity below from", "  search: rate\n  bound_ms: 1\n  from: 1000\n  max: 200000\n", 300, 1, false, false},
		{"rate, capacity above max", "  search: rate\n  bound_ms: 1\n  from: 1000\n  max: 20000\n", 37000, 2, true, false},
		{"rate, nothing meets", "  search: rate\n  bound_ms: 1\n  from: 1000\n  max: 20000\n", 0.5, 1, false, true},
		{"threads", "  search: threads\n  bound_ms: 1\n  from: 1\n  max: 512\n", 45, 2, false, false},
		{"threads, one thread apart", "  search: threads\n  bound_ms: 1\n  from: 1\n  max: 512\n  precision_percent: 0.1\n", 45, 1, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := searchSLO(t, tc.yaml)
			m := model{capacity: tc.capacity, baseUs: 500}
			c := s.NewCapacity(tc.reps)
			asked := drive(t, c, func(step float64, _ int) (float64, float64) { return m.run(step) })
			cv := c.Curve(SLOCurve{})
			a := cv.Answers[0]
			if a.Searching {
				t.Fatalf("answer still searching: %+v", a)
			}
			switch {
			case tc.none:
				if a.Step != 0 {
					t.Fatalf("nothing meets the bound, answer %+v", a)
				}
				return
			case tc.atMax:
				if !a.AtMax || a.Step != s.Max || a.Below != 0 {
					t.Fatalf("capacity above max: answer %+v", a)
				}
			default:
				width := max(1, s.PrecisionPct/100*a.Step)
				if a.Step > tc.capacity || a.Below <= tc.capacity || a.Below-a.Step > width {
					t.Fatalf("answer [%g, %g) for capacity %g, precision %g: asked %v", a.Step, a.Below, tc.capacity, width, asked)
				}
			}
			if a.Runs != tc.reps || cv.Best == nil || cv.Best.Step != a.Step || a.Throughput != math.Min(a.Step, tc.capacity) {
				t.Errorf("answer %+v best %+v: want %d runs of the answer", a, cv.Best, tc.reps)
			}
			// Fewer runs than a list of steps of the same precision,
			// repetitions of its last step not even counted.
			if list := stepList(s, m); len(asked) >= list && tc.capacity > 2*s.From {
				t.Errorf("the search made %d runs; a step list of %g%% makes %d", len(asked), s.PrecisionPct, list)
			} else {
				t.Logf("%d runs (%v); a step list of the same precision: %d", len(asked), asked, list)
			}
			for i := 1; i < len(cv.Steps); i++ {
				if cv.Steps[i].Step <= cv.Steps[i-1].Step {
					t.Fatalf("steps not ascending: %+v", cv.Steps)
				}
			}
		})
	}
}

// Several bounds share the measured steps: the second bound costs fewer
// runs than a search of its own.
func TestCapacityBounds(t *testing.T) {
	s := searchSLO(t, "  search: rate\n  bound_ms: [1, 0.6]\n  from: 1000\n  max: 200000\n")
	if len(s.Bounds) != 2 || s.Bounds[0] != 600 || s.BoundUs != 600 {
		t.Fatalf("bounds %v, BoundUs %g: want ascending, the strictest first", s.Bounds, s.BoundUs)
	}
	lat := func(step float64, _ int) (float64, float64) { return step, 300 + step/100 } // 0.6 ms at 30,000; 1 ms at 70,000
	both := s.NewCapacity(1)
	n := len(drive(t, both, lat))
	cv := both.Curve(SLOCurve{})
	for i, want := range []float64{30000, 70000} {
		a := cv.Answers[i]
		if a.Step > want || a.Below <= want || a.Below-a.Step > 0.05*a.Step {
			t.Errorf("bound %g µs: answer [%g, %g), want around %g", a.BoundUs, a.Step, a.Below, want)
		}
	}
	alone := *s
	alone.Bounds = s.Bounds[1:]
	one := alone.NewCapacity(1)
	if m := len(drive(t, one, lat)); n >= 2*m || n <= m {
		t.Errorf("two bounds took %d runs, one alone %d: the second should reuse steps", n, m)
	}
}

// Repetitions judge the answer by their mean: an answer whose second run
// breaks the bound is not the answer, and the search goes on below it.
func TestCapacityRepetitions(t *testing.T) {
	s := searchSLO(t, "  search: threads\n  bound_ms: 1\n  from: 4\n  max: 64\n  precision_percent: 1\n")
	m := model{capacity: 20, baseUs: 500}
	c := s.NewCapacity(2)
	drive(t, c, func(step float64, rep int) (float64, float64) {
		thr, lat := m.run(step)
		if step == 20 && rep == 2 { // a hiccup: the mean of 20's runs breaks the bound
			lat = 2000
		}
		return thr, lat
	})
	a := c.Curve(SLOCurve{}).Answers[0]
	if a.Step != 19 || a.Below != 20 || a.Runs != 2 {
		t.Fatalf("answer %+v: want 19 threads below 20, run twice", a)
	}
	// A search resumed from the same runs asks for nothing more, and one
	// resumed from half of them asks what the first asked next.
	again := s.NewCapacity(2)
	for _, x := range c.order {
		p := c.points[x]
		for range p.n {
			again.Add(x, p.thr/float64(p.n), p.lat/float64(p.n), 0)
		}
	}
	if step, _, ok := again.Next(); ok {
		t.Errorf("a resumed search asks for %g again", step)
	}
}

func TestCapacityParse(t *testing.T) {
	for _, tc := range []struct{ yaml, want string }{
		{"  search: memory\n  bound_ms: 1\n", `slo search "memory"`},
		{"  search: rate\n  bound_ms: 1\n", "slo search rate: give from"},
		{"  search: threads\n  bound_ms: 1\n  step: threads\n", "give step (walk the listed steps) or search"},
		{"  search: threads\n  bound_ms: 1\n  after: 2\n", "after belongs to a walk"},
		{"  bound_ms: []\n", "want a bound in milliseconds > 0 or a list"},
		{"  bound_ms: [1, -2]\n  search: threads\n", `"-2" is not a bound`},
		{"  search: threads\n  bound_ms: 1\n  from: 1.5\n  max: 8\n", "whole numbers of threads"},
		{"  search: threads\n  bound_ms: 1\n  from: 8\n  max: 4\n", "max 4 is below from 8"},
		{"  search: threads\n  bound_ms: 1\n  precision_percent: 0\n", "precision_percent 0"},
		{"  search: rate\n  bound_ms: 1\n  from: 1e300\n", `"1e300" is not`},
		{"  from: 4\n  bound_ms: 1\n", "from and max belong to a search"},
	} {
		text := strings.Replace(sloPlan, "  after: 1\n", tc.yaml, 1)
		text = strings.Replace(text, "  bound_ms: 1\n", "", 1)
		text = strings.Replace(text, "[1, 2, 4, 8, 16]", "[4]", 1)
		if _, err := Parse([]byte(text), "s.yaml", builtin); err == nil || !strings.Contains(err.Error(), tc.want) || strings.Count(err.Error(), "\n") > 0 {
			t.Errorf("%q: err = %v, want %q", tc.yaml, err, tc.want)
		}
	}
	text := strings.Replace(sloPlan, "  after: 1\n", "  search: rate\n  from: 10\n  max: 100\n", 1)
	text = strings.Replace(text, "duration: 5\n", "stages: [{duration: 5, rate: 100}]\n", 1)
	if _, err := Parse([]byte(text), "s.yaml", builtin); err == nil || !strings.Contains(err.Error(), "stages shape each run's rate") {
		t.Errorf("a rate search with stages: %v", err)
	}
	// threads: [1, 2, 4, 8, 16] has five values: a search takes two.
	text = strings.Replace(sloPlan, "  after: 1\n", "  search: threads\n", 1)
	if _, err := Parse([]byte(text), "s.yaml", builtin); err == nil || !strings.Contains(err.Error(), "list at most two threads") {
		t.Errorf("five thread counts: %v", err)
	}
	text = strings.Replace(text, "[1, 2, 4, 8, 16]", "[2, 64]", 1)
	p, err := Parse([]byte(text), "s.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	if s := p.SLO; s.From != 2 || s.Max != 64 || s.Step != "threads" || len(p.Runs()) != 2 || p.LoadThreads != 64 {
		t.Errorf("threads [2, 64]: from %g max %g step %s, %d seeds (want one per repetition), load threads %d", s.From, s.Max, s.Step, len(p.Runs()), p.LoadThreads)
	}
	if got := p.SLO.String(); got != "p99 ≤ 1 ms (every operation, searching threads from 2 to 64, to 5%)" {
		t.Errorf("String() = %q", got)
	}
}
