package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/servbench/servbench/internal/format"
)

// Capacity is the search of one series (a deployment, workload, record
// count and the dimension not searched) for the highest step of the
// searched dimension that meets each of the SLO's bounds:
//
//   - Bracketing: from From, double the step until one breaks the bound
//     or Max is reached; when From itself breaks it, halve down to 1.
//   - Bisection: between the highest step that met the bound and the
//     lowest above it that broke it, try the middle (a whole number of
//     threads or ops/s) until the two are at most PrecisionPct of the
//     lower apart, or one unit.
//   - Repetitions: the answer is run again until it has reps runs; a step
//     is judged by the mean of its runs, so an answer whose repetitions
//     break the bound on average is not the answer, and the search goes
//     on below it.
//
// The bounds are searched strictest first, over one table of measured
// steps: a step measured for one bound is not run again for the next.
// Next is a function of the steps measured so far, so a search resumed
// from the results of an interrupted one asks for the same steps.
type Capacity struct {
	slo    *SLO
	reps   int
	unit   float64
	points map[float64]*capPoint
	order  []float64 // steps in the order first measured
}

type capPoint struct {
	n                int
	thr, lat, failed float64 // sums over the step's runs
	thrMin, thrMax   float64
	failedRuns       int // runs that failed outright
}

func (p *capPoint) mean() (thr, lat, failed float64) {
	n := float64(p.n)
	return p.thr / n, p.lat / n, p.failed / n
}

// NewCapacity starts the search of one series; reps is how many runs the
// answer gets (the plan's repetitions).
func (s *SLO) NewCapacity(reps int) *Capacity {
	return &Capacity{slo: s, reps: max(1, reps), unit: 1, points: map[float64]*capPoint{}}
}

// Next returns the step to run next and its repetition (from 1), or
// ok false when every bound has its answer.
func (c *Capacity) Next() (step float64, rep int, ok bool) {
	for _, b := range c.slo.Bounds {
		if a := c.answer(b); a.next > 0 {
			return a.next, c.runs(a.next) + 1, true
		}
	}
	return 0, 0, false
}

// Add records one run of step.
func (c *Capacity) Add(step, throughput, latencyUs, failedPct float64) {
	p := c.points[step]
	if p == nil {
		p = &capPoint{}
		c.points[step] = p
		c.order = append(c.order, step)
	}
	if p.n == 0 || throughput < p.thrMin {
		p.thrMin = throughput
	}
	p.thrMax = max(p.thrMax, throughput)
	p.n++
	p.thr += throughput
	p.lat += latencyUs
	p.failed += failedPct
}

// Fail records a run of step that failed: it breaks every bound.
func (c *Capacity) Fail(step float64) {
	c.Add(step, 0, 0, 100)
	c.points[step].failedRuns++
}

// Runs is how many runs the search has made.
func (c *Capacity) Runs() int {
	n := 0
	for _, p := range c.points {
		n += p.n
	}
	return n
}

func (c *Capacity) runs(step float64) int {
	if p := c.points[step]; p != nil {
		return p.n
	}
	return 0
}

// met judges a measured step against bound b (µs).
func (c *Capacity) met(p *capPoint, b float64) bool {
	_, lat, failed := p.mean()
	return p.failedRuns == 0 && lat <= b && (c.slo.MaxFailedPct < 0 || failed <= c.slo.MaxFailedPct)
}

// capAnswer is where the search for one bound stands: the step to run
// next (0: none), or the answer lo (0: no step met the bound) below hi
// (0: nothing above lo broke it, lo is Max).
type capAnswer struct {
	next, lo, hi float64
}

func (c *Capacity) answer(b float64) capAnswer {
	s := c.slo
	var lo, hi float64
	// Bracket upwards from From.
	for x := s.From; ; {
		p := c.points[x]
		if p == nil {
			return capAnswer{next: x}
		}
		if !c.met(p, b) {
			hi = x
			break
		}
		lo = x
		if x >= s.Max {
			break
		}
		x = min(2*x, s.Max)
	}
	// From broke the bound: halve down to one unit.
	for x := s.From; lo == 0; {
		x = math.Floor(x / 2)
		if x < c.unit {
			return capAnswer{hi: hi} // nothing meets the bound
		}
		p := c.points[x]
		if p == nil {
			return capAnswer{next: x}
		}
		if c.met(p, b) {
			lo = x
		} else {
			hi = x
		}
	}
	// Bisect.
	for hi > 0 && hi-lo > max(c.unit, s.PrecisionPct/100*lo) {
		mid := math.Round((lo + hi) / 2)
		if mid <= lo || mid >= hi {
			break
		}
		p := c.points[mid]
		if p == nil {
			return capAnswer{next: mid}
		}
		if c.met(p, b) {
			lo = mid
		} else {
			hi = mid
		}
	}
	if c.runs(lo) < c.reps {
		return capAnswer{next: lo}
	}
	return capAnswer{lo: lo, hi: hi}
}

// Curve is the search's outcome so far: every step measured (the mean
// of its runs, ascending), the answer for each bound, and the peak.
func (c *Capacity) Curve(base SLOCurve) SLOCurve {
	steps := slices.Clone(c.order)
	slices.Sort(steps)
	base.Steps = base.Steps[:0]
	for _, x := range steps {
		p := c.points[x]
		thr, lat, failed := p.mean()
		pt := SLOPoint{Step: x, Throughput: thr, LatencyUs: lat, FailedPct: failed, Runs: p.n, Met: c.met(p, c.slo.BoundUs)}
		base.Steps = append(base.Steps, pt)
		if !pt.Met && base.BrokeAt == 0 {
			base.BrokeAt = x
		}
	}
	base.Best, base.Peak, base.Answers = nil, nil, nil
	for i := range base.Steps {
		p := &base.Steps[i]
		if base.Peak == nil || p.Throughput > base.Peak.Throughput {
			base.Peak = p
		}
	}
	for _, b := range c.slo.Bounds {
		a := c.answer(b)
		ans := SLOAnswer{BoundUs: b, Searching: a.next > 0}
		if a.next == 0 && a.lo > 0 {
			ans.Step, ans.Below = a.lo, a.hi
			p := c.points[a.lo]
			thr, lat, failed := p.mean()
			ans.Throughput, ans.LatencyUs, ans.FailedPct, ans.Runs = thr, lat, failed, p.n
			ans.ThroughputMin, ans.ThroughputMax = p.thrMin, p.thrMax
			ans.AtMax = a.hi == 0
		}
		base.Answers = append(base.Answers, ans)
		if b == c.slo.BoundUs && ans.Step > 0 {
			for i := range base.Steps {
				if base.Steps[i].Step == ans.Step {
					base.Best = &base.Steps[i]
				}
			}
		}
	}
	base.Tried = c.Runs()
	return base
}

// StepText names a step of the searched dimension: "16 threads",
// "rate 2,000".
func StepText(dim string, v float64) string {
	switch {
	case dim == "rate":
		return "rate " + format.Round(v)
	case v == 1:
		return "1 thread"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + " threads"
}

// AnswerText says a capacity search's answer for one bound: "p99 ≤ 0.6 ms:
// 41,300 ops/s at 42 threads (p99 0.58 ms; 3 runs, 41,100–41,500 ops/s),
// the capacity between 42 and 44 threads".
func AnswerText(x *IndexSLO, a *SLOAnswer) string {
	head := fmt.Sprintf("%s ≤ %s ms: ", x.Latency, strconv.FormatFloat(a.BoundUs/1000, 'f', -1, 64))
	switch {
	case a.Searching:
		return head + "not searched to the end"
	case a.Step == 0:
		return head + "no step met it, down to " + StepText(x.Step, 1)
	}
	runs := ""
	if a.Runs > 1 {
		runs = fmt.Sprintf("; %d runs, %s–%s ops/s", a.Runs, format.Round(a.ThroughputMin), format.Round(a.ThroughputMax))
	}
	out := fmt.Sprintf("%s%s ops/s at %s (%s %.3f ms%s)", head, format.Round(a.Throughput), StepText(x.Step, a.Step), x.Latency, a.LatencyUs/1000, runs)
	if a.AtMax {
		return out + ", the most the search tries: the capacity is at least this"
	}
	return out + fmt.Sprintf(", the capacity between %s and %s", StepText(x.Step, a.Step), StepText(x.Step, a.Below))
}
