package engine

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// stageResults measures each stage of a shaped load from the run's time
// series: the intervals whose middle falls in a stage are its (the stages
// count from the schedule's start, warmup included, so they are shifted by
// the warmup).
func stageResults(stages []runner.Stage, warmup time.Duration, pts []result.Point) []result.StageResult {
	var out []result.StageResult
	begin := -warmup.Seconds()
	prev := 0.0
	for i, st := range stages {
		end := begin + st.Duration.Seconds()
		from := prev
		if st.Step || i == 0 {
			from = st.Rate
		}
		sr := result.StageResult{StartS: max(begin, 0), EndS: max(end, 0), FromRate: from, ToRate: st.Rate, Ops: map[string]result.StageOp{}}
		hists := map[string]*hdr.Histogram{}
		var covered float64
		for _, p := range pts {
			if mid := (p.StartS + p.EndS) / 2; mid < begin || mid >= end {
				continue
			}
			covered += p.EndS - p.StartS
			sr.Operations += p.Operations
			for _, e := range p.Ops {
				name, o := e.Name, e.PointOp
				so := sr.Ops[name]
				so.MeanUs = (so.MeanUs*float64(so.Count) + o.MeanUs*float64(o.Count)) / float64(max(so.Count+o.Count, 1))
				so.Count += o.Count
				sr.Ops[name] = so
				if h, err := result.DecodeHistogram(o.Histogram); err == nil && o.Histogram != "" {
					if hists[name] == nil {
						hists[name] = h
					} else {
						hists[name].Merge(h)
					}
				}
			}
		}
		for name, h := range hists {
			so := sr.Ops[name]
			so.P99Us = float64(h.ValueAtPercentile(99)) / 1000
			sr.Ops[name] = so
		}
		if covered > 0 {
			sr.Throughput = float64(sr.Operations) / covered
		}
		if end > 0 { // a stage wholly in the warmup was not measured
			out = append(out, sr)
		}
		begin, prev = end, st.Rate
	}
	return out
}
