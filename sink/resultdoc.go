package sink

import (
	"math"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// Meta is what the caller knows about a run beyond the runner's Result.
type Meta struct {
	Command, Binding, Server, Driver, Workload, Label, QueryModel string
	Properties                                                    map[string]string
	CPU                                                           time.Duration // the client's CPU time during the phase
	SchedP99                                                      time.Duration // the client's goroutines' wait to run, p99
	Cores                                                         int           // GOMAXPROCS while it ran (0: as now)
	ID                                                            string        // the run's identity (result.NewID)
	// Redactor hides credentials in the errors kept, the run's own
	// secrets too (nil: what props.RedactText finds).
	Redactor *props.Redactor
}

var isOK = func(s db.Status) bool { return s.IsOK() }
var isFailed = func(s db.Status) bool { return !s.IsOK() }
var anyStatus = func(db.Status) bool { return true }

// NewDoc builds the JSON document for a run.
func NewDoc(res *runner.Result, series []result.Point, m Meta, o Options) *result.Doc {
	all, ok := res.Total.ClientOps()
	d := &result.Doc{
		Format: result.Format, Version: result.FormatVersion, ID: m.ID, Environment: result.CurrentEnvironment(),
		Command: m.Command, Binding: m.Binding, Server: m.Server, Driver: m.Driver, Workload: m.Workload, Label: m.Label,
		QueryModel: m.QueryModel, Properties: m.Properties, Threads: res.Threads, Rate: res.Config.Rate, Seed: res.Config.Seed,
		Start: res.Start, End: res.End,
		RuntimeMs: ms(res.Runtime), WarmupMs: ms(res.Warmup),
		Stop: res.Reason, Stuck: res.StuckThreads, Abandoned: res.Abandoned(), ClientCPUS: m.CPU.Seconds(), ClientSchedP99Us: float64(m.SchedP99) / float64(time.Microsecond),
		Operations: all, OKOperations: ok,
		Throughput: throughput(all, res.Runtime), Goodput: throughput(ok, res.Runtime),
		HistogramUnit: "ns",
	}
	if res.Err != nil {
		d.Error = res.Err.Error()
	}
	if m.Cores > 0 {
		d.Environment.GOMAXPROCS = m.Cores
	}
	if st, u := res.Settled, res.Config.Until; st != nil && u != nil {
		d.Until = &result.Until{ThroughputBoundPct: 100 * u.Throughput, P99BoundPct: 100 * u.P99, Met: st.Met, Batches: st.Batches}
		if finite(st.Throughput) && st.Batches > 0 {
			d.Until.ThroughputPct = 100 * st.Throughput
		}
		for name, r := range st.P99 {
			if finite(r) {
				if d.Until.P99Pct == nil {
					d.Until.P99Pct = result.Bounded[float64]{}
				}
				d.Until.P99Pct[name] = 100 * r
			}
		}
	}
	pcts := result.DefaultPercentiles
	t := res.Total
	d.Cleanup = result.Summarize(t.Merged(measure.Cleanup, false, anyStatus), pcts)
	for s := db.Status(0); s < db.NumStatus; s++ {
		if e := result.Encode(t.Service[measure.Cleanup][s]); e != "" && t.Count(measure.Cleanup, s) > 0 {
			if d.CleanupHistograms == nil {
				d.CleanupHistograms = map[string]string{}
			}
			d.CleanupHistograms[s.String()] = e
		}
	}
	for op := measure.Op(0); op < measure.NumOps; op++ {
		if t.OpCount(op) == 0 || !op.IsWorkload() {
			continue
		}
		r := result.OpResult{
			Name: op.String(), Count: t.OpCount(op), Outcomes: map[string]int64{},
			Latency:        result.Summarize(t.Merged(op, false, isOK), pcts),
			LatencyFailed:  result.Summarize(t.Merged(op, false, isFailed), pcts),
			Response:       result.Summarize(t.Merged(op, true, isOK), pcts),
			ResponseFailed: result.Summarize(t.Merged(op, true, isFailed), pcts),
			Histograms:     map[string]string{},
		}
		for s := db.Status(0); s < db.NumStatus; s++ {
			if n := t.Count(op, s); n > 0 {
				r.Outcomes[s.String()] = n
				r.Histograms[s.String()] = result.Encode(t.Service[op][s])
				if e := t.Errors[op][s]; e != "" {
					if r.Errors == nil {
						r.Errors = map[string]string{}
					}
					r.Errors[s.String()] = m.Redactor.Redact(e)
				}
				if e := result.Encode(t.Response[op][s]); e != "" {
					if r.ResponseHistograms == nil {
						r.ResponseHistograms = map[string]string{}
					}
					r.ResponseHistograms[s.String()] = e
				}
			}
		}
		d.Ops = append(d.Ops, r)
	}
	if t.Lag != nil && t.Lag.TotalCount() > 0 {
		d.Schedule = &result.Schedule{
			Lag:           result.Summarize(t.Lag, pcts),
			LateThreshold: float64(o.LateThreshold.Microseconds()),
			Late:          countAbove(t.Lag, int64(o.LateThreshold)),
			Histogram:     result.Encode(t.Lag),
		}
	}
	d.Series = series
	return d
}

// Series keeps the time series of a run as compact points; it is a
// runner.Observer. The run's last interval usually ends between two ticks:
// one shorter than half an interval is merged into the one before it, a
// longer one is kept and marked partial, so no rate or percentile is drawn
// from a sliver.
type Series struct {
	Points []result.Point

	prev      measure.Set // the last point's interval, for merging a sliver
	prevStart time.Duration
}

// Interval implements runner.Observer: it keeps intervals that end after
// warmup.
func (s *Series) Interval(p runner.Progress) {
	if p.Warmup || p.End <= p.Start {
		return
	}
	n := len(s.Points)
	if p.Final && n > 0 {
		full := s.Points[n-1].EndS - s.Points[n-1].StartS
		if sliver := (p.End - p.Start).Seconds(); sliver < full/2 {
			s.prev.Merge(p.Interval)
			s.Points[n-1] = newPoint(s.prevStart, p.End, &s.prev)
			return
		} else if sliver < full*0.99 {
			pt := newPoint(p.Start, p.End, p.Interval)
			pt.Partial = true
			s.Points = append(s.Points, pt)
			return
		}
	}
	s.Points = append(s.Points, newPoint(p.Start, p.End, p.Interval))
	s.prev.Reset()
	s.prev.Merge(p.Interval)
	s.prevStart = p.Start
}

func newPoint(start, end time.Duration, set *measure.Set) result.Point {
	all, _ := set.ClientOps()
	pt := result.Point{
		StartS: start.Seconds(), EndS: end.Seconds(), Operations: all,
		Throughput: throughput(all, end-start), Ops: result.PointOps{},
	}
	for op := measure.Op(0); op < measure.NumOps; op++ {
		n := set.OpCount(op)
		if n == 0 || !op.IsWorkload() {
			continue
		}
		h := set.Merged(op, false, anyStatus)
		po := result.PointOp{Count: n}
		po.SetServiceTime(h)
		if r := set.Merged(op, true, anyStatus); r != nil {
			po.RespP99Us = us(r.ValueAtPercentile(99))
		}
		for s := db.Status(0); s < db.NumStatus; s++ {
			if c := set.Count(op, s); c > 0 && !s.IsOK() {
				if po.Failed == nil {
					po.Failed = map[string]int64{}
				}
				po.Failed[s.String()] = c
			}
		}
		pt.Ops.Set(op.String(), po)
	}
	return pt
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// finite says whether x is a number JSON can hold.
func finite(x float64) bool { return !math.IsInf(x, 0) && !math.IsNaN(x) }
