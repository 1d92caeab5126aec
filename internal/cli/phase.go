package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/output"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
	"golang.org/x/term"
)

// phase runs "load" or "run": parse and check everything, run the phase
// through the engine, and write every requested output, also when the run
// was interrupted.
func phase(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) (int, error) {
	pa, err := parsePhase(ctx, cmd, args, stderr)
	if err != nil {
		if ctx.Err() != nil { // stopped while reading a property file
			return ExitInterrupted, errors.New(err.Error())
		}
		return ExitUsage, err
	}
	if pa.help {
		fmt.Fprint(stdout, phaseUsage)
		return ExitOK, nil
	}
	if pa.indexFrom != "" {
		if err := indexFromEnv(pa, os.Getenv); err != nil {
			return ExitUsage, usageError{err}
		}
	}
	spec := engine.Spec{Binding: pa.binding, Properties: pa.props, Log: stderr}
	if cmd == "load" {
		spec.Phase = engine.LoadPhase
	}
	setup, err := engine.Check(spec)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	out := setup.Outputs
	for _, w := range setup.Warnings {
		fmt.Fprintf(stderr, "servbench: %s\n", w)
	}
	if _, one := pa.props.Get("clientindex"); setup.Client.Spread() && !one {
		if pa.emit != "" {
			return emit(cmd, pa, setup, stdout)
		}
		return runClients(ctx, cmd, pa, setup, stderr)
	}
	if pa.emit != "" {
		return ExitUsage, badf("%s: --emit writes the manifests of a phase spread over clients: give --clients N (N > 1)", cmd)
	}
	mopts := &setup.Measurements
	// Create output files before the run, so a bad path fails now and not
	// after an hour of measuring.
	files, err := openOutputs(pa, out)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	// Whatever is not committed is removed: a failed start or write leaves
	// every output path as it was.
	defer files.remove()

	status := &output.Status{W: stderr, Every: out.StatusEvery, Label: out.Label, Lines: out.Status, Bar: isTerminal(stderr)}
	if mopts.TimeSeries != nil {
		status.Also = stdout // YCSB's timeseries type prints status lines on standard output too
	}
	obs := []runner.Observer{status, mopts.TimeSeries}
	var hlogs []*output.Hlog
	if out.HdrFiles {
		hlogs = append(hlogs, &output.Hlog{Prefix: out.HdrPath, Ext: ".hdr", Options: mopts})
	}
	if pa.hlog != "" {
		hlogs = append(hlogs, &output.Hlog{Prefix: pa.hlog, Ext: ".hlog", Options: mopts})
	}
	for _, h := range hlogs {
		obs = append(obs, h)
	}
	if out.MetricsAddr != "" {
		m, stop, err := serveMetrics(setup, out.MetricsAddr, stderr)
		if err != nil {
			return ExitUsage, usageError{err}
		}
		defer stop()
		obs = append(obs, m)
	}
	stopProfile, err := startProfile(pa.cpuprof)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	res, err := setup.Run(ctx, obs...)
	if perr := stopProfile(err == nil); perr != nil {
		fmt.Fprintf(stderr, "servbench: %v\n", perr)
	}
	if err != nil {
		var se *engine.SpecError
		switch {
		case errors.As(err, &se):
			return ExitUsage, usageError{err}
		case errors.Is(err, engine.ErrInterruptedBeforeMeasuring):
			fmt.Fprintf(stderr, "servbench: %v\n", err)
			return ExitInterrupted, nil
		}
		return ExitFailure, err
	}
	var hlogErr error
	for _, h := range hlogs {
		if err := h.Close(); err != nil && hlogErr == nil {
			hlogErr = err
		}
	}
	if files.raw != nil {
		mopts.RawOut = files.raw
	}
	if err := res.WriteText(files.text(stdout)); err != nil {
		return ExitFailure, fmt.Errorf("report: %w", err)
	}
	for _, l := range res.Summary() {
		fmt.Fprintf(stderr, "servbench: %s\n", l)
	}
	if files.json != nil || files.csv != nil {
		doc := res.Doc()
		if files.json != nil {
			if err := result.WriteJSON(files.json, doc); err != nil {
				return ExitFailure, fmt.Errorf("write %s: %w", pa.json, err)
			}
		}
		if files.csv != nil {
			if err := result.WriteCSV(files.csv, doc); err != nil {
				return ExitFailure, fmt.Errorf("write %s: %w", pa.csv, err)
			}
		}
	}
	if err := files.commit(); err != nil {
		return ExitFailure, err
	}
	if hlogErr != nil {
		return ExitFailure, hlogErr
	}
	switch res.Reason {
	case result.Interrupted:
		fmt.Fprintln(stderr, "servbench: interrupted; the results so far were written")
		if pa.indexFrom != "" {
			// A client an orchestrator started ends well when it is
			// stopped: its result says it was interrupted, and an
			// orchestrator runs a failed client again (Swarm's jobs do,
			// whatever the restart condition).
			return ExitOK, nil
		}
		return ExitInterrupted, nil
	case result.Failed, result.LoadFailures:
		return ExitFailure, res.Err
	}
	if res.CloseErr != nil {
		return ExitFailure, fmt.Errorf("%s: close: %w", pa.binding, res.CloseErr)
	}
	return ExitOK, nil
}

// outFiles are a run's output files. Each is written whole or not at all
// (package atomicfile): a run that fails to start, or a crash, never leaves
// an empty or half-written file, and a path keeps what it held until the
// new content is complete.
type outFiles struct {
	export, json, csv *atomicfile.File
	raw               *os.File // measurement.raw.output_file, appended to as YCSB does
}

func openOutputs(pa *phaseArgs, out engine.Outputs) (*outFiles, error) {
	what := []string{"exportfile", "-o", "--csv", "measurement.raw.output_file"}
	paths := []string{out.ExportFile, pa.json, pa.csv, out.RawFile}
	if i, j, dup := samePath(paths); dup {
		return nil, fmt.Errorf("output file %s is named by both %s and %s", paths[j], what[i], what[j])
	}
	f := &outFiles{}
	for _, x := range []struct {
		path string
		dst  **atomicfile.File
	}{{out.ExportFile, &f.export}, {pa.json, &f.json}, {pa.csv, &f.csv}} {
		if x.path == "" {
			continue
		}
		fh, err := atomicfile.Create(x.path)
		if err != nil {
			f.remove()
			return nil, fmt.Errorf("output file: %w", err)
		}
		*x.dst = fh
	}
	if out.RawFile != "" {
		fh, err := os.OpenFile(out.RawFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			f.remove()
			return nil, fmt.Errorf("output file: %w", err)
		}
		f.raw = fh
	}
	return f, nil
}

func (f *outFiles) text(stdout io.Writer) io.Writer {
	if f.export != nil {
		return f.export
	}
	return stdout
}

// remove drops the output files not committed: every path keeps what it
// held.
func (f *outFiles) remove() {
	for _, fh := range []*atomicfile.File{f.export, f.json, f.csv} {
		if fh != nil {
			fh.Abort()
		}
	}
	if f.raw != nil {
		f.raw.Close()
		f.raw = nil
	}
}

// commit puts each output file in place.
func (f *outFiles) commit() error {
	var first error
	for _, fh := range []*atomicfile.File{f.export, f.json, f.csv} {
		if fh == nil {
			continue
		}
		if err := fh.Commit(); err != nil && first == nil {
			first = fmt.Errorf("write %s: %w", fh.Path(), err)
		}
	}
	if f.raw != nil {
		if err := f.raw.Close(); err != nil && first == nil {
			first = fmt.Errorf("close %s: %w", f.raw.Name(), err)
		}
		f.raw = nil
	}
	return first
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// startProfile starts the client's CPU profile into path (none when
// empty), for a user who wants to see where the client spends its time;
// the returned function stops it and writes the file, or, for a run that
// did not start (keep false), leaves path as it was.
func startProfile(path string) (func(keep bool) error, error) {
	if path == "" {
		return func(bool) error { return nil }, nil
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return nil, fmt.Errorf("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Abort()
		return nil, fmt.Errorf("--cpuprofile %s: %v", path, err)
	}
	return func(keep bool) error {
		pprof.StopCPUProfile()
		if !keep {
			f.Abort()
			return nil
		}
		if err := f.Commit(); err != nil {
			return fmt.Errorf("--cpuprofile %s: %v", path, err)
		}
		return nil
	}, nil
}
