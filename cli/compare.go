package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/servbench/servbench/stats"
	"io"
	"math"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/report"
)

const compareUsage = `usage: servbench compare A B

Compares two sets of results cell by cell (same workload, record count,
threads and rate): throughput and each operation's mean and p99 latency,
as mean ± 95% confidence interval over the repetitions, and the difference
B − A with its own interval (Welch). A difference whose interval holds 0
is within noise.

A and B are each:
  DIR            a plan's results (servbench bench PLAN -o DIR)
  DIR:LABEL      one deployment of them (to compare two deployments of one plan)
  R1.json,R2.json,...   result files of servbench run -o; files of the same
                 label, workload, records, threads and rate are repetitions
`

func compareCmd(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("servbench compare", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pos, err := flagsAnywhere(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, compareUsage)
		return ExitOK, nil
	}
	if err != nil {
		return ExitUsage, badf("compare: %v", err)
	}
	if len(pos) != 2 {
		return ExitUsage, badf("compare: give two sets of results (usage: servbench compare A B)")
	}
	a, err := readStoppable(ctx, pos[0], func() (*report.Set, error) { return loadSide(pos[0]) })
	if errors.Is(err, errStopped) {
		return ExitInterrupted, fmt.Errorf("compare: %w", err)
	}
	if err != nil {
		return ExitUsage, badf("compare: %v", err)
	}
	b, err := readStoppable(ctx, pos[1], func() (*report.Set, error) { return loadSide(pos[1]) })
	if errors.Is(err, errStopped) {
		return ExitInterrupted, fmt.Errorf("compare: %w", err)
	}
	if err != nil {
		return ExitUsage, badf("compare: %v", err)
	}
	diffs, err := report.Compare(a, b)
	if err != nil {
		return ExitUsage, badf("compare: %v", err)
	}
	// The table's text comes from the results (names, labels, workloads):
	// a control character in them is shown escaped. A write that fails
	// (a full device) fails the command.
	out := &stickyWriter{w: stdout}
	stdout = out
	fmt.Fprintf(stdout, "A: %s\nB: %s\n\n", format.Printable(pos[0]), format.Printable(pos[1]))
	tw := tabwriter.NewWriter(stdout, 2, 4, 2, ' ', tabwriter.AlignRight)
	cell := ""
	for _, d := range diffs {
		if d.Cell != cell {
			if cell != "" {
				fmt.Fprintln(tw)
			}
			cell = d.Cell
			tw.Flush()
			fmt.Fprintf(stdout, "%s\n", format.Printable(cell))
			fmt.Fprintf(tw, "metric\tA (n)\tB (n)\tB − A\tchange\tverdict\t\n")
		}
		change := fmt.Sprintf("%+.1f%%", 100*d.Relative)
		delta := fmtNum(d.Delta)
		if d.Certain {
			delta += " ± " + fmtNum(d.CI)
			if d.A.Mean != 0 {
				change += fmt.Sprintf(" ± %.1f%%", 100*d.CI/d.A.Mean)
			}
		}
		fmt.Fprintf(tw, "%s\t%s (%d)\t%s (%d)\t%s\t%s\t%s\t\n", format.Printable(d.Metric), stat(d.A), d.A.N, stat(d.B), d.B.N, delta, change, d.Verdict)
	}
	tw.Flush()
	if out.err != nil {
		return ExitFailure, fmt.Errorf("compare: write the table: %w", out.err)
	}
	return ExitOK, nil
}

// stickyWriter writes to w and keeps its first error: a command whose
// output could not be written says so.
type stickyWriter struct {
	w   io.Writer
	err error
}

func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

// fmtNum is a figure as the table shows it: whole from 100 to 10^15, in
// three significant digits otherwise (1e+300, not three hundred digits).
func fmtNum(v float64) string {
	if a := math.Abs(v); a >= 100 && a < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

func stat(s stats.Stat) string {
	if s.N < 2 {
		return fmtNum(s.Mean)
	}
	return fmtNum(s.Mean) + " ± " + fmtNum(s.CI)
}

// loadSide reads DIR, DIR:LABEL or a comma-separated list of result files.
func loadSide(spec string) (*report.Set, error) {
	// A file that is not a directory (a result named otherwise, a device,
	// a pipe) is read as a result, and refused as one.
	if st, err := os.Stat(spec); strings.Contains(spec, ",") || strings.HasSuffix(spec, ".json") || err == nil && !st.IsDir() {
		return report.LoadFiles(strings.Split(spec, ","))
	}
	dir, label := spec, ""
	if _, err := os.Stat(spec); err != nil {
		if i := strings.LastIndexByte(spec, ':'); i > 0 {
			dir, label = spec[:i], spec[i+1:]
		}
	}
	set, err := report.Load(dir)
	if err != nil {
		return nil, err
	}
	if label != "" {
		if set = set.Only(label); set == nil {
			return nil, fmt.Errorf("%s has no deployment %q", dir, label)
		}
	}
	if len(set.Groups) == 0 {
		return nil, fmt.Errorf("%s has no finished run", spec)
	}
	return set, nil
}
