package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/result"
)

const mergeUsage = `usage: servbench merge RESULT.json RESULT.json... -o MERGED.json

Combines the results of clients that ran at the same time (one per load
machine) into one: histograms added exactly, latencies recomputed from them,
throughput summed over the window all clients were running.
`

func merge(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("servbench merge", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	out := fs.String("o", "", "")
	files, err := flagsAnywhere(fs, args)
	if err == flag.ErrHelp {
		fmt.Fprint(stdout, mergeUsage)
		return ExitOK, nil
	}
	if err != nil {
		return ExitUsage, badf("merge: %v", err)
	}
	if *out == "" {
		return ExitUsage, badf("merge: no output file (-o MERGED.json)")
	}
	if i, j, dup := atomicfile.SamePath(append(slices.Clone(files), *out)); dup {
		if j == len(files) {
			return ExitUsage, badf("merge: -o %s is the result %s, which is merged: give another output file", *out, files[i])
		}
		return ExitUsage, badf("merge: %s and %s are the same result: each client's result once", files[i], files[j])
	}
	var docs []*result.Doc
	for _, f := range files {
		d, err := readStoppable(ctx, f, func() (*result.Doc, error) { return result.ReadFile(f) })
		if errors.Is(err, errStopped) {
			return ExitInterrupted, fmt.Errorf("merge: %w", err)
		}
		if err != nil {
			return ExitUsage, badf("merge: %v", err)
		}
		docs = append(docs, d)
	}
	m, err := result.Merge(docs)
	if err != nil {
		return ExitUsage, usageError{errors.New(format.Printable(err.Error()))} // it may quote a result's names
	}
	if err := atomicfile.WriteFile(*out, func(w io.Writer) error { return result.WriteJSON(w, m) }); err != nil {
		return ExitFailure, fmt.Errorf("merge: write %s: %w", *out, err)
	}
	sum := &stickyWriter{w: stdout}
	stdout = sum
	fmt.Fprintf(stdout, "merged %d clients: common window %.1f s, %s ops/s, %s operations (%s ok)\n",
		m.Clients, m.RuntimeMs/1000, format.Round(m.Throughput), format.Thousands(m.Operations), format.Thousands(m.OKOperations))
	for _, o := range m.Ops {
		if o.Latency != nil {
			fmt.Fprintf(stdout, "  %-18s %13s  avg %s µs  p99 %s µs\n", format.Printable(o.Name), format.Thousands(o.Count), format.Round(o.Latency.MeanUs), format.Round(o.Latency.Percentiles["99"]))
		}
	}
	if sum.err != nil {
		return ExitFailure, fmt.Errorf("merge: wrote %s; its summary: %w", *out, sum.err)
	}
	return ExitOK, nil
}
