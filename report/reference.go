package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/servbench/servbench/plan"
)

// readReference reads the plan's published figures, kept in DIR (none:
// nil).
func (s *Set) readReference(dir string) error {
	raw, err := os.ReadFile(filepath.Join(dir, plan.ReferenceFile))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	s.Reference, err = plan.ParseReference(raw, filepath.Join(dir, plan.ReferenceFile))
	return err
}

// match is the measured cell a published figure is set beside: the
// system's deployment with the most nodes, on the workload, at the thread
// count given (or, for a range, the best throughput within it).
func (s *Set) match(f plan.Reference) *Group {
	var best *Group
	for _, g := range s.Groups {
		if !strings.EqualFold(g.System, f.System) || wlName(g.Workload) != f.Workload || g.Threads < f.ThreadsLo || g.Threads > f.ThreadsHi || g.Rate != 0 {
			continue
		}
		if best == nil || g.Nodes > best.Nodes || g.Nodes == best.Nodes && g.Throughput.Mean > best.Throughput.Mean {
			best = g
		}
	}
	return best
}

// referenceSection sets each published figure beside the measured cell it
// matches, labelled as published, with the ratio of ours to theirs.
func (s *Set) referenceSection() (Section, bool) {
	if len(s.Reference) == 0 {
		return Section{}, false
	}
	sec := Section{ID: "reference", Title: "Published figures beside ours",
		Intro: "Each figure the plan's reference file gives, as published (its source beside it), with the measured cell of the same system and workload at those client threads (for a range, the best within it; of the system's deployments, the one with the most nodes). A published latency marked below is a bound the study says its latency stayed under."}
	t := &Table{Name: "reference", Title: "Published and measured", Header: []string{"system", "workload", "threads", "published ops/s", "published latency ms", "measured (deployment, threads)", "measured ops/s", "measured mean latency ms", "measured / published", "source"}}
	unmatched := 0
	for _, f := range s.Reference {
		threads := strconv.Itoa(f.ThreadsLo)
		if f.ThreadsHi != f.ThreadsLo {
			threads += "–" + strconv.Itoa(f.ThreadsHi)
		}
		lat := ""
		if f.LatencyMs > 0 {
			lat = strconv.FormatFloat(f.LatencyMs, 'g', -1, 64)
			if f.Latency == "below" {
				lat = "< " + lat
			}
		}
		row := []string{f.System, f.Workload, threads, f0(f.Throughput), lat}
		if g := s.match(f); g != nil {
			ratio := ""
			if f.Throughput > 0 {
				ratio = fmt.Sprintf("%.3g", g.Throughput.Mean/f.Throughput)
			}
			row = append(row, fmt.Sprintf("%s, %d", g.Deployment, g.Threads), pm(g.Throughput, f0), pm(g.AvgUs, ms), ratio)
		} else {
			unmatched++
			row = append(row, "not measured", "", "", "")
		}
		t.Rows = append(t.Rows, append(row, f.Source))
	}
	sec.Tables = []*Table{t}
	if unmatched > 0 {
		sec.Points = append(sec.Points, fmt.Sprintf("%d of %d published figures have no measured cell of their system, workload and threads in this plan's results.", unmatched, len(s.Reference)))
	}
	return sec, true
}
