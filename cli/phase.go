package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/phase"
	"github.com/servbench/servbench/sink"
	"golang.org/x/term"
)

// phase runs "load" or "run": parse and check everything, run the phase
// through the engine, and write every requested output, also when the run
// was interrupted.
func phaseCommand(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) (int, error) {
	pa, err := parsePhase(ctx, cmd, args, stderr)
	if err != nil {
		if ctx.Err() != nil { // stopped while reading a property file
			return ExitInterrupted, errors.New(err.Error())
		}
		return ExitUsage, err
	}
	if pa.help {
		fmt.Fprint(stdout, phaseUsage())
		return ExitOK, nil
	}
	if pa.indexFrom != "" {
		if err := coordinator.ClientFromTemplate(pa.props, pa.indexFrom, os.Getenv); err != nil {
			return ExitUsage, usageError{err}
		}
	}
	setup, err := checkPhase(ctx, cmd, engine.Spec{Binding: pa.binding, Properties: pa.props, Log: stderr, Outputs: pa.processOutputs()}, stderr)
	if err != nil {
		if ctx.Err() != nil { // stopped while the binding read its files
			return ExitInterrupted, errors.New(err.Error())
		}
		return ExitUsage, err
	}
	switch {
	case !setup.Client.One && pa.emit != "" && setup.Client.Spread():
		return emit(cmd, pa, setup, stdout)
	case pa.emit != "":
		return ExitUsage, badf("%s: --emit writes the manifests of a phase spread over clients: give --clients N (N > 1)", cmd)
	}
	return runPhase(ctx, cmd, pa, setup, stdout, stderr)
}

// runPhase runs a checked phase where it belongs (phase.Run: here, or on
// clients) and turns how it ended into an exit code.
func runPhase(ctx context.Context, cmd string, pa *phaseArgs, setup *engine.Setup, stdout, stderr io.Writer) (int, error) {
	elsewhere := phase.Elsewhere(setup)
	for _, f := range []struct{ flag, path string }{{"--cpuprofile", pa.cpuprof}, {"--trace", pa.trace}} {
		if elsewhere && f.path != "" {
			return ExitUsage, badf("%s: the clients (%d) are processes of their own: %s would record the coordinator only; leave it out", cmd, setup.Client.Count, f.flag)
		}
	}
	o, err := phase.Run(ctx, setup, engine.Writers{Stdout: stdout, Stderr: stderr, Bar: !elsewhere && isTerminal(stderr)})
	if o == nil {
		var se *engine.SpecError
		switch {
		case errors.Is(err, engine.ErrInterruptedBeforeMeasuring) && elsewhere:
			fmt.Fprintln(stderr, "servbench: interrupted before the clients measured anything; nothing merged")
			return ExitInterrupted, nil
		case elsewhere && ctx.Err() != nil: // also while reading what the orchestrator needs
			return ExitInterrupted, fmt.Errorf("%s: %w", cmd, err)
		case errors.As(err, &se):
			return ExitUsage, usageError{err}
		case errors.Is(err, engine.ErrInterruptedBeforeMeasuring):
			fmt.Fprintf(stderr, "servbench: %v\n", err)
			return ExitInterrupted, nil
		case ctx.Err() != nil: // while connecting, preparing, …: what failed gave way to it
			return ExitInterrupted, fmt.Errorf("interrupted; nothing was measured: %w", err)
		case elsewhere:
			return ExitFailure, fmt.Errorf("%s: %w", cmd, err)
		}
		return ExitFailure, err
	}
	// The result is recorded in the history once its files are written
	// (a spread phase's by its coordinator, not by each client).
	if !setup.Client.One || !setup.Client.Spread() {
		path := pa.props.String("result.file", "")
		if o.NotWritten("json") {
			path = ""
		}
		recordResult(ctx, setup.History, o.Doc, path, stderr)
	}
	switch {
	case o.Unwritten != nil && elsewhere:
		return ExitFailure, fmt.Errorf("%s: %v; every other output was written", cmd, o.Unwritten)
	case o.Unwritten != nil: // a run whose outputs could not all be written
		return ExitFailure, o.Unwritten
	case o.Interrupted && elsewhere:
		fmt.Fprintln(stderr, "servbench: interrupted; the clients' results so far were merged")
		return ExitInterrupted, nil
	case o.Interrupted || ctx.Err() != nil: // also after the run: while its inserts were removed, the binding closed
		fmt.Fprintln(stderr, "servbench: interrupted; the results so far were written")
		if pa.indexFrom != "" {
			// A client an orchestrator started ends well when it is
			// stopped: its result says it was interrupted, and an
			// orchestrator runs a failed client again (Swarm's jobs do,
			// whatever the restart condition).
			return ExitOK, nil
		}
		return ExitInterrupted, nil
	case o.Failed != nil:
		return ExitFailure, o.Failed
	}
	return ExitOK, nil
}

// checkPhase checks spec as phase cmd (load or run) and says its
// warnings; its error is bad input.
func checkPhase(ctx context.Context, cmd string, spec engine.Spec, stderr io.Writer) (*engine.Setup, error) {
	if cmd == "load" {
		spec.Phase = engine.LoadPhase
	}
	setup, err := engine.CheckContext(ctx, spec)
	if err != nil {
		return nil, usageError{err}
	}
	for _, w := range setup.Warnings {
		fmt.Fprintf(stderr, "servbench: %s\n", w)
	}
	return setup, nil
}

func isTerminal(w io.Writer) bool {
	if q, ok := w.(*queued); ok {
		w = q.w
	}
	if p, ok := w.(pipeWatch); ok {
		w = p.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// processOutputs are the records of the client's own work asked for,
// outputs of the phase as its files are (sink.Process): its CPU profile
// (--cpuprofile) or its execution trace (--trace: scheduling latency, the
// network poller, GC assists), for a user who wants to see where the
// client spends its time or its operations wait.
func (pa *phaseArgs) processOutputs() []sink.Output {
	var out []sink.Output
	if pa.cpuprof != "" {
		out = append(out, sink.Process("--cpuprofile", pa.cpuprof, pprof.StartCPUProfile, pprof.StopCPUProfile))
	}
	if pa.trace != "" {
		out = append(out, sink.Process("--trace", pa.trace, trace.Start, trace.Stop))
	}
	return out
}
