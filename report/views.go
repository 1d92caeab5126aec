package report

import (
	"fmt"
	"github.com/servbench/servbench/stats"
	"math"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/report/chart"
	"github.com/servbench/servbench/result"
)

// Sections builds every view the set's data supports, in the report's
// order: summary, by cluster size, cost, by client threads (with the SLO
// search), runtimes and scale-up, then each run's own charts, and the environment with every parameter.
func (s *Set) Sections() []Section {
	var out []Section
	if h := s.rehearsal(); h != nil {
		out = append(out, *h)
	}
	out = append(out, s.findings(), s.summary(), s.quality())
	if sec, ok := s.departures(); ok {
		out = append(out, sec)
	}
	if sec, ok := s.untilSection(); ok {
		out = append(out, sec)
	}
	if sec, ok := s.loadSection(); ok {
		out = append(out, sec)
	}
	if sec, ok := s.byCluster(); ok {
		out = append(out, sec)
	}
	if sec, ok := s.serverSide(); ok {
		out = append(out, sec)
	}
	if sec, ok := s.referenceSection(); ok {
		out = append(out, sec)
	}
	if sec, ok := s.cost(); ok {
		out = append(out, sec)
	}
	if sec, ok := s.byThreads(); ok {
		out = append(out, sec)
	}
	if sec, ok := s.runtime(); ok {
		out = append(out, sec)
	}
	out = append(out, s.perRun(), s.environment())
	hideKnown(out, s.secrets())
	return out
}

// secrets are the values the set's files say are secret, by any rule:
// the plan copy's (plan.Secrets), each run's and load's properties and
// server settings. The report hides them wherever it repeats them.
func (s *Set) secrets() *props.Redactor {
	red := plan.Secrets(s.PlanText)
	for _, r := range s.Runs {
		red.KnownMap(r.Doc.Properties)
		red.KnownMap(r.Doc.ServerSettings)
	}
	for _, l := range s.Loads {
		red.KnownMap(l.Doc.Properties)
	}
	return red
}

// hideKnown hides every known secret in every text of the sections:
// cells, titles, notes, points, the plan, captions and charts.
func hideKnown(secs []Section, red *props.Redactor) {
	if red.Len() == 0 {
		return
	}
	for i := range secs {
		sec := &secs[i]
		sec.Intro, sec.Pre = red.HideKnown(sec.Intro), red.HideKnown(sec.Pre)
		for j := range sec.Points {
			sec.Points[j] = red.HideKnown(sec.Points[j])
		}
		for _, t := range sec.Tables {
			t.Title, t.Note = red.HideKnown(t.Title), red.HideKnown(t.Note)
			for _, row := range t.Rows {
				for k := range row {
					row[k] = red.HideKnown(row[k])
				}
			}
		}
		figs := sec.Figures
		for j := range sec.Runs {
			sec.Runs[j].Summary = red.HideKnown(sec.Runs[j].Summary)
			figs = append(figs, sec.Runs[j].Figures...)
		}
		for _, f := range figs {
			f.Caption, f.SVG = red.HideKnown(f.Caption), hideInText(f.SVG, red)
		}
	}
}

// hideInText hides the known secrets in the text of an SVG chart (its
// labels, its titles), not in its markup, which a secret equal to an
// element's or attribute's name would break.
func hideInText(svg string, red *props.Redactor) string {
	var b strings.Builder
	for {
		lt := strings.IndexByte(svg, '<')
		if lt < 0 {
			b.WriteString(red.HideKnown(svg))
			return b.String()
		}
		b.WriteString(red.HideKnown(svg[:lt]))
		gt := strings.IndexByte(svg[lt:], '>')
		if gt < 0 {
			b.WriteString(svg[lt:])
			return b.String()
		}
		b.WriteString(svg[lt : lt+gt+1])
		svg = svg[lt+gt+1:]
	}
}

// departures lists where the plan departs from the study it reproduces,
// each with its reason and the study's line, as the plan states them.
func (s *Set) departures() (Section, bool) {
	if s.Index == nil || len(s.Index.Departures) == 0 {
		return Section{}, false
	}
	sec := Section{ID: "departures", Title: "Departures from the study",
		Intro: "Where the plan does not do what the study's text says, or the text does not say, and why, as the plan states it (departures:). Everything else follows the text."}
	t := &Table{Name: "departures", Title: "Departures from the study", Header: []string{"what", "why", "the study's text"}}
	red := s.secrets() // the plan's text is read as it stands: credentials hidden (a sentence's too), control characters escaped
	for _, d := range s.Index.Departures {
		t.Rows = append(t.Rows, []string{format.Printable(red.RedactProse(d.What)), format.Printable(red.RedactProse(d.Why)), format.Printable(red.RedactProse(d.Seed))}) // sentences: read as prose too
	}
	sec.Tables = append(sec.Tables, t)
	return sec, true
}

// ms formats microseconds as milliseconds: three decimals, or three
// significant digits below 0.01 ms.
func ms(us float64) string {
	if v := us / 1000; v != 0 && v < 0.01 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return strconv.FormatFloat(us/1000, 'f', 3, 64)
}
func f0(v float64) string { return thousands(v) }

// thousands writes a whole number with thousands separators: 148,756.
func thousands(v float64) string { return format.Round(v) }
func f2(v float64) string        { return strconv.FormatFloat(v, 'f', 2, 64) }

// pm formats a statistic as "mean ± CI" (the mean alone for one run).
func pm(st stats.Stat, f func(float64) string) string {
	if st.N < 2 || st.CI == 0 {
		return f(st.Mean)
	}
	return f(st.Mean) + " ± " + f(st.CI)
}

func rateName(r float64) string {
	if r == 0 {
		return "max"
	}
	return chart.Num(r)
}

func wlName(w string) string { return path.Base(w) }

// wlTitle names a workload in a title: a built-in one by its letter, as
// the studies do ("Workload A"), a file by its name.
func wlTitle(w string) string {
	if n := wlName(w); len(n) == 1 {
		return strings.ToUpper(n)
	}
	return wlName(w)
}

// clientCPU is a cell's busiest client's CPU share, marked when busy.
func clientCPU(g *Group) string {
	if g.ClientCPUPct == 0 {
		return ""
	}
	if g.BusyClient() {
		return f0(g.ClientCPUPct) + " busy"
	}
	return f0(g.ClientCPUPct)
}

func (s *Set) summary() Section {
	priced := len(filter(s.Groups, func(g *Group) bool { return g.Price > 0 })) > 0
	header := []string{"deployment", "system", "nodes", "workload", "records", "threads", "rate ops/s", "runs", "throughput ops/s",
		"avg latency ms", "operations (avg / p99 ms)", "failed %", "runtime s"}
	if priced {
		header = append(header, "cost per 10⁹ ops ("+s.currency()+")")
	}
	t := &Table{Name: "summary", Title: "Every cell (mean ± 95% confidence interval over repetitions)",
		Header: append(header, "clients", "client CPU %")}
	busy := false
	for _, g := range s.Groups {
		var ops []string
		for _, o := range g.Ops {
			ops = append(ops, fmt.Sprintf("%s %s / %s", o.Name, ms(o.AvgUs.Mean), ms(o.P99Us.Mean)))
		}
		nodes, cost := "", ""
		if g.Nodes > 0 {
			nodes = strconv.Itoa(g.Nodes)
		}
		if g.Cost > 0 {
			cost = f2(g.Cost)
		}
		thr := pm(g.Throughput, f0)
		if g.noisy() {
			thr += " noisy"
		}
		row := []string{g.Deployment, g.System, nodes, wlName(g.Workload), thousands(float64(g.Records)), strconv.Itoa(g.Threads),
			rateName(g.Rate), strconv.Itoa(g.Throughput.N), thr, pm(g.AvgUs, ms), strings.Join(ops, "; "),
			pm(g.FailedPct, f2), pm(g.Runtime, f2)}
		if priced {
			row = append(row, cost)
		}
		t.Rows = append(t.Rows, append(row, strconv.Itoa(g.Clients), clientCPU(g)))
		busy = busy || g.BusyClient()
	}
	t.Note = "Latency is the service time of successful operations; the confidence interval is Student's t at 95% over the repetitions."
	if busy {
		t.Note += fmt.Sprintf(" Client CPU is the busiest client's share of its cores; above %d%% (marked busy) the client may have been the limit, not the database: run the cell on more clients.", result.BusyClientPct)
	}
	sec := Section{ID: "summary", Title: "Summary", Tables: []*Table{t}}
	if s.Index != nil {
		counts, cells := map[string]int{}, map[string]bool{}
		for _, c := range s.Index.Runs {
			counts[c.Status]++
			cells[c.ID[:max(0, strings.LastIndexByte(c.ID, '-'))]] = true // the ID ends with -<repetition>
		}
		var parts []string
		for _, st := range []string{"done", "failed", "skipped", "interrupted", "pending"} {
			if counts[st] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[st], st))
			}
		}
		runs := len(s.Index.Runs)
		grid := fmt.Sprintf("%d %s", len(cells), plural(len(cells), "cell"))
		if reps := runs / max(1, len(cells)); reps > 1 && reps*len(cells) == runs {
			grid += fmt.Sprintf(" × %d repetitions", reps)
		}
		sec.Intro = fmt.Sprintf("%s in the plan: %d %s, %s.", grid, runs, plural(runs, "run"), strings.Join(parts, ", "))
	}
	return sec
}

// uniq returns the distinct values of f over the groups, in first-seen order.
func uniq[T comparable](gs []*Group, f func(*Group) T) []T {
	seen := map[T]bool{}
	var out []T
	for _, g := range gs {
		v := f(g)
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

func sorted[T int | int64 | float64](xs []T) []T {
	out := append([]T(nil), xs...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func filter(gs []*Group, keep func(*Group) bool) []*Group {
	var out []*Group
	for _, g := range gs {
		if keep(g) {
			out = append(out, g)
		}
	}
	return out
}

// load names a (threads, rate) combination.
type load struct {
	threads int
	rate    float64
}

func (l load) String() string {
	s := fmt.Sprintf("%d %s", l.threads, plural(l.threads, "thread"))
	if l.rate > 0 {
		s += ", " + rateName(l.rate) + " ops/s rate"
	}
	return s
}

func safe(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.' {
			return r
		}
		return '_'
	}, s)
}

// byCluster is S1's view: per workload, throughput and average latency by
// cluster size, one bar per system; failed operations by cause.
func (s *Set) byCluster() (Section, bool) {
	gs := filter(s.Groups, func(g *Group) bool { return g.Nodes > 0 })
	if len(uniq(gs, func(g *Group) int { return g.Nodes })) < 2 {
		return Section{}, false // one cluster size: nothing to compare across sizes
	}
	sec := Section{ID: "clusters", Title: "Throughput and latency by cluster size",
		Intro: "Per workload, each system's throughput and average latency at each cluster size (bars: mean over repetitions, whiskers: 95% confidence interval; a black diamond: the figure the study published for that system, size and threads, from the plan's reference file)."}
	nodes := sorted(uniq(gs, func(g *Group) int { return g.Nodes }))
	systems := uniq(gs, func(g *Group) string { return g.System })
	cats := make([]string, len(nodes))
	for i, n := range nodes {
		cats[i] = fmt.Sprintf("%d nodes", n)
		if n == 1 {
			cats[i] = "1 node"
		}
	}
	loads := uniq(gs, func(g *Group) load { return load{g.Threads, g.Rate} })
	for _, w := range uniq(gs, func(g *Group) string { return g.Workload }) {
		for _, ld := range loads {
			thr := &chart.Bars{Title: fmt.Sprintf("Workload %s: throughput (%s)", wlTitle(w), ld), YLabel: "ops/s", Categories: cats}
			lat := &chart.Bars{Title: fmt.Sprintf("Workload %s: average latency (%s)", wlTitle(w), ld), YLabel: "ms", Categories: cats}
			bars := 0
			for _, sys := range systems {
				ts := chart.Series{Name: sys, Values: nan(len(nodes)), Err: make([]float64, len(nodes)), Published: nan(len(nodes))}
				ls := chart.Series{Name: sys, Values: nan(len(nodes)), Err: make([]float64, len(nodes)), Published: nan(len(nodes))}
				for i, n := range nodes {
					ts.Published[i], ls.Published[i] = s.published(sys, w, n, ld.threads)
				}
				for _, g := range gs {
					if g.System != sys || g.Workload != w || g.Threads != ld.threads || g.Rate != ld.rate {
						continue
					}
					i := sort.SearchInts(nodes, g.Nodes)
					ts.Values[i], ts.Err[i] = g.Throughput.Mean, g.Throughput.CI
					ls.Values[i], ls.Err[i] = g.AvgUs.Mean/1000, g.AvgUs.CI/1000
					bars++
				}
				thr.Series, lat.Series = append(thr.Series, ts), append(lat.Series, ls)
			}
			if bars < 2 {
				continue // one bar compares nothing
			}
			thr.AutoLog()
			lat.AutoLog()
			stem := safe(fmt.Sprintf("clusters-%s-t%d-q%s", wlName(w), ld.threads, rateName(ld.rate)))
			sec.Figures = append(sec.Figures, &Figure{Name: stem + "-throughput", SVG: thr.SVG()}, &Figure{Name: stem + "-latency", SVG: lat.SVG()})
		}
	}
	sec.Figures = append(sec.Figures, s.failedFigures(gs)...)
	sec.Tables = append(sec.Tables, s.failedTable(gs))
	return sec, true
}

func nan(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.NaN()
	}
	return v
}

// causes lists every failure cause of the groups.
func causes(gs []*Group) []string {
	seen := map[string]bool{}
	var out []string
	for _, g := range gs {
		for _, c := range g.Failed {
			if !seen[c.Name] {
				seen[c.Name] = true
				out = append(out, c.Name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// failedFigures draws, per workload, the failed-operation percentage of
// each deployment stacked by cause.
func (s *Set) failedFigures(gs []*Group) []*Figure {
	cs := causes(gs)
	var figs []*Figure
	for _, w := range uniq(gs, func(g *Group) string { return g.Workload }) {
		wg := filter(gs, func(g *Group) bool { return g.Workload == w })
		var cats []string
		for _, g := range wg {
			cats = append(cats, g.Deployment+" "+load{g.Threads, g.Rate}.short())
		}
		b := &chart.Bars{Title: fmt.Sprintf("Workload %s: failed operations by cause", wlTitle(w)), YLabel: "% of operations", Categories: cats, Stacked: true}
		for _, c := range cs {
			se := chart.Series{Name: c, Values: make([]float64, len(wg))}
			for i, g := range wg {
				se.Values[i] = g.failedPct(c)
			}
			b.Series = append(b.Series, se)
		}
		if len(cs) == 0 {
			// No failure: the chart still shows every deployment, at zero.
			b.Series = []chart.Series{{Name: "failed (none)", Values: make([]float64, len(wg))}}
		}
		figs = append(figs, &Figure{Name: safe("failed-" + wlName(w)), SVG: b.SVG()})
	}
	return figs
}

func (l load) short() string {
	s := "t" + strconv.Itoa(l.threads)
	if l.rate > 0 {
		s += "@" + rateName(l.rate)
	}
	return s
}

// failedPct is the percentage of the group's operations that failed with
// cause c.
func (g *Group) failedPct(c string) float64 {
	if g.Operations == 0 {
		return 0
	}
	for _, f := range g.Failed {
		if f.Name == c {
			return 100 * float64(f.Count) / float64(g.Operations)
		}
	}
	return 0
}

func (s *Set) failedTable(gs []*Group) *Table {
	cs := causes(gs)
	t := &Table{Name: "failed", Title: "Failed operations by cause (% of operations, all repetitions)",
		Header: append([]string{"deployment", "workload", "records", "threads", "operations", "failed %"}, cs...)}
	for _, g := range gs {
		var total int64
		for _, f := range g.Failed {
			total += f.Count
		}
		row := []string{g.Deployment, wlName(g.Workload), strconv.FormatInt(g.Records, 10), strconv.Itoa(g.Threads), strconv.FormatInt(g.Operations, 10),
			pct(total, g.Operations)}
		for _, c := range cs {
			row = append(row, f2(g.failedPct(c)))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func pct(n, of int64) string {
	if of == 0 {
		return "0.00"
	}
	return f2(100 * float64(n) / float64(of))
}

// cost is S1's appendix: cost per billion operations per workload.
func (s *Set) cost() (Section, bool) {
	gs := filter(s.Groups, func(g *Group) bool { return g.Price > 0 || g.Terms != nil })
	if len(gs) == 0 {
		return Section{}, false
	}
	cur := s.currency()
	sec := Section{ID: "cost", Title: "Cost per billion operations",
		Intro: "Price per hour × 10⁹ / (3,600 × mean throughput): what a billion attempted operations cost at the measured rate (monthly prices are divided by 730 hours), in " + cur + "; " +
			"a billion successful operations (failed ones are paid for but do no work) cost that × throughput / goodput, the same as attempted when none failed."}
	if cur == "price units" {
		sec.Intro += " The plan names no currency (currency: USD in the plan names it)."
	}
	t := &Table{Name: "cost", Title: "Cost per billion operations (" + cur + ")", Header: []string{"deployment", "system", "nodes", "price per hour", "price per month", "workload", "records", "threads", "throughput ops/s", "cost per 10⁹ attempted ops", "cost per 10⁹ successful ops"}}
	for _, g := range gs {
		nodes := ""
		if g.Nodes > 0 {
			nodes = strconv.Itoa(g.Nodes)
		}
		t.Rows = append(t.Rows, []string{g.Deployment, g.System, nodes, strconv.FormatFloat(g.Price, 'f', 4, 64), f2(g.Price * 730), wlName(g.Workload),
			strconv.FormatInt(g.Records, 10), strconv.Itoa(g.Threads), f0(g.Throughput.Mean), f2(g.Cost), successfulCost(g)})
	}
	sec.Tables = append(sec.Tables, t)
	if tt, notes := s.costTermsTable(gs); tt != nil {
		sec.Tables = append(sec.Tables, tt)
		sec.Points = append(sec.Points, notes...)
		sec.Intro += " With usage prices, the cost per billion operations adds each term the deployment is billed for (next table)."
	}
	workloads := uniq(gs, func(g *Group) string { return g.Workload })
	if nodes := sorted(uniq(filter(gs, func(g *Group) bool { return g.Nodes > 0 }), func(g *Group) int { return g.Nodes })); len(nodes) > 1 {
		// Systems at several cluster sizes: a chart per workload, the
		// sizes along x and a bar per system, as the 2023 study draws
		// its cost per billion operations (its appendix 6.4).
		cats := make([]string, len(nodes))
		for i, n := range nodes {
			cats[i] = fmt.Sprintf("%d %s", n, plural(n, "node"))
		}
		for _, w := range workloads {
			for _, ld := range uniq(gs, func(g *Group) load { return load{g.Threads, g.Rate} }) {
				b := &chart.Bars{Title: fmt.Sprintf("Workload %s: cost per billion operations (%s)", wlTitle(w), ld), YLabel: "cost per 10⁹ operations, " + cur, Categories: cats}
				for _, sys := range uniq(gs, func(g *Group) string { return g.System }) {
					se := chart.Series{Name: sys, Values: nan(len(nodes))}
					for _, g := range gs {
						if g.System == sys && g.Workload == w && g.Threads == ld.threads && g.Rate == ld.rate && g.Nodes > 0 {
							se.Values[sort.SearchInts(nodes, g.Nodes)] = g.Cost
						}
					}
					b.Series = append(b.Series, se)
				}
				sec.Figures = append(sec.Figures, &Figure{Name: safe(fmt.Sprintf("cost-%s-t%d-q%s", wlName(w), ld.threads, rateName(ld.rate))), SVG: b.AutoLog().SVG()})
			}
		}
		return sec, true
	}
	cats := make([]string, len(workloads))
	for i, w := range workloads {
		cats[i] = wlName(w)
	}
	for _, ld := range uniq(gs, func(g *Group) load { return load{g.Threads, g.Rate} }) {
		b := &chart.Bars{Title: fmt.Sprintf("Cost per billion operations (%s)", ld), YLabel: "cost per 10⁹ operations, " + cur, Categories: cats}
		for _, tg := range uniq(gs, func(g *Group) string { return g.Deployment }) {
			se := chart.Series{Name: tg, Values: nan(len(workloads))}
			for _, g := range gs {
				if g.Deployment == tg && g.Threads == ld.threads && g.Rate == ld.rate {
					for i, w := range workloads {
						if w == g.Workload {
							se.Values[i] = g.Cost
						}
					}
				}
			}
			b.Series = append(b.Series, se)
		}
		sec.Figures = append(sec.Figures, &Figure{Name: safe(fmt.Sprintf("cost-t%d-q%s", ld.threads, rateName(ld.rate))), SVG: b.SVG()})
	}
	return sec, true
}

// successfulCost is a cell's cost per billion successful operations as
// the cost table shows it: "none succeeded" when no operation did.
func successfulCost(g *Group) string {
	if g.CostSuccessful == 0 && g.Cost > 0 {
		return "none succeeded"
	}
	return f2(g.CostSuccessful)
}

// currency is the prices' currency, as the plan names it.
func (s *Set) currency() string {
	if s.Index != nil && s.Index.Currency != "" {
		return s.Index.Currency
	}
	return "price units"
}

// plural is word for n things: "1 run", "2 runs".
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// rehearsal is the section that says the results are a rehearsal's: the
// plan's shape at a scale, against other endpoints, its figures not the
// plan's (nil when they are the plan's own).
func (s *Set) rehearsal() *Section {
	if s.Index == nil || s.Index.Rehearsal == nil {
		return nil
	}
	h := s.Index.Rehearsal
	names := make([]string, 0, len(h.At))
	for n := range h.At {
		names = append(names, n)
	}
	slices.Sort(names)
	at := make([]string, len(names))
	for i, n := range names {
		at[i] = n + " at " + h.At[n]
	}
	where := "the plan's endpoints"
	if len(at) > 0 {
		where = strings.Join(at, ", ")
	}
	cells := "every cell runs"
	if h.Ends {
		cells = "every cell at the first and the last of its thread steps and rates runs (--ends: the steps between were not rehearsed)"
	}
	return &Section{ID: "rehearsal", Title: "A rehearsal, not the plan's results",
		Intro: fmt.Sprintf("These runs rehearse the plan %s at %g of its sizes (records, operations, durations), against %s, its clients on one machine: they show that %s, and their figures, costs and comparisons with published ones are not the plan's.", s.Name, h.Scale, where, cells)}
}
