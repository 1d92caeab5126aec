package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/servbench/servbench/experiment"
	"github.com/servbench/servbench/plan"
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
`

func isBuiltin(name string) bool { return slices.Contains(workloads.Names(), name) }

// benchCmd runs a plan.
func benchCmd(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("servbench bench", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	dir := fs.String("o", "", "")
	dry := fs.Bool("dry-run", false, "")
	var planFile string
	rest := args
	for len(rest) > 0 { // the plan may come before or after the flags
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				fmt.Fprint(stdout, benchUsage)
				return ExitOK, nil
			}
			return ExitUsage, badf("bench: %v", err)
		}
		rest = fs.Args()
		if len(rest) > 0 {
			if planFile != "" {
				return ExitUsage, badf("bench: one plan at a time (got %s and %s)", planFile, rest[0])
			}
			planFile, rest = rest[0], rest[1:]
		}
	}
	if planFile == "" {
		return ExitUsage, badf("bench: no plan file (usage: servbench bench PLAN.yaml -o DIR)")
	}
	if *dir == "" && !*dry {
		return ExitUsage, badf("bench: no output directory (-o DIR)")
	}
	if st, err := os.Stat(*dir); err == nil && !st.IsDir() {
		return ExitUsage, badf("bench: -o %s is not a directory: give the directory for the plan's results", *dir)
	}
	pl, err := plan.LoadContext(ctx, planFile, isBuiltin)
	if err != nil {
		if ctx.Err() != nil {
			return ExitInterrupted, err // not bad input: exit 130
		}
		return ExitUsage, usageError{err}
	}
	r := experiment.New(pl, *dir, stderr)
	if err := r.CheckContext(ctx); err != nil {
		if ctx.Err() != nil { // stopped while reading a file the plan names
			return ExitInterrupted, err
		}
		return ExitUsage, usageError{err}
	}
	if *dry {
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
			return ExitOK, nil
		}
		for i := range runs {
			fmt.Fprintf(stdout, "%s\n", runs[i].ID())
		}
		fmt.Fprintf(stdout, "%d runs, %d loads\n", len(runs), r.Loads())
		return ExitOK, nil
	}
	err = r.Run(ctx)
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
