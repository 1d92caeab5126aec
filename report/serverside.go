package report

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/servbench/servbench/report/chart"
	"github.com/servbench/servbench/result"
)

// serverBusyPct is the CPU or disk busy share, in %, above which a server
// is called near its limit (as a client is above result.BusyClientPct).
const serverBusyPct = 80

// ServerFigure is one server-side series of a cell over its repetitions:
// the mean of its runs' means, the highest maximum, the mean per
// operation.
type ServerFigure struct {
	Source, Kind, Name, Node, Unit string
	Counter                        bool
	Mean, Max, PerOperation        float64
	Runs                           int
}

// label is the figure's source and node, short: "redis", "db1:9100",
// "db1:9100 vda".
func (f ServerFigure) label() string {
	s := f.Source
	if f.Kind == result.SourceClient {
		s = "client's connections (" + s + ")"
	}
	if f.Kind == result.SourcePrometheus {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "http://"), "https://")
		if i := strings.IndexByte(s, '/'); i > 0 {
			s = s[:i]
		}
	}
	if f.Node != "" {
		s += " " + f.Node
	}
	return s
}

// shared reports whether the figure is of the client's own host: an
// endpoint on the loopback, whose CPU the client and the server share, so
// that it tells neither side's limit.
func (f ServerFigure) shared() bool {
	if f.Kind != result.SourcePrometheus {
		return false
	}
	u, err := url.Parse(f.Source)
	if err != nil {
		return false
	}
	ip := net.ParseIP(u.Hostname())
	return u.Hostname() == "localhost" || (ip != nil && ip.IsLoopback())
}

// summarizeServer gathers the cell's server-side series over its runs.
func (g *Group) summarizeServer() {
	type key struct{ source, kind, name, node string }
	at := map[key]int{}
	for _, r := range g.Runs {
		if r.Doc.ServerSide == nil {
			continue
		}
		for _, src := range r.Doc.ServerSide.Sources {
			if src.Error != "" && !strings.Contains(strings.Join(g.ServerErrors, "\n"), src.Name) {
				g.ServerErrors = append(g.ServerErrors, fmt.Sprintf("%s %s: %s", src.Kind, src.Name, src.Error))
			}
			for _, x := range src.Series {
				k := key{src.Name, src.Kind, x.Name, x.Node}
				i, ok := at[k]
				if !ok {
					i = len(g.Server)
					at[k] = i
					g.Server = append(g.Server, ServerFigure{Source: src.Name, Kind: src.Kind, Name: x.Name, Node: x.Node, Unit: x.Unit, Counter: x.Counter})
				}
				f := &g.Server[i]
				if !x.Sampled() { // no data (a counter that only fell): not a 0 to average
					continue
				}
				f.Mean += x.Mean
				f.PerOperation += x.PerOperation
				f.Max = max(f.Max, x.Max)
				f.Runs++
			}
			if l := fmt.Sprintf("%s %s: %d series it served were not kept (too many, or named unreadably)", src.Kind, src.Name, src.Dropped); src.Dropped > 0 && !slices.Contains(g.ServerErrors, l) {
				g.ServerErrors = append(g.ServerErrors, l)
			}
		}
	}
	for i := range g.Server {
		if f := &g.Server[i]; f.Runs > 0 {
			f.Mean /= float64(f.Runs)
			f.PerOperation /= float64(f.Runs)
		}
	}
}

// busiest is the figure named name with the highest mean (nil: none).
func (g *Group) busiest(name string, kind string) *ServerFigure {
	var b *ServerFigure
	for i := range g.Server {
		f := &g.Server[i]
		if f.Runs > 0 && f.Name == name && (kind == "" || f.Kind == kind) && (b == nil || f.Mean > b.Mean) {
			b = f
		}
	}
	return b
}

// sum adds the means of the figures named name of kind (ok false: none).
func (g *Group) sum(name, kind string) (float64, bool) {
	v, ok := 0.0, false
	for _, f := range g.Server {
		if f.Runs > 0 && f.Name == name && f.Kind == kind {
			v, ok = v+f.Mean, true
		}
	}
	return v, ok
}

// limit says, in words, which side of the wire was nearer its limit in the
// cell: the client's CPU, a server's CPU, a disk, DynamoDB's provisioned
// units; "" where the data says nothing either way.
func (g *Group) limit() string {
	var server, shared []string
	for _, f := range g.Server {
		if f.Runs == 0 || f.Unit != "%" || f.Mean <= serverBusyPct || !strings.HasSuffix(f.Name, "busy_pct") {
			continue
		}
		if f.shared() && f.Name == "cpu_busy_pct" {
			shared = append(shared, fmt.Sprintf("%s CPU %.0f%% busy", f.label(), f.Mean))
			continue
		}
		what := "CPU"
		switch {
		case strings.HasPrefix(f.Name, "disk"):
			what = "disk"
		case f.Name == "write_stall_busy_pct":
			what = "write stalls"
		case f.Kind == result.SourceBinding && f.Name == "cpu_busy_pct":
			what = "main thread (of one core)"
		}
		server = append(server, fmt.Sprintf("%s %s %.0f%% busy", f.label(), what, f.Mean))
	}
	for _, c := range g.Failed {
		if c.Name == "THROTTLED" {
			server = append(server, fmt.Sprintf("%s throttled %s operations at its provisioned capacity", g.System, thousands(float64(c.Count))))
		}
	}
	client := g.BusyClient()
	where := fmt.Sprintf("%s %s %s", g.Deployment, wlName(g.Workload), load{g.Threads, g.Rate}.short())
	note := ""
	if len(shared) > 0 {
		note = fmt.Sprintf(" The client's own host was busy too (%s: shared by client and server, it tells neither side).", strings.Join(shared, ", "))
	}
	v := g.verdict(where, server, client)
	if v == "" && note != "" {
		return where + ":" + note
	}
	if v == "" {
		return ""
	}
	return v + note
}

// verdict names the side nearer its limit from the server's busy parts
// and whether the client was busy.
func (g *Group) verdict(where string, server []string, client bool) string {
	switch {
	case len(server) > 0 && client:
		return fmt.Sprintf("%s: both sides were near their limits: the client's CPU %.0f%% busy, and %s.", where, g.ClientCPUPct, strings.Join(server, ", "))
	case len(server) > 0:
		return fmt.Sprintf("%s: the server side was the limit: %s (the client's CPU %s).", where, strings.Join(server, ", "), clientWords(g))
	case client && len(g.Server) > 0:
		return fmt.Sprintf("%s: the client was the limit: its CPU %.0f%% busy, while %s.", where, g.ClientCPUPct, g.serverWords())
	case client:
		return fmt.Sprintf("%s: the client may have been the limit: its CPU %.0f%% busy (nothing was sampled on the server side).", where, g.ClientCPUPct)
	}
	return ""
}

func clientWords(g *Group) string {
	if g.ClientCPUPct == 0 {
		return "not measured"
	}
	return fmt.Sprintf("%.0f%% busy", g.ClientCPUPct)
}

// serverWords is the busiest server CPU the cell sampled (not the
// client's own host's), in words.
func (g *Group) serverWords() string {
	var b *ServerFigure
	for i := range g.Server {
		if f := &g.Server[i]; f.Runs > 0 && f.Name == "cpu_busy_pct" && !f.shared() && (b == nil || f.Mean > b.Mean) {
			b = f
		}
	}
	if b != nil {
		return fmt.Sprintf("the busiest server CPU sampled (%s) was %.0f%% busy", b.label(), b.Mean)
	}
	return "no server CPU but the client's own host's was sampled"
}

// serverSide is the report's section on what the servers and their hosts
// did: per cell, throughput beside the hosts' CPU, disk and network and the
// binding's own CPU reading, which side was the limit, and every series'
// summary.
func (s *Set) serverSide() (Section, bool) {
	var gs []*Group
	for _, g := range s.Groups {
		if len(g.Server) > 0 || len(g.ServerErrors) > 0 {
			gs = append(gs, g)
		}
	}
	if len(gs) == 0 {
		return Section{}, false
	}
	sec := Section{ID: "server", Title: "Server side",
		Intro: fmt.Sprintf("What the servers and their hosts did while each cell ran, sampled every interval beside the operations: the binding's own reading of its server and the Prometheus endpoints the plan names (node_exporter on the database hosts). CPU and disk are busy shares (mean over the run); above %d%% a side is called near its limit.", serverBusyPct)}
	t := &Table{Name: "server-side", Title: "Throughput beside the server side, per cell",
		Header: []string{"deployment", "workload", "threads", "rate ops/s", "throughput ops/s", "client CPU %", "server CPU % (busiest)", "hosts' CPU %", "disk busy %", "disk read MB/s", "disk write MB/s", "network MB/s (in + out)"}}
	for _, g := range gs {
		row := []string{g.Deployment, wlName(g.Workload), fmt.Sprint(g.Threads), rateName(g.Rate), pm(g.Throughput, f0), clientCPU(g)}
		cell := func(f *ServerFigure) string {
			if f == nil {
				return ""
			}
			return fmt.Sprintf("%.0f (%s)", f.Mean, f.label())
		}
		row = append(row, cell(g.busiest("cpu_busy_pct", result.SourceBinding)), cell(g.busiest("cpu_busy_pct", result.SourcePrometheus)), cell(g.busiest("disk_busy_pct", result.SourcePrometheus)))
		for _, names := range [][]string{{"disk_read_bytes"}, {"disk_write_bytes"}, {"network_receive_bytes", "network_transmit_bytes"}} {
			v, any := 0.0, false
			for _, n := range names {
				if x, ok := g.sum(n, result.SourcePrometheus); ok {
					v, any = v+x, true
				}
			}
			if any {
				row = append(row, f2(v/1e6))
			} else {
				row = append(row, "")
			}
		}
		t.Rows = append(t.Rows, row)
		if l := g.limit(); l != "" {
			sec.Points = append(sec.Points, l)
		}
	}
	t.Note = "Server CPU (busiest) is the binding's own reading (Redis: its main thread's share of one core); hosts' CPU, disk and network are node_exporter's, summed over the hosts' disks and interfaces (loopback counted only when the endpoint is on this host's loopback). Empty: not sampled."
	all := &Table{Name: "server-series", Title: "Every server-side series (mean over repetitions of each run's mean; max over runs)",
		Header: []string{"deployment", "workload", "threads", "rate ops/s", "source", "series", "node", "unit", "mean", "max", "per operation"}}
	for _, g := range gs {
		figs := append([]ServerFigure(nil), g.Server...)
		sort.SliceStable(figs, func(i, j int) bool { return figs[i].Source < figs[j].Source })
		for _, f := range figs {
			per := ""
			if f.Counter && f.PerOperation != 0 {
				per = fmt.Sprintf("%.4g", f.PerOperation)
			}
			mean, most := fmt.Sprintf("%.4g", f.Mean), fmt.Sprintf("%.4g", f.Max)
			if f.Runs == 0 {
				mean, most = "no data", "no data"
			}
			all.Rows = append(all.Rows, []string{g.Deployment, wlName(g.Workload), fmt.Sprint(g.Threads), rateName(g.Rate), f.Source, f.Name, f.Node, f.Unit,
				mean, most, per})
		}
	}
	all.Note = "A counter's mean and max are rates per second over each interval; per operation is its growth over the run divided by the run's operations (disk reads per read, read units per operation)."
	sec.Tables = []*Table{t, all}
	for _, g := range gs {
		for _, e := range g.ServerErrors {
			sec.Points = append(sec.Points, fmt.Sprintf("%s %s %s: not read: %s", g.Deployment, wlName(g.Workload), load{g.Threads, g.Rate}.short(), e))
		}
	}
	return sec, true
}

// serverCharts draws a run's server side over time, beside its
// throughput chart: every busy share (CPU, disks, Redis' main thread) in
// one chart, the hosts' disk and network bytes in another.
func serverCharts(r *Run, stem string) []*Figure {
	ss := r.Doc.ServerSide
	if ss == nil {
		return nil
	}
	busy := &chart.Lines{Title: r.ID + ": servers busy over time", XLabel: "seconds", YLabel: "% busy"}
	bytes := &chart.Lines{Title: r.ID + ": hosts' disk and network over time", XLabel: "seconds", YLabel: "MB/s"}
	for _, src := range ss.Sources {
		for _, x := range src.Series {
			f := ServerFigure{Source: src.Name, Kind: src.Kind, Node: x.Node}
			var to *chart.Lines
			scale := 1.0
			switch {
			case x.Unit == "%" && strings.HasSuffix(x.Name, "busy_pct"):
				to = busy
			case src.Kind == result.SourcePrometheus && x.Unit == "B/s" && (strings.HasPrefix(x.Name, "disk_") || strings.HasPrefix(x.Name, "network_")):
				to, scale = bytes, 1e-6
			default:
				continue
			}
			ln := chart.Line{Name: f.label() + " " + strings.TrimSuffix(strings.TrimSuffix(x.Name, "_pct"), "_bytes")}
			for _, p := range x.Points {
				if p[0] > 0 {
					ln.Points = append(ln.Points, chart.Point{X: p[0], Y: p[1] * scale})
				}
			}
			if len(ln.Points) > 0 {
				to.Lines = append(to.Lines, ln)
			}
		}
	}
	var figs []*Figure
	if len(busy.Lines) > 0 {
		figs = append(figs, &Figure{Name: stem + "-server-busy", SVG: busy.SVG()})
	}
	if len(bytes.Lines) > 0 {
		figs = append(figs, &Figure{Name: stem + "-server-bytes", SVG: bytes.SVG()})
	}
	return figs
}
