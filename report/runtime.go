package report

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/servbench/servbench/report/chart"
	"github.com/servbench/servbench/result"
)

// runtime is S3's view, for runs of a fixed operation count: runtime per
// workload and record count at each thread count, totals, scale-up ratios
// observed against expected, and log-scale runtime bars.
func (s *Set) runtime() (Section, bool) {
	gs := filter(s.Groups, func(g *Group) bool {
		for _, r := range g.Runs {
			if r.Doc.Stop != result.Completed {
				return false
			}
		}
		return true
	})
	if len(gs) == 0 {
		return Section{}, false
	}
	m := newRuntimeMatrix(gs)
	m.published = s.publishedRuntime
	sec := Section{ID: "runtime", Title: "Runtime by workload, record count and threads",
		Intro: "Seconds to execute each run's operations (mean over repetitions), for runs that completed their operation count; with workload E among others, its total apart from theirs (as Carvalho et al. 2023, Tables 9 and 10). A cell whose runs had failed operations says their share: a failed operation (a timeout, a refusal) may end sooner than it would have succeeded, and the runtime counts it, as YCSB's does."}
	for _, d := range m.deployments {
		for _, th := range m.threads {
			if t := m.table(d, th); t != nil {
				sec.Tables = append(sec.Tables, t)
			}
		}
	}
	sec.Tables = append(sec.Tables, m.totals("runtime-totals", "Total runtime in seconds (every workload) per thread count", nil))
	if e := filter(gs, func(g *Group) bool { return scanWorkload(g.Workload) }); len(e) > 0 && len(e) < len(gs) {
		// As Carvalho et al. 2023 give them (Tables 9 and 10): workload E,
		// whose scans dominate, apart from the others.
		sec.Tables = append(sec.Tables,
			m.totals("runtime-totals-e", "Total runtime in seconds of workload E alone per thread count", scanWorkload),
			m.totals("runtime-totals-not-e", "Total runtime in seconds of every workload but E per thread count", func(w string) bool { return !scanWorkload(w) }))
	}
	if len(m.records) > 1 || len(m.threads) > 1 {
		sec.Tables = append(sec.Tables, m.scaleUp())
	}
	sec.Figures = m.bars()
	// The totals, as Carvalho et al. 2023 draw and tabulate them (Figures
	// 6-8, Tables 8-10): every workload, E alone, every workload but E.
	withE := slices.ContainsFunc(m.workloads, scanWorkload) && slices.ContainsFunc(m.workloads, func(w string) bool { return !scanWorkload(w) })
	sec.Figures = append(sec.Figures, m.totalBars("runtime-total", "Total runtime of every workload (log scale)", nil))
	if withE {
		sec.Figures = append(sec.Figures, m.totalBars("runtime-total-e", "Total runtime of workload E (log scale)", scanWorkload),
			m.totalBars("runtime-total-not-e", "Total runtime of every workload but E (log scale)", func(w string) bool { return !scanWorkload(w) }))
	}
	sec.Tables = append(sec.Tables, m.grandTotals(withE))
	if len(m.records) > 1 || len(m.threads) > 1 {
		sec.Tables = append(sec.Tables, m.scaleUpTotals())
	}
	return sec, true
}

// scaleUpTotals is the scale-up of each deployment's totals over every
// workload, as Carvalho et al. compute theirs: from each record count to
// every larger one, the totals over every thread count (expected: the
// ratio of operations when the runs do as many as there are records, else
// 1); and from each thread count to every larger one, at each record
// count, how much the total runtime fell.
func (m *runtimeMatrix) scaleUpTotals() *Table {
	t := &Table{Name: "scale-up-totals", Title: "Scale-up of the totals over every workload", Header: []string{"deployment", "from", "to", "observed", "expected"}}
	opsOf := func(d string, r int64) float64 {
		var n float64
		for _, w := range m.workloads {
			for _, th := range m.threads {
				if g := m.at(d, w, r, th); g != nil {
					n += float64(g.Operations) / float64(len(g.Runs))
				}
			}
		}
		return n
	}
	for _, d := range m.deployments {
		for i, a := range m.records {
			for _, b := range m.records[i+1:] {
				ta, tb := m.sum(d, nil, []int64{a}, nil), m.sum(d, nil, []int64{b}, nil)
				if ta > 0 && tb > 0 {
					t.Rows = append(t.Rows, []string{d, thousands(float64(a)) + " records", thousands(float64(b)) + " records",
						fmt.Sprintf("%.1f× the runtime", tb/ta), fmt.Sprintf("%.1f× (the operations)", opsOf(d, b)/opsOf(d, a))})
				}
			}
		}
		for _, r := range m.records {
			for i, a := range m.threads {
				for _, b := range m.threads[i+1:] {
					ta, tb := m.sum(d, nil, []int64{r}, []int{a}), m.sum(d, nil, []int64{r}, []int{b})
					if ta > 0 && tb > 0 {
						t.Rows = append(t.Rows, []string{d, fmt.Sprintf("%d threads, %s records", a, thousands(float64(r))), fmt.Sprintf("%d threads", b),
							fmt.Sprintf("runtime %+.1f%%", 100*(tb-ta)/ta), fmt.Sprintf("%+.1f%% (linear)", 100*(float64(a)/float64(b)-1))})
					}
				}
			}
		}
	}
	t.Note = "As the study computes its ratios: on the totals over every workload (and, between record counts, every thread count)."
	return t
}

// sum is the runtimes of deployment d's cells that keep accepts (nil:
// all), over the record counts and thread counts given (nil: all).
func (m *runtimeMatrix) sum(d string, keep func(string) bool, records []int64, threads []int) float64 {
	if records == nil {
		records = m.records
	}
	if threads == nil {
		threads = m.threads
	}
	var t float64
	for _, w := range m.workloads {
		if keep != nil && !keep(w) {
			continue
		}
		for _, r := range records {
			for _, th := range threads {
				if g := m.at(d, w, r, th); g != nil {
					t += g.Runtime.Mean
				}
			}
		}
	}
	return t
}

// totalBars is a log-scale chart of each deployment's total runtime of the
// workloads keep accepts, per record count and thread count.
func (m *runtimeMatrix) totalBars(name, title string, keep func(string) bool) *Figure {
	var cats []string
	for _, r := range m.records {
		for _, th := range m.threads {
			cats = append(cats, fmt.Sprintf("%s records, %d %s", thousands(float64(r)), th, plural(th, "thread")))
		}
	}
	b := &chart.Bars{Title: title, YLabel: "seconds", Categories: cats, Log: true}
	for _, d := range m.deployments {
		se := chart.Series{Name: d, Values: nan(len(cats))}
		i := 0
		for _, r := range m.records {
			for _, th := range m.threads {
				if v := m.sum(d, keep, []int64{r}, []int{th}); v > 0 {
					se.Values[i] = v
				}
				i++
			}
		}
		b.Series = append(b.Series, se)
	}
	return &Figure{Name: name, SVG: b.SVG()}
}

// grandTotals is each deployment's runtime over every record count and
// thread count, in seconds and minutes (Carvalho et al.'s Table 8; with
// E among others, its Tables 9 and 10 too).
func (m *runtimeMatrix) grandTotals(withE bool) *Table {
	t := &Table{Name: "runtime-grand-totals", Title: "Total runtime over every record count and thread count", Header: []string{"deployment", "every workload s (min)"}}
	if withE {
		t.Header = append(t.Header, "workload E s (min)", "every workload but E s (min)")
	}
	sm := func(v float64) string { return fmt.Sprintf("%s (%s)", f2(v), f2(v/60)) }
	for _, d := range m.deployments {
		row := []string{d, sm(m.sum(d, nil, nil, nil))}
		if withE {
			row = append(row, sm(m.sum(d, scanWorkload, nil, nil)), sm(m.sum(d, func(w string) bool { return !scanWorkload(w) }, nil, nil)))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// runtimeMatrix is the completed unpaced groups by deployment, workload,
// record count and thread count: the runtime view's axes.
type runtimeMatrix struct {
	// published is the study's runtime of a system's cell (NaN: none).
	published   func(system, workload string, records int64, threads int) float64
	gs          []*Group
	records     []int64
	threads     []int
	workloads   []string
	deployments []string
}

func newRuntimeMatrix(gs []*Group) *runtimeMatrix {
	return &runtimeMatrix{
		gs:          gs,
		records:     sorted(uniq(gs, func(g *Group) int64 { return g.Records })),
		threads:     sorted(uniq(gs, func(g *Group) int { return g.Threads })),
		workloads:   uniq(gs, func(g *Group) string { return g.Workload }),
		deployments: uniq(gs, func(g *Group) string { return g.Deployment }),
	}
}

// at is the unpaced group of one cell, or nil.
func (m *runtimeMatrix) at(d, w string, r int64, th int) *Group {
	for _, g := range m.gs {
		if g.Deployment == d && g.Workload == w && g.Records == r && g.Threads == th && g.Rate == 0 {
			return g
		}
	}
	return nil
}

// table is one deployment's runtimes at th threads, a row per workload and a
// total row; nil when it ran nothing at th threads.
func (m *runtimeMatrix) table(d string, th int) *Table {
	t := &Table{Name: safe(fmt.Sprintf("runtime-%s-t%d", d, th)), Title: fmt.Sprintf("%s, %d threads: runtime in seconds", d, th), Header: []string{"workload"}}
	for _, r := range m.records {
		t.Header = append(t.Header, thousands(float64(r))+" records")
	}
	total := make([]float64, len(m.records))
	have := false
	for _, w := range m.workloads {
		row := []string{wlName(w)}
		for i, r := range m.records {
			g := m.at(d, w, r, th)
			if g == nil {
				row = append(row, "")
				continue
			}
			cell := pm(g.Runtime, f2)
			if g.FailedPct.Mean > 0 { // a failed operation ends sooner: said beside the runtime it shortened
				cell += fmt.Sprintf(" (%s%% failed)", f2(g.FailedPct.Mean))
			}
			row = append(row, cell)
			total[i] += g.Runtime.Mean
			have = true
		}
		t.Rows = append(t.Rows, row)
	}
	if !have {
		return nil
	}
	row := []string{"total"}
	for _, v := range total {
		row = append(row, f2(v))
	}
	t.Rows = append(t.Rows, row)
	return t
}

// scanWorkload reports whether w is YCSB's workload E (short ranges).
func scanWorkload(w string) bool {
	return strings.TrimPrefix(strings.ToLower(wlName(w)), "workload") == "e"
}

// totals is the runtimes of the workloads keep accepts (nil: all) summed,
// per deployment and record count, a column per thread count.
func (m *runtimeMatrix) totals(name, title string, keep func(string) bool) *Table {
	tot := &Table{Name: name, Title: title, Header: []string{"deployment", "records"}}
	for _, th := range m.threads {
		tot.Header = append(tot.Header, fmt.Sprintf("%d threads", th))
	}
	for _, d := range m.deployments {
		for _, r := range m.records {
			row := []string{d, strconv.FormatInt(r, 10)}
			for _, th := range m.threads {
				row = append(row, f2(m.sum(d, keep, []int64{r}, []int{th})))
			}
			tot.Rows = append(tot.Rows, row)
		}
	}
	return tot
}

// scaleUp is the ratios of runtime from one record count to the next
// (expected: the ratio of operations), and from the fewest threads to each
// other count (expected: the ratio of threads, as a speed-up).
func (m *runtimeMatrix) scaleUp() *Table {
	records, threads := m.records, m.threads
	sc := &Table{Name: "scale-up", Title: "Scale-up ratios, observed (expected)", Header: []string{"deployment", "workload"}}
	for i := 1; i < len(records); i++ {
		for _, th := range threads {
			sc.Header = append(sc.Header, fmt.Sprintf("runtime %d→%d records, %d threads", records[i-1], records[i], th))
		}
	}
	for j := 1; j < len(threads); j++ {
		for _, r := range records {
			sc.Header = append(sc.Header, fmt.Sprintf("speed-up %d→%d threads, %d records", threads[0], threads[j], r))
		}
	}
	ops := func(g *Group) float64 { return float64(g.Operations) / float64(len(g.Runs)) }
	for _, d := range m.deployments {
		for _, w := range m.workloads {
			row := []string{d, wlName(w)}
			for i := 1; i < len(records); i++ {
				for _, th := range threads {
					row = append(row, ratio(m.at(d, w, records[i-1], th), m.at(d, w, records[i], th), func(a, b *Group) (float64, float64) {
						return b.Runtime.Mean / a.Runtime.Mean, ops(b) / ops(a)
					}))
				}
			}
			for j := 1; j < len(threads); j++ {
				for _, r := range records {
					row = append(row, ratio(m.at(d, w, r, threads[0]), m.at(d, w, r, threads[j]), func(a, b *Group) (float64, float64) {
						return a.Runtime.Mean / b.Runtime.Mean, float64(threads[j]) / float64(threads[0])
					}))
				}
			}
			sc.Rows = append(sc.Rows, row)
		}
	}
	sc.Note = "Runtime ratios above the expected one scale worse than linearly; speed-ups below the thread ratio scale worse than linearly."
	return sc
}

// bars is a log-scale chart per record count and thread count: each
// deployment's runtime per workload.
func (m *runtimeMatrix) bars() []*Figure {
	cats := make([]string, len(m.workloads))
	for i, w := range m.workloads {
		cats[i] = wlName(w)
	}
	var figs []*Figure
	for _, r := range m.records {
		for _, th := range m.threads {
			b := &chart.Bars{Title: fmt.Sprintf("Runtime, %s records, %d %s", thousands(float64(r)), th, plural(th, "thread")), YLabel: "seconds", Categories: cats, Log: true}
			have := false
			for _, d := range m.deployments {
				se := chart.Series{Name: d, Values: nan(len(m.workloads)), Published: nan(len(m.workloads))}
				for i, w := range m.workloads {
					if g := m.at(d, w, r, th); g != nil {
						se.Values[i] = g.Runtime.Mean
						if m.published != nil {
							se.Published[i] = m.published(g.System, w, r, th)
						}
						have = true
					}
				}
				b.Series = append(b.Series, se)
			}
			if have {
				figs = append(figs, &Figure{Name: fmt.Sprintf("runtime-r%d-t%d", r, th), SVG: b.SVG()})
			}
		}
	}
	return figs
}

func ratio(a, b *Group, f func(a, b *Group) (obs, exp float64)) string {
	if a == nil || b == nil || a.Runtime.Mean == 0 || b.Runtime.Mean == 0 {
		return ""
	}
	obs, exp := f(a, b)
	return fmt.Sprintf("%.2f× (%.2f×)", obs, exp)
}
