package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/internal/inputfile"
	"github.com/servbench/servbench/internal/ycsbtext"
	"github.com/servbench/servbench/result"
)

const importUsage = `usage: servbench import ycsb YCSB-OUTPUT.txt -o RESULT.json
       servbench import ycsb FILE... -o DIR

Reads what YCSB's client printed at the end of a run (its standard output;
with its standard error too, 2>&1, the command line and version are read)
into servbench's result document, so that runs made with YCSB itself and
results others published enter servbench's report and compare. Every
measurement type YCSB prints is read (hdrhistogram, histogram, timeseries,
raw and the combined ones); raw lines become exact histograms. With several
files, -o is a directory and each FILE becomes DIR/FILE.json.

  -o PATH        the result file, or the directory for several (required)
  --label TEXT   the results' label (default "YCSB BINDING": runs of one
                 configuration are one cell's repetitions in compare and report)
`

// maxImportBytes bounds a YCSB output read whole (raw lines included).
const maxImportBytes = 512 << 20

func importCmd(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	if len(args) == 0 || args[0] != "ycsb" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			fmt.Fprint(stdout, importUsage)
			return ExitOK, nil
		}
		return ExitUsage, badf("import: say what to import: servbench import ycsb FILE... -o RESULT.json")
	}
	fs := flag.NewFlagSet("servbench import ycsb", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "")
	label := fs.String("label", "", "")
	files, err := flagsAnywhere(fs, args[1:])
	if err == flag.ErrHelp {
		fmt.Fprint(stdout, importUsage)
		return ExitOK, nil
	}
	if err != nil {
		return ExitUsage, badf("import: %v", err)
	}
	if len(files) == 0 {
		return ExitUsage, badf("import: no YCSB output named (servbench import ycsb FILE... -o RESULT.json)")
	}
	if *out == "" {
		return ExitUsage, badf("import: no output (-o RESULT.json, or -o DIR for several files)")
	}
	if len(*label) > 200 || strings.ContainsFunc(*label, func(r rune) bool { return r < ' ' }) {
		return ExitUsage, badf("import: --label: want at most 200 bytes and no control characters")
	}
	dest := func(string) string { return *out }
	if len(files) > 1 {
		if st, err := os.Stat(*out); err != nil || !st.IsDir() {
			return ExitUsage, badf("import: -o %s: with %d files, -o names an existing directory", *out, len(files))
		}
		seen := map[string]string{}
		for _, f := range files {
			b := filepath.Base(f)
			if prev, dup := seen[b]; dup {
				return ExitUsage, badf("import: %s and %s would both be %s.json in %s", prev, f, b, *out)
			}
			seen[b] = f
		}
		dest = func(f string) string { return filepath.Join(*out, filepath.Base(f)+".json") }
	}
	for _, f := range files {
		b, err := inputfile.Read(ctx, f, maxImportBytes)
		if err != nil {
			if ctx.Err() != nil {
				return ExitInterrupted, fmt.Errorf("import: interrupted reading %s", f)
			}
			return ExitUsage, badf("import: %s: %v", f, err)
		}
		d, err := ycsbtext.Read(strings.NewReader(string(b)), f)
		if err != nil {
			return ExitUsage, usageError{fmt.Errorf("import: %w", err)}
		}
		if *label != "" {
			d.Label = *label
		}
		to := dest(f)
		if err := atomicfile.WriteFile(to, func(w io.Writer) error { return result.WriteJSON(w, d) }); err != nil {
			return ExitFailure, fmt.Errorf("import: write %s: %w", to, err)
		}
		what := d.Command
		if d.Workload != "" {
			what += " of " + d.Workload
		}
		fmt.Fprintf(stdout, "%s: %s (%s, binding %s): %s operations in %.3f s, %s ops/s -> %s\n", f, what, d.Driver, d.Binding,
			format.Thousands(d.Operations), d.RuntimeMs/1000, format.Thousands(int64(d.Throughput+0.5)), to)
	}
	return ExitOK, nil
}
