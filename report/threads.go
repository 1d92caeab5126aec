package report

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/report/chart"
)

// curveKey is everything but the stepped dimension.
type curveKey struct {
	deployment, workload string
	records              int64
	fixed                float64
}

// step returns the stepped dimension ("threads" or "rate") and whether any
// curve has two steps or more.
func (s *Set) step() (string, bool) {
	if s.Index != nil && s.Index.SLO != nil {
		return s.Index.SLO.Step, true
	}
	for _, dim := range []string{"threads", "rate"} {
		n := map[curveKey]int{}
		for _, g := range s.Groups {
			k, _ := curveOf(g, dim)
			n[k]++
			if n[k] > 1 {
				return dim, true
			}
		}
	}
	return "", false
}

func curveOf(g *Group, dim string) (curveKey, float64) {
	if dim == "rate" {
		return curveKey{g.Deployment, g.Workload, g.Records, float64(g.Threads)}, g.Rate
	}
	return curveKey{g.Deployment, g.Workload, g.Records, g.Rate}, float64(g.Threads)
}

// worstP99 is the highest mean p99 of the group's operations, in µs.
func (g *Group) worstP99() float64 {
	var w float64
	for _, o := range g.Ops {
		w = max(w, o.P99Us.Mean)
	}
	return w
}

// byThreads is S2's view: throughput against client threads (or the
// rate), latency against throughput, and the SLO search's outcome.
func (s *Set) byThreads() (Section, bool) {
	dim, ok := s.step()
	if !ok {
		return Section{}, false
	}
	var slo *plan.IndexSLO
	if s.Index != nil {
		slo = s.Index.SLO
	}
	xlabel := "client threads"
	if dim == "rate" {
		xlabel = "rate ops/s"
	}
	v := &threadsView{s: s, dim: dim, xlabel: xlabel, slo: slo, scaled: scaledRecords(s.Groups)}
	v.curves, v.order = threadCurves(s.Groups, dim, slo)
	sec := Section{ID: "threads", Title: "Throughput and latency by " + xlabel, Intro: v.intro()}
	table := &Table{Name: "curves", Title: "Every step", Header: []string{"deployment", "workload", "records", "fixed", xlabel, "throughput ops/s", "avg latency ms", "worst p99 ms", "failed %"}}
	for _, pair := range uniq(s.Groups, func(g *Group) workloadRecords { return workloadRecords{g.Workload, v.records(g)} }) {
		sec.Figures = append(sec.Figures, v.figures(pair, table)...)
	}
	switch {
	case slo != nil && slo.Search != "":
		sec.Tables = append(sec.Tables, capacityTable(slo, dim, xlabel))
	case slo != nil:
		sec.Tables = append(sec.Tables, sloTable(slo, dim, xlabel))
		if len(slo.BoundsUs) > 1 { // a walk with several bounds: each read off the same points
			sec.Tables = append(sec.Tables, sloBoundsTable(slo, dim, xlabel))
		}
	}
	sec.Tables = append(sec.Tables, table)
	return sec, true
}

// threadsView is what byThreads draws from: the stepped dimension and its
// axis label, the SLO (nil when none), each curve's groups by key with
// the keys in plan order, and whether the records scaled with the
// cluster.
type threadsView struct {
	s           *Set
	dim, xlabel string
	slo         *plan.IndexSLO
	curves      map[curveKey][]*Group
	order       []curveKey
	scaled      bool
}

// workloadRecords is one chart of byThreads: a workload at a record count
// (0 when the records scaled with the cluster).
type workloadRecords struct {
	workload string
	records  int64
}

// intro is the section's opening paragraph: what a curve steps, and the
// SLO or the capacity search when there is one.
func (v *threadsView) intro() string {
	intro := "Each curve steps " + v.xlabel + " for one deployment, workload and record count (points: mean over repetitions)."
	slo := v.slo
	switch {
	case slo != nil && slo.Search != "":
		intro = fmt.Sprintf("A capacity search per deployment, workload and record count: %s from %s, doubled until a step broke the bound (or halved when the first did), then bisected to %g%%; "+
			"the answer, the highest step within the bound, was run %s. Every step it tried is drawn (points: mean over a step's runs); each bound's answer is ringed. The SLO is %s ≤ %s ms (%s).",
			v.xlabel, strconv.FormatFloat(slo.From, 'f', -1, 64), slo.PrecisionPct, repsWord(v.s), slo.Latency, msList(slo), sloOp(slo))
	case slo != nil:
		intro += fmt.Sprintf(" The SLO is %s ≤ %s ms (%s); the ringed point is the highest throughput of a step within it.",
			slo.Latency, strconv.FormatFloat(slo.BoundUs/1000, 'f', -1, 64), sloOp(slo))
	}
	return intro
}

// threadCurves returns the groups of each curve, and the curves in plan order.
// A search's steps are sorted by step: it tries them out of order.
func threadCurves(groups []*Group, dim string, slo *plan.IndexSLO) (map[curveKey][]*Group, []curveKey) {
	curves := map[curveKey][]*Group{}
	var order []curveKey
	for _, g := range groups {
		k, _ := curveOf(g, dim)
		if curves[k] == nil {
			order = append(order, k)
		}
		curves[k] = append(curves[k], g)
	}
	if slo != nil && slo.Search != "" { // a search tries steps out of order: draw them in order
		for _, gs := range curves {
			slices.SortStableFunc(gs, func(a, b *Group) int {
				_, x := curveOf(a, dim)
				_, y := curveOf(b, dim)
				return cmp.Compare(x, y)
			})
		}
	}
	return curves, order
}

// scaledRecords reports whether the data scaled with the cluster: each
// deployment one record count, the counts differing (S2's 20M, 30M and
// 40M records on 4, 6 and 8 nodes). Then a workload's curves share one
// chart, each named with its records, as the studies draw them.
func scaledRecords(groups []*Group) bool {
	scaled := len(uniq(groups, func(g *Group) int64 { return g.Records })) > 1
	for _, d := range uniq(groups, func(g *Group) string { return g.Deployment }) {
		if len(uniq(filter(groups, func(g *Group) bool { return g.Deployment == d }), func(g *Group) int64 { return g.Records })) > 1 {
			scaled = false
		}
	}
	return scaled
}

// records is the record count g's chart is keyed by: 0 when the records
// scaled with the cluster (one chart for all).
func (v *threadsView) records(g *Group) int64 {
	if v.scaled {
		return 0
	}
	return g.Records
}

// figures draws one chart pair's curves: throughput by the step, latency
// by throughput. Each step is added to table as a row.
func (v *threadsView) figures(pair workloadRecords, table *Table) []*Figure {
	dim, slo := v.dim, v.slo
	of := fmt.Sprintf(", %s records", thousands(float64(pair.records)))
	if v.scaled {
		of = " (records scaled with the cluster)"
	}
	thr := &chart.Lines{Title: fmt.Sprintf("Workload %s%s: throughput by %s", wlTitle(pair.workload), of, v.xlabel), XLabel: v.xlabel, YLabel: "ops/s",
		Ordinal: dim == "threads" && (slo == nil || slo.Search == "")} // thread counts double: evenly spaced, as the studies draw them
	lat := &chart.Lines{Title: fmt.Sprintf("Workload %s%s: latency by throughput", wlTitle(pair.workload), of), XLabel: "ops/s", YLabel: "ms", LogY: true}
	if slo != nil {
		lat.YLabel = slo.Latency + " ms"
		for _, b := range bounds(slo) {
			lat.Bounds = append(lat.Bounds, chart.Bound{Y: b / 1000, Label: "SLO " + slo.Latency + " ≤ " + strconv.FormatFloat(b/1000, 'f', -1, 64) + " ms"})
		}
	} else {
		lat.YLabel = "worst operation's p99 ms"
	}
	for _, k := range v.order {
		if k.workload != pair.workload || (!v.scaled && k.records != pair.records) {
			continue
		}
		tl, ll := v.lines(k, table)
		thr.Lines, lat.Lines = append(thr.Lines, tl), append(lat.Lines, ll)
	}
	var ys []float64
	for _, ln := range thr.Lines {
		for _, p := range ln.Points {
			ys = append(ys, p.Y)
		}
	}
	thr.LogY = chart.SpansDecades(ys...) // a slow system's curve would lie flat on 0
	stem := safe(fmt.Sprintf("%s-%s-r%d", dim, wlName(pair.workload), pair.records))
	return []*Figure{{Name: stem + "-throughput", SVG: thr.SVG()}, {Name: stem + "-latency", SVG: lat.SVG()}}
}

// lines returns curve k's throughput line and latency line, and adds its
// steps to table. The ringed points are the SLO's best step, or each
// bound's answer.
func (v *threadsView) lines(k curveKey, table *Table) (chart.Line, chart.Line) {
	dim, slo := v.dim, v.slo
	name := k.deployment
	if v.scaled {
		name += " (" + thousands(float64(k.records)) + " records)"
	}
	if v.s.fixedVaries(dim) {
		name += " " + fixedName(dim, k.fixed)
	}
	tl, ll := chart.Line{Name: name}, chart.Line{Name: name}
	if g := v.curves[k]; dim == "threads" && len(g) > 0 && g[0].Rate == 0 {
		tl.Published = v.s.publishedCurve(g[0].System, k.workload, g[0].Nodes)
	}
	ringed := map[float64]bool{} // the steps ringed: the best, or each bound's answer
	if c := sloCurve(slo, k); c != nil {
		if c.Best != nil {
			ringed[c.Best.Step] = true
		}
		for _, a := range c.Answers {
			if a.Step > 0 && !a.Searching {
				ringed[a.Step] = true
			}
		}
		for _, p := range c.Steps {
			ll.Points = append(ll.Points, chart.Point{X: p.Throughput, Y: p.LatencyUs / 1000, Mark: ringed[p.Step],
				Label: fmt.Sprintf("%s %g", dim, p.Step)})
		}
	}
	for _, g := range v.curves[k] {
		_, x := curveOf(g, dim)
		tl.Points = append(tl.Points, chart.Point{X: x, Y: g.Throughput.Mean, Mark: ringed[x]})
		if slo == nil {
			ll.Points = append(ll.Points, chart.Point{X: g.Throughput.Mean, Y: g.worstP99() / 1000, Label: fmt.Sprintf("%s %g", dim, x)})
		}
		table.Rows = append(table.Rows, []string{g.Deployment, wlName(g.Workload), strconv.FormatInt(g.Records, 10), fixedName(dim, k.fixed),
			strconv.FormatFloat(x, 'f', -1, 64), pm(g.Throughput, f0), pm(g.AvgUs, ms), ms(g.worstP99()), pm(g.FailedPct, f2)})
	}
	return tl, ll
}

// sloTable is an SLO walk's outcome for each curve: the highest
// throughput within the bound, the first step over it, and the peak.
func sloTable(slo *plan.IndexSLO, dim, xlabel string) *Table {
	st := &Table{Name: "slo", Title: "SLO search: the highest throughput within the bound, and the peak",
		Header: []string{"deployment", "workload", "records", "fixed", "best " + xlabel, "best ops/s", slo.Latency + " ms at best", "broken at", "peak ops/s", "peak at"}}
	for _, c := range slo.Curves {
		row := []string{withClients(c.Deployment, c.Clients), wlName(c.Workload), strconv.FormatInt(c.Records, 10), fixedName(dim, c.Fixed), "—", "—", "—", "never", "", ""}
		if c.Best != nil {
			row[4], row[5], row[6] = strconv.FormatFloat(c.Best.Step, 'f', -1, 64), f0(c.Best.Throughput), ms(c.Best.LatencyUs)
		}
		if c.BrokeAt > 0 {
			row[7] = strconv.FormatFloat(c.BrokeAt, 'f', -1, 64)
		}
		if c.Peak != nil {
			row[8], row[9] = f0(c.Peak.Throughput), strconv.FormatFloat(c.Peak.Step, 'f', -1, 64)
		}
		st.Rows = append(st.Rows, row)
	}
	op := slo.Operation
	if op == "" {
		op = "the worst operation"
	}
	st.Note = fmt.Sprintf("The SLO's latency is %s's %s (mean over repetitions), not the average over the successful operations that the other tables give as avg latency. "+
		"Broken at is the first step over the bound; a later step can come back under it (a cold first step, say), so the best step may lie beyond it.", op, slo.Latency)
	return st
}

// sloBoundsTable is a walk with several bounds' answers, each read off
// the same steps: the highest throughput within each bound.
func sloBoundsTable(slo *plan.IndexSLO, dim, xlabel string) *Table {
	bt := &Table{Name: "slo-bounds", Title: "The highest throughput within each bound, from the same steps",
		Header: []string{"deployment", "workload", "records", "fixed", "bound ms", "best " + xlabel, "best ops/s", slo.Latency + " ms at best"}}
	for _, c := range slo.Curves {
		for _, a := range c.Answers {
			row := []string{withClients(c.Deployment, c.Clients), wlName(c.Workload), strconv.FormatInt(c.Records, 10), fixedName(dim, c.Fixed),
				strconv.FormatFloat(a.BoundUs/1000, 'f', -1, 64), "none", "—", "—"}
			if a.Step > 0 {
				row[5], row[6], row[7] = strconv.FormatFloat(a.Step, 'f', -1, 64), f0(a.Throughput), ms(a.LatencyUs)
			}
			bt.Rows = append(bt.Rows, row)
		}
	}
	return bt
}

// capacityTable names each curve's answer for each bound, with the runs
// of the answer and the interval the capacity lies in.
func capacityTable(slo *plan.IndexSLO, dim, xlabel string) *Table {
	t := &Table{Name: "slo", Title: "Capacity search: the highest " + xlabel + " within each bound",
		Header: []string{"deployment", "workload", "records", "fixed", "bound ms", "answer " + xlabel, "ops/s", "ops/s of its runs", slo.Latency + " ms", "capacity between", "runs tried"}}
	for _, c := range slo.Curves {
		for _, a := range c.Answers {
			row := []string{withClients(c.Deployment, c.Clients), wlName(c.Workload), strconv.FormatInt(c.Records, 10), fixedName(dim, c.Fixed),
				strconv.FormatFloat(a.BoundUs/1000, 'f', -1, 64), "—", "—", "", "", "", strconv.Itoa(c.Tried)}
			switch {
			case a.Searching:
				row[5] = "not searched to the end"
			case a.Step == 0:
				row[5] = "none, down to 1"
			default:
				row[5], row[6], row[8] = strconv.FormatFloat(a.Step, 'f', -1, 64), f0(a.Throughput), ms(a.LatencyUs)
				row[7] = fmt.Sprintf("%d: %s–%s", a.Runs, f0(a.ThroughputMin), f0(a.ThroughputMax))
				row[9] = strconv.FormatFloat(a.Step, 'f', -1, 64) + " and " + strconv.FormatFloat(a.Below, 'f', -1, 64)
				if a.AtMax {
					row[9] = "at least " + strconv.FormatFloat(a.Step, 'f', -1, 64) + " (the most tried)"
				}
			}
			t.Rows = append(t.Rows, row)
		}
	}
	op := slo.Operation
	if op == "" {
		op = "the worst operation"
	}
	t.Note = fmt.Sprintf("The SLO's latency is %s's %s (mean over a step's runs). The capacity lies between the answer, which met the bound, and the lowest step above it that broke it, "+
		"at most %g%% apart. A failed run breaks every bound.", op, slo.Latency, slo.PrecisionPct)
	return t
}

// bounds is the SLO's bounds in µs: every one a capacity search had, or
// the one a walk had.
func bounds(slo *plan.IndexSLO) []float64 {
	if len(slo.BoundsUs) > 0 {
		return slo.BoundsUs
	}
	return []float64{slo.BoundUs}
}

// msList is the SLO's bounds in ms: "0.6, 1".
func msList(slo *plan.IndexSLO) string {
	var out []string
	for _, b := range bounds(slo) {
		out = append(out, strconv.FormatFloat(b/1000, 'f', -1, 64))
	}
	return strings.Join(out, ", ")
}

// repsWord is how many times a capacity search ran its answer.
func repsWord(s *Set) string {
	n := 0
	if s.Index != nil && s.Index.SLO != nil {
		for _, c := range s.Index.SLO.Curves {
			for _, a := range c.Answers {
				n = max(n, a.Runs)
			}
		}
	}
	if n <= 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

func sloOp(slo *plan.IndexSLO) string {
	if slo.Operation == "" {
		return "every operation"
	}
	return slo.Operation
}

func sloCurve(slo *plan.IndexSLO, k curveKey) *plan.SLOCurve {
	if slo == nil {
		return nil
	}
	for i := range slo.Curves {
		c := &slo.Curves[i]
		if withClients(c.Deployment, c.Clients) == k.deployment && c.Workload == k.workload && c.Records == k.records && c.Fixed == k.fixed {
			return c
		}
	}
	return nil
}

// fixedVaries reports whether the dimension not stepped takes several values.
func (s *Set) fixedVaries(dim string) bool {
	return len(uniq(s.Groups, func(g *Group) float64 { k, _ := curveOf(g, dim); return k.fixed })) > 1
}

func fixedName(dim string, v float64) string {
	if dim == "rate" {
		return fmt.Sprintf("%g threads", v)
	}
	return "rate " + rateName(v)
}
