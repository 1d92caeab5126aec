package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/report"
)

const reportUsage = `usage: servbench report DIR -o REPORT.html [--export FILES]

Turns the results of a plan (servbench bench PLAN -o DIR) into one
self-contained HTML page: a summary of every cell with 95% confidence
intervals; throughput and latency by cluster size with failures by cause;
cost per billion operations; throughput and latency curves by client
threads or rate with the SLO search; runtimes by record count and thread
count with scale-up ratios; each run's latency percentile spectrum and time
series; the environment and every parameter. The page loads nothing from
anywhere else.

  -o FILE        the HTML page (required)
  --export DIR   also write every chart as SVG and every table as CSV and
                 Markdown into DIR
`

// flagsAnywhere parses flags that may come before, between or after the
// positional arguments, and returns the positional ones.
func flagsAnywhere(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, errors.New(props.RedactText(err.Error())) // the flag package quotes a bad value whole
		}
		args = fs.Args()
		if len(args) > 0 {
			pos, args = append(pos, args[0]), args[1:]
		}
	}
	return pos, nil
}

func reportCmd(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("servbench report", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "")
	export := fs.String("export", "", "")
	pos, err := flagsAnywhere(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, reportUsage)
		return ExitOK, nil
	}
	if err != nil {
		return ExitUsage, badf("report: %v", err)
	}
	if len(pos) != 1 {
		return ExitUsage, badf("report: give one plan directory (usage: servbench report DIR -o REPORT.html)")
	}
	if *out == "" {
		return ExitUsage, badf("report: no output file (-o REPORT.html)")
	}
	set, err := readStoppable(ctx, pos[0], func() (*report.Set, error) { return report.Load(pos[0]) })
	if errors.Is(err, errStopped) {
		return ExitInterrupted, fmt.Errorf("report: %w", err)
	}
	if err != nil {
		return ExitUsage, badf("report: %v", err)
	}
	if len(set.Runs) == 0 {
		return ExitUsage, badf("report: %s has no finished run", pos[0])
	}
	// Building the page of a thousand runs takes a while: Ctrl-C ends it.
	type built struct {
		secs []report.Section
		page bytes.Buffer
	}
	b, err := readStoppable(ctx, pos[0], func() (*built, error) {
		building()
		b := &built{secs: set.Sections()}
		return b, set.HTML(&b.page, b.secs)
	})
	if errors.Is(err, errStopped) {
		return ExitInterrupted, fmt.Errorf("report: stopped while building the page of %s: %w", pos[0], ctx.Err())
	}
	if err != nil {
		return ExitFailure, fmt.Errorf("report: %w", err)
	}
	secs, page := b.secs, &b.page
	if err := checkReportOutputs(set, *out, *export, secs); err != nil {
		return ExitUsage, usageError{err}
	}
	// Each output is written whatever became of the others; the first
	// that failed is said, each in its line.
	var failed error
	if err := atomicfile.WriteFile(*out, func(w io.Writer) error { _, err := w.Write(page.Bytes()); return err }); err != nil {
		failed = fmt.Errorf("report: %w", err)
		fmt.Fprintf(stderr, "servbench: %s\n", oneLine(failed))
	}
	figs, tables := 0, 0
	for _, s := range secs {
		figs += len(s.Figures)
		for _, r := range s.Runs {
			figs += len(r.Figures)
		}
		tables += len(s.Tables)
	}
	if failed == nil {
		fmt.Fprintf(stderr, "servbench: report %s: %d runs in %d cells, %d charts, %d tables (%d KB)\n", *out, len(set.Runs), len(set.Groups), figs, tables, page.Len()/1024)
	}
	if *export != "" {
		n, err := report.Export(*export, secs)
		fmt.Fprintf(stderr, "servbench: exported %d files (SVG charts, CSV and Markdown tables) to %s\n", n, *export)
		if err != nil {
			return ExitFailure, fmt.Errorf("report: export: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
		}
	}
	if failed != nil {
		return ExitFailure, errors.New("report: " + *out + " not written (see above)")
	}
	return ExitOK, nil
}

// building is called as the report's page begins to be built (a test
// stops the command there).
var building = func() {}

// checkReportOutputs refuses, before anything is written, a report whose
// outputs (-o, the files --export writes) name one file, or a file the
// report reads (--export into the plan's directory wrote its tables over
// reference.csv; -o could name index.json).
func checkReportOutputs(set *report.Set, out, export string, secs []report.Section) error {
	outs, what := []string{out}, []string{"-o"}
	if export != "" {
		for _, f := range report.ExportFiles(export, secs) {
			outs, what = append(outs, f), append(what, "--export")
		}
	}
	for i, o := range outs {
		if set.Dir != "" && benchOwns(set.Dir, o) {
			return fmt.Errorf("report: %s would write %s, among the files bench writes in %s (its lock, logs, runs and loads): write it elsewhere", what[i], o, set.Dir)
		}
	}
	ins := set.Inputs()
	i, j, dup := atomicfile.Collide(outs, ins)
	switch {
	case !dup:
		return nil
	case j < len(outs):
		return fmt.Errorf("report: %s and %s both write %s", what[i], what[j], outs[j])
	}
	return fmt.Errorf("report: %s would write %s, which the report reads: write it elsewhere", what[i], ins[j-len(outs)])
}

// benchOwns reports whether path, links followed, is one of the files
// bench writes in its plan directory dir: its lock, plan copy, index,
// setup logs and reference, or anything under runs, loads and data (a
// report over DIR/.lock let a second bench into a directory in use).
func benchOwns(dir, path string) bool {
	real := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		if r, err := filepath.EvalSymlinks(a); err == nil {
			return r
		}
		if r, err := filepath.EvalSymlinks(filepath.Dir(a)); err == nil { // a file not there yet
			return filepath.Join(r, filepath.Base(a))
		}
		return a
	}
	rel, err := filepath.Rel(real(dir), real(path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	first, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
	switch first {
	case "runs", "loads", "data", ".lock", "plan.yaml", "index.json", "setup.json", "setup.log", "reference.csv":
		return true
	}
	return false
}
