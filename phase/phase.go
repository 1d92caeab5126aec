// Package phase runs one phase, load or run, of a checked setup where it
// belongs, and says how it ended, the same for the command line and the
// plan runner: here (engine.Setup.Execute), or spread over clients, or on
// one client an orchestrator runs elsewhere (coordinator.Run). Every guard
// of a phase is the same from both callers: a spread phase's outputs are
// checked before any client starts, and one that cannot be written at the
// end leaves the others written.
//
// Invariants: a phase that measured anything returns an Ending, whatever
// failed around it (an output, the binding's close, a client); an error
// alone means nothing was measured: bad input (*engine.SpecError),
// interrupted first (engine.ErrInterruptedBeforeMeasuring), or a failure
// before or instead of a result.
package phase

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/sink"
)

// Ending is how a phase that measured ended.
type Ending struct {
	// Doc is the phase's result, as its result file holds it: the run's
	// here, or its clients' merged.
	Doc *result.Doc
	// Interrupted is true when the phase was stopped before its end
	// (Ctrl-C, the caller's context): what it measured was kept.
	Interrupted bool
	// Failed is why the run itself failed: a run that could not go on, a
	// load whose threads stopped on failed inserts, the binding failing to
	// close, a client's run failing.
	Failed error
	// Unwritten names the outputs that could not be written; every other
	// one was (NotWritten asks by name).
	Unwritten error
}

// NotWritten reports whether the output named name (sink.Output.Name:
// "json" is the result file) is among those that could not be written
// (a *sink.NotWritten in Unwritten: a run here's, or a spread phase's
// merged outputs').
func (o *Ending) NotWritten(name string) bool {
	nw := (*sink.NotWritten)(nil)
	return errors.As(o.Unwritten, &nw) && slices.Contains(nw.Names, name)
}

// Elsewhere reports whether a setup's phase runs on clients (spread, or
// one client an orchestrator runs on a host, a container, a pod), not in
// this process. A process that is itself one client of a phase (given
// its clientindex) runs here.
func Elsewhere(setup *engine.Setup) bool {
	if setup.Client.One {
		return false
	}
	return setup.Client.Spread() || setup.Client.Orchestrator != "local"
}

// Check refuses, before anything runs, what the phase cannot do where it
// belongs: a phase that runs on clients cannot write files of one process
// (coordinator.CheckOutputs). Run checks the same; a plan checks each of
// its runs first.
func Check(setup *engine.Setup) error {
	if !Elsewhere(setup) {
		return nil
	}
	return coordinator.CheckOutputs(setup)
}

// Run runs setup's phase where it belongs (Elsewhere) and writes every
// output its properties ask for: YCSB's text report on w.Stdout (unless
// exportfile names a file), status lines and closing lines on w.Stderr.
//
// The phase's files (and a spread phase's clients' results beside -o)
// are locked while it runs (atomicfile.Lock): a second run writing one of
// them at the same time is refused (*engine.SpecError).
func Run(ctx context.Context, setup *engine.Setup, w engine.Writers, obs ...runner.Observer) (*Ending, error) {
	unlock, err := lockOutputs(setup)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if !Elsewhere(setup) {
		res, err := setup.Execute(ctx, w, obs...)
		if res == nil {
			return nil, err
		}
		o := &Ending{Doc: res.Doc(), Interrupted: res.Reason == result.Interrupted, Unwritten: err}
		switch {
		case res.Err != nil:
			o.Failed = res.Err
		case res.CloseErr != nil:
			o.Failed = fmt.Errorf("%s: close: %w", setup.Spec.Binding, res.CloseErr)
		}
		return o, nil
	}
	release, err := coordinator.HoldOutputs(coordinator.PhaseOutputs(setup.Outputs))
	if err != nil {
		return nil, &engine.SpecError{Err: fmt.Errorf("%s: %w", setup.Spec.Phase, err)}
	}
	defer release()
	m, cleanup, err := coordinator.Run(ctx, setup, setup.Outputs.Path("json"), w.Stderr)
	defer cleanup() // after what was measured is written
	var unwritten *coordinator.OutputError
	if err != nil && !errors.As(err, &unwritten) {
		return nil, err
	}
	o := &Ending{Doc: m, Interrupted: ctx.Err() != nil || m.Stop == result.Interrupted}
	if unwritten = coordinator.WriteMerged(setup, m, w.Stdout, w.Stderr, unwritten); unwritten != nil {
		o.Unwritten = unwritten
	}
	if m.Error != "" && !o.Interrupted {
		o.Failed = errors.New(m.Error)
	}
	return o, nil
}

// lockOutputs locks the files the phase writes, named by its outputs.
func lockOutputs(setup *engine.Setup) (func(), error) {
	files := setup.Outputs.Files()
	var paths []string
	for _, f := range files {
		if f.Ext == "" {
			paths = append(paths, f.Path)
		}
	}
	unlock, err := atomicfile.Lock(paths)
	if err != nil {
		for _, f := range files {
			if pe := (*os.PathError)(nil); errors.As(err, &pe) && pe.Path == f.Path {
				return nil, &engine.SpecError{Err: fmt.Errorf("%s: %s %s: %v: refused", setup.Spec.Phase, f.What, f.Path, pe.Err)}
			}
		}
		return nil, &engine.SpecError{Err: fmt.Errorf("%s: %w", setup.Spec.Phase, err)}
	}
	return unlock, nil
}
