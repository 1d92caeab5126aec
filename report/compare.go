package report

import (
	"fmt"
	"github.com/servbench/servbench/stats"
	"math"
)

// Diff is one measure of one cell compared between two sets.
type Diff struct {
	Cell     string // workload, records, threads, rate (and the deployments compared)
	Metric   string // "throughput ops/s", "READ avg µs", "READ p99 µs"
	A, B     stats.Stat
	Delta    float64 // B − A
	CI       float64 // half-width of the 95% interval of Delta (Welch)
	Certain  bool    // both sides have repetitions, so CI means something
	Verdict  string  // "within noise", "B higher", "B lower", "no repetitions"
	Relative float64 // Delta / A.Mean, as a fraction
}

// Compare matches the cells of a and b (same workload, record count,
// threads and rate; and the same deployment unless a side holds only one) and
// compares throughput and each operation's mean and p99 latency. A
// difference is within noise when its 95% confidence interval holds 0.
func Compare(a, b *Set) ([]Diff, error) {
	oneA, oneB := len(uniq(a.Groups, func(g *Group) string { return g.Deployment })) == 1, len(uniq(b.Groups, func(g *Group) string { return g.Deployment })) == 1
	match := func(ga, gb *Group) bool {
		if ga.Workload != gb.Workload || ga.Records != gb.Records || ga.Threads != gb.Threads || ga.Rate != gb.Rate {
			return false
		}
		return oneA || oneB || ga.Deployment == gb.Deployment
	}
	var out []Diff
	for _, ga := range a.Groups {
		for _, gb := range b.Groups {
			if !match(ga, gb) {
				continue
			}
			cell := fmt.Sprintf("%s, %s records, %d %s, rate %s", wlName(ga.Workload), thousands(float64(ga.Records)), ga.Threads, plural(ga.Threads, "thread"), rateName(ga.Rate))
			if ga.Deployment != gb.Deployment {
				cell = ga.Deployment + " vs " + gb.Deployment + ": " + cell
			} else {
				cell = ga.Deployment + ": " + cell
			}
			out = append(out, diff(cell, "throughput ops/s", ga.Throughput, gb.Throughput))
			for _, oa := range ga.Ops {
				for _, ob := range gb.Ops {
					if oa.Name == ob.Name {
						out = append(out, diff(cell, oa.Name+" avg µs", oa.AvgUs, ob.AvgUs), diff(cell, oa.Name+" p99 µs", oa.P99Us, ob.P99Us))
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no cell of %s matches one of %s (same workload, records, threads and rate)", a.Name, b.Name)
	}
	return out, nil
}

func diff(cell, metric string, a, b stats.Stat) Diff {
	d := Diff{Cell: cell, Metric: metric, A: a, B: b}
	d.Delta, d.CI, d.Certain = stats.Welch(a, b)
	if a.Mean != 0 {
		d.Relative = d.Delta / a.Mean
	}
	switch {
	case !d.Certain:
		d.Verdict = "no repetitions: cannot tell noise"
	case math.Abs(d.Delta) <= d.CI:
		d.Verdict = "within noise"
	case d.Delta > 0:
		d.Verdict = "B higher"
	default:
		d.Verdict = "B lower"
	}
	return d
}
