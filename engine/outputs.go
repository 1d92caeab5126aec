package engine

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/sink"
)

// Writers are where a phase writes what goes to no file of its own: YCSB's
// text report goes to Stdout (unless exportfile names a file; with
// measurementtype=timeseries the status lines go there too, as in YCSB),
// status lines, the progress line and the run's summary to Stderr.
// Either may be nil: nothing is written there.
type Writers struct {
	Stdout, Stderr io.Writer
	// Bar draws a progress line on Stderr (a terminal).
	Bar bool
}

// Execute runs the phase as Run does and writes to every output its
// properties ask for (package sink: the text report to exportfile or
// w.Stdout, the result document, the time series, HdrHistogram logs, raw
// samples, status lines, Prometheus metrics), the same whoever calls it
// (the command line, a plan, a spread phase's client, a Go program).
// Outputs are opened before the run, so a bad path fails now (a
// *SpecError) and not after an hour of measuring, and each is written on
// its own when the run ends, also when it was interrupted or failed: one
// that cannot be written leaves the others written. obs are the caller's
// own observers. The Result is returned with the error of the outputs
// not written.
func (s *Setup) Execute(ctx context.Context, w Writers, obs ...runner.Observer) (*Result, error) {
	mopts := s.measurements // the setup stays as checked
	if mopts.TimeSeries != nil {
		mopts.TimeSeries = &sink.Buckets{Enabled: true} // this run's own
	}
	opened, err := s.Outputs.Open(s.sinkEnv(w, &mopts))
	if err != nil {
		return nil, bad(err)
	}
	all := opened.Observers()
	if mopts.TimeSeries != nil {
		all = append(all, mopts.TimeSeries)
	}
	res, err := s.Run(ctx, append(all, obs...)...)
	if err != nil {
		opened.Drop() // nothing measured: every path keeps what it held
		return nil, err
	}
	res.measurements = mopts
	err = opened.End(res.Ended())
	if w.Stderr != nil {
		for _, l := range res.Summary() {
			fmt.Fprintf(w.Stderr, "servbench: %s\n", l)
		}
	}
	return res, err
}

// sinkEnv is what the phase's outputs are opened with.
func (s *Setup) sinkEnv(w Writers, m *sink.Options) *sink.Env {
	run := s.Label
	if run == "" && !s.Client.StartAt.IsZero() {
		run = s.Client.StartAt.UTC().Format(time.RFC3339Nano) // the same for every client of a spread phase
	}
	if run == "" {
		run = time.Now().UTC().Format(time.RFC3339)
	}
	return &sink.Env{Stdout: w.Stdout, Stderr: w.Stderr, Bar: w.Bar, Measurements: m,
		Label: s.Label, Run: run, Client: s.Client.Index, Workload: WorkloadName(s.Props), Binding: s.Spec.Binding,
		Rate: s.Runner.Rate, CPU: CPUTime, ServerSide: s.serverSideSoFar}
}

// LiveEnv is what a live page following this setup's run reads besides
// its intervals: the process's CPU and the server side so far.
func (s *Setup) LiveEnv() *sink.Env { return s.sinkEnv(Writers{}, &s.measurements) }

// serverSideSoFar is what the run's server-side sampling has so far,
// timed from start (nil before it starts, or with none).
func (s *Setup) serverSideSoFar(start time.Time) *result.ServerSide {
	if s.live == nil {
		return nil
	}
	if r := s.live.Load(); r != nil {
		return r.Result(start, 0)
	}
	return nil
}

// Merged is a spread phase's merged result d as its outputs see it, what
// this run knows to be secret hidden in it.
func (s *Setup) Merged(d *result.Doc) sink.Ended {
	s.hideKnown(d)
	return sink.Ended{Doc: d}
}

// hideKnown hides in a result the clients of a spread phase wrote what
// this run knows to be secret and they may not (a plan's secrets): in
// its properties, server settings and errors.
func (s *Setup) hideKnown(d *result.Doc) {
	for k, v := range d.Properties {
		d.Properties[k] = s.redactor.HideKnown(v)
	}
	for k, v := range d.ServerSettings {
		d.ServerSettings[k] = s.redactor.HideKnown(v)
	}
	for i := range d.Ops {
		for k, v := range d.Ops[i].Errors {
			d.Ops[i].Errors[k] = s.redactor.Redact(v)
		}
	}
	d.Error = s.redactor.Redact(d.Error)
	if d.ServerSide != nil {
		for i := range d.ServerSide.Sources {
			src := &d.ServerSide.Sources[i]
			src.Name, src.Error = s.redactor.HideKnown(src.Name), s.redactor.Redact(src.Error)
		}
	}
}

// OpenMerged opens the outputs a spread phase writes from its clients'
// merged result (those whose Where is sink.Merged).
func (s *Setup) OpenMerged(o sink.Output, w Writers) (sink.Sink, error) {
	return o.Open(s.sinkEnv(w, &s.measurements))
}

// Measurements are the phase's measurement properties, as its text report
// shows them.
func (s *Setup) Measurements() sink.Options { return s.measurements }
