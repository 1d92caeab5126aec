package experiment

import (
	"fmt"
	"github.com/servbench/servbench/stats"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/result"
)

// until follows each cell's figures over its repetitions (a plan's
// repetitions: {min, max, until}): a cell's next repetition is skipped
// once it has min and the 95% intervals of its throughput and of each of
// its operations' p99 are within the bounds. A cell's figures are those
// of its runs that finished, now or found done.
type until struct {
	pl    *plan.Plan
	cells map[string]*cellRuns
	order []string
}

type cellRuns struct {
	throughput []float64
	p99        map[string][]float64 // operation → its runs' p99 (µs)
}

func newUntil(pl *plan.Plan) *until {
	if pl.Until == nil {
		return nil
	}
	return &until{pl: pl, cells: map[string]*cellRuns{}}
}

// cellOf is a run's cell: its id without the repetition.
func cellOf(c *plan.Run) string {
	id := c.ID()
	return id[:strings.LastIndexByte(id, '-')]
}

// add notes run c's result d.
func (u *until) add(c *plan.Run, d *result.Doc) {
	k := cellOf(c)
	cr := u.cells[k]
	if cr == nil {
		cr = &cellRuns{p99: map[string][]float64{}}
		u.cells[k] = cr
		u.order = append(u.order, k)
	}
	cr.throughput = append(cr.throughput, d.Throughput)
	for _, op := range d.Ops {
		if op.Latency != nil && op.Count > 0 {
			if v, ok := op.Latency.Percentiles["99"]; ok {
				cr.p99[op.Name] = append(cr.p99[op.Name], v)
			}
		}
	}
}

// widths are a cell's intervals' half-widths relative to their means:
// throughput's, and the widest of its operations' p99 (+Inf with fewer
// than two runs, or a mean of 0).
func (cr *cellRuns) widths() (tput, p99 float64) {
	rel := func(xs []float64) float64 {
		s := stats.Summarize(xs)
		if s.N < 2 || s.Mean == 0 {
			return math.Inf(1)
		}
		return s.CI / math.Abs(s.Mean)
	}
	tput = rel(cr.throughput)
	for _, xs := range cr.p99 {
		p99 = max(p99, rel(xs))
	}
	return tput, p99
}

// met reports whether c's cell has run enough: at least min repetitions
// and its intervals within the bounds; why says so.
func (u *until) met(c *plan.Run) (why string, ok bool) {
	cr := u.cells[cellOf(c)]
	if cr == nil || c.Repetition <= u.pl.RepetitionsMin || len(cr.throughput) < u.pl.RepetitionsMin {
		return "", false
	}
	tput, p99 := cr.widths()
	b := u.pl.Until
	if b.Throughput > 0 && !(tput <= b.Throughput) || b.P99 > 0 && !(p99 <= b.P99) {
		return "", false
	}
	return fmt.Sprintf("the cell's intervals met the plan's bounds after %d repetitions (%s)", len(cr.throughput), u.said(tput, p99)), true
}

func (u *until) said(tput, p99 float64) string {
	pct := func(x float64) string {
		if x < 0 || math.IsInf(x, 0) || math.IsNaN(x) {
			return "not known"
		}
		return fmt.Sprintf("±%.2g%%", x*100)
	}
	var parts []string
	if u.pl.Until.Throughput > 0 {
		parts = append(parts, fmt.Sprintf("throughput %s, bound %.2g%%", pct(tput), u.pl.Until.Throughput*100))
	}
	if u.pl.Until.P99 > 0 {
		parts = append(parts, fmt.Sprintf("p99 %s, bound %.2g%%", pct(p99), u.pl.Until.P99*100))
	}
	return strings.Join(parts, "; ")
}

// index is the cells' repetitions as the index keeps them.
func (u *until) index() *plan.IndexUntil {
	ix := &plan.IndexUntil{Min: u.pl.RepetitionsMin, Max: u.pl.Repetitions, Bounds: *u.pl.Until}
	for _, k := range u.order {
		cr := u.cells[k]
		tput, p99 := cr.widths()
		b := u.pl.Until
		reached := (b.Throughput == 0 || tput <= b.Throughput) && (b.P99 == 0 || p99 <= b.P99)
		c := plan.UntilCell{Cell: k, Repetitions: len(cr.throughput), Reached: reached, Throughput: finite(tput)}
		if b.P99 > 0 {
			c.P99 = finite(p99)
		}
		ix.Cells = append(ix.Cells, c)
	}
	slices.SortStableFunc(ix.Cells, func(a, b plan.UntilCell) int { return strings.Compare(a.Cell, b.Cell) })
	return ix
}

// finite is x, or -1 for an interval not known (JSON has no infinity).
func finite(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return -1
	}
	return x
}

// resultThere reports whether run c's result file is in the plan's
// directory (a plan resumed: one() takes it).
func (r *Runner) resultThere(c *plan.Run) bool {
	_, err := os.Stat(filepath.Join(r.dir, newIndexRun(c).Result))
	return err == nil
}

// printUntil says, at the plan's end, how its cells stopped repeating.
func (r *Runner) printUntil() {
	ix := r.index.Until
	reached := 0
	for _, c := range ix.Cells {
		if c.Reached {
			reached++
		}
	}
	fmt.Fprintf(r.stderr, "servbench: repetitions until the intervals met their bounds: %d of %d cells did, between %d and %d repetitions\n", reached, len(ix.Cells), ix.Min, ix.Max)
	for _, c := range ix.Cells {
		if !c.Reached {
			fmt.Fprintf(r.stderr, "servbench:   %s: not within its bounds after %d repetitions (%s)\n", r.secrets.Redact(c.Cell), c.Repetitions, r.until.said(c.Throughput, c.P99))
		}
	}
}
