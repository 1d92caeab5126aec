// Package gate judges new results against a baseline, figure by figure:
// a figure regressed when it is worse than the baseline's by more than
// its threshold and by more than its noise, as measured over the
// repetitions (Welch's interval of the difference of means when both sides
// have two or more; the prediction interval of one new result when only
// the baseline has; no interval with one baseline run, said so).
//
// Invariants: a verdict depends only on the figures given (no clock, no
// randomness); a figure the new results have and the baseline has not
// is said missing, never passed silently.
package gate

import (
	"fmt"
	"github.com/servbench/servbench/stats"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servbench/servbench/history"
)

// A Threshold is how much worse than its baseline a figure may be.
type Threshold struct {
	// Figure is a history figure: "throughput", or a percentile of each
	// operation ("p99": every operation's "READ p99", "UPDATE p99", ...).
	Figure string
	// Worse is the fraction the figure may worsen by (0.05: 5%).
	Worse float64
}

// higherIsBetter reports whether figure improves as it grows.
func higherIsBetter(figure string) bool { return figure == "throughput" }

// Failed is the figure of failed operations, in percent of all; its
// threshold is in percentage points, not relative (from none, any share
// would be infinitely worse).
const Failed = "failed"

// Defaults are the thresholds a gate applies unless told otherwise:
// throughput may drop by 5%, each operation's p99 grow by 10%, the failed
// operations grow by 1 percentage point.
var Defaults = []Threshold{{"throughput", 0.05}, {"p99", 0.10}, {Failed, 0.01}}

// percentileFigure reports whether f names a percentile the history
// keeps ("p99", "p99.9").
func percentileFigure(f string) bool {
	v, ok := strings.CutPrefix(f, "p")
	return ok && slices.Contains(history.Percentiles, v)
}

// ParseThreshold reads a property gate.FIGURE=PERCENT ("gate.p99=10",
// "gate.throughput=5%", "gate.p99=off"); off is a nil threshold.
func ParseThreshold(key, value string) (*Threshold, error) {
	fig, ok := strings.CutPrefix(key, "gate.")
	if !ok || fig != "throughput" && fig != Failed && !percentileFigure(fig) {
		return nil, fmt.Errorf("%s: unknown gate figure (gate.throughput, gate.failed, gate.p50, gate.p95, gate.p99, gate.p99.9)", key)
	}
	if value == "off" {
		return nil, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64)
	if err != nil || v < 0 || v > 1000 || math.IsNaN(v) {
		return nil, fmt.Errorf("%s=%q: want a percentage from 0 to 1000, or off", key, value)
	}
	return &Threshold{fig, v / 100}, nil
}

// A Verdict is one figure judged.
type Verdict struct {
	Figure    string
	New, Base stats.Stat
	// Change is the relative change of the mean, new against base
	// (-0.2: 20% lower); Noise is the half-width, relative to the
	// baseline's mean, of the 95% interval the change must leave to be
	// more than noise (0: none known).
	Change, Noise float64
	Threshold     float64
	// Regressed: worse by more than both the threshold and the noise.
	Regressed bool
	// Missing: the baseline has no such figure.
	Missing bool
	// Note says how the noise was known ("Welch over 3 and 4 runs").
	Note string
}

// Judge compares the new entries (repetitions of one cell) with the
// baseline's on each threshold's figures.
func Judge(news, base []history.Entry, ts []Threshold) []Verdict {
	return JudgeIntervals(news, base, ts, nil)
}

// Intervals gives an entry's figure interval by interval (its result's
// time series), nil when not known.
type Intervals func(e history.Entry, fig string) []float64

// JudgeIntervals is Judge where one new run meets one baseline run: each
// side's noise is then known from batch means of its run's intervals
// (stats.BatchMeans), when iv gives enough of them, and the two compared
// by Welch; the noise is then the runs' own, within each, not how runs
// of the cell differ (repetitions say that).
func JudgeIntervals(news, base []history.Entry, ts []Threshold, iv Intervals) []Verdict {
	var out []Verdict
	for _, t := range ts {
		for _, fig := range figures(news, t.Figure) {
			v := judge(fig, values(news, fig), values(base, fig), t.Worse)
			if iv != nil && len(news) == 1 && len(base) == 1 && !v.Missing && fig != Failed && v.Base.Mean != 0 {
				a, aok := stats.BatchMeans(iv(base[0], fig))
				b, bok := stats.BatchMeans(iv(news[0], fig))
				if _, half, _ := stats.Welch(a, b); aok && bok && finite(half) && finite(a.Mean) {
					v.Noise = half / math.Abs(a.Mean)
					v.Regressed = v.regressed()
					v.Note = fmt.Sprintf("Welch over batch means of each run's intervals (%d and %d batches): the runs' own noise, not run to run", a.N, b.N)
				} else if aok && bok {
					v.Note = "the runs' intervals give no finite noise (a value out of range in a time series): the threshold alone"
				}
			}
			out = append(out, v)
		}
	}
	return out
}

// figures are the figures a threshold covers among the new entries:
// itself, or each operation's percentile ("READ p99", not "READ response
// p99"; an operation's name may hold spaces).
func figures(news []history.Entry, f string) []string {
	if f == "throughput" || f == Failed {
		return []string{f}
	}
	var out []string
	for _, e := range news {
		for name := range e.Figures {
			if _, ok := history.OpFigure(name, f); ok && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	slices.Sort(out)
	return out
}

func values(es []history.Entry, fig string) []float64 {
	var xs []float64
	for i := range es {
		if v, ok := es[i].Figure(fig); ok && finite(v) {
			xs = append(xs, v)
		}
	}
	return xs
}

func judge(fig string, news, base []float64, worse float64) Verdict {
	v := Verdict{Figure: fig, New: stats.Summarize(news), Base: stats.Summarize(base), Threshold: worse}
	if len(base) == 0 || len(news) == 0 {
		v.Missing = true
		v.Note = "the baseline has no " + fig
		return v
	}
	m := v.Base.Mean
	if fig == Failed { // percentage points
		v.Change = (v.New.Mean - m) / 100
		v.Regressed = v.Change > worse
		v.Note = "percentage points of all operations"
		return v
	}
	if m == 0 {
		// Nothing to be relative to: a latency from none is worse, a
		// throughput from none is not.
		v.Note = "the baseline's mean is 0"
		if !higherIsBetter(fig) && v.New.Mean > 0 {
			v.Change, v.Regressed = math.Inf(1), true
		}
		return v
	}
	diff := v.New.Mean - m
	var half float64
	switch {
	case len(news) >= 2 && len(base) >= 2:
		_, half, _ = stats.Welch(v.Base, v.New)
		v.Note = fmt.Sprintf("Welch over %d and %d runs", len(base), len(news))
	case len(base) >= 2:
		// One new run: the 95% prediction interval of one more run of
		// the baseline.
		half = stats.StudentT(0.975, float64(len(base)-1)) * v.Base.SD * math.Sqrt(1+1/float64(len(base)))
		v.Note = fmt.Sprintf("prediction interval of %d baseline runs", len(base))
	default:
		v.Note = "one baseline run: no interval, the threshold alone"
	}
	v.Change, v.Noise = diff/math.Abs(m), half/math.Abs(m)
	v.Regressed = v.regressed()
	return v
}

// regressed says whether v's figure got worse by more than its threshold
// and its noise.
func (v *Verdict) regressed() bool {
	worseBy := -v.Change // how much worse, as a fraction
	if !higherIsBetter(v.Figure) {
		worseBy = v.Change
	}
	return worseBy > v.Threshold && worseBy > v.Noise
}

// finite says whether x is neither infinite nor NaN.
func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
