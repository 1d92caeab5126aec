package plan

import "fmt"

// Search follows an SLO across a plan's cells: it averages each step's
// repetitions, counts the steps over the bound, and ends a curve at its
// (After+1)-th step over the bound: the later steps need not run.
// Cells must arrive in plan order (each series' steps ascending).
type Search struct {
	slo    *SLO
	curves map[string]*curve
	order  []string
}

type curve struct {
	SLOCurve
	step       float64 // the step being accumulated
	n          int
	thr, lat   float64 // sums over the step's repetitions
	failed     float64
	overBound  int // steps over the bound so far
	hasPending bool
}

// NewSearch starts an SLO search.
func (s *SLO) NewSearch() *Search {
	return &Search{slo: s, curves: map[string]*curve{}}
}

func (x *Search) curve(c *Run) *curve {
	key := x.slo.Series(c)
	cv := x.curves[key]
	if cv == nil {
		fixed := c.Rate
		if x.slo.Step == "rate" {
			fixed = float64(c.Threads)
		}
		cv = &curve{SLOCurve: SLOCurve{Series: key, Deployment: c.Deployment.Label, Workload: c.Workload.Name, Records: c.Records, Fixed: fixed}}
		if c.Clients > 1 {
			cv.Clients = c.Clients
		}
		x.curves[key] = cv
		x.order = append(x.order, key)
	}
	return cv
}

// Skip reports whether cell c need not run, and why.
func (x *Search) Skip(c *Run) (string, bool) {
	cv := x.curve(c)
	if v := x.slo.StepValue(c); cv.hasPending && v != cv.step {
		x.close(cv)
	}
	if x.slo.After >= 0 && cv.overBound > x.slo.After {
		return fmt.Sprintf("beyond the SLO (%s broken at %s %g)", x.slo.Latency, x.slo.Step, cv.BrokeAt), true
	}
	return "", false
}

// Add records a finished run of cell c.
func (x *Search) Add(c *Run, throughput, latencyUs, failedPct float64) {
	cv := x.curve(c)
	v := x.slo.StepValue(c)
	if cv.hasPending && v != cv.step {
		x.close(cv)
	}
	cv.step, cv.hasPending = v, true
	cv.n++
	cv.thr += throughput
	cv.lat += latencyUs
	cv.failed += failedPct
}

// point is the step being accumulated, averaged over its repetitions.
func (x *Search) point(cv *curve) SLOPoint {
	n := float64(cv.n)
	pt := SLOPoint{Step: cv.step, Throughput: cv.thr / n, LatencyUs: cv.lat / n, FailedPct: cv.failed / n}
	pt.Met = x.slo.Met(pt.LatencyUs, pt.FailedPct)
	return pt
}

// close ends the step being accumulated.
func (x *Search) close(cv *curve) {
	if !cv.hasPending || cv.n == 0 {
		return
	}
	pt := x.point(cv)
	cv.Steps = append(cv.Steps, pt)
	if !pt.Met && cv.BrokeAt == 0 {
		cv.BrokeAt = pt.Step
	}
	// With several bounds the walk goes on until the loosest is broken.
	if !x.slo.MetBound(pt.LatencyUs, pt.FailedPct, x.slo.Bounds[len(x.slo.Bounds)-1]) {
		cv.overBound++
	}
	cv.n, cv.thr, cv.lat, cv.failed, cv.hasPending = 0, 0, 0, 0, false
}

// Result returns the search's outcome so far, the step in progress
// included; the search goes on unchanged.
func (x *Search) Result() *IndexSLO {
	out := &IndexSLO{Latency: x.slo.Latency, BoundUs: x.slo.BoundUs, Operation: x.slo.Operation, Step: x.slo.Step}
	for _, key := range x.order {
		cv := x.curves[key]
		c := cv.SLOCurve
		c.Steps = append([]SLOPoint(nil), cv.Steps...)
		if cv.hasPending && cv.n > 0 {
			pt := x.point(cv)
			c.Steps = append(c.Steps, pt)
			if !pt.Met && c.BrokeAt == 0 {
				c.BrokeAt = pt.Step
			}
		}
		for i := range c.Steps {
			p := &c.Steps[i]
			if c.Peak == nil || p.Throughput > c.Peak.Throughput {
				c.Peak = p
			}
			// The highest throughput of any step within the bound: a
			// step over it (a cold first step, a hiccup) does not hide a
			// later step that met it.
			if p.Met && (c.Best == nil || p.Throughput > c.Best.Throughput) {
				c.Best = p
			}
		}
		if len(x.slo.Bounds) > 1 { // each bound's best step, read off the same points
			for _, b := range x.slo.Bounds {
				a := SLOAnswer{BoundUs: b}
				for _, p := range c.Steps {
					if x.slo.MetBound(p.LatencyUs, p.FailedPct, b) && (a.Step == 0 || p.Throughput > a.Throughput) {
						a.Step, a.Throughput, a.LatencyUs, a.FailedPct = p.Step, p.Throughput, p.LatencyUs, p.FailedPct
					}
				}
				c.Answers = append(c.Answers, a)
			}
		}
		out.Curves = append(out.Curves, c)
	}
	if len(x.slo.Bounds) > 1 {
		out.BoundsUs = x.slo.Bounds
	}
	return out
}
