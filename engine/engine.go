// Package engine runs one phase of a benchmark, load or run, from a typed
// Spec: it checks the spec, opens the binding, prepares its table and
// index, fills an ephemeral store before a run phase, runs the workload
// through the runner, and closes the binding. It is what the command line,
// the plan runner (package experiment) and the binding conformance kit (package
// db/dbtest) call; none of them builds command-line arguments for another.
//
// Invariants:
//   - Check touches no database and builds no generator: it validates a
//     spec in microseconds, whatever the record count.
//   - An error of type *SpecError is bad input (a property, the binding
//     name, the workload); any other error is a failure of the database
//     or the machine.
//   - Once the runner has started, Run returns a Result, also when the run
//     failed, was interrupted or the binding failed to close: what was
//     measured is never lost.
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/probe"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/sink"
	"github.com/servbench/servbench/workload"
	"github.com/servbench/servbench/workloads"
)

// Phase is what a run does: load records, or run transactions on them.
type Phase uint8

const (
	// RunPhase runs the workload's transactions (YCSB's -t).
	RunPhase Phase = iota
	// LoadPhase inserts the workload's records (YCSB's -load).
	LoadPhase
)

func (p Phase) String() string {
	if p == LoadPhase {
		return "load"
	}
	return "run"
}

// Spec is one phase of a benchmark.
type Spec struct {
	// Binding is a registered binding name: its package's Name
	// (pebble.Name, redis.Name, ...), or the name as typed ("pebble").
	Binding string
	// Workload is a built-in workload ("a" ... "h", "pagination") or a
	// YCSB property file; its properties come first, Properties override
	// them. Empty: Properties hold the workload.
	Workload string
	// Records, when not zero, sets recordcount; Operations, when given
	// (0 too: no limit), operationcount.
	Records    int64
	Operations Opt[int64]
	// Properties are YCSB's: the workload's, the binding's and the
	// measurement's (props.Of builds them). Run does not change them.
	Properties *props.Props
	Phase      Phase
	// Threads, when not zero, overrides threadcount; Rate (operations per
	// second over all threads), Duration and Warmup, when given (0 too:
	// none), override target, maxexecutiontime and warmuptime.
	Threads  int
	Rate     Opt[float64]
	Duration Opt[time.Duration]
	Warmup   Opt[time.Duration]
	// Log receives notes a user wants while waiting (an ephemeral store
	// being filled, how the binding answers queries); nil discards them.
	Log io.Writer
	// Gate joins a client of a spread phase to its coordinator: the
	// phase's clock and the watch that stops the run when the
	// coordinator is gone. Nil: a phase run on its own.
	Gate Gate
	// Outputs are outputs the caller adds to those the properties ask
	// for (sink.Process: the command line's --cpuprofile and --trace),
	// checked, opened and ended with them.
	Outputs []sink.Output
	// Inputs are files the phase reads that its properties do not name
	// (a plan's file, its reference, its directory's own files): no
	// output may write one.
	Inputs []sink.Input
	// Secrets are secret values known from elsewhere (a plan's steps and
	// comments, props.Redactor): the run hides them, as it hides its
	// properties' own, wherever it writes them (properties, server
	// settings, errors). Nil: the properties' own.
	Secrets *props.Redactor
}

// An Opt is a value a Spec gives, or leaves to the properties: its zero
// gives nothing, so that zero itself can be given (operations 0: no
// limit; a rate of 0: none).
type Opt[T any] struct {
	V     T
	Given bool
}

// Give is the Opt that gives v.
func Give[T any](v T) Opt[T] { return Opt[T]{V: v, Given: true} }

// ptr is o's value, nil when not given.
func (o Opt[T]) ptr() *T {
	if !o.Given {
		return nil
	}
	v := o.V
	return &v
}

// loadWorkload adds a built-in workload, or a property file, to p.
func loadWorkload(p *props.Props, name string) error {
	if slices.Contains(workloads.Names(), strings.TrimPrefix(strings.ToLower(name), "workload")) {
		return workloads.Load(p, name)
	}
	return p.LoadFile(name)
}

// SpecError is bad input: a property, a binding or a workload that cannot
// be used as given.
type SpecError struct{ Err error }

func (e *SpecError) Error() string { return e.Err.Error() }
func (e *SpecError) Unwrap() error { return e.Err }

func bad(err error) error { return &SpecError{err} }

// redactedError is an error said with its credentials hidden; Unwrap
// gives the error as it came, for errors.Is and errors.As.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// Redact hides in text what the run knows to be secret: its properties'
// secrets, the spec's (a plan's) and what the redaction's rules find. A
// spread phase's coordinator says its clients' lines through it.
func (s *Setup) Redact(text string) string { return s.redactor.Redact(text) }

// redacted hides in err's words what the run's redactor knows to hide
// (the properties' secrets, and what the redaction rules find), so that
// no driver's error line prints a credential; nil stays nil.
func (s *Setup) redacted(err error) error {
	if err == nil {
		return nil
	}
	if msg := s.redactor.Redact(err.Error()); msg != err.Error() {
		return &redactedError{msg, err}
	}
	return err
}

// ErrInterruptedBeforeMeasuring is returned when the context ends while an
// ephemeral store is being filled, the inserts a run may remove are read
// or the clients wait to start together: before anything was measured.
var ErrInterruptedBeforeMeasuring = errors.New("interrupted before the run measured: nothing was measured")

// Setup is a checked Spec: everything a phase needs that can be known
// without a database.
type Setup struct {
	Spec Spec
	// live is the run's server-side recorder once it samples: a live
	// page reads what it has so far (sink.Env.ServerSide).
	live *atomic.Pointer[probe.Recorder]
	// cores is client.cores: coresAuto, coresAll or a number.
	cores int
	// Props are the spec's properties, over its workload's; the typed
	// fields are not written into them (Workload and Runner hold what
	// they gave; Properties is the record of both).
	Props   *props.Props
	Binding db.Binding
	// Workload is the workload's configuration; its generators are built
	// by Run, not by Check.
	Workload *workload.Config
	Runner   runner.Config
	// measurements are YCSB's measurement properties: what is measured
	// and how the text report shows it.
	measurements sink.Options
	// Outputs are what the phase writes (package sink), read from its
	// properties.
	Outputs sink.Outputs
	// Label names the run in status lines and results (property label).
	Label string
	// Warnings are properties accepted but not used (another binding's,
	// YCSB's JVM settings).
	Warnings []string
	// History is where the command line records the phase's result
	// (property history.file: a path, "off" for nowhere, "" when not
	// given: the default place, package history). The engine records
	// nothing itself.
	History string
	// Client is the share of a spread phase this setup runs.
	Client Client
	// ServerSide is what the run samples of the servers beside its
	// operations.
	ServerSide ServerSide
	// redactor hides credentials, the properties' own among them, in
	// what the run writes of its errors.
	redactor *props.Redactor
	// extensions are what each registered Extension read.
	extensions map[string]any
	// serverSettings are the properties server.setting.NAME, for the
	// record.
	serverSettings map[string]string
	// removeInserts: delete the run's inserts after it (cleanupinserts).
	removeInserts bool
	// given are the values the spec's typed fields and a spread client's
	// share gave, as properties, for the record (Properties): none of
	// them is read back.
	given *props.Props
}

// serverSetting prefixes the properties that record how the servers were
// set up (result.Doc.ServerSettings).
const serverSetting = "server.setting."

// givenProperties are the spec's typed fields as the properties they stand
// for, for the record.
func givenProperties(spec Spec) *props.Props {
	g := props.New()
	if spec.Records > 0 {
		g.Set("recordcount", strconv.FormatInt(spec.Records, 10), "spec")
	}
	if spec.Operations.Given {
		g.Set("operationcount", strconv.FormatInt(spec.Operations.V, 10), "spec")
	}
	if spec.Threads > 0 {
		g.Set("threadcount", strconv.Itoa(spec.Threads), "spec")
	}
	if spec.Rate.Given {
		g.Set("target", strconv.FormatFloat(spec.Rate.V, 'g', -1, 64), "spec")
	}
	if spec.Duration.Given {
		g.Set("maxexecutiontime", strconv.FormatFloat(spec.Duration.V.Seconds(), 'g', -1, 64), "spec")
	}
	if spec.Warmup.Given {
		g.Set("warmuptime", strconv.FormatFloat(spec.Warmup.V.Seconds(), 'g', -1, 64), "spec")
	}
	return g
}

// Properties are the properties the phase runs with, for the record (its
// result document, the clients of a spread phase): Props, with the values
// the spec's typed fields and a spread client's share gave written over
// them.
func (s *Setup) Properties() *props.Props {
	all := s.Props.Clone()
	if s.given != nil {
		all.Merge(s.given)
	}
	return all
}

// Check validates a spec and builds its workload and runner configuration.
// Every error is a *SpecError. It is CheckContext without a way to stop.
func Check(spec Spec) (*Setup, error) { return CheckContext(context.Background(), spec) }

// CheckContext is Check that gives way when ctx ends (Ctrl-C): the binding
// is opened offline with ctx, so the files it reads (a CA, a key, a
// credentials file) are read stoppably. A check stopped so returns ctx's
// error among its words, as a *SpecError.
func CheckContext(ctx context.Context, spec Spec) (*Setup, error) {
	if spec.Properties == nil {
		spec.Properties = props.New()
	}
	s, err := check(ctx, spec)
	if err != nil { // a binding's or driver's words may quote a credential, the spec's known ones too
		red := &props.Redactor{}
		red.Known(spec.Properties)
		red.Merge(spec.Secrets)
		return nil, (&Setup{redactor: red}).redacted(err)
	}
	return s, nil
}

func check(ctx context.Context, spec Spec) (*Setup, error) {
	s, err := newSetup(spec)
	if err != nil {
		return nil, bad(err)
	}
	if err := s.readConfigs(); err != nil {
		return nil, bad(err)
	}
	// Everything but the run's key generators, whose set-up (the latest
	// distribution's ζ over every record) can take seconds: Run builds them.
	w, err := workload.Build(ctx, s.Workload, false)
	if err != nil {
		return nil, bad(err)
	}
	for _, step := range []func() error{s.readOutputs, s.readRecord, func() error { return s.checkBinding(ctx) }, func() error { return s.checkThreadsMemory(w) }} {
		if err := step(); err != nil {
			return nil, bad(err)
		}
	}
	return s, nil
}

// newSetup is the setup of spec before anything is read: its properties
// (the workload's, then the spec's), the secrets they hold known, its
// binding and its client.
func newSetup(spec Spec) (*Setup, error) {
	if spec.Threads < 0 || spec.Rate.V < 0 || spec.Duration.V < 0 || spec.Warmup.V < 0 || spec.Records < 0 || spec.Operations.V < 0 {
		return nil, fmt.Errorf("engine: threads, rate, duration, warmup, records and operations must not be negative")
	}
	p := spec.Properties.Clone()
	if spec.Workload != "" {
		base := props.New()
		if err := loadWorkload(base, spec.Workload); err != nil {
			return nil, err
		}
		base.Merge(p)
		p = base
	}
	s := &Setup{Spec: spec, Props: p, redactor: &props.Redactor{}, live: new(atomic.Pointer[probe.Recorder])}
	s.redactor.Known(p)
	s.redactor.Merge(spec.Secrets)
	var err error
	if s.Binding, err = db.Lookup(spec.Binding); err != nil {
		return nil, err
	}
	if err := workload.CheckClass(p); err != nil {
		return nil, err
	}
	if s.Client, err = readClient(p); err != nil {
		return nil, err
	}
	if s.Client.Spread() && db.EmbeddedDir(spec.Binding) != "" {
		return nil, p.Errorf("clients", "%d clients: %s is embedded in each process, so each client would measure a store of its own; spread a phase over clients of a database server", s.Client.Count, spec.Binding)
	}
	return s, nil
}

// readConfigs reads the workload's and the runner's configurations, with
// the spec's typed fields standing for their properties (each read once,
// with them, never from text written for it), and takes a spread
// client's share.
func (s *Setup) readConfigs() error {
	spec, p := s.Spec, s.Props
	wg := workload.Given{Operations: spec.Operations.ptr()}
	rg := runner.Given{Threads: spec.Threads, Rate: spec.Rate.ptr(), Duration: spec.Duration.ptr(), Warmup: spec.Warmup.ptr(), OpCount: spec.Operations.ptr()}
	if spec.Records > 0 {
		wg.Records = &spec.Records
	}
	var err error
	if s.Workload, err = workload.ParseConfigGiven(p, wg); err != nil {
		return err
	}
	if s.Runner, err = runner.ParseConfigGiven(p, spec.Phase == LoadPhase, rg); err != nil {
		return err
	}
	if s.cores, err = readCores(p); err != nil {
		return err
	}
	s.given = givenProperties(spec)
	return s.takeShare(p)
}

// readOutputs reads the measurements' options and the outputs the
// properties ask for.
func (s *Setup) readOutputs() error {
	p := s.Props
	var err error
	if s.measurements, err = MeasurementOptions(p); err != nil {
		return err
	}
	s.Runner.KeepRaw = slices.Contains(s.measurements.Kinds, sink.KindRaw)
	if slices.Contains(s.measurements.Kinds, sink.KindTimeSeries) {
		// YCSB's timeseries averages over timeseries.granularity: the
		// intervals follow it unless timeseries.interval is given, and
		// then must divide it.
		if _, set := p.Get("timeseries.interval"); !set {
			s.Runner.Interval = s.measurements.Granularity
		} else if s.measurements.Granularity%s.Runner.Interval != 0 {
			return p.Errorf("timeseries.granularity", "%v is not a multiple of timeseries.interval (%v)", s.measurements.Granularity, s.Runner.Interval)
		}
		s.measurements.TimeSeries = &sink.Buckets{Enabled: true}
	}
	s.Outputs, err = sink.Read(p, s.Spec.Inputs, s.Spec.Outputs...)
	return err
}

// readRecord reads what the result records of the run besides its
// measurements: the server's settings, its label, the server-side
// series, the extensions'; and whether the run's inserts are removed.
func (s *Setup) readRecord() error {
	p := s.Props
	for _, k := range p.Keys() {
		if name, ok := strings.CutPrefix(k, serverSetting); ok && name != "" {
			if s.serverSettings == nil {
				s.serverSettings = map[string]string{}
			}
			s.serverSettings[name] = props.RedactValue(k, s.redactor.HideKnown(p.String(k, "")))
		}
	}
	var err error
	if s.removeInserts, err = p.Bool("cleanupinserts", false); err != nil {
		return err
	}
	// The label is written and printed wherever the run is named (results,
	// status lines, metrics): a secret it repeats is hidden there too.
	s.Label = s.redactor.Redact(p.String("label", ""))
	if strings.ContainsFunc(s.Label, unicode.IsControl) || len(s.Label) > 200 {
		return p.Errorf("label", "want at most 200 bytes and no control characters (it is printed on terminals and pages)")
	}
	s.History = p.String(HistoryProperty, "")
	if s.ServerSide, err = readServerSide(p); err != nil {
		return err
	}
	return s.readExtensions(p)
}

// checkBinding has the binding read its properties, connecting to
// nothing, then refuses a property nobody read.
func (s *Setup) checkBinding(ctx context.Context) error {
	p := s.Props
	p.Get("db") // YCSB's binding class: the command line maps it to the binding
	if _, err := s.Binding.Open(ctx, p, s.bindingOptions(true)); err != nil {
		return err
	}
	WorkloadName(p) // reads workloadname
	var err error
	s.Warnings, err = checkRead(p, s.Spec.Binding)
	return err
}

// checkThreadsMemory refuses a phase whose threads on this machine need more
// memory than it has, and warns when they need most of it.
func (s *Setup) checkThreadsMemory(w *workload.Workload) error {
	if s.Client.Orchestrator != "local" && s.Client.Spread() { // the threads run elsewhere
		return nil
	}
	load := s.Spec.Phase == LoadPhase
	batch := 0
	if load && s.Runner.BatchSize > 1 {
		batch = s.Runner.BatchSize
	}
	say, err := checkMemory(s.Props, s.Runner.Threads, w.ThreadBytes(batch, !load), availableMemory())
	if err != nil {
		return err
	}
	if say != "" {
		s.Warnings = append(s.Warnings, say)
	}
	return nil
}

// Memory a client thread needs besides its records: its goroutine, its
// workload state and its sparse histograms. scripts/bench-memory measured
// 15-25 KiB a thread with the basic binding at 64 to 4,000 threads, paced
// and unpaced (docs/performance.md); a thread whose latencies spread over
// many of a histogram's chunks holds more, hence the margin.
const (
	threadBytes       = 64 << 10
	memoryWarnPercent = 50
)

// expected is the memory the threads of the phase checked last need
// (checkMemory): a process's memory guard allows for it.
var expected atomic.Int64

// ExpectedMemory is what the threads of the phase this process checked
// last need, in bytes, as checkMemory counts them (0: none checked).
func ExpectedMemory() int64 { return expected.Load() }

// AvailableMemory is the memory this process may still take, in bytes
// (0: unknown): see availableMemory.
func AvailableMemory() int64 { return availableMemory() }

// checkMemory refuses a thread count whose threads and records (each
// thread's records bytes, see workload.ThreadBytes) would not fit in the
// available memory (avail, 0: unknown), and warns past half of it.
func checkMemory(p *props.Props, threads int, records, avail int64) (warning string, err error) {
	per := int64(threadBytes) + records
	need := int64(threads) * per
	expected.Store(need)
	if avail <= 0 || need <= avail*memoryWarnPercent/100 {
		return "", nil
	}
	who := fmt.Sprintf("%d threads need", threads)
	if threads == 1 {
		who = "1 thread needs"
	}
	say := fmt.Sprintf("%s about %s of memory (about %s a thread, %s of it records); this machine has %s available",
		who, format.Bytes(need), format.Bytes(per), format.Bytes(records), format.Bytes(avail))
	if need > avail {
		fix := "give fewer threads"
		if 2*records > per {
			fix += ", smaller records (fieldcount × fieldlength), batches (batchsize) or scans (maxscanlength, maxquerylength)"
		}
		return "", p.Errorf("threadcount", "%s: %s, or spread them over clients", say, fix)
	}
	return say + ": the client may run short of memory", nil
}

// availableMemory is the memory this process may still take, in bytes
// (0: unknown): the least of the kernel's MemAvailable, what its cgroup's
// memory.max leaves (a container's limit: Docker's, a Kubernetes pod's)
// and what its address-space limit leaves (ulimit -v, prlimit --as).
func availableMemory() int64 {
	least := int64(0)
	take := func(v int64) {
		if v > 0 && (least == 0 || v < least) {
			least = v
		}
	}
	take(kbField("/proc/meminfo", "MemAvailable:"))
	take(cgroupMemoryLeft())
	take(addressSpaceLeft())
	return least
}

// kbField is a "Name: N kB" line's N of a /proc file, in bytes (0: none).
func kbField(file, name string) int64 {
	b, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, name); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// cgroupMemoryLeft is the process's cgroup (v2) memory.max less its
// memory.current, in bytes (0: no limit, or not known).
func cgroupMemoryLeft() int64 {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	path, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "0::")
	if !ok || strings.Contains(path, "\n") {
		return 0
	}
	dir := filepath.Join("/sys/fs/cgroup", filepath.Clean("/"+path))
	read := func(name string) int64 {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return 0
		}
		v, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64) // "max": 0
		return v
	}
	if limit := read("memory.max"); limit > 0 {
		return max(limit-read("memory.current"), 1)
	}
	return 0
}

func (s *Setup) bindingOptions(checkOnly bool) db.Options {
	return db.Options{Threads: s.Runner.Threads, Load: s.Spec.Phase == LoadPhase, CheckOnly: checkOnly, Schema: s.Workload.Schema(),
		AnswerBytes: s.Workload.AnswerBytes(s.Spec.Phase != LoadPhase), AnswerElements: s.Workload.AnswerElements(s.Spec.Phase != LoadPhase),
		Memory: availableMemory()}
}

// Result is a finished phase: the runner's measurements and what the
// engine learnt around them.
type Result struct {
	*runner.Result
	Setup *Setup
	// Server is the server's version string, when the binding tells.
	Server string
	// Driver names the client library and how it is used, when the
	// binding tells.
	Driver string
	// QueryModel is the binding's note on how it answers the workload's
	// queries ("native", "emulated ...").
	QueryModel string
	// Embedded is true when the store runs inside this process.
	Embedded bool
	// CPU is the CPU time this process used while the runner ran.
	CPU time.Duration
	// Sched is how long this process's goroutines waited to run while
	// the runner ran: the client's own scheduling, in every latency.
	Sched measure.SchedDelay
	// Clock is this client's clock against its coordinator's, when
	// measured (Spec.Gate).
	Clock *result.Clock
	// YCSBRuntime is the phase's runtime as YCSB counts its RunTime: from
	// before the threads start, the binding's connecting (YCSB's
	// db.init()) and each thread's start included, to the last thread's
	// cleanup, warmup left out. Runtime, servbench's, is the operations'
	// window alone.
	YCSBRuntime time.Duration
	// CloseErr is the binding's error on closing, after the results were
	// taken.
	CloseErr error
	// ID is the run's identity, random: its result document carries it,
	// so that no run is ever merged twice.
	ID string
	// Cores is GOMAXPROCS while the run ran (client.cores).
	Cores int

	measurements sink.Options // as the text report and the document show them

	series   *sink.Series
	recorder *probe.Recorder
	doc      *result.Doc // built once, when first asked for
}

// HistoryProperty names the history a command records its result in
// (Setup.History).
const HistoryProperty = "history.file"

// Run checks spec and runs it: the whole lifecycle of the binding, with
// every output its properties ask for written as the command line writes
// them (Execute; the text report goes nowhere unless exportfile names a
// file).
func Run(ctx context.Context, spec Spec, obs ...runner.Observer) (*Result, error) {
	s, err := Check(spec)
	if err != nil {
		return nil, err
	}
	return s.Execute(ctx, Writers{}, obs...)
}

// Run opens the binding, prepares it, fills an ephemeral store before a
// run phase, runs, and closes the binding (unless threads are stuck inside
// it, where closing could hang). Observers see every interval. It writes
// no output: Execute does.
func (s *Setup) Run(ctx context.Context, obs ...runner.Observer) (_ *Result, err error) {
	defer func() { err = s.redacted(err) }() // a binding's or driver's words may quote a credential
	ctx, cancelRun := context.WithCancel(ctx)
	defer cancelRun()
	load := s.Spec.Phase == LoadPhase
	w, err := s.buildWorkload(ctx, !load)
	if err != nil {
		return nil, err
	}
	o, err := s.openBinding(ctx, w)
	if err != nil {
		return nil, err
	}
	d, ephemeral := o.d, o.ephemeral
	closed := false
	defer func() {
		if !closed {
			d.Close()
		}
	}()
	var owned probed
	if s.removeInserts && !load && !ephemeral && w.Cfg.Insert > 0 {
		owned = s.insertsOwned(ctx, w, d)
		if ctx.Err() != nil {
			return nil, ErrInterruptedBeforeMeasuring
		}
	}
	server := ""
	if ds, ok := d.(db.Describer); ok {
		if v, err := ds.ServerVersion(ctx); err == nil {
			server = v
		}
	}
	driver := ""
	if dn, ok := d.(db.DriverNamer); ok {
		driver = dn.Driver()
	}
	restoreCores := s.takeCores(d, ephemeral || o.embedded)
	defer restoreCores()
	clock, stopWatch, err := s.startTogether(ctx, cancelRun)
	defer stopWatch()
	if err != nil {
		return nil, err
	}
	rec := s.recorder(d)
	if rec != nil {
		rec.Start(ctx)
		if s.live != nil {
			s.live.Store(rec)
		}
	}
	cpu0, sched0 := CPUTime(), measure.SchedSnapshot()
	series := &sink.Series{}
	runStart := time.Now()
	res, err := runner.Run(ctx, s.Runner, w, d, runner.Observers(append([]runner.Observer{series}, obs...)))
	running := time.Since(runStart)
	cpu, sched := CPUTime()-cpu0, measure.SchedBetween(sched0, measure.SchedSnapshot())
	if rec != nil {
		s.stopRecorder(ctx, rec)
		s.sayServerSide(rec)
	}
	if err != nil {
		return nil, err
	}
	cleanupLeft := false // still deleting, abandoned: the binding is not closed under it
	if owned.ok && res.StuckThreads == 0 && ctx.Err() == nil {
		cleanupLeft = !untilAbandoned(ctx, func() { s.removeRunInserts(ctx, w, d, owned) })
		if cleanupLeft {
			s.logf("cleanupinserts: left unfinished: the run was abandoned (a second signal); the run's other inserts stay")
		}
	}
	// YCSB's RunTime: from before its threads start, each connecting
	// (db.init()), to the last one's cleanup; no warmup.
	ycsbRuntime := o.opening + running - res.Warmup
	out := &Result{YCSBRuntime: ycsbRuntime, Result: res, Setup: s, series: series, Server: server, Driver: driver, QueryModel: o.queryModel, Embedded: o.embedded, CPU: cpu, Sched: sched, Clock: clock, ID: result.NewID(), Cores: runtime.GOMAXPROCS(0), measurements: s.measurements, recorder: rec}
	closed = true
	if res.StuckThreads == 0 && !cleanupLeft {
		out.CloseErr = s.closeUnlessAbandoned(ctx, d)
	}
	return out, nil
}

// opened is the binding opened for a phase and made ready.
type opened struct {
	d                   db.DB
	opening             time.Duration // how long Open took: part of YCSB's RunTime
	queryModel          string
	embedded, ephemeral bool
}

// openBinding opens the binding and readies it for the phase: its tables
// (db.Preparer), the Pagination query's index, an ephemeral store loaded
// before a run. On an error the binding is closed.
func (s *Setup) openBinding(ctx context.Context, w *workload.Workload) (o opened, err error) {
	p, name := s.Props, s.Spec.Binding
	load := s.Spec.Phase == LoadPhase
	openStart := time.Now()
	d, err := s.Binding.Open(ctx, p, s.bindingOptions(false))
	o.opening = time.Since(openStart)
	if err != nil {
		var pe *props.Error
		var ie *db.InputError
		if errors.As(err, &pe) || errors.As(err, &ie) {
			return o, bad(err)
		}
		if strings.HasPrefix(err.Error(), name+":") { // the binding named itself
			return o, err
		}
		return o, fmt.Errorf("%s: %w", name, err)
	}
	defer func() {
		if err != nil {
			d.Close()
		}
	}()
	o.d = d
	e, embedded := d.(db.Ephemeral)
	o.embedded, o.ephemeral = embedded, embedded && e.Ephemeral()
	if pr, ok := d.(db.Preparer); ok {
		if err := pr.Prepare(ctx, w.Cfg.Table, load || o.ephemeral); err != nil {
			return o, fmt.Errorf("%s: prepare: %w", name, err)
		}
	}
	if o.queryModel, err = declareIndex(ctx, w.Cfg, d, name, load || o.ephemeral); err != nil {
		return o, err
	}
	if o.queryModel != "" {
		s.logf("queries on %s: %s", w.Cfg.QueryField, o.queryModel)
	}
	if o.ephemeral {
		if load {
			s.logf("%s store is temporary and removed at exit; give -p %s.dir=DIR to keep it for a run", name, name)
		} else if err := s.preload(ctx, d); err != nil {
			if ctx.Err() != nil {
				return o, ErrInterruptedBeforeMeasuring
			}
			return o, err
		}
	}
	return o, nil
}

// startTogether waits for the phase's start: at once, at startat, or, for
// a client of a coordinator (Spec.Gate), when the coordinator says all
// are ready, its clock read first. A client whose coordinator stops
// answering cancels the run (cancelRun) until stopWatch is called.
func (s *Setup) startTogether(ctx context.Context, cancelRun func()) (clock *result.Clock, stopWatch func(), err error) {
	stopWatch = func() {}
	var offset time.Duration
	start := s.Client.StartAt // sooner when every client is ready
	if g := s.Spec.Gate; g != nil {
		// A client whose coordinator is gone stops as if interrupted.
		watched, stop := context.WithCancel(ctx)
		stopWatch = stop
		go g.Watch(watched, func() {
			s.logf("%s: the coordinator at %s stopped answering: stopping", s.Client, g)
			cancelRun()
		})
		if clock, err = g.Clock(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, stopWatch, ErrInterruptedBeforeMeasuring
			}
			return nil, stopWatch, err
		}
		offset = time.Duration(clock.OffsetMs * 1e6)
		if math.Abs(clock.OffsetMs) > clockWarnMs {
			s.logf("%s: this clock is %.1f ms off the coordinator's (± %.1f ms); start and end are on the coordinator's", s.Client, -clock.OffsetMs, clock.RTTMs/2)
		}
		if !s.Client.StartAt.IsZero() {
			at, err := g.Ready(ctx, s.Client.StartAt)
			switch {
			case ctx.Err() != nil:
				return nil, stopWatch, ErrInterruptedBeforeMeasuring
			case err != nil: // startat stands
				s.logf("%s: %v; starting at startat", s.Client, err)
			case !at.IsZero() && at.Before(s.Client.StartAt):
				start = at
			}
		}
	}
	if !s.Client.waitForStart(ctx, start, offset, s.logf) {
		return nil, stopWatch, ErrInterruptedBeforeMeasuring
	}
	return clock, stopWatch, nil
}

// untilAbandoned runs f, which talks to the server after the run, and
// returns whether it ended: it stops waiting for f once the run is
// abandoned (runner.WithAbandon: a second Ctrl-C), f going on, or ending
// with the process.
func untilAbandoned(ctx context.Context, f func()) bool {
	abandon := runner.AbandonOf(ctx)
	if abandon == nil {
		f()
		return true
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-abandon:
		select {
		case <-done:
			return true
		default:
			return false
		}
	}
}

// closeUnlessAbandoned closes d, which may talk to its server (a session
// ended, a connection drained), and stops waiting for it once the run is
// abandoned (runner.WithAbandon: a second Ctrl-C): the close is said to
// be left, not an error of the run, the results are written at once, and
// the close goes on, or ends with the process.
func (s *Setup) closeUnlessAbandoned(ctx context.Context, d db.DB) error {
	var err error
	if !untilAbandoned(ctx, func() { err = d.Close() }) {
		s.logf("%s: closing left unfinished: the run was abandoned (a second signal)", s.Spec.Binding)
		return nil
	}
	return err
}

// removeRunInserts deletes, after the run and outside its measurements,
// the keys the run handed out for inserts that were confirmed absent
// before it (property cleanupinserts; see insertsOwned), so that the next
// run on the same load starts from the loaded records: a plan's
// repetitions of D and E inserted the keys the first one had. The run's
// inserts beyond them stay, said in one line with why. A key that is not
// there is no error; any other failure is said and ends the removal.
func (s *Setup) removeRunInserts(ctx context.Context, w *workload.Workload, d db.DB, owned probed) {
	issued := w.RunInserts()
	if issued > owned.n {
		s.logf("cleanupinserts: the run's last %d of %d inserts stay: %s", issued-owned.n, issued, owned.beyond)
	}
	cd, done, err := threadOf(ctx, d)
	if err != nil {
		s.logf("cleanupinserts: %v; the run's inserts stay", err)
		return
	}
	defer done()
	start, n, m := time.Now(), int64(0), min(issued, owned.n)
	for ; n < m; n++ {
		key := w.RunInsertKey(n)
		if err = cd.Delete(ctx, w.Cfg.Table, key); err != nil && db.Classify(err, false) != db.NotFound {
			err = fmt.Errorf("delete %s: %w", key, err)
			break
		}
		if err = ctx.Err(); err != nil {
			break
		}
	}
	if err != nil {
		s.logf("cleanupinserts: %v after %d keys; the run's other inserts stay", err, n)
		return
	}
	if n > 0 {
		s.logf("removed the %d keys the run inserted (cleanupinserts) in %s", n, time.Since(start).Round(time.Millisecond))
	}
}

// threadOf is d as one thread uses it (db.ThreadIniter), for what the
// engine does outside the run's threads; done releases it.
func threadOf(ctx context.Context, d db.DB) (db.DB, func(), error) {
	ti, ok := d.(db.ThreadIniter)
	if !ok {
		return d, func() {}, nil
	}
	td, err := ti.InitThread(ctx, 0, 1)
	if err != nil {
		return nil, nil, err
	}
	if td == d {
		return d, func() {}, nil
	}
	return td, func() { td.Close() }, nil
}

// probed is what insertsOwned found: the run's inserts 0..n-1 take keys
// absent before it, which cleanupinserts may remove (ok); beyond says why
// the run's later inserts, if any, are not known to be its own.
type probed struct {
	n      int64
	beyond string
	ok     bool
}

// probeCap bounds the keys read before a run to learn which of its insert
// keys are absent (cleanupinserts).
var probeCap int64 = 100_000

// probeBatch is how many keys a binding that reads in batches
// (db.Pipeliner) is asked about at a time.
const probeBatch = 256

// insertBound is the most inserts the run can do: one an operation, its
// operationcount and warmupoperationcount; none known for a run bounded
// by time (operationcount 0, or a warmup by time).
func (s *Setup) insertBound() (int64, bool) {
	c := s.Runner
	if c.WarmupTime > 0 || c.OpCount == 0 && !c.None {
		return 0, false
	}
	return c.OpCount + c.WarmupOps, true
}

// insertsOwned learns, before the run and outside its measurements, which
// keys the run's inserts take are its own, so that cleanupinserts removes
// only them: it reads the run's insert keys in order, from its first up
// to the most it can insert (insertBound; probeCap at most), and stops at
// the first one there (the run's recordcount below the records loaded, a
// load with a gap, an earlier run's inserts kept): the run's inserts from
// there on would replace records it did not create. The binding must tell
// a missing key (a key no run writes reads as not found). When it cannot
// know, it says so and the run's inserts stay. Reads go in batches where
// the binding has them (db.Pipeliner), else one at a time; ctx ends them.
func (s *Setup) insertsOwned(ctx context.Context, w *workload.Workload, d db.DB) probed {
	cd, done, err := threadOf(ctx, d)
	if err != nil {
		s.logf("cleanupinserts: %v; the run's inserts stay", err)
		return probed{}
	}
	defer done()
	first := w.RunInsertKey(0)
	if ok, err := absentKey(cd.Read(ctx, w.Cfg.Table, first+"~servbench-absent", nil, new(db.Record))); err != nil || !ok {
		if err != nil {
			s.logf("cleanupinserts: cannot tell whether the run's insert keys are there before it (%v): the run's inserts will stay", err)
		} else {
			s.logf("cleanupinserts: %s reads a key it never stored as found: the run cannot tell its inserts from records already there, and they will stay", s.Spec.Binding)
		}
		return probed{}
	}
	bound, known := s.insertBound()
	want := min(bound, probeCap)
	if !known {
		want = probeCap
	}
	slow := time.AfterFunc(slowStart, func() {
		s.logf("cleanupinserts: reading up to %d of the run's insert keys before it, to remove after it only those it creates; Ctrl-C stops", want)
	})
	defer slow.Stop()
	kp := newKeyProbe(cd, w)
	n := int64(0)
	for n < want {
		if ctx.Err() != nil {
			return probed{}
		}
		m := min(want-n, kp.batch)
		there, err := kp.firstThere(ctx, n, m)
		if there < 0 {
			n += m
			continue
		}
		if ctx.Err() != nil {
			return probed{}
		}
		return s.ownedBefore(w, n+there, err)
	}
	switch {
	case !known:
		return probed{n: n, ok: n > 0, beyond: fmt.Sprintf("only its first %d insert keys were read before it (a run bounded by time, with no operationcount, may insert any number)", n)}
	case bound > n:
		return probed{n: n, ok: n > 0, beyond: fmt.Sprintf("only its first %d insert keys were read before it, of the %d its operations could insert (at most %d are read)", n, bound, probeCap)}
	}
	return probed{n: n, ok: n > 0}
}

// absentKey reports whether a read's error says its key is missing; an
// error that says something else is returned.
func absentKey(err error) (bool, error) {
	switch {
	case err == nil:
		return false, nil
	case db.Classify(err, false) == db.NotFound:
		return true, nil
	}
	return false, err
}

// ownedBefore is what the run owns when its insert n (from 0) was there
// before it, or could not be read (err): its inserts before n, or none.
func (s *Setup) ownedBefore(w *workload.Workload, n int64, err error) probed {
	key := w.RunInsertKey(n)
	switch {
	case err != nil && n == 0:
		s.logf("cleanupinserts: cannot tell whether %s, the run's first insert key, is there before it (%v): the run's inserts will stay", key, err)
		return probed{}
	case err != nil:
		return probed{n: n, ok: true, beyond: fmt.Sprintf("cannot tell whether %s, its insert %d, was there before it (%v)", key, n+1, err)}
	case n == 0:
		s.logf("cleanupinserts: %s, the run's first insert key, is there before the run (recordcount %d below the records loaded, or an earlier run's inserts): its inserts would replace records it did not create, and will not be removed", key, w.Cfg.RecordCount)
		return probed{}
	}
	return probed{n: n, ok: true, beyond: fmt.Sprintf("%s, its insert %d, was there before it (a gap in the records loaded, recordcount below them, or an earlier run's inserts): from there on it replaced records it did not create", key, n+1)}
}

// keyProbe reads a run's insert keys before it, in batches where the
// binding has them (db.Pipeliner), else one at a time.
type keyProbe struct {
	cd    db.DB
	pl    db.Pipeliner
	w     *workload.Workload
	batch int64
	ops   []db.PipelineOp
	rec   db.Record
}

// newKeyProbe is a probe of cd's: a batch is at most the binding's
// window, its replies bounded by it (a Redis connection's, together).
func newKeyProbe(cd db.DB, w *workload.Workload) *keyProbe {
	kp := &keyProbe{cd: cd, w: w, batch: probeBatch}
	if pl, ok := cd.(db.Pipeliner); ok && pl.Window() >= 2 {
		kp.pl = pl
		kp.batch = min(kp.batch, int64(pl.Window()))
		kp.ops = make([]db.PipelineOp, 0, kp.batch)
	}
	return kp
}

// firstThere reads the run's insert keys from to from+m-1 and returns
// the first one there (or that could not be read, with why), counted
// from from; -1 when none is.
func (kp *keyProbe) firstThere(ctx context.Context, from, m int64) (int64, error) {
	table := kp.w.Cfg.Table
	if kp.pl != nil {
		kp.ops = kp.ops[:0]
		for i := int64(0); i < m; i++ {
			kp.ops = append(kp.ops, db.PipelineOp{Key: kp.w.RunInsertKey(from + i), Result: new(db.Record)})
		}
		kp.pl.Pipeline(ctx, table, kp.ops)
		for i := range kp.ops {
			if ok, err := absentKey(kp.ops[i].Err); err != nil || !ok {
				return int64(i), err
			}
		}
		return -1, nil
	}
	for i := int64(0); i < m; i++ {
		kp.rec.Reset()
		if ok, err := absentKey(kp.cd.Read(ctx, table, kp.w.RunInsertKey(from+i), nil, &kp.rec)); err != nil || !ok {
			return i, err
		}
	}
	return -1, nil
}

// buildWorkload builds the workload's generators. On a large data set
// that takes seconds (the latest distribution sums ζ over every record):
// after a second it says so, and it stops when ctx ends.
func (s *Setup) buildWorkload(ctx context.Context, run bool) (*workload.Workload, error) {
	slow := time.AfterFunc(slowStart, func() {
		s.logf("preparing the workload's key choice over %d records (%s distribution); Ctrl-C stops", s.Workload.RecordCount, s.Workload.RequestDist)
	})
	w, err := workload.Build(ctx, s.Workload, run)
	slow.Stop()
	switch {
	case err == nil:
		return w, nil
	case ctx.Err() != nil:
		return nil, ErrInterruptedBeforeMeasuring
	}
	return nil, bad(err)
}

// slowStart is how long start-up work goes on before it is announced.
var slowStart = time.Second

func (s *Setup) logf(format string, args ...any) {
	if s.Spec.Log != nil {
		fmt.Fprintf(s.Spec.Log, "servbench: "+format+"\n", args...)
	}
}

// declareIndex tells the binding which field the workload queries, and
// asks it to create the index when createindexes is set and the phase
// loads data. It returns the binding's note on how it answers the query.
func declareIndex(ctx context.Context, cfg *workload.Config, d db.DB, binding string, loading bool) (string, error) {
	if cfg.Query > 0 {
		if _, ok := d.(db.Querier); !ok {
			return "", bad(fmt.Errorf("query1proportion is %g but binding %s does not answer queries", cfg.Query, binding))
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
func (s *Setup) preload(ctx context.Context, d db.DB) error {
	w, err := workload.Build(ctx, s.Workload, false)
	if err != nil {
		return bad(err)
	}
	// The load of the same records, unthrottled, with nothing of the
	// run's pacing, time limit or warmup.
	cfg := s.Runner
	cfg.Load, cfg.Rate, cfg.Stages, cfg.Poisson, cfg.MaxExecution = true, 0, nil, false, 0
	cfg.OpCount, cfg.WarmupOps, cfg.WarmupTime, cfg.KeepRaw = 0, 0, 0, false
	s.logf("no %s.dir given: loading %d records into a temporary store first", s.Spec.Binding, w.Cfg.InsertCount)
	start := time.Now()
	res, err := runner.Run(ctx, cfg, w, d, nil)
	if err != nil {
		return err
	}
	if res.Reason != result.Completed {
		if res.Err != nil {
			return fmt.Errorf("preload: %w", res.Err)
		}
		return fmt.Errorf("preload: %s", res.Reason)
	}
	s.logf("loaded in %s", time.Since(start).Round(time.Millisecond))
	return nil
}

// Doc is the result document of a finished phase, with its time series,
// built when first asked for.
func (r *Result) Doc() *result.Doc {
	if r.doc == nil {
		r.doc = r.newDoc()
	}
	return r.doc
}

func (r *Result) newDoc() *result.Doc {
	s := r.Setup
	d := sink.NewDoc(r.Result, r.series.Points, sink.Meta{
		Command: s.Spec.Phase.String(), Label: s.Label, Workload: WorkloadName(s.Props),
		Binding: s.Spec.Binding, Server: r.Server, Driver: r.Driver, QueryModel: r.QueryModel, Properties: s.redactor.Props(s.Properties()),
		CPU: r.CPU, SchedP99: r.Sched.P99, Cores: r.Cores, ID: r.ID, Redactor: s.redactor,
	}, r.measurements)
	d.ServerSide = r.serverSide(d.Start, d.Operations)
	if d.ServerSide != nil { // a server's or an endpoint's words may quote a credential
		for i := range d.ServerSide.Sources {
			src := &d.ServerSide.Sources[i]
			src.Name, src.Error = s.redactor.HideKnown(src.Name), s.redactor.Redact(src.Error)
		}
	}
	d.YCSBRuntimeMs = float64(r.YCSBRuntime) / float64(time.Millisecond)
	if len(s.serverSettings) > 0 {
		d.ServerSettings = s.serverSettings
		for k := range d.Properties {
			if strings.HasPrefix(k, serverSetting) {
				delete(d.Properties, k) // recorded once, as settings
			}
		}
	}
	if st := s.Runner.Stages; len(st) > 0 {
		d.Stages = stageResults(st, time.Duration(d.WarmupMs*float64(time.Millisecond)), d.Series)
	}
	if r.Clock != nil { // on the coordinator's clock, as the other clients' (see measureClock)
		off := time.Duration(r.Clock.OffsetMs * 1e6)
		d.Start, d.End, d.Clock = d.Start.Add(off), d.End.Add(off), r.Clock
	}
	return d
}

// Ended is the phase as its outputs see it: its result document and the
// raw samples it kept.
func (r *Result) Ended() sink.Ended { return sink.Ended{Doc: r.Doc(), Raw: r.Total.Raw} }
