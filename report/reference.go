package report

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/servbench/servbench/internal/inputfile"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/report/chart"
	"github.com/servbench/servbench/result"
)

// readReference reads the plan's published figures, kept in DIR (none:
// nil).
func (s *Set) readReference(dir string) error {
	path := filepath.Join(dir, plan.ReferenceFile)
	raw, err := inputfile.Read(context.Background(), path, plan.MaxFileBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reference %s: %w", path, err)
	}
	s.Reference, err = plan.ParseReference(raw, filepath.Join(dir, plan.ReferenceFile))
	return err
}

// match is the measured cell a published throughput is set beside: the
// system's deployment of the figure's nodes (or with the most nodes), on
// the workload and record count (any when not given), at the thread count
// given (or, for a range, the best throughput within it).
func (s *Set) match(f plan.Reference) *Group {
	var best *Group
	for _, g := range s.Groups {
		if !s.matches(g, f) || wlName(g.Workload) != f.Workload {
			continue
		}
		if best == nil || g.Nodes > best.Nodes || g.Nodes == best.Nodes && g.Throughput.Mean > best.Throughput.Mean {
			best = g
		}
	}
	return best
}

// matches reports whether cell g is of figure f's system, nodes (when
// given), record count (when given) and threads, unpaced.
func (s *Set) matches(g *Group, f plan.Reference) bool {
	return strings.EqualFold(g.System, f.System) && (f.Nodes == 0 || g.Nodes == f.Nodes) && (f.Records == 0 || g.Records == f.Records) &&
		g.Threads >= f.ThreadsLo && g.Threads <= f.ThreadsHi && g.Rate == 0
}

// runtimeOf is the measured runtime a published one is set beside: the
// mean runtimes of the cells of its system (the deployment of its nodes,
// or with the most nodes), threads, records and workloads (all, all but E,
// or one) summed, over cells that completed their operations; and how
// many cells that is.
func (s *Set) runtimeOf(f plan.Reference) (sum, ycsb float64, cells int) {
	allYCSB := true // every cell measured YCSB's runtime: its sum is given
	for _, g := range s.Groups {
		if !s.matches(g, f) || !s.ofSize(f, g.System, g.Nodes) || !completed(g) {
			continue
		}
		switch f.Workload {
		case plan.AllWorkloads:
		case plan.AllButE:
			if scanWorkload(g.Workload) {
				continue
			}
		default:
			if wlName(g.Workload) != f.Workload {
				continue
			}
		}
		sum += g.Runtime.Mean
		ycsb += g.YCSBRuntime.Mean
		allYCSB = allYCSB && g.YCSBRuntime.N > 0
		cells++
	}
	if !allYCSB {
		ycsb = 0
	}
	return sum, ycsb, cells
}

// largestNodes is the most nodes of the system's deployments.
func (s *Set) largestNodes(system string) int {
	n := 0
	for _, g := range s.Groups {
		if strings.EqualFold(g.System, system) {
			n = max(n, g.Nodes)
		}
	}
	return n
}

// ofSize reports whether figure f is of the system's cluster size nodes:
// the size it names, or the system's largest when it names none.
func (s *Set) ofSize(f plan.Reference, system string, nodes int) bool {
	if f.Nodes != 0 {
		return f.Nodes == nodes
	}
	return nodes == s.largestNodes(system)
}

// completed reports whether every run of g completed its operations.
func completed(g *Group) bool {
	for _, r := range g.Runs {
		if r.Doc.Stop != result.Completed {
			return false
		}
	}
	return true
}

// referenceSection sets each published figure beside the measured cell it
// matches, labelled as published, with the ratio of ours to theirs.
func (s *Set) referenceSection() (Section, bool) {
	if len(s.Reference) == 0 {
		return Section{}, false
	}
	sec := Section{ID: "reference", Title: "Published figures beside ours",
		Intro: "Each figure the plan's reference file gives, as published (its source beside it), with the measured cell of the same system and workload at those client threads (for a range, the best within it; of the system's deployments, the one of the figure's cluster size, or the one with the most nodes when it gives none; of the figure's record count when it gives one). A published latency marked below is a bound the study says its latency stayed under, above one it says its latency exceeded; a figure the study gives as a range (43–58) or approximately (~50) is shown so; figures given without a throughput (a latency, a failure share, capacity units) are set beside the same cell. A published runtime is set beside the sum of the measured runtimes it covers: its thread counts, record counts and workloads (all, or all but E, as Carvalho et al. total them), both servbench's (the operations' window) and as YCSB counts its RunTime (the binding's connecting, the threads' start and cleanup included), which is what a YCSB user's study reports."}
	t := &Table{Name: "reference", Title: "Published and measured throughput", Header: []string{"system", "workload", "threads", "nodes", "records", "published ops/s", "published latency ms", "published failed %", "measured (deployment, threads)", "measured ops/s", "measured mean latency ms", "measured failed %", "measured / published", "source"}}
	ut := &Table{Name: "reference-units", Title: "Published and measured capacity units a second", Header: []string{"system", "workload", "threads", "nodes", "records", "published read units/s", "published write units/s", "measured (deployment, threads)", "measured read units/s", "measured write units/s", "source"}}
	rt := &Table{Name: "reference-runtime", Title: "Published and measured runtime", Header: []string{"system", "workload", "threads", "nodes", "records", "published s", "measured s", "measured s as YCSB counts", "cells", "YCSB-counted / published", "source"}}
	unmatched := 0
	for _, f := range s.Reference {
		threads := strconv.Itoa(f.ThreadsLo)
		if f.ThreadsHi != f.ThreadsLo {
			threads += "–" + strconv.Itoa(f.ThreadsHi)
		}
		nodes, records := "", "all"
		if f.Nodes > 0 {
			nodes = strconv.Itoa(f.Nodes)
		}
		if f.Records > 0 {
			records = thousands(float64(f.Records))
		}
		workload := f.Workload
		if workload == plan.AllButE {
			workload = "all but E"
		}
		if f.RuntimeS > 0 {
			row := []string{f.System, workload, threads, nodes, records, f2(f.RuntimeS)}
			if sum, ysum, cells := s.runtimeOf(f); cells > 0 {
				yc, ratio := "", ""
				if ysum > 0 {
					yc, ratio = f2(ysum), fmt.Sprintf("%.3g", ysum/f.RuntimeS)
				}
				row = append(row, f2(sum), yc, strconv.Itoa(cells), ratio)
			} else {
				unmatched++
				row = append(row, "not measured", "", "", "")
			}
			rt.Rows = append(rt.Rows, append(row, f.Source))
			continue
		}
		if f.ReadUnits.Given() || f.WriteUnits.Given() {
			row := []string{f.System, f.Workload, threads, nodes, records, f.ReadUnits.String(), f.WriteUnits.String()}
			if g := s.match(f); g != nil {
				row = append(row, fmt.Sprintf("%s, %d", g.Deployment, g.Threads), serverRate(g, "read_units"), serverRate(g, "write_units"))
			} else {
				unmatched++
				row = append(row, "not measured", "", "")
			}
			ut.Rows = append(ut.Rows, append(row, f.Source))
			if f.Throughput == 0 && f.LatencyMs == 0 && !f.FailedPct.Given() {
				continue
			}
		}
		lat := ""
		if f.LatencyMs > 0 {
			lat = strconv.FormatFloat(f.LatencyMs, 'g', -1, 64)
			switch f.Latency {
			case "below":
				lat = "< " + lat
			case "above":
				lat = "> " + lat
			}
		}
		thr := ""
		if f.Throughput > 0 {
			thr = f0(f.Throughput)
		}
		row := []string{f.System, f.Workload, threads, nodes, records, thr, lat, f.FailedPct.String()}
		if g := s.match(f); g != nil {
			ratio := ""
			if f.Throughput > 0 {
				ratio = fmt.Sprintf("%.3g", g.Throughput.Mean/f.Throughput)
			}
			row = append(row, fmt.Sprintf("%s, %d", g.Deployment, g.Threads), pm(g.Throughput, f0), pm(g.AvgUs, ms), pm(g.FailedPct, f2), ratio)
		} else {
			unmatched++
			row = append(row, "not measured", "", "", "", "")
		}
		t.Rows = append(t.Rows, append(row, f.Source))
	}
	for _, tb := range []*Table{t, ut, rt} {
		if len(tb.Rows) > 0 {
			sec.Tables = append(sec.Tables, tb)
		}
	}
	if unmatched > 0 {
		sec.Points = append(sec.Points, fmt.Sprintf("%d of %d published figures have no measured cell of their system, workload and threads in this plan's results.", unmatched, len(s.Reference)))
	}
	return sec, true
}

// serverRate is the mean rate, a second, of the counter name of g's
// server-side figures (a binding's own: DynamoDB's consumed units), or ""
// when the cell has none.
func serverRate(g *Group, name string) string {
	for _, f := range g.Server {
		if f.Name == name && f.Counter {
			return f0(f.Mean)
		}
	}
	return ""
}

// published is the study's throughput and mean latency (ms) for a bar of
// the charts: the system's figure on workload w at that cluster size
// (a figure without one is the system's largest) and client threads
// (within a figure's range), NaN where the study gives none.
func (s *Set) published(system, w string, nodes, threads int) (thr, latMs float64) {
	thr, latMs = math.NaN(), math.NaN()
	for _, f := range s.Reference {
		if !strings.EqualFold(f.System, system) || f.Workload != wlName(w) || threads < f.ThreadsLo || threads > f.ThreadsHi || f.RuntimeS > 0 || !s.ofSize(f, system, nodes) {
			continue
		}
		if f.Throughput > 0 && math.IsNaN(thr) {
			thr = f.Throughput
		}
		if f.LatencyMs > 0 && f.Latency != "below" && f.Latency != "above" && math.IsNaN(latMs) {
			latMs = f.LatencyMs
		}
	}
	return thr, latMs
}

// publishedCurve is the study's throughput figures for one curve by
// threads: the system's on workload w at that cluster size (a figure
// without one is the system's largest), each at its thread count, a
// range at both its ends.
func (s *Set) publishedCurve(system, w string, nodes int) []chart.Point {
	var pts []chart.Point
	for _, f := range s.Reference {
		if !strings.EqualFold(f.System, system) || f.Workload != wlName(w) || f.Throughput <= 0 || f.RuntimeS > 0 || !s.ofSize(f, system, nodes) {
			continue
		}
		label := "published at " + strconv.Itoa(f.ThreadsHi) + " " + plural(f.ThreadsHi, "thread")
		if f.ThreadsHi != f.ThreadsLo {
			label = "published at " + strconv.Itoa(f.ThreadsLo) + "–" + strconv.Itoa(f.ThreadsHi) + " threads"
		}
		label += " (" + f.Source + ")"
		pts = append(pts, chart.Point{X: float64(f.ThreadsLo), Y: f.Throughput, Label: label})
		if f.ThreadsHi != f.ThreadsLo {
			pts = append(pts, chart.Point{X: float64(f.ThreadsHi), Y: f.Throughput, Label: label})
		}
	}
	return pts
}

// publishedRuntime is the study's runtime, in seconds, of one system's
// workload at a record count and thread count (NaN: the study gives none).
func (s *Set) publishedRuntime(system, w string, records int64, threads int) float64 {
	for _, f := range s.Reference {
		if f.RuntimeS > 0 && strings.EqualFold(f.System, system) && f.Workload == wlName(w) && f.Records == records && f.ThreadsLo == threads && f.ThreadsHi == threads {
			return f.RuntimeS
		}
	}
	return math.NaN()
}
