package report

import (
	"fmt"
	"strconv"
)

// untilSection says how many repetitions each cell took when the plan
// repeats cells until their intervals are tight (repetitions: {min, max,
// until}), and whether each met its bounds.
func (s *Set) untilSection() (Section, bool) {
	if s.Index == nil || s.Index.Until == nil {
		return Section{}, false
	}
	u := s.Index.Until
	pct := func(x float64) string {
		if x < 0 {
			return "not known"
		}
		return fmt.Sprintf("±%.2g%%", x*100)
	}
	bounds := ""
	if u.Bounds.Throughput > 0 {
		bounds += fmt.Sprintf("throughput within ±%.2g%%", u.Bounds.Throughput*100)
	}
	if u.Bounds.P99 > 0 {
		if bounds != "" {
			bounds += " and "
		}
		bounds += fmt.Sprintf("each operation's p99 within ±%.2g%%", u.Bounds.P99*100)
	}
	sec := Section{ID: "repetitions", Title: "Repetitions until the intervals are tight",
		Intro: fmt.Sprintf("Each cell ran between %d and %d repetitions, stopping once the 95%% confidence intervals of its figures over its repetitions were within the plan's bounds (%s of the mean). A cell that did not reach them ran its most; its figures are as uncertain as their intervals say.", u.Min, u.Max, bounds)}
	t := &Table{Name: "repetitions", Title: "Repetitions of each cell", Header: []string{"cell", "repetitions", "within the bounds", "throughput interval", "p99 interval (widest operation)"}}
	reached := 0
	for _, c := range u.Cells {
		yes := "no"
		if c.Reached {
			yes = "yes"
			reached++
		}
		p99 := ""
		if u.Bounds.P99 > 0 {
			p99 = pct(c.P99)
		}
		t.Rows = append(t.Rows, []string{c.Cell, strconv.Itoa(c.Repetitions), yes, pct(c.Throughput), p99})
	}
	t.Note = fmt.Sprintf("%d of %d cells met the bounds.", reached, len(u.Cells))
	sec.Tables = append(sec.Tables, t)
	return sec, true
}
