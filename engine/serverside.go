package engine

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/probe"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
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
}

// maxEndpoints bounds server.metrics.
const maxEndpoints = 100

func readServerSide(p *props.Props) (ServerSide, error) {
	var s ServerSide
	var err error
	if s.Binding, err = p.Bool("server.sample", true); err != nil {
		return s, err
	}
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
	var sources []probe.Source
	if sm, ok := d.(db.Sampler); ok && s.ServerSide.Binding {
		sources = append(sources, probe.Binding(s.Spec.Binding, sm))
	}
	if s.Client.Index == 0 {
		for _, u := range s.ServerSide.Endpoints {
			sources = append(sources, probe.NewPrometheus(u, s.ServerSide.Series))
		}
	}
	if len(sources) == 0 {
		return nil
	}
	return probe.New(s.Runner.Interval, sources...)
}

// stopGraceSample bounds the last sample after the run.
const stopGraceSample = 2 * time.Second

// stopRecorder takes the last sample and says, in a line each, which
// sources could not be read.
func (s *Setup) stopRecorder(r *probe.Recorder) {
	ctx, cancel := context.WithTimeout(context.Background(), stopGraceSample)
	defer cancel()
	r.Stop(ctx)
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
