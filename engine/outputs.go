package engine

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/output"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// Writers are where a phase writes what goes to no file of its own: YCSB's
// text report goes to Stdout (unless exportfile names a file; with
// measurementtype=timeseries the status lines go there too, as in YCSB),
// status lines, the progress line and the run's summary to Stderr.
// Either may be nil: nothing is written there.
type Writers struct {
	Stdout, Stderr io.Writer
	// Bar draws a progress line on Stderr (a terminal).
	Bar bool
}

// Execute runs the phase as Run does and writes every output its
// properties ask for, the same whoever calls it (the command line, a plan,
// a spread phase's client, a Go program): the text report (exportfile or
// w.Stdout), the result document (result.file), the time series as CSV
// (timeseries.file), HdrHistogram interval logs (hdrhistogram.fileoutput,
// hdrhistogram.log), raw samples (measurement.raw.output_file), status
// lines (status), Prometheus metrics (metrics.addr). Files are opened
// before the run, so a bad path fails now (a *SpecError) and not after an
// hour of measuring, and written whole or not at all (package atomicfile)
// when it ends, also when it was interrupted or failed. obs are the
// caller's own observers. The Result is returned with the first error
// met in writing.
func (s *Setup) Execute(ctx context.Context, w Writers, obs ...runner.Observer) (*Result, error) {
	out, mopts := s.Outputs, s.measurements // the setup stays as checked
	files, err := openOutputs(out)
	if err != nil {
		return nil, bad(err)
	}
	defer files.abort() // whatever is not committed keeps what its path held
	if w.Stdout == nil {
		w.Stdout = io.Discard
	}
	if w.Stderr == nil {
		w.Stderr = io.Discard
	}
	status := &output.Status{W: w.Stderr, Every: out.StatusEvery, Label: out.Label, Lines: out.Status, Bar: w.Bar}
	if mopts.TimeSeries != nil {
		mopts.TimeSeries = &output.Buckets{Enabled: true} // this run's own
		status.Also = w.Stdout                            // YCSB's timeseries type prints status lines on standard output too
	}
	all := append([]runner.Observer{status, mopts.TimeSeries}, obs...)
	var hlogs []*output.Hlog
	if out.HdrFiles {
		hlogs = append(hlogs, &output.Hlog{Prefix: out.HdrPath, Ext: ".hdr", Options: &mopts})
	}
	if out.HlogPrefix != "" {
		hlogs = append(hlogs, &output.Hlog{Prefix: out.HlogPrefix, Ext: ".hlog", Options: &mopts})
	}
	for _, h := range hlogs {
		all = append(all, h)
	}
	if out.MetricsAddr != "" {
		m, stop, err := s.serveMetrics(out.MetricsAddr, w.Stderr)
		if err != nil {
			return nil, bad(err)
		}
		defer stop()
		all = append(all, m)
	}
	res, err := s.Run(ctx, all...)
	if err != nil {
		return nil, err
	}
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, h := range hlogs {
		keep(h.Close())
	}
	if files.raw != nil {
		mopts.RawOut = files.raw
	}
	res.measurements = mopts
	if err := res.WriteText(files.text(w.Stdout)); err != nil {
		keep(fmt.Errorf("report: %w", err))
	}
	for _, l := range res.Summary() {
		fmt.Fprintf(w.Stderr, "servbench: %s\n", l)
	}
	keep(files.writeDoc(res.Doc))
	if first == nil {
		keep(files.commit())
	}
	return res, first
}

// outFiles are a run's output files, each written whole or not at all.
type outFiles struct {
	export, json, csv *atomicfile.File
	raw               *os.File // measurement.raw.output_file, appended to as YCSB does
}

func openOutputs(out Outputs) (*outFiles, error) {
	what := []string{"exportfile", "-o (result.file)", "--csv (timeseries.file)", "measurement.raw.output_file"}
	paths := []string{out.ExportFile, out.ResultFile, out.SeriesFile, out.RawFile}
	if i, j, dup := atomicfile.SamePath(paths); dup {
		return nil, fmt.Errorf("output file %s is named by both %s and %s", paths[j], what[i], what[j])
	}
	f := &outFiles{}
	for _, x := range []struct {
		path string
		dst  **atomicfile.File
	}{{out.ExportFile, &f.export}, {out.ResultFile, &f.json}, {out.SeriesFile, &f.csv}} {
		if x.path == "" {
			continue
		}
		fh, err := atomicfile.Create(x.path)
		if err != nil {
			f.abort()
			return nil, fmt.Errorf("output file: %w", err)
		}
		*x.dst = fh
	}
	if out.RawFile != "" {
		fh, err := os.OpenFile(out.RawFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			f.abort()
			return nil, fmt.Errorf("output file: %w", err)
		}
		f.raw = fh
	}
	return f, nil
}

// text is where the text report goes: exportfile, else stdout.
func (f *outFiles) text(stdout io.Writer) io.Writer {
	if f.export != nil {
		return f.export
	}
	return stdout
}

// writeDoc writes the result document (result.file) and its time series
// (timeseries.file), asking doc for it only when one of them is wanted.
func (f *outFiles) writeDoc(doc func() *result.Doc) error {
	if f.json == nil && f.csv == nil {
		return nil
	}
	d := doc()
	if f.json != nil {
		if err := result.WriteJSON(f.json, d); err != nil {
			return fmt.Errorf("write %s: %w", f.json.Path(), err)
		}
	}
	if f.csv != nil {
		if err := result.WriteCSV(f.csv, d); err != nil {
			return fmt.Errorf("write %s: %w", f.csv.Path(), err)
		}
	}
	return nil
}

// abort drops the output files not committed: every path keeps what it
// held.
func (f *outFiles) abort() {
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

// serveMetrics serves the phase's Prometheus metrics on addr (property
// metrics.addr) until stop is called; with port 0 it says which port it
// took.
func (s *Setup) serveMetrics(addr string, log io.Writer) (*output.Metrics, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics.addr: %w", err)
	}
	run := s.Outputs.Label
	if run == "" && !s.Client.StartAt.IsZero() {
		run = s.Client.StartAt.UTC().Format(time.RFC3339Nano) // the same for every client of a spread phase
	}
	if run == "" {
		run = time.Now().UTC().Format(time.RFC3339)
	}
	m := &output.Metrics{
		Labels: map[string]string{"run": run, "client": strconv.Itoa(s.Client.Index),
			"workload": WorkloadName(s.Props), "binding": s.Spec.Binding},
		Target: s.Runner.Rate, LateThreshold: s.measurements.LateThreshold, CPU: CPUTime,
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	if _, port, _ := net.SplitHostPort(addr); port == "0" {
		fmt.Fprintf(log, "servbench: metrics on http://%s/metrics\n", ln.Addr())
	}
	return m, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}

// WriteDocText writes YCSB's text report of a result document (a spread
// phase's merged result) as the phase's measurement properties ask, from
// the document alone: what it does not keep (raw samples, CLEANUP) is
// left out.
func (s *Setup) WriteDocText(w io.Writer, d *result.Doc) error {
	res, err := output.FromDoc(d)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	o := s.measurements
	o.Kinds = slices.DeleteFunc(slices.Clone(o.Kinds), func(k output.Kind) bool { return k == output.KindRaw })
	o.TimeSeries, o.RawOut = nil, nil
	return output.WriteText(w, res, o)
}

// WriteMerged writes the outputs of a phase spread over clients from their
// merged result d, as Execute writes a single run's: the result document
// (result.file), the time series as CSV (timeseries.file) and YCSB's text
// report (exportfile, else w.Stdout), each whole or not at all. The
// outputs that do not merge (HdrHistogram logs, raw samples) are refused
// by the command before the clients start.
func (s *Setup) WriteMerged(d *result.Doc, w Writers) error {
	out := s.Outputs
	files, err := openOutputs(Outputs{ExportFile: out.ExportFile, ResultFile: out.ResultFile, SeriesFile: out.SeriesFile})
	if err != nil {
		return err
	}
	defer files.abort()
	if text := files.text(w.Stdout); text != nil {
		if err := s.WriteDocText(text, d); err != nil {
			return err
		}
	}
	if err := files.writeDoc(func() *result.Doc { return d }); err != nil {
		return err
	}
	return files.commit()
}
