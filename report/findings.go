package report

import (
	"fmt"
	"github.com/servbench/servbench/stats"
	"sort"
	"strconv"
	"strings"

	"github.com/servbench/servbench/report/chart"
	"github.com/servbench/servbench/result"
)

// busyPct is result.BusyClientPct, for the words.
const busyPct = result.BusyClientPct

// noisyCI is the widest 95% interval, as a share of its mean, at which a
// cell's throughput is called firm enough to rank.
const noisyCI = 0.10

// findings is the report's opening: per workload (and record count), each
// deployment at its best step ranked by throughput with its interval,
// whether the leader is told apart from the next, and which cells are too
// noisy to rank (their interval wider than ±10%), with what to do.
func (s *Set) findings() Section {
	sec := Section{ID: "findings", Title: "Key findings",
		Intro: "Per workload, each deployment at its highest mean throughput over the steps measured, with the average latency of its operations there (mean ± 95% confidence interval over repetitions); the next sections have every cell."}
	type wr struct {
		workload string
		records  int64
	}
	pairs := uniq(s.Groups, func(g *Group) wr { return wr{g.Workload, g.Records} })
	for _, p := range pairs {
		best := map[string]*Group{}
		var order []string
		for _, g := range s.Groups {
			if g.Workload != p.workload || g.Records != p.records {
				continue
			}
			b, ok := best[g.Deployment]
			if !ok {
				order = append(order, g.Deployment)
			}
			if !ok || g.Throughput.Mean > b.Throughput.Mean {
				best[g.Deployment] = g
			}
		}
		gs := make([]*Group, 0, len(order))
		for _, d := range order {
			gs = append(gs, best[d])
		}
		sort.SliceStable(gs, func(i, j int) bool { return gs[i].Throughput.Mean > gs[j].Throughput.Mean })
		name := "Workload " + wlTitle(p.workload)
		if len(pairs) > len(uniq(s.Groups, func(g *Group) string { return g.Workload })) {
			name += fmt.Sprintf(", %s records", thousands(float64(p.records)))
		}
		var parts []string
		for _, g := range gs {
			parts = append(parts, fmt.Sprintf("%s %s ops/s, %s ms on average (%s)", g.Deployment, pm(g.Throughput, f0), pm(g.AvgUs, ms), load{g.Threads, g.Rate}))
		}
		line := name + ": " + strings.Join(parts, "; ") + "."
		if len(gs) > 1 {
			line += " " + compareTop(gs[0], gs[1])
		}
		sec.Points = append(sec.Points, line)
		if len(gs) > 1 {
			b := &chart.Bars{Title: name + ": best throughput per deployment", YLabel: "ops/s"}
			se := chart.Series{Name: "throughput at the best step (whiskers: 95% interval)"}
			for _, g := range gs {
				b.Categories = append(b.Categories, g.Deployment+" "+load{g.Threads, g.Rate}.short())
				se.Values, se.Err = append(se.Values, g.Throughput.Mean), append(se.Err, g.Throughput.CI)
			}
			b.Series = []chart.Series{se}
			sec.Figures = append(sec.Figures, &Figure{Name: safe(fmt.Sprintf("findings-%s-r%d", wlName(p.workload), p.records)), SVG: b.AutoLog().SVG()})
		}
	}
	sec.Points = append(sec.Points, s.noise()...)
	for _, l := range s.Loads { // a data set short of its records fails its cells
		if l.Short() {
			sec.Points = append(sec.Points, fmt.Sprintf("The load of %s (%s) inserted %s of the %s records asked: the cells on it measured a smaller data set than the plan says.",
				l.Deployment, l.Name, thousands(float64(l.Doc.OKOperations)), thousands(float64(l.Asked))))
		}
	}
	for _, g := range s.Groups { // which side of the wire was the limit, where the data says
		if l := g.limit(); l != "" {
			sec.Points = append(sec.Points, l)
		}
	}
	return sec
}

// compareTop says whether the leader's throughput is told apart from the
// runner-up's (Welch's interval of the difference excludes 0).
func compareTop(a, b *Group) string {
	diff, ci, ok := stats.Welch(b.Throughput, a.Throughput)
	switch {
	case !ok:
		return fmt.Sprintf("With %s, %s and %s cannot be told apart: no interval without two repetitions or more.", reps(min(a.Throughput.N, b.Throughput.N)), a.Deployment, b.Deployment)
	case diff-ci > 0:
		return fmt.Sprintf("%s leads %s by %s ± %s ops/s.", a.Deployment, b.Deployment, thousands(diff), thousands(ci))
	}
	return fmt.Sprintf("%s is not distinguishable from %s at %s (difference %s ± %s ops/s).", a.Deployment, b.Deployment, reps(min(a.Throughput.N, b.Throughput.N)), thousands(diff), thousands(ci))
}

func reps(n int) string { return strconv.Itoa(n) + " " + plural(n, "repetition") }

// noise names the cells whose throughput interval is wider than ±10% of
// its mean, and what would narrow it.
func (s *Set) noise() []string {
	var noisy []string
	single := 0
	for _, g := range s.Groups {
		switch {
		case g.Throughput.N < 2:
			single++
		case g.noisy():
			noisy = append(noisy, fmt.Sprintf("%s %s %s (± %.0f%%)", g.Deployment, wlName(g.Workload), load{g.Threads, g.Rate}.short(), 100*g.Throughput.CI/g.Throughput.Mean))
		}
	}
	var out []string
	if single > 0 {
		out = append(out, fmt.Sprintf("%d of %d cells ran once: their figures have no interval and rank nothing; give repetitions: 3 or more.", single, len(s.Groups)))
	}
	if len(noisy) > 0 {
		shown := noisy
		if len(shown) > 8 {
			shown = append(shown[:8:8], fmt.Sprintf("and %d more", len(noisy)-8))
		}
		out = append(out, fmt.Sprintf("Too noisy to rank: %d of %d cells have a throughput interval wider than ±%.0f%% of their mean (marked noisy in the summary): %s. More repetitions or longer runs narrow it.",
			len(noisy), len(s.Groups), 100*noisyCI, strings.Join(shown, ", ")))
	}
	return out
}

// noisy reports whether the cell's throughput interval is wider than
// ±10% of its mean.
func (g *Group) noisy() bool {
	t := g.Throughput
	return t.N >= 2 && t.Mean > 0 && t.CI > noisyCI*t.Mean
}

// quality shows, per cell, what says whether its figures can be trusted:
// repetitions and how far they agree, warmup and runtime, the rate
// achieved against the rate asked, operations started late, and the
// clients' CPU; each doubt is named in the last column.
func (s *Set) quality() Section {
	sec := Section{ID: "quality", Title: "Run quality",
		Intro: fmt.Sprintf("Per cell, over its repetitions: a throughput interval wider than ±%.0f%% (noisy), a rate missed by more than 5%%, more than 1%% of operations started late (their response times include the wait), or a client above %d%% of its cores (busy: it may have been the limit) each make a figure less trustworthy.", 100*noisyCI, busyPct)}
	t := &Table{Name: "quality", Title: "Run quality per cell", Header: []string{"deployment", "workload", "records", "threads", "rate ops/s", "runs",
		"throughput ± %", "warmup s", "runtime s", "achieved % of rate", "late %", "clients", "client CPU %", "doubts"}}
	for _, g := range s.Groups {
		var warm, achieved, late, ops float64
		for _, r := range g.Runs {
			d := r.Doc
			warm += d.WarmupMs / 1000
			if d.Rate > 0 {
				achieved += 100 * d.Throughput / d.Rate
			}
			if d.Schedule != nil {
				late += float64(d.Schedule.Late)
			}
			ops += float64(d.Operations)
		}
		n := float64(max(len(g.Runs), 1))
		var doubts []string
		spread, rate, latePct := "", "", ""
		if g.Throughput.N >= 2 && g.Throughput.Mean > 0 {
			spread = fmt.Sprintf("%.1f", 100*g.Throughput.CI/g.Throughput.Mean)
		}
		if g.noisy() {
			doubts = append(doubts, "noisy")
		}
		if g.Throughput.N < 2 {
			doubts = append(doubts, "one run")
		}
		if g.Rate > 0 {
			rate = fmt.Sprintf("%.1f", achieved/n)
			if achieved/n < 95 {
				doubts = append(doubts, "rate missed")
			}
		}
		if ops > 0 && late > 0 {
			latePct = fmt.Sprintf("%.2f", 100*late/ops)
			if late/ops > 0.01 {
				doubts = append(doubts, "late")
			}
		}
		if g.BusyClient() {
			doubts = append(doubts, "busy client")
		}
		t.Rows = append(t.Rows, []string{g.Deployment, wlName(g.Workload), thousands(float64(g.Records)), strconv.Itoa(g.Threads), rateName(g.Rate),
			strconv.Itoa(len(g.Runs)), spread, fmt.Sprintf("%.1f", warm/n), pm(g.Runtime, f2), rate, latePct, strconv.Itoa(g.Clients), clientCPU(g), strings.Join(doubts, ", ")})
	}
	sec.Tables = append(sec.Tables, t)
	return sec
}
