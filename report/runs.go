package report

import (
	"fmt"
	"math"
	"sort"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/report/chart"
	"github.com/servbench/servbench/result"
)

// perRun gives every run its latency percentile spectrum and its time
// series.
func (s *Set) perRun() Section {
	sec := Section{ID: "runs", Title: "Every run",
		Intro: "Per run: the latency percentile spectrum of successful operations from the HDR histograms (x: 1/(1 − percentile), so each step right is one more nine), and the time series of throughput, p99 and failures."}
	for _, r := range s.Runs {
		d := r.Doc
		end := "" // a run that ended as planned (its operations done, or its time up) says nothing more
		if !d.Stop.Finished() {
			end = fmt.Sprintf(", stopped: %s", d.Stop)
		}
		det := RunDetail{ID: r.ID, Summary: fmt.Sprintf("%s: %s ops/s, %s operations, %.2f s%s", r.ID, thousands(d.Throughput), format.Thousands(d.Operations), d.RuntimeMs/1000, end)}
		stem := safe(r.ID)
		if f := spectrum(r); f != nil {
			f.Name = stem + "-spectrum"
			det.Figures = append(det.Figures, f)
		}
		det.Figures = append(det.Figures, series(r, stem)...)
		det.Figures = append(det.Figures, serverCharts(r, stem)...)
		sec.Runs = append(sec.Runs, det)
	}
	return sec
}

// spectrum draws latency against percentile, one line per operation: the
// points are at percentiles 100(1 − 2^−i), i = 0, 1, ..., as long as the
// histogram holds 2^i values, then the maximum.
func spectrum(r *Run) *Figure {
	l := &chart.Lines{Title: r.ID + ": latency by percentile", XLabel: "percentile", YLabel: "ms", LogX: true, LogY: true,
		XTicks: []float64{1, 10, 100, 1000, 1e4, 1e5, 1e6}, XTickLabels: []string{"0%", "90%", "99%", "99.9%", "99.99%", "99.999%", "99.9999%"}}
	for _, op := range r.Doc.Ops {
		h := merged(op.Histograms, func(outcome string) bool { return outcome == "OK" || outcome == "BATCHED_OK" })
		if h == nil {
			continue
		}
		ln := chart.Line{Name: op.Name}
		n := float64(h.TotalCount())
		for i := 0; math.Pow(2, float64(i)) <= n && i < 20; i++ {
			x := math.Pow(2, float64(i))
			p := 100 * (1 - 1/x)
			ln.Points = append(ln.Points, chart.Point{X: x, Y: float64(h.ValueAtPercentile(p)) / 1e6, Label: fmt.Sprintf("p%.4g", p)})
		}
		ln.Points = append(ln.Points, chart.Point{X: math.Max(n, 2), Y: float64(h.Max()) / 1e6, Label: "max"})
		l.Lines = append(l.Lines, ln)
	}
	if len(l.Lines) == 0 {
		return nil
	}
	return &Figure{SVG: l.SVG()}
}

// merged adds the histograms of the outcomes keep accepts (nil: none).
func merged(enc map[string]string, keep func(string) bool) *hdr.Histogram {
	var names []string
	for k := range enc {
		if keep(k) {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	var h *hdr.Histogram
	for _, k := range names {
		x, err := result.DecodeHistogram(enc[k])
		if err != nil {
			continue
		}
		if h == nil {
			h = x
		} else {
			h.Merge(x)
		}
	}
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	return h
}

// series draws the run's time series: throughput, each operation's p99
// and, when any operation failed, failures per interval.
func series(r *Run, stem string) []*Figure {
	pts := r.Doc.Series
	if len(pts) == 0 {
		return nil
	}
	thr := &chart.Lines{Title: r.ID + ": throughput over time", XLabel: "seconds", YLabel: "ops/s", Lines: []chart.Line{{Name: "throughput"}}}
	p99 := &chart.Lines{Title: r.ID + ": p99 over time", XLabel: "seconds", YLabel: "ms"}
	fail := &chart.Lines{Title: r.ID + ": failed operations over time", XLabel: "seconds", YLabel: "failed per interval", Lines: []chart.Line{{Name: "failed"}}}
	byOp := map[string]int{}
	anyFailed := false
	for _, p := range pts {
		thr.Lines[0].Points = append(thr.Lines[0].Points, chart.Point{X: p.EndS, Y: p.Throughput})
		var failed int64
		for _, e := range p.Ops { // by name
			name, o := e.Name, e.PointOp
			for _, n := range o.Failed {
				failed += n
			}
			if o.Count == 0 {
				continue
			}
			i, ok := byOp[name]
			if !ok {
				i = len(p99.Lines)
				byOp[name] = i
				p99.Lines = append(p99.Lines, chart.Line{Name: name})
			}
			p99.Lines[i].Points = append(p99.Lines[i].Points, chart.Point{X: p.EndS, Y: o.P99Us / 1000})
		}
		anyFailed = anyFailed || failed > 0
		fail.Lines[0].Points = append(fail.Lines[0].Points, chart.Point{X: p.EndS, Y: float64(failed)})
	}
	if st := r.Doc.Stages; len(st) > 0 { // a shaped load: the rate its stages asked, beside what was done
		asked := chart.Line{Name: "rate asked (stages)"}
		for _, s := range st {
			asked.Points = append(asked.Points, chart.Point{X: s.StartS, Y: s.FromRate}, chart.Point{X: s.EndS, Y: s.ToRate})
		}
		thr.Lines = append(thr.Lines, asked)
	}
	figs := []*Figure{{Name: stem + "-throughput", SVG: thr.SVG()}, {Name: stem + "-p99", SVG: p99.SVG()}}
	if anyFailed {
		figs = append(figs, &Figure{Name: stem + "-failed", SVG: fail.SVG()})
	}
	return figs
}
