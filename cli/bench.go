package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/report"
	"github.com/servbench/servbench/workloads"
)

const benchUsage = `usage: servbench bench PLAN.yaml -o DIR

Runs every cell of an experiment plan (targets x workloads x records x
threads x rates x repetitions): loads each target once per record count,
writes one result JSON per run under DIR/runs and an index, DIR/index.json.
Rerunning the same plan into the same DIR skips the finished cells.
A plan with an slo: key steps threads (or the rate) upwards per target,
workload and record count, skips the steps past the first one over the
latency bound (and its after: steps), and reports the highest throughput
within the bound and the peak.

  -o DIR       where results go (required)
  --dry-run    check the plan and list the cells, run nothing
`

func isBuiltin(name string) bool {
	for _, n := range workloads.Names() {
		if n == name {
			return true
		}
	}
	return false
}

// bench runs a plan.
func bench(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
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
	pl, err := plan.Load(planFile, isBuiltin)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	r := &planRun{pl: pl, dir: *dir, stderr: stderr}
	if err := r.check(); err != nil {
		return ExitUsage, usageError{err}
	}
	cells := pl.Cells()
	if *dry {
		for i := range cells {
			fmt.Fprintf(stdout, "%s\n", cells[i].ID())
		}
		fmt.Fprintf(stdout, "%d runs, %d loads\n", len(cells), len(r.loads))
		return ExitOK, nil
	}
	if err := r.openDir(); err != nil {
		return ExitUsage, usageError{err}
	}
	return r.run(ctx, cells)
}

// planRun executes a plan into its directory.
type planRun struct {
	pl     *plan.Plan
	dir    string
	stderr io.Writer
	search *plan.Search        // the SLO search, when the plan has one
	docs   map[string]string   // target label + workload → document model (fields, customer)
	tables map[string]string   // target label + workload → table, when it gets a per-data-set suffix
	loads  map[string][]string // load key → the load phase's arguments
	index  plan.Index
}

// baseArgs are the phase arguments a cell shares with its load.
func (r *planRun) baseArgs(cmd string, t *plan.Target, w *plan.Workload, records int64) []string {
	args := []string{cmd, t.Binding}
	if w.File != "" {
		args = append(args, "-P", w.File)
	} else {
		args = append(args, "-w", w.Name)
	}
	for _, list := range [][]plan.Property{r.pl.Properties, t.Properties} {
		for _, p := range list {
			args = append(args, "-p", p.Key+"="+p.Value)
		}
	}
	args = append(args, "-p", "recordcount="+strconv.FormatInt(records, 10), "-l", t.Label)
	if table := r.tables[t.Label+"\x00"+w.Name]; table != "" {
		// One table per data set, so a server keeps each record count's.
		args = append(args, "-p", "table="+table+"_r"+strconv.FormatInt(records, 10))
	}
	return args
}

func (r *planRun) runArgs(c *plan.Cell) []string {
	args := r.baseArgs("run", c.Target, c.Workload, c.Records)
	args = append(args, "-threads", strconv.Itoa(c.Threads))
	if c.Rate > 0 {
		args = append(args, "-target", strconv.FormatFloat(c.Rate, 'f', -1, 64))
	}
	if r.pl.Warmup > 0 {
		args = append(args, "-p", "warmuptime="+strconv.FormatFloat(r.pl.Warmup, 'f', -1, 64))
	}
	if r.pl.Duration > 0 {
		args = append(args, "-p", "maxexecutiontime="+strconv.FormatFloat(r.pl.Duration, 'f', -1, 64))
	}
	args = append(args, "-p", "operationcount="+strconv.FormatInt(r.pl.OperationsOf(c.Records), 10))
	return append(args, r.dataDir(c.Target, c.Workload, c.Records)...)
}

// loadKey names a data set: one per target, record count and document
// model.
func (r *planRun) loadKey(t *plan.Target, w *plan.Workload, records int64) string {
	return fmt.Sprintf("%s-r%d-%s", t.Label, records, r.docs[t.Label+"\x00"+w.Name])
}

// dataDir keeps an embedded store's data under DIR/data, one directory per
// data set, unless the plan names one.
func (r *planRun) dataDir(t *plan.Target, w *plan.Workload, records int64) []string {
	if t.Binding != "pebble" || r.dir == "" {
		return nil
	}
	for _, p := range t.Properties {
		if p.Key == "pebble.dir" {
			return nil
		}
	}
	return []string{"-p", "pebble.dir=" + filepath.Join(r.dir, "data", r.loadKey(t, w, records))}
}

// check validates every run and load before anything runs: bindings,
// properties and workloads, as the phases themselves would.
func (r *planRun) check() error {
	r.docs, r.loads, r.tables = map[string]string{}, map[string][]string{}, map[string]string{}
	cells := r.pl.Cells()
	checked := map[string]*phaseSetup{} // repetitions and rates share their check
	for i := range cells {
		c := &cells[i]
		args := r.baseArgs("run", c.Target, c.Workload, c.Records)
		args = append(args, "-threads", strconv.Itoa(c.Threads))
		argKey := strings.Join(args, "\x00")
		ps, err := checked[argKey], error(nil)
		if ps == nil {
			ps, err = r.prepare("run", args)
			checked[argKey] = ps
		}
		if err != nil {
			return &plan.Error{File: r.pl.File, Line: c.Target.Line, Msg: fmt.Sprintf("target %s, workload %s (line %d): %s", c.Target.Label, c.Workload.Name, c.Workload.Line, oneLine(err))}
		}
		r.docs[c.Target.Label+"\x00"+c.Workload.Name] = ps.w.Cfg.Document
		tk := c.Target.Label + "\x00" + c.Workload.Name
		if _, named := r.tables[tk]; !named && len(r.pl.RecordsOf(c.Target)) > 1 && c.Target.Binding != "pebble" && !r.setsTable(c.Target) {
			r.tables[tk] = ps.w.Cfg.Table
		}
		key := r.loadKey(c.Target, c.Workload, c.Records)
		if _, ok := r.loads[key]; !ok {
			largs := r.baseArgs("load", c.Target, c.Workload, c.Records)
			largs = append(largs, "-threads", strconv.Itoa(r.pl.LoadThreads))
			if _, err := r.prepare("load", largs); err != nil {
				return &plan.Error{File: r.pl.File, Line: c.Target.Line, Msg: fmt.Sprintf("loading %s: %s", key, oneLine(err))}
			}
			r.loads[key] = append(largs, r.dataDir(c.Target, c.Workload, c.Records)...)
		}
	}
	return nil
}

// setsTable reports whether the plan names the table for target t.
func (r *planRun) setsTable(t *plan.Target) bool {
	for _, list := range [][]plan.Property{r.pl.Properties, t.Properties} {
		for _, p := range list {
			if p.Key == "table" {
				return true
			}
		}
	}
	return false
}

func (r *planRun) prepare(cmd string, args []string) (*phaseSetup, error) {
	pa, err := parsePhase(cmd, args[1:], io.Discard)
	if err != nil {
		return nil, err
	}
	return preparePhase(cmd, pa)
}

// openDir creates DIR, keeps a copy of the plan in it, refuses a DIR that
// holds another plan's results, and reads the index of earlier runs.
func (r *planRun) openDir() error {
	if err := os.MkdirAll(filepath.Join(r.dir, "runs"), 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	text, err := os.ReadFile(r.pl.File)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	kept := filepath.Join(r.dir, "plan.yaml")
	if old, err := os.ReadFile(kept); err == nil && !bytes.Equal(old, text) {
		return fmt.Errorf("bench: %s holds the results of another plan (%s differs from %s); give another -o", r.dir, kept, r.pl.File)
	}
	if err := os.WriteFile(kept, text, 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	r.index = plan.Index{Format: plan.IndexFormat, Version: 1, Plan: r.pl.Name, File: r.pl.File}
	return nil
}

// done reports whether a result file holds a finished run.
func done(path string) (*report.Doc, bool) {
	d, err := report.ReadFile(path)
	if err != nil {
		return nil, false
	}
	return d, d.Stop == "completed" || d.Stop == "maxexecutiontime"
}

// run executes the cells not finished yet, loading each data set before
// its first run.
func (r *planRun) run(ctx context.Context, cells []plan.Cell) (int, error) {
	start := time.Now()
	failed, ran, skipped := 0, 0, 0
	var runTime time.Duration
	loaded := map[string]error{}
	if r.pl.SLO != nil {
		r.search = r.pl.SLO.NewSearch()
	}
	for i := range cells {
		c := &cells[i]
		ic := newIndexCell(c)
		if r.search != nil {
			if why, skip := r.search.Skip(c); skip {
				ic.Status, ic.Error, ic.Result = "skipped", why, ""
				r.index.Cells = append(r.index.Cells, ic)
				fmt.Fprintf(r.stderr, "servbench: [%d/%d] %s: skipped, %s\n", i+1, len(cells), ic.ID, why)
				continue
			}
		}
		path := filepath.Join(r.dir, ic.Result)
		if d, ok := done(path); ok {
			r.finish(c, &ic, d)
			r.index.Cells = append(r.index.Cells, ic)
			skipped++
			continue
		}
		key := r.loadKey(c.Target, c.Workload, c.Records)
		lerr, tried := loaded[key]
		if !tried {
			lerr = r.load(ctx, key)
			loaded[key] = lerr
		}
		if ctx.Err() != nil {
			return r.stop(ExitInterrupted, cells[i:])
		}
		if lerr != nil {
			ic.Status, ic.Error = "failed", "load: "+oneLine(lerr)
			r.index.Cells = append(r.index.Cells, ic)
			failed++
			r.writeIndex()
			continue
		}
		t0 := time.Now()
		code, err := r.phaseTo(ctx, "run", append(r.runArgs(c), "-o", path), filepath.Join(r.dir, "runs", c.ID()))
		runTime += time.Since(t0)
		ran++
		d, ok := done(path)
		switch {
		case code == ExitInterrupted || ctx.Err() != nil:
			ic.Status = "interrupted"
			r.index.Cells = append(r.index.Cells, ic)
			return r.stop(ExitInterrupted, cells[i+1:])
		case ok:
			r.finish(c, &ic, d)
		default:
			ic.Status = "failed"
			if err != nil {
				ic.Error = oneLine(err)
			} else if d != nil && d.Error != "" {
				ic.Error = d.Error
			}
			failed++
		}
		r.index.Cells = append(r.index.Cells, ic)
		r.writeIndex()
		left := len(cells) - i - 1
		eta := time.Duration(0)
		if ran > 0 {
			eta = runTime / time.Duration(ran) * time.Duration(left)
		}
		fmt.Fprintf(r.stderr, "servbench: [%d/%d] %s: %s (elapsed %s, about %s left)\n", i+1, len(cells), ic.ID,
			outcome(&ic), time.Since(start).Round(time.Second), eta.Round(time.Second))
	}
	r.writeIndex()
	fmt.Fprintf(r.stderr, "servbench: plan %s: %d runs done now, %d found done, %d failed; index %s\n",
		r.pl.Name, ran-failed, skipped, failed, filepath.Join(r.dir, "index.json"))
	if r.index.SLO != nil {
		r.printSLO()
	}
	if failed > 0 {
		return ExitFailure, fmt.Errorf("bench: %d of %d runs failed (see %s)", failed, len(cells), filepath.Join(r.dir, "index.json"))
	}
	return ExitOK, nil
}

// printSLO says, per curve, the highest throughput within the SLO and the
// peak.
func (r *planRun) printSLO() {
	x := r.index.SLO
	fmt.Fprintf(r.stderr, "servbench: SLO %s\n", r.pl.SLO)
	for _, c := range x.Curves {
		best := "no step within the bound"
		if c.Best != nil {
			best = fmt.Sprintf("best %.0f ops/s at %s %g (%s %.3f ms)", c.Best.Throughput, x.Step, c.Best.Step, x.Latency, c.Best.LatencyUs/1000)
		}
		broke := "never broken"
		if c.BrokeAt > 0 {
			broke = fmt.Sprintf("broken at %s %g", x.Step, c.BrokeAt)
		}
		peak := ""
		if c.Peak != nil {
			peak = fmt.Sprintf("; peak %.0f ops/s at %s %g", c.Peak.Throughput, x.Step, c.Peak.Step)
		}
		fmt.Fprintf(r.stderr, "servbench:   %s: %s, %s%s\n", c.Series, best, broke, peak)
	}
}

func newIndexCell(c *plan.Cell) plan.IndexCell {
	return plan.IndexCell{
		ID: c.ID(), Target: c.Target.Label, Binding: c.Target.Binding, System: c.Target.System, Nodes: c.Target.Nodes, PricePerHour: c.Target.PriceHour,
		Workload: c.Workload.Name, Records: c.Records, Threads: c.Threads, Rate: c.Rate, Repetition: c.Repetition,
		Result: filepath.Join("runs", c.ID()+".json"), Status: "pending",
	}
}

func outcome(ic *plan.IndexCell) string {
	if ic.Status != "done" {
		return ic.Status + ": " + ic.Error
	}
	s := strconv.FormatFloat(ic.Throughput, 'f', 0, 64) + " ops/s"
	if ic.CostPerBillion > 0 {
		s += fmt.Sprintf(", %.2f per billion operations", ic.CostPerBillion)
	}
	return s
}

func (r *planRun) finish(c *plan.Cell, ic *plan.IndexCell, d *report.Doc) {
	ic.Status, ic.Throughput, ic.FailedPct = "done", d.Throughput, plan.FailedPct(d)
	ic.CostPerBillion = plan.CostPerBillion(ic.PricePerHour, d.Throughput)
	if r.search != nil {
		ic.SLOLatencyUs, _ = r.pl.SLO.Value(d)
		r.search.Add(c, d.Throughput, ic.SLOLatencyUs, ic.FailedPct)
	}
}

// stop records the cells not run as pending and ends the plan.
func (r *planRun) stop(code int, rest []plan.Cell) (int, error) {
	for i := range rest {
		r.index.Cells = append(r.index.Cells, newIndexCell(&rest[i]))
	}
	r.writeIndex()
	fmt.Fprintf(r.stderr, "servbench: plan interrupted; %d runs left; run the same command again to finish them\n", len(rest))
	return code, nil
}

// load runs the load phase of a data set unless it was loaded before.
func (r *planRun) load(ctx context.Context, key string) error {
	out := filepath.Join(r.dir, "loads", key)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if _, ok := done(out + ".json"); ok {
		return nil
	}
	fmt.Fprintf(r.stderr, "servbench: loading %s\n", key)
	code, err := r.phaseTo(ctx, "load", append(r.loads[key], "-o", out+".json"), out)
	if err != nil {
		return err
	}
	if code != ExitOK {
		return fmt.Errorf("load exited with %d (see %s.log)", code, out)
	}
	return nil
}

// phaseTo runs a phase with its report in base.txt and its messages in
// base.log.
func (r *planRun) phaseTo(ctx context.Context, cmd string, args []string, base string) (int, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return ExitFailure, err
	}
	txt, err := os.Create(base + ".txt")
	if err != nil {
		return ExitFailure, err
	}
	defer txt.Close()
	lg, err := os.Create(base + ".log")
	if err != nil {
		return ExitFailure, err
	}
	defer lg.Close()
	code, err := phase(ctx, cmd, args[1:], txt, lg)
	if err != nil {
		fmt.Fprintf(lg, "servbench: %s\n", oneLine(err))
	}
	return code, err
}

// writeIndex replaces DIR/index.json, with the SLO search so far.
func (r *planRun) writeIndex() {
	if r.search != nil {
		r.index.SLO = r.search.Result()
	}
	if err := plan.WriteIndex(r.dir, &r.index); err != nil {
		fmt.Fprintf(r.stderr, "servbench: index: %v\n", err)
	}
}
