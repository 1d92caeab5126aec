package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/report"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/workload"
	"golang.org/x/term"
)

// phase runs "load" or "run": parse and check everything, open the
// binding, run, and write every requested output, also when the run was
// interrupted.
func phase(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) (int, error) {
	pa, err := parsePhase(cmd, args, stderr)
	if err != nil {
		return ExitUsage, err
	}
	if pa.help {
		fmt.Fprint(stdout, phaseUsage)
		return ExitOK, nil
	}
	ps, err := preparePhase(cmd, pa)
	if err != nil {
		return ExitUsage, err
	}
	for _, w := range ps.warnings {
		fmt.Fprintf(stderr, "servbench: %s\n", w)
	}
	p, load, b, w, rcfg, ropts, out := pa.props, ps.load, ps.b, ps.w, ps.rcfg, ps.ropts, ps.out
	// Create output files before the run, so a bad path fails now and not
	// after an hour of measuring.
	files, err := openOutputs(pa, out)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	written := false
	defer func() {
		if !written { // failed before measuring: leave no empty files
			files.remove()
		}
	}()

	d, err := b.Open(ctx, p)
	if err != nil {
		var pe *props.Error
		if errors.As(err, &pe) {
			return ExitUsage, usageError{err}
		}
		return ExitFailure, fmt.Errorf("%s: %w", pa.binding, err)
	}
	closed := false
	closeDB := func() error {
		if closed {
			return nil
		}
		closed = true
		return d.Close()
	}
	defer closeDB()

	ephemeral := false
	if e, ok := d.(db.Ephemeral); ok && e.Ephemeral() {
		ephemeral = true
	}
	if pr, ok := d.(db.Preparer); ok {
		if err := pr.Prepare(ctx, w.Cfg.Table, load || ephemeral); err != nil {
			return ExitFailure, fmt.Errorf("%s: prepare: %w", pa.binding, err)
		}
	}
	queryModel, err := declareIndex(ctx, w.Cfg, d, pa.binding, load || ephemeral)
	if err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			return ExitUsage, err
		}
		return ExitFailure, err
	}
	if queryModel != "" {
		fmt.Fprintf(stderr, "servbench: queries on %s: %s\n", w.Cfg.QueryField, queryModel)
	}
	if ephemeral {
		if load {
			fmt.Fprintf(stderr, "servbench: %s store is temporary and removed at exit; give -p %s.dir=DIR to keep it for a run\n", pa.binding, pa.binding)
		} else if err := preload(ctx, p, d, stderr); err != nil {
			if ctx.Err() != nil {
				fmt.Fprintln(stderr, "servbench: interrupted while loading; nothing was measured")
				return ExitInterrupted, nil
			}
			return ExitFailure, err
		}
	}
	server := ""
	if ds, ok := d.(db.Describer); ok {
		if v, err := ds.ServerVersion(ctx); err == nil {
			server = v
		}
	}

	series := &report.Series{}
	status := &report.Status{W: stderr, Every: out.statusEvery, Label: out.label, Lines: out.status, Bar: isTerminal(stderr)}
	if ropts.TimeSeries != nil {
		status.Also = stdout // YCSB's timeseries type prints status lines on standard output too
	}
	obs := runner.Observers{status, series, ropts.TimeSeries}
	var hlogs []*report.Hlog
	if out.hdrFiles {
		hlogs = append(hlogs, &report.Hlog{Prefix: out.hdrPath, Ext: ".hdr", Options: &ropts})
	}
	if pa.hlog != "" {
		hlogs = append(hlogs, &report.Hlog{Prefix: pa.hlog, Ext: ".hlog", Options: &ropts})
	}
	for _, h := range hlogs {
		obs = append(obs, h)
	}
	cpu0 := cpuTime()
	res, err := runner.Run(ctx, rcfg, w, d, obs)
	if err != nil {
		return ExitFailure, err
	}
	cpu := cpuTime() - cpu0
	var hlogErr error
	for _, h := range hlogs {
		if err := h.Close(); err != nil && hlogErr == nil {
			hlogErr = err
		}
	}
	written = true
	// Close first so a binding's buffered output precedes the report,
	// unless threads are stuck inside the binding, where closing could
	// hang: then the results are written and the process just exits.
	var cerr error
	if res.StuckThreads == 0 {
		cerr = closeDB()
	} else {
		closed = true
	}

	if files.raw != nil {
		ropts.RawOut = files.raw
	}
	if err := report.WriteText(files.text(stdout), res, ropts); err != nil {
		return ExitFailure, fmt.Errorf("report: %w", err)
	}
	facts := ranFacts{
		load: load, binding: pa.binding, server: server, embedded: embedded(d), workload: workloadLabel(p),
		records: w.Cfg.RecordCount, late: ropts.LateThreshold, cpu: cpu, cores: cores(),
	}
	if load {
		facts.records = w.Cfg.InsertCount
	}
	for _, l := range summarize(facts, res) {
		fmt.Fprintf(stderr, "servbench: %s\n", l)
	}
	if files.json != nil || files.csv != nil {
		doc := report.NewDoc(res, series.Points, report.Meta{
			Command: cmd, Binding: pa.binding, Server: server, Workload: workloadName(p),
			Label: out.label, QueryModel: queryModel, Properties: p.Redacted(),
		}, ropts)
		if files.json != nil {
			if err := report.WriteJSON(files.json, doc); err != nil {
				return ExitFailure, fmt.Errorf("write %s: %w", pa.json, err)
			}
		}
		if files.csv != nil {
			if err := report.WriteCSV(files.csv, doc); err != nil {
				return ExitFailure, fmt.Errorf("write %s: %w", pa.csv, err)
			}
		}
	}
	if err := files.close(); err != nil {
		return ExitFailure, err
	}
	if hlogErr != nil {
		return ExitFailure, hlogErr
	}
	switch res.Reason {
	case runner.Interrupted:
		fmt.Fprintln(stderr, "servbench: interrupted; the results so far were written")
		return ExitInterrupted, nil
	case runner.Failed, runner.LoadFailures:
		return ExitFailure, res.Err
	}
	if cerr != nil {
		return ExitFailure, fmt.Errorf("%s: close: %w", pa.binding, cerr)
	}
	return ExitOK, nil
}

// phaseSetup is everything a phase needs that can be checked without
// touching a database.
type phaseSetup struct {
	load     bool
	b        db.Binding
	warnings []string
	w        *workload.Workload
	rcfg     runner.Config
	ropts    report.Options
	out      outputs
}

// preparePhase checks a phase's binding and properties and builds its
// workload and runner configuration; every error is bad input.
func preparePhase(cmd string, pa *phaseArgs) (*phaseSetup, error) {
	p := pa.props
	ps := &phaseSetup{load: cmd == "load"}
	var err error
	if ps.b, err = db.Lookup(pa.binding); err != nil {
		return nil, usageError{err}
	}
	if err := workload.CheckClass(p); err != nil {
		return nil, usageError{err}
	}
	if ps.warnings, err = checkProperties(p, pa.binding, ps.b); err != nil {
		return nil, usageError{err}
	}
	if ps.w, err = workload.New(p, !ps.load); err != nil {
		return nil, usageError{err}
	}
	if ps.rcfg, err = runner.ParseConfig(p, ps.load); err != nil {
		return nil, usageError{err}
	}
	if ps.ropts, ps.out, err = outputOptions(p); err != nil {
		return nil, usageError{err}
	}
	ps.rcfg.KeepRaw = slices.Contains(ps.ropts.Kinds, report.KindRaw)
	if slices.Contains(ps.ropts.Kinds, report.KindTimeSeries) {
		// YCSB's timeseries averages over timeseries.granularity: the
		// intervals follow it unless timeseries.interval is given, and
		// then must divide it.
		if _, set := p.Get("timeseries.interval"); !set {
			ps.rcfg.Interval = ps.ropts.Granularity
		} else if ps.ropts.Granularity%ps.rcfg.Interval != 0 {
			return nil, usageError{p.Errorf("timeseries.granularity", "%v is not a multiple of timeseries.interval (%v)", ps.ropts.Granularity, ps.rcfg.Interval)}
		}
		ps.ropts.TimeSeries = &report.Buckets{Enabled: true}
	}
	return ps, nil
}

// declareIndex tells the binding which field the workload queries, and
// asks it to create the index when createindexes is set and the phase
// loads data. It returns the binding's note on how it answers the query.
func declareIndex(ctx context.Context, cfg *workload.Config, d db.DB, binding string, loading bool) (string, error) {
	if cfg.Query > 0 {
		if _, ok := d.(db.Querier); !ok {
			return "", usageError{fmt.Errorf("query1proportion is %g but binding %s does not answer queries", cfg.Query, binding)}
		}
	}
	ix, ok := d.(db.Indexer)
	if cfg.QueryField == "" || !ok {
		return "", nil
	}
	q := db.NewQuery(cfg.QueryField)
	note, err := ix.Index(ctx, cfg.Table, db.Index{Field: q.Field, Path: q.Path, Create: cfg.CreateIndexes && loading})
	if err != nil {
		return "", fmt.Errorf("%s: index on %s: %w", binding, cfg.QueryField, err)
	}
	return note, nil
}

// preload fills an empty temporary store with the workload's records
// before a run phase: load with the same properties, unthrottled.
func preload(ctx context.Context, p *props.Props, d db.DB, stderr io.Writer) error {
	lp := p.Clone()
	lp.Set("target", "0", "preload")
	lp.Set("maxexecutiontime", "0", "preload")
	w, err := workload.New(lp, false)
	if err != nil {
		return usageError{err}
	}
	cfg, err := runner.ParseConfig(lp, true)
	if err != nil {
		return usageError{err}
	}
	fmt.Fprintf(stderr, "servbench: no pebble.dir given: loading %d records into a temporary store first\n", w.Cfg.InsertCount)
	start := time.Now()
	res, err := runner.Run(ctx, cfg, w, d, nil)
	if err != nil {
		return err
	}
	if res.Reason != runner.Completed {
		if res.Err != nil {
			return fmt.Errorf("preload: %w", res.Err)
		}
		return fmt.Errorf("preload: %s", res.Reason)
	}
	fmt.Fprintf(stderr, "servbench: loaded in %s\n", time.Since(start).Round(time.Millisecond))
	return nil
}

type outputs struct {
	rawFile     string // measurement.raw.output_file
	hdrFiles    bool   // hdrhistogram.fileoutput
	hdrPath     string // hdrhistogram.output.path
	status      bool
	statusEvery time.Duration
	label       string
	exportFile  string
}

func outputOptions(p *props.Props) (report.Options, outputs, error) {
	var o report.Options
	var out outputs
	var err error
	mt := p.String("measurementtype", "hdrhistogram")
	var known bool
	if o.Kinds, known = report.MeasurementTypes(mt); !known {
		return o, out, p.Errorf("measurementtype", "%q is not one of %s", mt, strings.Join(report.MeasurementTypeNames(), ", "))
	}
	if v, ok := p.Get("exporter"); ok && !strings.HasSuffix(v, "TextMeasurementsExporter") {
		return o, out, p.Errorf("exporter", "%q is not supported: the text report is YCSB's; use -o FILE.json for JSON", v)
	}
	if _, set := p.Get("measurement.interval"); set {
		iv, err := p.OneOf("measurement.interval", "", "op", "intended", "both")
		if err != nil {
			return o, out, err
		}
		o.Interval = report.Interval(iv)
	}
	buckets, err := p.Int64Min("histogram.buckets", 1000, 1)
	if err != nil {
		return o, out, err
	}
	if buckets > 10_000_000 {
		return o, out, p.Errorf("histogram.buckets", "%d is more than 10000000", buckets)
	}
	o.Buckets = int(buckets)
	if o.BucketLines, err = p.Bool("measurement.histogram.verbose", false); err != nil {
		return o, out, err
	}
	gran, err := p.FloatRange("timeseries.granularity", 1000, 10, 3600e3)
	if err != nil {
		return o, out, err
	}
	o.Granularity = time.Duration(gran * float64(time.Millisecond))
	out.rawFile = p.String("measurement.raw.output_file", "")
	if o.RawNoSummary, err = p.Bool("measurement.raw.no_summary", false); err != nil {
		return o, out, err
	}
	if out.hdrFiles, err = p.Bool("hdrhistogram.fileoutput", false); err != nil {
		return o, out, err
	}
	out.hdrPath = p.String("hdrhistogram.output.path", "")
	if o.Percentiles, err = p.Floats("hdrhistogram.percentiles", "50,95,99"); err != nil {
		return o, out, err
	}
	for _, pc := range o.Percentiles {
		if pc <= 0 || pc > 100 {
			return o, out, p.Errorf("hdrhistogram.percentiles", "%v is not a percentile in (0, 100]", pc)
		}
	}
	if o.EachError, err = p.Bool("reportlatencyforeacherror", false); err != nil {
		return o, out, err
	}
	for _, name := range strings.Split(p.String("latencytrackederrors", ""), ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		s, ok := db.ParseStatus(name)
		if !ok {
			return o, out, p.Errorf("latencytrackederrors", "%q is not a status name", name)
		}
		o.Tracked[s] = true
	}
	late, err := p.FloatRange("schedule.latethreshold", 1, 0, 3600e3)
	if err != nil {
		return o, out, err
	}
	o.LateThreshold = time.Duration(late * float64(time.Millisecond))
	if out.status, err = p.Bool("status", false); err != nil {
		return o, out, err
	}
	every, err := p.FloatRange("status.interval", 10, 0.001, 365*86400)
	if err != nil {
		return o, out, err
	}
	out.statusEvery = time.Duration(every * float64(time.Second))
	out.label = p.String("label", "")
	out.exportFile = p.String("exportfile", "")
	return o, out, nil
}

type outFiles struct {
	export, json, csv *os.File
	raw               *os.File // measurement.raw.output_file, appended to as YCSB does
}

func openOutputs(pa *phaseArgs, out outputs) (*outFiles, error) {
	f := &outFiles{}
	for _, x := range []struct {
		path string
		dst  **os.File
	}{{out.exportFile, &f.export}, {pa.json, &f.json}, {pa.csv, &f.csv}} {
		if x.path == "" {
			continue
		}
		fh, err := os.Create(x.path)
		if err != nil {
			f.close()
			return nil, fmt.Errorf("output file: %w", err)
		}
		*x.dst = fh
	}
	if out.rawFile != "" {
		fh, err := os.OpenFile(out.rawFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			f.close()
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

// remove closes and deletes the output files.
func (f *outFiles) remove() {
	for _, fh := range []*os.File{f.export, f.json, f.csv} {
		if fh != nil {
			os.Remove(fh.Name())
		}
	}
	f.close()
}

func (f *outFiles) close() error {
	var first error
	for _, fh := range []**os.File{&f.export, &f.json, &f.csv, &f.raw} {
		if *fh != nil {
			if err := (*fh).Close(); err != nil && first == nil {
				first = fmt.Errorf("close %s: %w", (*fh).Name(), err)
			}
			*fh = nil
		}
	}
	return first
}

// workloadLabel names the workload for people: its file, or its class when
// the properties came from elsewhere.
func workloadLabel(p *props.Props) string {
	n := workloadName(p)
	if b, ok := strings.CutPrefix(n, "workload "); ok {
		return "workload " + strings.ToUpper(b) // built in: "workload A"
	}
	if n != "" {
		return "workload " + n
	}
	return "CoreWorkload"
}

// embedded reports whether the store runs inside this process.
func embedded(d db.DB) bool {
	_, ok := d.(db.Ephemeral)
	return ok
}

func workloadName(p *props.Props) string {
	for _, k := range []string{"workload"} {
		if src := p.Source(k); src != "" {
			src, _, _ = strings.Cut(src, ":")
			return src
		}
	}
	return ""
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
