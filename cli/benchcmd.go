package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/experiment"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workloads"
)

const benchUsage = `usage: servbench bench PLAN.yaml -o DIR

Runs an experiment plan, each cell (deployments x workloads x records x
threads x rates) once per repetition: loads each deployment once per record count,
writes one result JSON per run under DIR/runs and an index, DIR/index.json.
Rerunning the same plan into the same DIR skips the finished runs.
A plan with an slo: key steps threads (or the rate) upwards per deployment,
workload and record count, skips the steps past the first one over the
latency bound (and its after: steps), and reports the highest throughput
within the bound and the peak. With slo: {search: threads|rate, ...} it
searches each series' capacity under each bound instead (doubling, then
bisection to precision_percent, the answer run repetitions times).

  -o DIR       where results go (required)
  --dry-run    check the plan and list the runs, run nothing
  --dashboard HOST:PORT  serve a live page of the plan: its runs done, the next,
               an estimate of its end, the throughput of the runs so far
               (a loopback address; written at the end to DIR/dashboard.html)

A rehearsal runs the plan's whole shape small, against endpoints of your
own (a laptop's servers, before a day of a service is paid for): every
deployment, workload, record count, thread step, client count, rate,
repetition, setup step, load and cleanup, record counts, operation counts
and durations scaled (at least 100 records, 100 operations, 0.3 s; a run
of operations at most 3 s), the clients started on this machine. It ends
with a table of its cells: completed, failed (why) or not rehearsable on
that endpoint (why).

  --rehearse         rehearse the plan
  --at NAME=URL      where deployments labelled NAME, or of binding NAME,
                     run instead (repeatable; the plan's endpoint, its
                     credentials and TLS files for it left out)
  --scale F          the fraction of the plan's sizes (default 0.001)
  --ends             of the thread steps and rates, the first and the last
                     only (every deployment, workload, record count,
                     client count and repetition still): a quicker check
  -p KEY=VALUE       a property for the rehearsal's deployments
                     (dynamodb.accesskey=local: that binding's only)
`

func isBuiltin(name string) bool { return slices.Contains(workloads.Names(), name) }

// benchCmd runs a plan.
func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	a, code, err := parseBenchArgs(args, stdout)
	if a == nil {
		return code, err
	}
	pl, err := plan.LoadContext(ctx, a.plan, isBuiltin)
	if err != nil {
		if ctx.Err() != nil {
			return ExitInterrupted, err // not bad input: exit 130
		}
		return ExitUsage, usageError{err}
	}
	if !a.rehearse && (len(a.at) > 0 || len(a.extra) > 0 || a.scale != 0 || a.ends) {
		return ExitUsage, badf("bench: --at, --scale, --ends and -p are a rehearsal's: give --rehearse")
	}
	if a.rehearse {
		if pl, err = a.rehearsal(pl); err != nil {
			return ExitUsage, err
		}
	}
	r := experiment.New(pl, a.dir, stderr)
	if pl.Rehearsal == nil { // a rehearsal tries the plan: not results to keep
		r.OnResult = func(setup *engine.Setup, d *result.Doc, path string) {
			recordResult(ctx, setup.History, d, path, stderr)
		}
	}
	if err := r.CheckContext(ctx); err != nil {
		if ctx.Err() != nil { // stopped while reading a file the plan names
			return ExitInterrupted, err
		}
		return ExitUsage, usageError{err}
	}
	if a.dry {
		printRuns(stdout, pl, r)
		return ExitOK, nil
	}
	var pb *planBoard
	if a.dashboard != "" {
		if pb, err = startPlanBoard(a.dashboard, pl, a.dir, r, stderr); err != nil {
			return ExitUsage, usageError{err}
		}
	}
	err = r.Run(ctx)
	if pb != nil {
		pb.end(stderr)
	}
	if pl.Rehearsal != nil && !errors.As(err, new(*plan.Error)) {
		// The table of cells, also when stopped: what ran, and what not.
		if cells, cerr := experiment.Cells(a.dir); cerr == nil {
			experiment.WriteCells(stdout, cells)
			// Runs that failed only as not rehearsable on these endpoints
			// (SQL++ on CouchbaseMock) leave a rehearsal that passed, as
			// its table says.
			switch ok := rehearsed(cells); {
			case err != nil && ctx.Err() == nil && !errors.Is(err, experiment.ErrInterrupted) && ok:
				err = nil
			case err == nil && !ok: // its runs ended, and a cell's operations failed
				return ExitFailure, errors.New("bench: a cell of the rehearsal failed (its table above)")
			}
		}
	}
	var pe *plan.Error
	switch {
	case err == nil:
		return ExitOK, nil
	case errors.Is(err, experiment.ErrInterrupted):
		return ExitInterrupted, nil
	case ctx.Err() != nil: // stopped while reading the directory's files
		return ExitInterrupted, err
	case errors.As(err, &pe):
		return ExitUsage, usageError{err}
	}
	return ExitFailure, err
}

// benchArgs is bench's command line: the plan file, the output directory
// (-o), --dry-run, and a rehearsal's --rehearse, --scale, --at (name and
// URL pairs, in order) and -p.
type benchArgs struct {
	plan, dir     string
	dashboard     string // --dashboard ADDR: the plan's live page
	dry, rehearse bool
	ends          bool
	scale         float64
	at            []string
	extra         []plan.Property
}

// parseBenchArgs reads bench's command line. It returns nil, and the
// exit code and error to end with, for -h (the usage printed to stdout)
// and for a command line that is not bench's.
func parseBenchArgs(args []string, stdout io.Writer) (*benchArgs, int, error) {
	fs := flag.NewFlagSet("servbench bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("o", "", "")
	dry := fs.Bool("dry-run", false, "")
	rehearse := fs.Bool("rehearse", false, "")
	scale := fs.Float64("scale", 0, "")
	ends := fs.Bool("ends", false, "")
	dashboard := fs.String("dashboard", "", "")
	// --at and -p are checked after the flags are read: the flag
	// package's own error quotes the value whole (a password).
	var atArgs, pArgs []string
	fs.Func("at", "", func(v string) error { atArgs = append(atArgs, v); return nil })
	fs.Func("p", "", func(v string) error { pArgs = append(pArgs, v); return nil })
	var planFile string
	rest := args
	for len(rest) > 0 { // the plan may come before or after the flags
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, benchUsage)
				return nil, ExitOK, nil
			}
			return nil, ExitUsage, badf("bench: %s", props.RedactText(err.Error()))
		}
		rest = fs.Args()
		if len(rest) > 0 {
			if planFile != "" {
				return nil, ExitUsage, badf("bench: one plan at a time (got %s and %s)", planFile, rest[0])
			}
			planFile, rest = rest[0], rest[1:]
		}
	}
	if planFile == "" {
		return nil, ExitUsage, badf("bench: no plan file (usage: servbench bench PLAN.yaml -o DIR)")
	}
	a := &benchArgs{plan: planFile, dir: *dir, dry: *dry, rehearse: *rehearse, scale: *scale, ends: *ends, dashboard: *dashboard}
	for _, v := range atArgs {
		name, url, ok := strings.Cut(v, "=")
		if !ok || name == "" || url == "" {
			return nil, ExitUsage, badf("bench: --at %q: want NAME=URL, a deployment's label or a binding's name", props.RedactText(v))
		}
		a.at = append(a.at, name, url)
	}
	for _, v := range pArgs {
		k, val, err := props.ParseAssignment(v)
		if err != nil {
			return nil, ExitUsage, badf("bench: %v", err)
		}
		a.extra = append(a.extra, plan.Property{Key: k, Value: val})
	}
	if a.dir == "" && !a.dry {
		return nil, ExitUsage, badf("bench: no output directory (-o DIR)")
	}
	if st, err := os.Stat(a.dir); err == nil && !st.IsDir() {
		return nil, ExitUsage, badf("bench: -o %s is not a directory: give the directory for the plan's results", a.dir)
	}
	return a, 0, nil
}

// rehearsal returns pl rehearsed with the command line's --at, -p and
// --scale; the error is a usage error.
func (a *benchArgs) rehearsal(pl *plan.Plan) (*plan.Plan, error) {
	h := experiment.Rehearsal{At: map[string]string{}, Properties: a.extra, Scale: a.scale, Ends: a.ends}
	for i := 0; i < len(a.at); i += 2 {
		if _, dup := h.At[a.at[i]]; dup {
			return nil, badf("bench: --at %s given twice", a.at[i])
		}
		h.At[a.at[i]] = a.at[i+1]
	}
	pl, err := experiment.Rehearse(pl, h)
	if err != nil {
		return nil, badf("bench: %v", err)
	}
	return pl, nil
}

// printRuns prints what a dry run would run: each run's ID, or each
// searched series' first run, and how many runs and loads.
func printRuns(stdout io.Writer, pl *plan.Plan, r *experiment.Runner) {
	runs := pl.Runs()
	if s := pl.SLO; s != nil && s.Search != "" {
		n := 0
		for i := range runs {
			if runs[i].Repetition == 1 {
				fmt.Fprintf(stdout, "%s\n", runs[i].ID())
				n++
			}
		}
		fmt.Fprintf(stdout, "%d series searched (each from its first run above; the search chooses the rest: %s), %d loads\n", n, s, r.Loads())
		return
	}
	for i := range runs {
		fmt.Fprintf(stdout, "%s\n", runs[i].ID())
	}
	fmt.Fprintf(stdout, "%d runs, %d loads\n", len(runs), r.Loads())
}

// rehearsed reports whether every cell of a rehearsal completed or was
// not rehearsable.
func rehearsed(cells []experiment.Cell) bool {
	for _, c := range cells {
		switch c.Outcome {
		case experiment.Completed, experiment.NotRehearsable, experiment.Overloaded, experiment.Skipped:
		default:
			return false
		}
	}
	return len(cells) > 0
}
