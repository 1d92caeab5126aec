package report

import (
	"fmt"
	"strconv"

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
	sec := Section{ID: "runtime", Title: "Runtime by workload, record count and threads",
		Intro: "Seconds to execute each run's operations (mean over repetitions), for runs that completed their operation count."}
	records := sorted(uniq(gs, func(g *Group) int64 { return g.Records }))
	threads := sorted(uniq(gs, func(g *Group) int { return g.Threads }))
	workloads := uniq(gs, func(g *Group) string { return g.Workload })
	deployments := uniq(gs, func(g *Group) string { return g.Deployment })
	find := func(tg, w string, r int64, th int) *Group {
		for _, g := range gs {
			if g.Deployment == tg && g.Workload == w && g.Records == r && g.Threads == th && g.Rate == 0 {
				return g
			}
		}
		return nil
	}
	ops := func(g *Group) float64 { return float64(g.Operations) / float64(len(g.Runs)) }
	for _, tg := range deployments {
		for _, th := range threads {
			t := &Table{Name: safe(fmt.Sprintf("runtime-%s-t%d", tg, th)), Title: fmt.Sprintf("%s, %d threads: runtime in seconds", tg, th), Header: []string{"workload"}}
			for _, r := range records {
				t.Header = append(t.Header, thousands(float64(r))+" records")
			}
			total := make([]float64, len(records))
			have := false
			for _, w := range workloads {
				row := []string{wlName(w)}
				for i, r := range records {
					if g := find(tg, w, r, th); g != nil {
						row = append(row, pm(g.Runtime, f2))
						total[i] += g.Runtime.Mean
						have = true
					} else {
						row = append(row, "")
					}
				}
				t.Rows = append(t.Rows, row)
			}
			if !have {
				continue
			}
			row := []string{"total"}
			for _, v := range total {
				row = append(row, f2(v))
			}
			t.Rows = append(t.Rows, row)
			sec.Tables = append(sec.Tables, t)
		}
	}
	// Totals per thread count.
	tot := &Table{Name: "runtime-totals", Title: "Total runtime in seconds (every workload) per thread count", Header: []string{"deployment", "records"}}
	for _, th := range threads {
		tot.Header = append(tot.Header, fmt.Sprintf("%d threads", th))
	}
	for _, tg := range deployments {
		for _, r := range records {
			row := []string{tg, strconv.FormatInt(r, 10)}
			for _, th := range threads {
				var sum float64
				for _, w := range workloads {
					if g := find(tg, w, r, th); g != nil {
						sum += g.Runtime.Mean
					}
				}
				row = append(row, f2(sum))
			}
			tot.Rows = append(tot.Rows, row)
		}
	}
	sec.Tables = append(sec.Tables, tot)
	// Scale-up ratios: runtime from one record count to the next (expected:
	// the ratio of operations), and from the fewest threads to each other
	// count (expected: the ratio of threads, as a speed-up).
	if len(records) > 1 || len(threads) > 1 {
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
		for _, tg := range deployments {
			for _, w := range workloads {
				row := []string{tg, wlName(w)}
				for i := 1; i < len(records); i++ {
					for _, th := range threads {
						a, b := find(tg, w, records[i-1], th), find(tg, w, records[i], th)
						row = append(row, ratio(a, b, func(a, b *Group) (float64, float64) {
							return b.Runtime.Mean / a.Runtime.Mean, ops(b) / ops(a)
						}))
					}
				}
				for j := 1; j < len(threads); j++ {
					for _, r := range records {
						a, b := find(tg, w, r, threads[0]), find(tg, w, r, threads[j])
						row = append(row, ratio(a, b, func(a, b *Group) (float64, float64) {
							return a.Runtime.Mean / b.Runtime.Mean, float64(threads[j]) / float64(threads[0])
						}))
					}
				}
				sc.Rows = append(sc.Rows, row)
			}
		}
		sc.Note = "Runtime ratios above the expected one scale worse than linearly; speed-ups below the thread ratio scale worse than linearly."
		sec.Tables = append(sec.Tables, sc)
	}
	// Log-scale bars: per record count and threads, each deployment's runtime per workload.
	cats := make([]string, len(workloads))
	for i, w := range workloads {
		cats[i] = wlName(w)
	}
	for _, r := range records {
		for _, th := range threads {
			b := &chart.Bars{Title: fmt.Sprintf("Runtime, %s records, %d %s", thousands(float64(r)), th, plural(th, "thread")), YLabel: "seconds", Categories: cats, Log: true}
			have := false
			for _, tg := range deployments {
				se := chart.Series{Name: tg, Values: nan(len(workloads))}
				for i, w := range workloads {
					if g := find(tg, w, r, th); g != nil {
						se.Values[i] = g.Runtime.Mean
						have = true
					}
				}
				b.Series = append(b.Series, se)
			}
			if have {
				sec.Figures = append(sec.Figures, &Figure{Name: fmt.Sprintf("runtime-r%d-t%d", r, th), SVG: b.SVG()})
			}
		}
	}
	return sec, true
}

func ratio(a, b *Group, f func(a, b *Group) (obs, exp float64)) string {
	if a == nil || b == nil || a.Runtime.Mean == 0 || b.Runtime.Mean == 0 {
		return ""
	}
	obs, exp := f(a, b)
	return fmt.Sprintf("%.2f× (%.2f×)", obs, exp)
}
