package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/format"
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
raw and the combined ones); raw lines become exact histograms. A file holds
one run's output: two runs (or a load and a run) in one file, an output cut
short, or figures that do not add up are refused, naming the line. With
several files, -o is a directory and each FILE becomes DIR/FILE.json; all
are read before any is written, and no output may be an input.

  -o PATH        the result file, or the directory for several (required)
  --label TEXT   the results' label (default "YCSB BINDING": runs of one
                 configuration are one cell's repetitions in compare and report)
`

// maxImportBytes bounds a YCSB output (raw lines included). It is read as
// it streams: what the reader keeps is bounded by ycsbtext, not by the
// file's size.
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
	dests := []string{*out}
	if len(files) > 1 {
		if st, err := os.Stat(*out); err != nil || !st.IsDir() {
			return ExitUsage, badf("import: -o %s: with %d files, -o names an existing directory", *out, len(files))
		}
		seen := map[string]string{}
		dests = dests[:0]
		for _, f := range files {
			b := filepath.Base(f)
			if prev, dup := seen[b]; dup {
				return ExitUsage, badf("import: %s and %s would both be %s.json in %s", prev, f, b, *out)
			}
			seen[b] = f
			dests = append(dests, filepath.Join(*out, b+".json"))
		}
	}
	if i, j, dup := atomicfile.SamePath(append(slices.Clone(files), dests...)); dup {
		n := len(files)
		switch {
		case j < n:
			return ExitUsage, badf("import: %s and %s are the same file: import it once", files[i], files[j])
		case i < n:
			return ExitUsage, badf("import: -o %s would write over the input %s: give another output", dests[j-n], files[i])
		}
		return ExitUsage, badf("import: %s and %s would both be written to %s", files[i-n], files[j-n], dests[j-n])
	}
	// Every file is read before any result is written: a bad one leaves
	// nothing half done.
	docs := make([]*result.Doc, len(files))
	for i, f := range files {
		d, err := readYCSB(ctx, f)
		if err != nil {
			if ctx.Err() != nil {
				return ExitInterrupted, fmt.Errorf("import: interrupted reading %s", f)
			}
			return ExitUsage, usageError{fmt.Errorf("import: %w", err)}
		}
		if *label != "" {
			d.Label = *label
		}
		docs[i] = d
	}
	for i, d := range docs {
		f := files[i]
		to := dests[i]
		if err := atomicfile.WriteFile(to, func(w io.Writer) error { return result.WriteJSON(w, d) }); err != nil {
			return ExitFailure, fmt.Errorf("import: write %s: %w", to, err)
		}
		what := d.Command
		if d.Workload != "" {
			what += " of " + d.Workload
		}
		fmt.Fprintf(stdout, "%s: %s (%s, binding %s): %s operations in %.3f s, %s ops/s -> %s\n", f, what, d.Driver, d.Binding,
			format.Thousands(d.Operations), d.RuntimeMs/1000, format.Round(d.Throughput), to)
	}
	return ExitOK, nil
}

// readYCSB reads the YCSB output at path, at most maxImportBytes of it.
// One that never answers (a named pipe nobody writes) gives way when ctx
// ends; the read left behind ends with the process.
func readYCSB(ctx context.Context, path string) (*result.Doc, error) {
	type answer struct {
		d   *result.Doc
		err error
	}
	done := make(chan answer, 1)
	go func() {
		d, err := readYCSBFile(path)
		done <- answer{d, err}
	}()
	select {
	case a := <-done:
		return a.d, a.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func readYCSBFile(path string) (*result.Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > maxImportBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than %s", path, st.Size(), format.Bytes(maxImportBytes))
	}
	lr := &io.LimitedReader{R: f, N: maxImportBytes + 1}
	d, err := ycsbtext.Read(lr, path)
	if lr.N <= 0 {
		return nil, fmt.Errorf("%s: more than %s", path, format.Bytes(maxImportBytes))
	}
	return d, err
}
