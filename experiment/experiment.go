// Package experiment runs an experiment plan (package plan; the command
// servbench bench) into a results directory: one load per data set, one
// run per cell and repetition, each through the phase driver (package
// phase), one result document per run and an index of them all.
//
// Invariants:
//   - A run whose result file holds a finished run is never run again:
//     rerunning a plan into its directory finishes what is left.
//   - DIR/index.json is rewritten after every run, so it always describes
//     the directory as it is.
package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/internal/inputfile"
	"github.com/servbench/servbench/phase"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/sink"
	"github.com/servbench/servbench/workloads"
)

// ErrInterrupted is returned when the context ended before the plan was
// finished; the index says which runs are left.
var ErrInterrupted = errors.New("plan interrupted")

// New returns a runner of pl writing into dir (which may be empty for a
// check alone); progress lines go to log.
func New(pl *plan.Plan, dir string, log io.Writer) *Runner {
	return &Runner{pl: pl, dir: dir, stderr: log}
}

// Check validates every run and load of the plan before anything runs:
// bindings, properties and workloads, as the engine itself would. Its
// errors are *plan.Error, bad input.
func (r *Runner) Check() error { return r.check(context.Background()) }

// CheckContext is Check until ctx ends: the files the plan and its
// bindings name (the reference, a CA) give way to Ctrl-C.
func (r *Runner) CheckContext(ctx context.Context) error { return r.check(ctx) }

// Loads returns how many data sets the plan loads (after Check).
func (r *Runner) Loads() int { return len(r.loads) }

// Run executes the runs not finished yet, checking the plan first unless
// Check already did. It returns ErrInterrupted when ctx ended first, and
// an error naming the index when runs failed.
func (r *Runner) Run(ctx context.Context) error {
	if r.loads == nil {
		if err := r.check(ctx); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(r.dir, "runs"), 0o755); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	release, err := lockDir(r.dir)
	if err != nil {
		return &plan.Error{File: r.pl.File, Msg: "bench: " + err.Error()}
	}
	defer release()
	if err := r.openDir(ctx); err != nil {
		return &plan.Error{File: r.pl.File, Msg: err.Error()}
	}
	return r.run(ctx, r.pl.Runs())
}

// Runner executes a plan into its directory.
type Runner struct {
	pl     *plan.Plan
	dir    string
	stderr io.Writer
	search *plan.Search             // the SLO's walk over listed steps, when the plan has one
	until  *until                   // the cells' repetitions until their intervals are tight, when the plan asks
	caps   []*capSeries             // the SLO's capacity search, one per series, when the plan has one
	docs   map[string]string        // deployment label + workload → document model (fields, customer)
	tables map[string]string        // deployment label + workload → table, when it gets a per-data-set suffix
	loads  map[string]*engine.Setup // load key → the checked load phase
	ref    []byte                   // the plan's reference file, read and checked by check
	index  plan.Index
	// secrets are the plan's secret values (plan.Secrets): every writer
	// of the directory hides them wherever they are repeated.
	secrets   *props.Redactor
	indexErr  error    // the last write of DIR/index.json failed
	rehearsed []string // load keys a rehearsal loaded, to remove at its end
	raw       string   // the plan's text, as read when DIR was opened
	kept      string   // DIR/plan.yaml as last written: raw with its secrets hidden
	// OnRun, when set, is called with each run's index entry once
	// index.json holds it: every run this Run finished, failed or skipped,
	// not one the context's end cut short nor those an earlier Run
	// finished. It is called from Run's
	// goroutine; a Go program follows a plan with it (or stops it there,
	// by cancelling Run's context).
	OnRun func(plan.IndexRun)
	// OnResult, when set, is called with each run's and load's result
	// once its file at path is written, and the setup it ran (the
	// command line records it in the history).
	OnResult func(setup *engine.Setup, d *result.Doc, path string)
	// Watch, when set, is asked for an observer of each run and load run
	// here (not spread over clients), given its name (the run's ID, or
	// "loads/" and the load's key): the plan's live page follows the one
	// running interval by interval.
	Watch func(name string, setup *engine.Setup) runner.Observer
}

// baseSpec is the spec a run shares with its load: the workload, the
// plan's and the deployment's properties, the record count and the table.
func (r *Runner) baseSpec(ctx context.Context, phase engine.Phase, t *plan.Deployment, w *plan.Workload, records int64) (engine.Spec, error) {
	p := props.New()
	var err error
	if w.File != "" {
		err = p.LoadFileContext(ctx, w.File) // a named pipe nobody writes gives way to Ctrl-C
	} else {
		err = workloads.Load(p, w.Name)
	}
	if err != nil {
		return engine.Spec{}, err
	}
	for _, list := range [][]plan.Property{r.pl.Properties, t.Properties} {
		for _, x := range list {
			src := fmt.Sprintf("%s:%d", r.pl.File, x.Line)
			if x.Source != "" {
				src = x.Source
			}
			p.Set(x.Key, x.Value, src)
		}
	}
	p.Set("label", t.Label, "plan deployment")
	if table := r.tables[t.Label+"\x00"+w.Name]; table != "" {
		// One table per data set, so a server keeps each record count's.
		p.Set("table", table+"_r"+strconv.FormatInt(records, 10), "plan records")
	}
	return engine.Spec{Binding: t.Binding, Properties: p, Phase: phase, Records: records, Secrets: r.secrets}, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// loadClients is the number of clients a deployment's loads are spread
// over: the most any of the plan's runs of it has.
func (r *Runner) loadClients(t *plan.Deployment) int {
	n := 1
	for _, c := range r.pl.Clients {
		n = max(n, c)
	}
	if db.EmbeddedDir(t.Binding) != "" {
		return 1 // each process would load a store of its own
	}
	return n
}

// setClients spreads a run over n clients (n > 1).
func setClients(p *props.Props, n int) {
	if n > 1 {
		p.Set("clients", strconv.Itoa(n), "plan clients")
	}
}

// runSpec is the spec of one run.
func (r *Runner) runSpec(ctx context.Context, c *plan.Run) (engine.Spec, error) {
	spec, err := r.baseSpec(ctx, engine.RunPhase, c.Deployment, c.Workload, c.Records)
	if err != nil {
		return spec, err
	}
	spec.Threads, spec.Rate = c.Threads, engine.Give(c.Rate) // 0: none, whatever a workload file says
	if r.pl.Warmup > 0 {
		spec.Warmup = engine.Give(seconds(r.pl.Warmup))
	}
	if r.pl.Duration > 0 {
		spec.Duration = engine.Give(seconds(r.pl.Duration))
	}
	setClients(spec.Properties, c.Spread())
	// Every run starts from the loaded records: a run's inserts are
	// removed after it (repetitions of D and E inserted the same keys).
	spec.Properties.SetDefault("cleanupinserts", "true", "plan: each run on the loaded records")
	spec.Operations = engine.Give(r.pl.OperationsOf(c.Records)) // 0: none, the runs end at their duration
	r.dataDir(spec.Properties, c.Deployment, c.Workload, c.Records)
	return spec, nil
}

// loadKey names a data set: one per deployment, record count and document
// model.
func (r *Runner) loadKey(t *plan.Deployment, w *plan.Workload, records int64) string {
	return fmt.Sprintf("%s-r%d-%s", t.Label, records, r.docs[t.Label+"\x00"+w.Name])
}

// dataDir keeps an embedded store's data under DIR/data, one directory per
// data set, unless the plan names one.
func (r *Runner) dataDir(p *props.Props, t *plan.Deployment, w *plan.Workload, records int64) {
	key := db.EmbeddedDir(t.Binding)
	if key == "" || r.dir == "" {
		return
	}
	for _, x := range t.Properties {
		if x.Key == key {
			return
		}
	}
	p.Set(key, filepath.Join(r.dir, "data", r.loadKey(t, w, records)), "plan directory")
}

// check validates every run and load before anything runs: bindings,
// properties and workloads, as the engine itself would.
func (r *Runner) check(ctx context.Context) error {
	r.docs, r.loads, r.tables = map[string]string{}, map[string]*engine.Setup{}, map[string]string{}
	r.readSecrets(ctx)
	if err := r.checkSteps(); err != nil {
		return err
	}
	if err := r.readReference(ctx); err != nil {
		return err
	}
	runs := r.pl.Runs()
	if s := r.pl.SLO; s != nil && s.Search == "threads" { // the most threads the search may try
		for _, c := range r.pl.Runs() {
			c.Threads = int(s.Max)
			runs = append(runs, c)
		}
	}
	type checked struct {
		s   *engine.Setup
		err error
	}
	seen := map[string]checked{} // repetitions share their check
	for i := range runs {
		c := &runs[i]
		key := fmt.Sprintf("%s\x00%s\x00%d\x00%d\x00%d\x00%g", c.Deployment.Label, c.Workload.Name, c.Records, c.Threads, c.Clients, c.Rate)
		ch, ok := seen[key]
		if !ok {
			ch.s, ch.err = r.checkRun(ctx, c)
			seen[key] = ch
		}
		if ch.err != nil {
			return &plan.Error{File: r.pl.File, Line: c.Deployment.Line, Msg: fmt.Sprintf("deployment %s, workload %s (line %d): %s", c.Deployment.Label, c.Workload.Name, c.Workload.Line, oneLine(ch.err))}
		}
		if err := r.sharedOutput(c.Deployment, ch.s); err != nil {
			return err
		}
		if err := r.noteWorkload(c, ch.s); err != nil {
			return err
		}
		if err := r.checkLoad(ctx, c); err != nil {
			return err
		}
	}
	return nil
}

// readSecrets starts r.secrets with the secrets the plan's file holds
// and a rehearsal's -p and --at give, so that the check's errors hide
// them too. A plan file that cannot be read gives none.
func (r *Runner) readSecrets(ctx context.Context) {
	r.secrets = &props.Redactor{}
	if raw, err := inputfile.Read(ctx, r.pl.File, plan.MaxFileBytes); err == nil {
		r.secrets.Merge(plan.Secrets(string(raw))) // the check's errors hide them too
	}
	if h := r.pl.Rehearsal; h != nil { // its -p and --at, whichever deployments read them
		given := props.New()
		for _, p := range h.Properties {
			given.Set(p.Key, p.Value, "-p")
		}
		for name, url := range h.At {
			given.Set("at."+name, url, "--at")
		}
		r.secrets.Known(given)
	}
}

// readReference reads and checks the plan's published figures, if it
// names any, kept in r.ref beside the results for the report.
func (r *Runner) readReference(ctx context.Context) error {
	if r.pl.Reference == "" {
		return nil
	}
	ref, err := inputfile.Read(ctx, r.pl.Reference, plan.MaxFileBytes)
	if err != nil {
		return &plan.Error{File: r.pl.File, Msg: fmt.Sprintf("reference %s: %s", r.pl.Reference, oneLine(err))}
	}
	if _, err := plan.ParseReference(ref, r.pl.Reference); err != nil {
		return &plan.Error{File: r.pl.File, Msg: "reference: " + oneLine(err)}
	}
	r.ref = ref
	return nil
}

// checkRun checks run c's phase as the engine and the phase would run
// it: its threads, rate and clients.
func (r *Runner) checkRun(ctx context.Context, c *plan.Run) (*engine.Setup, error) {
	spec, err := r.baseSpec(ctx, engine.RunPhase, c.Deployment, c.Workload, c.Records)
	spec.Threads, spec.Rate = c.Threads, engine.Give(c.Rate) // the rate's bounds, a paced thread's memory
	if err != nil {
		return nil, err
	}
	setClients(spec.Properties, c.Spread())
	s, err := engine.CheckContext(ctx, spec)
	if err == nil {
		err = phase.Check(s)
	}
	return s, err
}

// noteWorkload notes the document and, where the plan gives each data
// set its own table, the table of run c's workload on its deployment
// (checked as s). It refuses a table the plan names for several record
// counts.
func (r *Runner) noteWorkload(c *plan.Run, s *engine.Setup) error {
	tk := c.Deployment.Label + "\x00" + c.Workload.Name
	r.docs[tk] = s.Workload.Document
	// A table the plan names holds one data set: a second record
	// count's load would meet the first's keys (it failed there, after
	// the first's runs).
	if n := len(r.pl.RecordsOf(c.Deployment)); n > 1 && r.setsTable(c.Deployment) && db.EmbeddedDir(c.Deployment.Binding) == "" && db.OneTableOf(c.Deployment.Binding) == "" {
		return &plan.Error{File: r.pl.File, Line: c.Deployment.Line, Msg: fmt.Sprintf("deployment %s: the plan names its table (%s) and %d record counts: the second data set's load would meet the first's keys in it; leave table out (each data set gets usertable_r<N>) or give one record count", c.Deployment.Label, s.Workload.Table, n)}
	}
	if _, named := r.tables[tk]; !named && (len(r.pl.RecordsOf(c.Deployment)) > 1 || r.pl.SharesServer(c.Deployment)) && db.EmbeddedDir(c.Deployment.Binding) == "" && !r.setsTable(c.Deployment) {
		r.tables[tk] = s.Workload.Table
	}
	return nil
}

// checkLoad checks the load phase of run c's data set, once for all its
// runs, and keeps it in r.loads.
func (r *Runner) checkLoad(ctx context.Context, c *plan.Run) error {
	lk := r.loadKey(c.Deployment, c.Workload, c.Records)
	if _, ok := r.loads[lk]; ok {
		return nil
	}
	spec, err := r.baseSpec(ctx, engine.LoadPhase, c.Deployment, c.Workload, c.Records)
	var s *engine.Setup
	if err == nil {
		spec.Threads = r.pl.LoadThreads
		for _, k := range runner.UntilProperties { // the runs' stopping rule: a load ends when its records are in
			spec.Properties.Delete(k)
		}
		if c.Deployment.LoadRate > 0 {
			spec.Rate = engine.Give(c.Deployment.LoadRate)
		}
		// The load is spread over the plan's clients, as its runs
		// are (each client a range of the keys), one thread each
		// at least.
		setClients(spec.Properties, min(r.loadClients(c.Deployment), spec.Threads))
		r.dataDir(spec.Properties, c.Deployment, c.Workload, c.Records)
		if s, err = engine.CheckContext(ctx, spec); err == nil {
			err = phase.Check(s)
		}
	}
	if err != nil {
		return &plan.Error{File: r.pl.File, Line: c.Deployment.Line, Msg: fmt.Sprintf("loading %s: %s", lk, oneLine(err))}
	}
	r.loads[lk] = s
	return nil
}

// sharedOutput refuses an output file a property of the plan names
// (exportfile, timeseries.file, ...): one path for every load, run and
// repetition, each would write over the one before. The plan writes each
// run's outputs beside its result.
func (r *Runner) sharedOutput(t *plan.Deployment, s *engine.Setup) error {
	for _, o := range s.Outputs {
		files := o.Files()
		if len(files) == 0 {
			continue
		}
		key, line := sink.Asking(o), t.Line
		for _, list := range [][]plan.Property{r.pl.Properties, t.Properties} {
			for _, p := range list {
				if slices.Contains(sink.Properties(o.Name()), p.Key) {
					key, line = p.Key, p.Line
					if p.Source != "" {
						key = p.Source + " " + p.Key
					}
				}
			}
		}
		return &plan.Error{File: r.pl.File, Line: line, Msg: fmt.Sprintf("deployment %s: %s names one file for every load, run and repetition of the plan (%s): each would write over the one before; leave it out: each run's result and text report are written beside each other under DIR/runs", t.Label, key, files[0].Path)}
	}
	return nil
}

// setsTable reports whether the plan names the table for deployment t.
func (r *Runner) setsTable(t *plan.Deployment) bool {
	for _, list := range [][]plan.Property{r.pl.Properties, t.Properties} {
		for _, p := range list {
			if p.Key == "table" {
				return true
			}
		}
	}
	return false
}

// endsWord says whether a rehearsal took its thread steps' and rates'
// ends only (--ends).
func endsWord(ends bool) string {
	if ends {
		return "of the steps' ends (--ends)"
	}
	return "of every step"
}

// openDir creates DIR, keeps a copy of the plan in it, refuses a DIR that
// holds another plan's results, and reads the index of earlier runs.
func (r *Runner) openDir(ctx context.Context) error {
	if err := r.checkInputs(); err != nil {
		return err
	}
	// A rehearsal's results and the plan's are never in one directory:
	// one would be taken for the other's finished runs.
	if ix, err := plan.ReadIndex(r.dir); err == nil && len(ix.Runs) > 0 {
		was, is := ix.Rehearsal, r.pl.Rehearsal
		switch {
		case was == nil && is != nil:
			return fmt.Errorf("bench: %s holds the plan's own results: give a rehearsal another -o", r.dir)
		case was != nil && is == nil:
			return fmt.Errorf("bench: %s holds a rehearsal's results: give the plan another -o", r.dir)
		case was != nil && was.Scale != is.Scale:
			return fmt.Errorf("bench: %s holds a rehearsal at scale %g, not %g: give another -o", r.dir, was.Scale, is.Scale)
		case was != nil && was.Ends != is.Ends:
			return fmt.Errorf("bench: %s holds a rehearsal %s, this one is %s: give another -o", r.dir, endsWord(was.Ends), endsWord(is.Ends))
		}
	}
	raw, err := inputfile.Read(ctx, r.pl.File, plan.MaxFileBytes)
	if err != nil {
		return fmt.Errorf("bench: %s: %w", r.pl.File, err)
	}
	// The copy has its credentials hidden; a copy kept whole, or hidden
	// less, by an earlier version still counts as the same plan. A copy
	// that hides more (secrets a setup step's output showed, hidden after
	// it ran) is the same plan too, and what it hides is known again.
	r.raw = string(raw)
	r.secrets.Merge(plan.Secrets(r.raw))
	text := []byte(r.secrets.HideKnown(plan.Redact(r.raw)))
	kept := filepath.Join(r.dir, "plan.yaml")
	// The copy is read as the index is, a regular file bench wrote; one
	// that cannot be read (a pipe, too large, Ctrl-C while reading) is not
	// taken for no copy: the directory's results would go to another plan.
	old, err := plan.ReadKept(ctx, kept)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if ix, ierr := plan.ReadIndex(r.dir); ierr == nil && len(ix.Runs) > 0 && ix.Plan != r.secrets.Redact(r.pl.Name) && ix.Plan != r.pl.Name {
			return fmt.Errorf("bench: %s holds the results of another plan (its index names plan %q, not %q); give another -o", r.dir, format.Printable(ix.Plan), format.Printable(r.secrets.Redact(r.pl.Name)))
		}
	case err != nil:
		return fmt.Errorf("bench: %s: %w", kept, err)
	}
	if err == nil && !bytes.Equal(old, text) && !bytes.Equal(old, raw) &&
		r.secrets.HideKnown(plan.Redact(string(old))) != string(text) {
		hidden, same := hiddenIn(string(old), r.raw)
		if !same {
			return fmt.Errorf("bench: %s holds the results of another plan (%s differs from %s); give another -o", r.dir, kept, r.pl.File)
		}
		for _, v := range hidden {
			r.secrets.Add(v)
		}
		text = []byte(r.secrets.HideKnown(plan.Redact(r.raw)))
	}
	if err := atomicfile.WriteFile(kept, func(w io.Writer) error { _, err := w.Write(text); return err }); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	r.kept = string(text)
	r.index = plan.Index{Format: plan.IndexFormat, Version: 1, Plan: r.pl.Name, File: r.pl.File, Currency: r.pl.Currency, Departures: r.pl.Departures}
	if h := r.pl.Rehearsal; h != nil {
		at := map[string]string{}
		for k, v := range h.At {
			at[k] = r.secrets.Redact(v)
		}
		r.index.Rehearsal = &plan.Rehearsal{Scale: h.Scale, At: at, Ends: h.Ends}
	}
	if r.ref != nil { // checked by check
		if err := atomicfile.WriteFile(filepath.Join(r.dir, plan.ReferenceFile), func(w io.Writer) error { _, err := w.Write(r.ref); return err }); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	return nil
}

// otherRun says how a finished result differs from run c in its record
// or operation count, or "" when it does not.
func (r *Runner) otherRun(c *plan.Run, d *result.Doc) string {
	// Measured at another endpoint: a rehearsal's (at the plan's sizes,
	// which a small plan keeps) or a plan's whose endpoints were changed.
	for _, k := range location(c.Deployment.Binding) {
		if props.IsSecretKey(k) { // hidden in the result
			continue
		}
		got, ok := d.Properties[k]
		want, set := r.propertyOf(c.Deployment, k)
		if ok && set && !slices.Equal(plan.Endpoints(got), plan.Endpoints(want)) {
			return fmt.Sprintf("measured at %s, not %s (%s)", format.Printable(strings.Join(plan.Endpoints(got), ",")), format.Printable(strings.Join(plan.Endpoints(want), ",")), k)
		}
	}
	if v, ok := d.Properties["recordcount"]; ok && v != strconv.FormatInt(c.Records, 10) {
		return fmt.Sprintf("recordcount %s, not %d", format.Printable(v), c.Records)
	}
	if n := r.pl.OperationsOf(c.Records); n > 0 {
		v, ok := d.Properties["operationcount"]
		got, err := strconv.ParseInt(v, 10, 64)
		// A merged result's is one client's share, within one of the
		// count over the clients.
		k := int64(max(d.Clients, 1))
		if ok && (err != nil || got*k < n-k || got*k > n+k) {
			return fmt.Sprintf("operationcount %s, not %d", format.Printable(v), n)
		}
	}
	return ""
}

// propertyOf is the value deployment t's run gives key: its own, else
// the plan's.
func (r *Runner) propertyOf(t *plan.Deployment, key string) (string, bool) {
	for _, list := range [][]plan.Property{t.Properties, r.pl.Properties} {
		for _, p := range list {
			if p.Key == key {
				return p.Value, true
			}
		}
	}
	return "", false
}

// done reports whether a result file holds a finished run; a file that
// does not answer (a named pipe nobody writes) gives way when ctx ends, as
// not done (the read left behind ends with the process), and one no
// reader takes is not done either.
func done(ctx context.Context, path string) (*result.Doc, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() {
		return nil, false // a pipe or device holds no finished run; writing there is refused by name
	}
	ch := make(chan *result.Doc, 1)
	go func() {
		d, err := result.ReadFile(path)
		if err != nil {
			d = nil
		}
		ch <- d
	}()
	select {
	case d := <-ch:
		return d, d != nil && d.Stop.Finished()
	case <-ctx.Done():
		return nil, false
	}
}

// tally counts a plan's runs as they go.
type tally struct {
	start                         time.Time
	failed, ran, doneNow, skipped int
	runTime                       time.Duration
	loaded                        map[string]error  // load key → its load's outcome, its setup steps' first
	setUp                         map[string]bool   // a workload's setup steps on a deployment's data set, done
	stopped                       map[string]error  // deployment label → the setup step that stopped it
	holds                         map[string]string // a server (plan.Server) → the load key of the data set its one table holds (db.OneTable)
	inserts                       map[string]int64  // load key → the most inserts a run on it attempted (its keys follow the loaded ones)
}

// run executes the runs not finished yet, loading each data set before
// its first run; a capacity search chooses its runs as it goes.
func (r *Runner) run(ctx context.Context, runs []plan.Run) error {
	t := &tally{start: time.Now(), loaded: map[string]error{}, setUp: map[string]bool{}, stopped: map[string]error{}, holds: map[string]string{}, inserts: map[string]int64{}}
	if r.pl.SLO != nil && r.pl.SLO.Search != "" {
		return r.runCapacity(ctx, runs, t)
	}
	if r.pl.SLO != nil {
		r.search = r.pl.SLO.NewSearch()
	}
	r.until = newUntil(r.pl)
	for i := range runs {
		c := &runs[i]
		why, skip := "", false
		if r.search != nil {
			why, skip = r.search.Skip(c)
		}
		if !skip && r.until != nil && !r.resultThere(c) { // a run finished before is taken, never skipped
			why, skip = r.until.met(c)
		}
		if skip {
			ic := newIndexRun(c)
			ic.Status, ic.Error, ic.Result = "skipped", why, ""
			r.index.Runs = append(r.index.Runs, ic)
			r.writeIndex()
			r.ran(ic)
			fmt.Fprintf(r.stderr, "servbench: [%d/%d] %s: skipped, %s\n", i+1, len(runs), ic.ID, why)
			continue
		}
		left := len(runs) - i - 1
		_, cut := r.one(ctx, c, fmt.Sprintf("%d/%d", i+1, len(runs)), left, t)
		if cut >= 0 {
			return r.stop(runs[i+cut:], cut)
		}
	}
	r.tidy(ctx, t)
	return r.end(t, len(runs))
}

// end closes a plan: the index, the closing lines, and an error when
// runs failed.
func (r *Runner) end(t *tally, total int) error {
	if r.until != nil {
		r.index.Until = r.until.index()
		r.printUntil()
	}
	r.writeIndex()
	fmt.Fprintf(r.stderr, "servbench: plan %s: %s done now, %d found done, %d failed; index %s\n",
		r.secrets.Redact(r.pl.Name), runsWord(t.doneNow), t.skipped, t.failed, filepath.Join(r.dir, "index.json"))
	if r.index.SLO != nil {
		r.printSLO()
	}
	if t.failed > 0 {
		return fmt.Errorf("bench: %d of %d runs failed (see %s)", t.failed, total, filepath.Join(r.dir, "index.json"))
	}
	if r.indexErr != nil {
		return fmt.Errorf("bench: the index: %w", r.indexErr)
	}
	return nil
}

// inserted notes the inserts the run whose result is d attempted, for
// the data set of load key key: emptying it deletes keys that far past
// the loaded ones, and no further. No result (the run did not start)
// attempted none.
func (t *tally) inserted(key string, d *result.Doc) {
	if d == nil {
		return
	}
	for _, op := range d.Ops {
		if op.Name == "INSERT" {
			t.inserts[key] = max(t.inserts[key], op.Count)
		}
	}
}

// one runs c unless its result is there already, loading its data set
// first; pos names it in progress lines ("3/40") and left is how many
// runs follow it (-1: not known). It returns c's index entry, and cut
// ≥ 0 when the context ended: 0 before c ran, 1 when c was cut short.
func (r *Runner) one(ctx context.Context, c *plan.Run, pos string, left int, t *tally) (ic plan.IndexRun, cut int) {
	ic = newIndexRun(c)
	path := filepath.Join(r.dir, ic.Result)
	if d, ok := done(ctx, path); ok {
		r.taken(c, &ic, d, path, pos, t)
		return ic, -1
	}
	if ctx.Err() != nil { // stopped while its result was read: nothing more starts
		return ic, 0
	}
	key := r.loadKey(c.Deployment, c.Workload, c.Records)
	said, stopped, lerr := r.loadOnce(ctx, c, key, t)
	if stopped {
		return ic, 0
	}
	if lerr == nil {
		lerr = r.workloadSteps(ctx, c, t)
	}
	if ctx.Err() != nil {
		return ic, 0
	}
	if lerr != nil {
		ic.Status, ic.Error = "failed", oneLine(lerr)
		r.index.Runs = append(r.index.Runs, ic)
		t.failed++
		r.writeIndex()
		r.ran(ic)
		if !said { // the first run of the data set says why its runs fail
			fmt.Fprintf(r.stderr, "servbench: [%s] %s: %s\n", pos, ic.ID, r.secrets.Redact(outcome(&ic)))
		}
		return ic, -1
	}
	if c.Spread() < c.Clients {
		fmt.Fprintf(r.stderr, "servbench: [%s] %s: %d %s on %d %s, not %d: each client needs a thread\n", pos, ic.ID,
			c.Threads, plural(c.Threads, "thread"), c.Spread(), plural(c.Spread(), "client"), c.Clients)
	}
	if r.runAndRead(ctx, c, &ic, path, key, t) {
		r.index.Runs = append(r.index.Runs, ic)
		return ic, 1
	}
	r.index.Runs = append(r.index.Runs, ic)
	r.writeIndex()
	r.ran(ic)
	eta := ""
	if left >= 0 {
		e := t.runTime / time.Duration(t.ran) * time.Duration(left)
		eta = fmt.Sprintf(", about %s left", e.Round(time.Second))
	}
	fmt.Fprintf(r.stderr, "servbench: [%s] %s: %s (elapsed %s%s)\n", pos, ic.ID, r.secrets.Redact(outcome(&ic)), time.Since(t.start).Round(time.Second), eta)
	return ic, -1
}

// taken enters c's result d, found at path before c ran, in the index:
// as c's own, or as a failure when it is another run's (another plan's or
// a rehearsal's), which is neither taken nor written over.
func (r *Runner) taken(c *plan.Run, ic *plan.IndexRun, d *result.Doc, path, pos string, t *tally) {
	if other := r.otherRun(c, d); other != "" {
		// Another plan's, or a rehearsal's (an index that would say so
		// removed): neither taken for this run's nor written over.
		ic.Status, ic.Error = "failed", fmt.Sprintf("%s holds another run's result (%s): another plan's or a rehearsal's; give the plan another -o", ic.Result, other)
		r.index.Runs = append(r.index.Runs, *ic)
		t.failed++
		r.writeIndex()
		r.ran(*ic)
		fmt.Fprintf(r.stderr, "servbench: [%s] %s: %s\n", pos, ic.ID, r.secrets.Redact(outcome(ic)))
		return
	}
	r.finish(c, ic, d)
	r.index.Runs = append(r.index.Runs, *ic)
	t.skipped++
	t.inserted(r.loadKey(c.Deployment, c.Workload, c.Records), d)
}

// loadOnce readies c's data set (load key key) the first time a run
// needs it: the deployment's steps before the load, emptying the data set
// before, the load. It returns whether why the data set is not there
// was said before (a run before tried it), stopped when the context ended
// during the steps (then the load did not start and nothing is noted in
// t), and why the data set is not there (nil when it is).
func (r *Runner) loadOnce(ctx context.Context, c *plan.Run, key string, t *tally) (said, stopped bool, lerr error) {
	lerr, tried := t.loaded[key]
	said = tried
	if serr := t.stopped[c.Deployment.Label]; serr != nil && !tried {
		lerr, tried = serr, true
	}
	if tried {
		return said, false, lerr
	}
	lerr = r.steps(ctx, "load/"+key, c.Deployment, c.Workload, c.Records, c.Deployment.StepsBeforeLoad(), false)
	switch {
	case ctx.Err() != nil: // stopped during its steps: the load does not start
		return said, true, lerr
	case lerr != nil:
		t.stopped[c.Deployment.Label] = lerr
	case lerr == nil:
		if lerr = r.emptyBefore(ctx, key, c.Deployment, t); lerr != nil {
			lerr = errors.New("emptying the data set before: " + oneLine(lerr))
		} else if lerr = r.load(ctx, key); lerr != nil {
			lerr = errors.New("load: " + oneLine(lerr))
		}
	}
	t.loaded[key] = lerr
	return said, false, lerr
}

// workloadSteps runs the steps before c's workload on its deployment and
// record count, once for all the runs that share them, unless the
// deployment's steps failed before. It returns why they did not run or
// failed.
func (r *Runner) workloadSteps(ctx context.Context, c *plan.Run, t *tally) error {
	wkey := fmt.Sprintf("workload/%s/r%d/%s", c.Deployment.Label, c.Records, filepath.Base(c.Workload.Name))
	if t.setUp[wkey] {
		return nil
	}
	lerr := t.stopped[c.Deployment.Label]
	if lerr == nil {
		lerr = r.steps(ctx, wkey, c.Deployment, c.Workload, c.Records, r.pl.StepsBefore(c.Deployment, c.Workload), true)
		if lerr != nil && ctx.Err() == nil {
			t.stopped[c.Deployment.Label] = lerr
		}
	}
	t.setUp[wkey] = lerr == nil
	return lerr
}

// runAndRead runs c (its data set's load key key), its result written to
// path, and reads the result into ic: done, or failed and why. It
// reports whether the context ended, ic then interrupted.
func (r *Runner) runAndRead(ctx context.Context, c *plan.Run, ic *plan.IndexRun, path, key string, t *tally) (interrupted bool) {
	t0 := time.Now()
	spec, err := r.runSpec(ctx, c)
	var d *result.Doc
	if err == nil {
		d, err = r.phaseTo(ctx, spec, c.ID(), path, filepath.Join(r.dir, "runs", c.ID()))
	}
	t.runTime += time.Since(t0)
	t.ran++
	t.inserted(key, d)
	ok := d != nil && d.Stop.Finished()
	switch {
	case ctx.Err() != nil:
		ic.Status = "interrupted"
		return true
	case ok && errors.As(err, new(*unwrittenError)):
		r.finish(c, ic, d)
		ic.Status, ic.Error = "failed", writtenNot(err)
		t.failed++
	case ok:
		r.finish(c, ic, d)
		t.doneNow++
	default:
		ic.Status = "failed"
		switch {
		case err != nil:
			ic.Error = oneLine(err)
		case d != nil && d.Error != "":
			ic.Error = format.Printable(d.Error)
		case d != nil:
			ic.Error = "its result says it stopped: " + string(d.Stop)
		default:
			ic.Error = "no result was written"
		}
		t.failed++
	}
	return false
}

// writtenNot is the index's error of a run whose result was written and
// some other output (err) not: a spread phase's error already begins "not
// written".
func writtenNot(err error) string {
	return "its result is written, not " + strings.TrimPrefix(oneLine(err), "not written: ")
}

// capSeries is one series' capacity search.
type capSeries struct {
	*plan.Capacity
	base plan.SLOCurve
}

// runCapacity searches each series of the plan for its capacity (see
// plan.Capacity): runs are chosen from the ones before, repetitions
// given to the answer. A failed run breaks every bound: the search goes
// on below it, and the plan ends failed.
func (r *Runner) runCapacity(ctx context.Context, seeds []plan.Run, t *tally) error {
	slo := r.pl.SLO
	var series []*plan.Run
	for i := range seeds {
		if seeds[i].Repetition == 1 {
			series = append(series, &seeds[i])
			c := &seeds[i]
			base := plan.SLOCurve{Series: slo.Series(c), Deployment: c.Deployment.Label, Workload: c.Workload.Name, Records: c.Records, Fixed: c.Rate}
			if slo.Search == "rate" {
				base.Fixed = float64(c.Threads)
			}
			if c.Clients > 1 {
				base.Clients = c.Clients
			}
			r.caps = append(r.caps, &capSeries{slo.NewCapacity(r.pl.Repetitions), base})
		}
	}
	for si, seed := range series {
		cs := r.caps[si]
		for n := 1; ; n++ {
			step, rep, ok := cs.Next()
			if !ok {
				break
			}
			c := *seed
			c.Repetition = rep
			if slo.Search == "rate" {
				c.Rate = step
			} else {
				c.Threads = int(step)
			}
			ic, cut := r.one(ctx, &c, fmt.Sprintf("series %d/%d, run %d", si+1, len(series), n), -1, t)
			if cut >= 0 {
				return r.stop(nil, cut)
			}
			if ic.Status == "done" {
				cs.Add(step, ic.Throughput, ic.SLOLatencyUs, ic.FailedPct)
			} else {
				cs.Fail(step)
			}
		}
	}
	r.tidy(ctx, t)
	return r.end(t, len(r.index.Runs))
}

// ran tells OnRun of a run's entry.
func (r *Runner) ran(ic plan.IndexRun) {
	if r.OnRun != nil {
		r.OnRun(ic)
	}
}

// printSLO says, per curve, the highest throughput within the SLO and the
// peak.
func (r *Runner) printSLO() {
	x := r.index.SLO
	fmt.Fprintf(r.stderr, "servbench: SLO %s\n", r.pl.SLO)
	step := func(v float64) string { return plan.StepText(x.Step, v) }
	if x.Search != "" {
		for _, c := range x.Curves {
			var parts []string
			for _, a := range c.Answers {
				parts = append(parts, plan.AnswerText(x, &a))
			}
			fmt.Fprintf(r.stderr, "servbench:   %s: %s (%s)\n", c.Series, strings.Join(parts, "; "), runsWord(c.Tried))
		}
		return
	}
	for _, c := range x.Curves {
		best := "no step within the bound"
		if c.Best != nil {
			best = fmt.Sprintf("best %s ops/s at %s (%s %.3f ms)", format.Round(c.Best.Throughput), step(c.Best.Step), x.Latency, c.Best.LatencyUs/1000)
		}
		broke := "never over the bound"
		switch {
		case c.BrokeAt > 0 && c.Best != nil && c.BrokeAt < c.Best.Step:
			broke = "over the bound first at " + step(c.BrokeAt) + " and under it again after (a cold first step?)"
		case c.BrokeAt > 0:
			broke = "over the bound from " + step(c.BrokeAt)
		}
		peak := ""
		if c.Peak != nil {
			peak = fmt.Sprintf("; peak %s ops/s at %s", format.Round(c.Peak.Throughput), step(c.Peak.Step))
		}
		fmt.Fprintf(r.stderr, "servbench:   %s: %s, %s%s\n", c.Series, best, broke, peak)
	}
}

func newIndexRun(c *plan.Run) plan.IndexRun {
	clients, planClients := c.Spread(), c.Clients
	if clients == 1 { // not spread
		clients = 0
	}
	if planClients == 1 {
		planClients = 0
	}
	return plan.IndexRun{
		ID: c.ID(), Deployment: c.Deployment.Label, Binding: c.Deployment.Binding, System: c.Deployment.System, Nodes: c.Deployment.Nodes, PricePerHour: c.Deployment.PriceHour, UsagePrices: c.Deployment.Usage,
		Workload: c.Workload.Name, Records: c.Records, Threads: c.Threads, Clients: clients, PlanClients: planClients, Rate: c.Rate, Repetition: c.Repetition,
		Result: filepath.Join("runs", c.ID()+".json"), Status: "pending",
	}
}

func outcome(ic *plan.IndexRun) string {
	if ic.Status != "done" {
		return ic.Status + ": " + ic.Error
	}
	s := format.Round(ic.Throughput) + " ops/s"
	if ic.CostPerBillion > 0 {
		s += fmt.Sprintf(", %.2f per billion operations", ic.CostPerBillion)
	}
	return s
}

func (r *Runner) finish(c *plan.Run, ic *plan.IndexRun, d *result.Doc) {
	ic.Status, ic.Throughput, ic.FailedPct = "done", d.Throughput, plan.FailedPct(d)
	ic.CostPerBillion = plan.CostPerBillion(ic.PricePerHour, d.Throughput)
	if r.pl.SLO != nil {
		ic.SLOLatencyUs, _ = r.pl.SLO.Value(d)
	}
	if r.search != nil {
		r.search.Add(c, d.Throughput, ic.SLOLatencyUs, ic.FailedPct)
	}
	if r.until != nil {
		r.until.add(c, d)
	}
}

// stop records the runs not run as pending and ends the plan; cut runs
// (0 or 1) were interrupted before they finished and are left too.
func (r *Runner) stop(rest []plan.Run, cut int) error {
	for i := range rest {
		r.index.Runs = append(r.index.Runs, newIndexRun(&rest[i]))
	}
	r.writeIndex()
	if r.caps != nil {
		fmt.Fprintf(r.stderr, "servbench: plan interrupted during its capacity search; run the same command again to go on from its last finished run\n")
		return ErrInterrupted
	}
	fmt.Fprintf(r.stderr, "servbench: plan interrupted; %s left; run the same command again to finish them\n", runsWord(len(rest)+cut))
	return ErrInterrupted
}

// plural is word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// runsWord is "1 run", "2 runs".
func runsWord(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

// emptyBefore empties the data set the deployment's one table holds, if
// another, before key's load (a binding that keeps every table's records
// in one place, db.OneTable: the load would meet its keys; a Couchbase
// insert of a key there fails), and notes that the table holds key's. The
// emptied data set's runs are done: the plan's order loads each data set
// once.
func (r *Runner) emptyBefore(ctx context.Context, key string, d *plan.Deployment, t *tally) error {
	where := db.OneTableOf(d.Binding)
	if where == "" {
		return nil
	}
	// Deployments of one server (a rehearsal's, given one endpoint) keep
	// their data sets in its one table: one at a time.
	server := r.pl.Server(d)
	held := t.holds[server]
	t.holds[server] = key
	if held == "" || held == key { // a failed load's records are emptied too
		return nil
	}
	fmt.Fprintf(r.stderr, "servbench: emptying %s before loading %s (%s)\n", held, key, where)
	start := time.Now()
	n, err := r.loads[held].Empty(ctx, t.inserts[held])
	t.loaded[held] = fmt.Errorf("emptied before the load of %s (%s)", key, where)
	if err != nil {
		return fmt.Errorf("%s: %w (after %d records)", held, err, n)
	}
	fmt.Fprintf(r.stderr, "servbench: emptied %s: %d records deleted in %s\n", held, n, time.Since(start).Round(time.Millisecond))
	return nil
}

// load runs the load phase of a data set unless it was loaded before.
func (r *Runner) load(ctx context.Context, key string) error {
	out := filepath.Join(r.dir, "loads", key)
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return err
	}
	if _, ok := done(ctx, out+".json"); ok {
		return nil
	}
	if r.pl.Rehearsal != nil && !isEmbedded(r.loads[key]) {
		// A rehearsal's endpoint may hold the user's own data: it loads
		// only into a table that holds none of its keys, and removes what
		// it loaded when it ends.
		held, err := r.loads[key].Holds(ctx)
		if err != nil {
			return err
		}
		if held != "" {
			return fmt.Errorf("the table already holds %s, a key this data set loads (an earlier rehearsal's, or data of your own): a rehearsal loads only into tables that hold none of its keys; empty it or give another table", held)
		}
		r.rehearsed = append(r.rehearsed, key) // removed when the rehearsal ends
	}
	fmt.Fprintf(r.stderr, "servbench: loading %s\n", key)
	_, err := r.phaseTo(ctx, r.loads[key].Spec, "loads/"+key, out+".json", out)
	return err
}

// tidy removes, at a rehearsal's end, what it wrote on its endpoints:
// each data set it loaded whole (its keys, numbered as the load numbers
// them) and its runs' inserts after them, nothing else; a rehearsal
// stopped first leaves them, said. A load that failed (its table held
// keys: an earlier rehearsal's, the user's) removes nothing.
func (r *Runner) tidy(ctx context.Context, t *tally) {
	for _, key := range r.rehearsed {
		if err, tried := t.loaded[key]; !tried || err != nil {
			continue // a load that failed may have met keys not its own: none is removed
		}
		if ctx.Err() != nil {
			fmt.Fprintf(r.stderr, "servbench: rehearsal: %s left on its endpoint (stopped)\n", key)
			continue
		}
		n, err := r.loads[key].Empty(ctx, t.inserts[key])
		if err != nil {
			fmt.Fprintf(r.stderr, "servbench: rehearsal: removing %s: %s (%d records removed)\n", key, r.secrets.Redact(oneLine(err)), n)
			continue
		}
		fmt.Fprintf(r.stderr, "servbench: rehearsal: %s removed from its endpoint: %d records\n", key, n)
	}
	r.rehearsed = nil
}

// isEmbedded reports whether the load's binding keeps its store in the
// client (db.Embedded): a plan gives each data set a store of its own.
func isEmbedded(s *engine.Setup) bool {
	_, ok := s.Binding.(db.Embedded)
	return ok
}

// phaseTo runs a phase, named name (the run's ID, or "loads/" and the
// load's key), with its result document in path, its text report in
// base.txt and its messages in base.log. The document is written
// whenever the runner ran, also for a failed or interrupted run; it is
// returned when it was (nil: nothing measured, or its file not written).
func (r *Runner) phaseTo(ctx context.Context, spec engine.Spec, name, path, base string) (*result.Doc, error) {
	if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
		return nil, err
	}
	// The run's text report and log are among its outputs, and so are
	// the directory's own files, so that no output its properties ask for
	// is written over them; the plan's files are its inputs.
	spec.Outputs = append(slices.Clip(spec.Outputs), sink.Caller("the run's text report", base+".txt"), sink.Caller("the run's log", base+".log"))
	for _, f := range []string{"plan.yaml", "index.json", plan.SetupFile, "setup.log", plan.ReferenceFile, ".lock"} {
		spec.Outputs = append(spec.Outputs, sink.Caller("the plan directory's "+f, filepath.Join(r.dir, f)))
	}
	spec.Inputs = r.inputs()
	// The log is made once the run's outputs are checked: a log that is
	// an input (a workload file at its path) is refused, not emptied.
	if _, err := engine.CheckContext(ctx, withLog(spec, io.Discard)); err != nil {
		return nil, err
	}
	f, err := openOwn(base+".log", 0)
	if err != nil {
		return nil, err
	}
	lg := &firstErr{w: f}
	d, err := r.phase(ctx, spec, name, path, base+".txt", lg)
	if err != nil {
		fmt.Fprintf(lg, "servbench: %s\n", r.secrets.Redact(oneLine(err)))
	}
	if cerr := f.Close(); lg.err == nil {
		lg.err = cerr
	}
	if lg.err != nil && err == nil {
		err = &unwrittenError{fmt.Errorf("the run's log %s: %w", base+".log", lg.err)}
	}
	return d, err
}

// withLog is spec with its messages going to w.
func withLog(spec engine.Spec, w io.Writer) engine.Spec {
	spec.Log = w
	spec.Properties = spec.Properties.Clone()
	return spec
}

// inputs are the files the plan reads beside its properties: the plan,
// its workload files, its reference.
func (r *Runner) inputs() []sink.Input {
	in := []sink.Input{{What: "the plan", Path: r.pl.File}, {What: "the plan's reference", Path: r.pl.Reference}}
	for _, w := range r.pl.Workloads {
		in = append(in, sink.Input{What: "the plan's workload file", Path: w.File})
	}
	return in
}

// An unwrittenError is a finished phase's output that could not be
// written (its text report, its log): the run counts as failed, its
// result kept.
type unwrittenError struct{ err error }

func (e *unwrittenError) Error() string { return e.err.Error() }
func (e *unwrittenError) Unwrap() error { return e.err }

// firstErr is a writer that keeps the first error of its writes.
type firstErr struct {
	w   io.Writer
	err error
}

func (f *firstErr) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

// phase runs spec, named name (Watch), with its result in path and its
// text report in text, and returns its result document when its file was
// written (the plan runner's index reads it, not the file).
func (r *Runner) phase(ctx context.Context, spec engine.Spec, name, path, text string, lg io.Writer) (*result.Doc, error) {
	spec.Log, spec.Secrets = lg, r.secrets
	spec.Properties.Set("result.file", path, "plan run")
	setup, err := engine.CheckContext(ctx, spec)
	if err != nil {
		return nil, err
	}
	for _, w := range setup.Warnings {
		fmt.Fprintf(lg, "servbench: %s\n", r.secrets.Redact(w))
	}
	// Here or on clients, as from the command line (phase.Run: the same
	// guards); the text report goes to base.txt unless exportfile takes
	// it (a spread phase's clients each write theirs in their own log).
	var txt bytes.Buffer
	var obs []runner.Observer
	if r.Watch != nil {
		if o := r.Watch(name, setup); o != nil {
			obs = append(obs, o)
		}
	}
	o, err := phase.Run(ctx, setup, engine.Writers{Stdout: &txt, Stderr: lg}, obs...)
	if o == nil {
		return nil, err
	}
	var d *result.Doc
	if !o.NotWritten("json") {
		d = o.Doc
		if r.OnResult != nil {
			r.OnResult(setup, d, path)
		}
	}
	unwritten := o.Unwritten
	if txt.Len() > 0 {
		if err := atomicfile.WriteFile(text, func(w io.Writer) error { _, err := w.Write(txt.Bytes()); return err }); err != nil && unwritten == nil {
			unwritten = fmt.Errorf("the text report: %w", err)
		}
	}
	switch {
	case unwritten != nil:
		return d, &unwrittenError{unwritten}
	case o.Interrupted || ctx.Err() != nil:
		return d, ErrInterrupted
	}
	return d, o.Failed
}

// oneLine folds an error's message onto one line.
func oneLine(err error) string {
	return format.Printable(strings.Join(strings.Fields(err.Error()), " "))
}

// writeIndex replaces DIR/index.json, with the SLO search so far.
func (r *Runner) writeIndex() {
	if r.search != nil {
		r.index.SLO = r.search.Result()
	}
	if r.caps != nil {
		s := r.pl.SLO
		x := &plan.IndexSLO{Latency: s.Latency, BoundUs: s.BoundUs, Operation: s.Operation, Step: s.Step,
			Search: s.Search, BoundsUs: s.Bounds, From: s.From, Max: s.Max, PrecisionPct: s.PrecisionPct}
		for _, cs := range r.caps {
			x.Curves = append(x.Curves, cs.Curve(cs.base))
		}
		r.index.SLO = x
	}
	ix := r.index // written with the plan's secrets hidden, and what rules find
	ix.Plan = r.secrets.Redact(ix.Plan)
	ix.Departures = make([]plan.Departure, len(r.index.Departures))
	for i, d := range r.index.Departures {
		ix.Departures[i] = plan.Departure{What: r.secrets.Redact(d.What), Why: r.secrets.Redact(d.Why), Seed: r.secrets.Redact(d.Seed)}
	}
	ix.Runs = make([]plan.IndexRun, len(r.index.Runs))
	for i, c := range r.index.Runs {
		c.Error, c.System = r.secrets.Redact(c.Error), r.secrets.Redact(c.System)
		ix.Runs[i] = c
	}
	if err := plan.WriteIndex(r.dir, &ix); err != nil {
		fmt.Fprintf(r.stderr, "servbench: index: %v\n", err)
		r.indexErr = err
	} else {
		r.indexErr = nil // written whole since
	}
}
