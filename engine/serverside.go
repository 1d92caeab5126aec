package engine

import (
	"context"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/probe"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// ServerSide says what a run samples of the system under test beside its
// operations (the result's server_side section).
type ServerSide struct {
	// Binding samples the binding's own reading of its server, when it
	// has one (server.sample, default true).
	Binding bool
	// Endpoints are Prometheus endpoints scraped every interval
	// (server.metrics: URLs separated by commas), Series the extra metric
	// names kept from them (server.metrics.series).
	Endpoints []*url.URL
	Series    []string
	// Interval between samples (server.interval, seconds): by default the
	// time series' interval, but at least a second, so that a fine time
	// series does not load the servers with requests for their counters.
	Interval time.Duration
}

// maxEndpoints bounds server.metrics.
const maxEndpoints = 100

func readServerSide(p *props.Props) (ServerSide, error) {
	var s ServerSide
	var err error
	if s.Binding, err = p.Bool("server.sample", true); err != nil {
		return s, err
	}
	every, err := p.FloatRange("server.interval", 0, 0.1, 3600)
	if _, set := p.Get("server.interval"); err != nil && set {
		return s, err
	}
	s.Interval = time.Duration(every * float64(time.Second))
	for _, e := range splitList(p.String("server.metrics", "")) {
		u, err := probe.ParseEndpoint(e)
		if err != nil {
			return s, p.Errorf("server.metrics", "%v", err)
		}
		s.Endpoints = append(s.Endpoints, u)
	}
	if len(s.Endpoints) > maxEndpoints {
		return s, p.Errorf("server.metrics", "%d endpoints: at most %d", len(s.Endpoints), maxEndpoints)
	}
	for _, n := range splitList(p.String("server.metrics.series", "")) {
		if !metricName(n) {
			return s, p.Errorf("server.metrics.series", "%q is not a Prometheus metric name", n)
		}
		s.Series = append(s.Series, n)
	}
	return s, nil
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// metricName reports whether s is a Prometheus metric name.
func metricName(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// recorder returns the sampling of d and the endpoints for this client:
// the first client of a spread phase samples the servers' whole, every
// client what it counts of its own operations. Nil: nothing to sample.
func (s *Setup) recorder(d db.DB) *probe.Recorder {
	sources := s.sources(d)
	if len(sources) == 0 {
		return nil
	}
	every := s.ServerSide.Interval
	if every == 0 {
		every = max(s.Runner.Interval, time.Second)
	}
	return probe.New(every, sources...)
}

// sources are what this client samples: the servers' whole (the
// binding's statistics, the endpoints) on the first client only, which
// the merge keeps (the others' would be the same servers' counters, asked
// of them once more by each client: S2's 32 clients queried Cassandra's
// virtual tables 32 times a second); what it counts of its own traffic on
// every client, which the merge sums.
func (s *Setup) sources(d db.DB) []probe.Source {
	var sources []probe.Source
	first := s.Client.Index == 0
	if sm, ok := d.(db.Sampler); ok && s.ServerSide.Binding && first {
		sources = append(sources, probe.Binding(s.Spec.Binding, sm))
	}
	if tc, ok := d.(db.TrafficCounter); ok && s.ServerSide.Binding {
		sources = append(sources, probe.Client(s.Spec.Binding, tc))
	}
	if first {
		for _, u := range s.ServerSide.Endpoints {
			sources = append(sources, probe.NewPrometheus(u, s.ServerSide.Series))
		}
	}
	return sources
}

// stopGraceSample bounds the last sample after the run.
var stopGraceSample = 2 * time.Second

// stopRecorder takes the last sample, bounded by stopGraceSample, also
// after a first Ctrl-C (run's context done: the last sample still covers
// the run), and no longer once the run is abandoned (runner.WithAbandon:
// a second Ctrl-C): a source that does not answer then keeps the samples
// it had, the cut is said, and the results are written at once.
func (s *Setup) stopRecorder(run context.Context, r *probe.Recorder) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(run), stopGraceSample)
	defer cancel()
	abandon := runner.AbandonOf(run)
	if abandon != nil {
		go func() {
			select {
			case <-abandon:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	n := r.Stop(ctx)
	if n == 0 {
		return
	}
	select {
	case <-abandon:
		s.logf("server side: the last sample of %s cut short: the run was abandoned (a second signal); the samples before it are kept", plural(int64(n), "source"))
	default:
	}
}

// serverSide is the recorder's result for a run from start to end: on a
// spread phase's other clients, only what they counted themselves.
func (r *Result) serverSide(start time.Time, operations int64) *result.ServerSide {
	if r.recorder == nil {
		return nil
	}
	ss := r.recorder.Result(start, operations)
	if r.Setup.Client.Index > 0 {
		kept := ss.Sources[:0]
		for _, src := range ss.Sources {
			if src.PerClient {
				kept = append(kept, src)
			}
		}
		if ss.Sources = kept; len(kept) == 0 {
			return nil
		}
	}
	return ss
}

// sayServerSide tells in one line each source that failed or answered
// part of what was asked.
func (s *Setup) sayServerSide(r *probe.Recorder) {
	for _, l := range r.Failures() {
		s.logf("server side: %s", l)
	}
}

// maxSaid bounds what the closing lines say of one source: its first
// quantities, and its busiest series among the warnings.
const maxSaid = 8

// ServerLines says what the servers did in a line, and warns of a server
// near its limit (as of a busy client). A series with no point within the
// run (a counter that only fell) is said to have no data, never 0. What a
// source served is printed with its control characters escaped, and at
// most maxSaid of its quantities and warnings (then how many more).
func ServerLines(ss *result.ServerSide) []string {
	if ss == nil {
		return nil
	}
	var parts, warnings []string
	for _, src := range ss.Sources {
		name := src.Name
		if src.Kind == result.SourceClient {
			name = "client's connections"
		}
		if src.Kind == result.SourcePrometheus {
			if u, err := url.Parse(src.Name); err == nil {
				name = u.Host
			}
		}
		name = format.Printable(name)
		var say []string
		type busy struct {
			line string
			pct  float64
		}
		var hot []busy
		for _, x := range src.Series {
			node := ""
			if x.Node != "" {
				node = " " + format.Printable(x.Node)
			}
			sampled := x.Sampled()
			mean := func(f string) string {
				if !sampled {
					return "no data"
				}
				return fmt.Sprintf(f, x.Mean)
			}
			switch {
			case x.Name == "cpu_busy_pct" && src.Kind == result.SourceBinding:
				say = append(say, fmt.Sprintf("main thread%s %s", node, mean("%.0f%% of a core")))
			case x.Name == "cpu_busy_pct":
				say = append(say, "CPU "+mean("%.0f%%"))
			case x.Name == "disk_busy_pct" && x.Mean >= 1:
				say = append(say, fmt.Sprintf("disk%s %.0f%% busy", node, x.Mean))
			case x.Name == "read_units" || x.Name == "write_units":
				say = append(say, fmt.Sprintf("%s %s/s", thousands(x.Mean), strings.TrimSuffix(x.Unit, "/s")))
			case src.Kind == result.SourceClient && (x.Name == "sent_bytes" || x.Name == "received_bytes"):
				say = append(say, fmt.Sprintf("%s %.2f MB/s", strings.TrimSuffix(x.Name, "_bytes"), x.Mean/1e6))
			case x.Name == "network_receive_bytes" || x.Name == "network_transmit_bytes":
				if src.Kind == result.SourcePrometheus {
					say = append(say, fmt.Sprintf("network %s %.1f MB/s", strings.TrimSuffix(strings.TrimPrefix(x.Name, "network_"), "_bytes"), x.Mean/1e6))
				}
			}
			if sampled && strings.HasSuffix(x.Name, "busy_pct") && x.Unit == "%" && x.Mean > result.BusyClientPct {
				hot = append(hot, busy{fmt.Sprintf("warning: %s%s %s was %.0f%% busy: the server side may be the limit", name, node, strings.TrimSuffix(format.Printable(x.Name), "_busy_pct"), x.Mean), x.Mean})
			}
		}
		if len(say) > maxSaid {
			say = append(say[:maxSaid], fmt.Sprintf("%d more", len(say)-maxSaid))
		}
		if len(say) > 0 {
			parts = append(parts, name+": "+strings.Join(say, ", "))
		}
		sort.SliceStable(hot, func(i, j int) bool { return hot[i].pct > hot[j].pct })
		for i, h := range hot {
			if i == maxSaid {
				warnings = append(warnings, fmt.Sprintf("warning: %s: %d more series above %d%% busy", name, len(hot)-maxSaid, result.BusyClientPct))
				break
			}
			warnings = append(warnings, h.line)
		}
	}
	if len(parts) == 0 {
		return warnings
	}
	return append([]string{"server side: " + strings.Join(parts, "; ")}, warnings...)
}

// thousands is v rounded, its thousands grouped; a value past int64's
// range in figures.
func thousands(v float64) string {
	if !(math.Abs(v) < 1e18) {
		return fmt.Sprintf("%.3g", v)
	}
	return format.Round(v)
}
