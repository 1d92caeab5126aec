// Package sink holds what a phase writes: its outputs, each registered by
// name (as k6's outputs are), and the formats they write: YCSB's text
// report (every measurementtype and measurement.interval YCSB has), the
// result document built from the runner's measurements, its time series as
// CSV, status lines, HdrHistogram interval logs, Prometheus metrics.
//
// An output is one file of this package and its line in defs: its Def
// names the properties it reads; Read turns them into an Output when the
// phase asks for it; Open makes a Sink of it before the phase runs (a
// file that cannot be written fails then, not after an hour of
// measuring); End writes what it keeps of the ended phase, Close puts its
// files in place. The engine opens a phase's outputs and ends them
// (engine.Setup.Execute); a phase spread over clients has its merged
// result written by the same outputs, those whose Where is Merged.
//
// Invariants: observers are fed at interval ends, never per operation;
// each output ends and closes on its own, so one that cannot be written
// leaves every other written; a file output is written whole or not at
// all (package atomicfile) and never destroys what its path held.
package sink

import (
	"errors"
	"fmt"
	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// Where says where the output of a phase spread over clients is written.
type Where uint8

const (
	// Merged: the coordinator writes it from the clients' merged result.
	Merged Where = iota
	// EachClient: every client has its own (its metrics on its own port).
	EachClient
	// OneProcess: a file of one process, which merges nothing: a phase
	// spread over clients refuses it.
	OneProcess
	// Coordinator: the coordinator has it, fed its clients' merged
	// intervals as they come (a Feed) and ended with their merged result.
	Coordinator
)

// A Feed is an output a spread phase's coordinator feeds (Where:
// Coordinator): the clients' merged intervals as they come.
type Feed interface {
	Sink
	Merged(p MergedInterval)
}

// MergedInterval is what a spread phase's clients sent of their last
// intervals, together: their operations and failures, and one histogram
// of every operation's response times (nil when none came).
type MergedInterval struct {
	// End is the latest end of the intervals, measuring time.
	End                time.Duration
	Ops, Failed        int64
	Histogram          *hdr.Histogram
	Reporting, Clients int
}

// A File is a path an output writes whole at the end of a phase, and the
// property that names it ("-o (result.file)"). With Ext, Path is a
// prefix: the output writes the files Path<NAME>Ext as it goes (the
// HdrHistogram logs, one a section).
type File struct{ What, Path, Ext string }

// An Output is an output a phase's properties ask for, read and checked,
// not yet opened.
type Output interface {
	// Name is the name it is registered by.
	Name() string
	// Files are the paths it writes at the end: no two outputs write
	// one, and a spread phase holds them before its clients start.
	Files() []File
	// Where says where a spread phase writes it.
	Where() Where
	// Open opens it for a phase about to run: its files are created now,
	// so that a bad path fails before anything is measured.
	Open(env *Env) (Sink, error)
}

// A Sink is an opened Output. A Sink that is also a runner.Observer sees
// every interval of the run.
type Sink interface {
	// End writes what it keeps of the ended phase.
	End(e Ended) error
	// Close puts its files in place when keep is true, and otherwise
	// drops them, leaving what their paths held.
	Close(keep bool) error
}

// Ended is a phase that ended, as its outputs see it: its result
// document (a run here, or a spread phase's clients' merged), which every
// output reads, the text report too; and the raw samples a run here kept
// (measurementtype=raw), which no document holds.
type Ended struct {
	Doc *result.Doc
	Raw []measure.Sample
}

// Env is what an output is opened with: where the lines go and what the
// phase is.
type Env struct {
	// Stdout takes YCSB's text report unless exportfile names a file;
	// Stderr status lines and the progress line (Bar: a terminal).
	Stdout, Stderr io.Writer
	Bar            bool
	// Measurements are the phase's measurement properties, as its text
	// report and logs show them.
	Measurements *Options
	// Label is the property label; Run names the run in the metrics'
	// labels; Client is the client's index (0 when not spread).
	Label, Run        string
	Client            int
	Workload, Binding string
	// Rate is the target rate over the client's threads (0: none).
	Rate float64
	// CPU is the process's CPU time so far (nil: not known).
	CPU func() time.Duration
	// ServerSide is what the servers' sampling has so far, timed from
	// start, the measured run's (nil: none; it returns nil before the
	// sampling starts).
	ServerSide func(start time.Time) *result.ServerSide
}

// A Def registers an output.
type Def struct {
	// Name is the output's name ("json", "hlog"); What says what it
	// writes, in words ("the result").
	Name, What string
	// Properties are those it reads: a client of a coordinator, which
	// writes no file, leaves them out of its result with the output.
	Properties []string
	// Read reads the properties: a nil Output when the phase does not ask
	// for it. Its errors name the property (props.Errorf).
	Read func(p *props.Props) (Output, error)
}

// defs are the outputs, in the order they are opened and ended: a new
// one is a file of this package and its line here.
var defs = []Def{
	textDef,
	jsonDef,
	csvDef,
	rawDef,
	hdrDef,
	hlogDef,
	metricsDef,
	statusDef,
	boardDef,
}

// Register adds an output from outside this package (a program that
// embeds the engine, a test), once a name, before any phase is checked.
func Register(d Def) {
	if d.Name == "" || d.Read == nil || slices.ContainsFunc(defs, func(o Def) bool { return o.Name == d.Name }) {
		panic(fmt.Sprintf("sink: Register %q: empty, without Read, or twice", d.Name))
	}
	defs = append(defs, d)
}

// Names are the registered outputs' names, in the order they are opened
// and ended.
func Names() []string {
	names := make([]string, len(defs))
	for i, d := range defs {
		names[i] = d.Name
	}
	return names
}

// Outputs are the outputs a phase asks for, in the order they were
// registered.
type Outputs []Output

// Read reads every registered output's properties from p, adds extra (the
// outputs a caller asks for beside the properties: Process), and checks
// that no two of them write one file: every file output of a phase is
// in the one list Read returns.
func Read(p *props.Props, inputs []Input, extra ...Output) (Outputs, error) {
	var out Outputs
	for _, d := range defs {
		o, err := d.Read(p)
		if err != nil {
			return nil, err
		}
		if o != nil {
			out = append(out, o)
		}
	}
	out = append(out, extra...)
	files := out.Files()
	if t, ok := Find[*textOutput](out); ok && t.path == "" && !discarded(os.Stdout) {
		// Another output there would be mixed with the text report.
		files = append(files, File{What: "the text report (standard output)", Path: "/dev/stdout"})
	}
	if err := CheckFiles(files); err != nil {
		return nil, err
	}
	if st, err := os.Stderr.Stat(); err == nil && st.Mode().IsRegular() {
		// 2>FILE: an output renamed over it would lose every message. The
		// text report may share it (> log 2>&1): both are appended.
		if err := CheckFiles(append(out.Files(), File{What: "standard error", Path: "/dev/stderr"})); err != nil {
			return nil, err
		}
	}
	if err := checkInputs(out.Files(), p, inputs); err != nil {
		return nil, err
	}
	return out, nil
}

// discarded says whether f is /dev/null, where what is mixed is lost all
// the same.
func discarded(f *os.File) bool {
	st, err := f.Stat()
	null, nerr := os.Stat(os.DevNull)
	return err == nil && nerr == nil && os.SameFile(st, null)
}

// An Input is a file a phase reads that its properties do not name (a
// plan's file, its reference), named for messages.
type Input struct{ What, Path string }

// checkInputs fails when an output writes a file the phase reads: a
// property file (-P, a workload's), a file another property names (a
// fieldlengthhistogram, a CA), or one of more, links followed; an output
// that writes files under a prefix (HdrHistogram logs) when one of them is
// one. The run would write over what it was given.
func checkInputs(files []File, p *props.Props, more []Input) error {
	outKeys := map[string]bool{}
	for _, d := range defs {
		for _, k := range d.Properties {
			outKeys[k] = true
		}
	}
	var inputs, whats []string
	seen := map[string]bool{}
	add := func(path, what string) {
		if path == "" || seen[path] {
			return
		}
		if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
			return
		}
		seen[path] = true
		inputs, whats = append(inputs, path), append(whats, what)
	}
	for _, in := range more {
		add(in.Path, in.What)
	}
	for _, f := range p.Files() {
		add(f, "a property file")
	}
	p.Each(func(k, v, src string) {
		if i := strings.LastIndexByte(src, ':'); i > 0 {
			if _, err := strconv.Atoi(src[i+1:]); err == nil {
				add(src[:i], "a property file")
			}
		}
		if !outKeys[k] {
			add(v, "the file of property "+k)
		}
	})
	outs := make([]string, len(files))
	for i, f := range files {
		if f.Ext == "" {
			outs[i] = f.Path
		}
	}
	if i, j, dup := atomicfile.Collide(outs, inputs); dup && j >= len(outs) {
		return fmt.Errorf("output file %s (%s) is %s the run reads (%s): give another path", outs[i], files[i].What, whats[j-len(outs)], inputs[j-len(outs)])
	}
	for _, f := range files {
		if f.Ext == "" {
			continue
		}
		for j, in := range inputs {
			if atomicfile.Named(f.Path, f.Ext, in) {
				return fmt.Errorf("%s writes %s<NAME>%s, and %s is %s the run reads: give another prefix", f.What, f.Path, f.Ext, in, whats[j])
			}
		}
	}
	return nil
}

// CheckFiles fails when two of files are one file (links followed), or
// one is among those a prefix names (File.Ext).
func CheckFiles(files []File) error {
	paths := make([]string, len(files))
	for i, f := range files {
		if f.Ext == "" {
			paths[i] = f.Path
		}
	}
	if i, j, dup := atomicfile.SamePath(paths); dup {
		return fmt.Errorf("output file %s is named by both %s and %s", paths[i], files[i].What, files[j].What)
	}
	for _, f := range files {
		if f.Ext == "" {
			continue
		}
		for j, p := range paths {
			if atomicfile.Named(f.Path, f.Ext, p) {
				return fmt.Errorf("output file %s is named by %s and is one of %s (%s<NAME>%s)", p, files[j].What, f.What, f.Path, f.Ext)
			}
		}
	}
	return nil
}

// Files are the files every output writes.
func (o Outputs) Files() []File {
	var all []File
	for _, x := range o {
		all = append(all, x.Files()...)
	}
	return all
}

// Only are the outputs that keep returns true for.
func (o Outputs) Only(keep func(Output) bool) Outputs {
	return slices.DeleteFunc(slices.Clone(o), func(x Output) bool { return !keep(x) })
}

// Properties are the properties the named outputs read.
func Properties(names ...string) []string {
	var ps []string
	for _, d := range defs {
		if slices.Contains(names, d.Name) {
			ps = append(ps, d.Properties...)
		}
	}
	return ps
}

// What says what the output writes, in words ("the result"), for
// messages.
func What(o Output) string {
	for _, d := range defs {
		if d.Name == o.Name() {
			return d.What
		}
	}
	return o.Name()
}

// Path is the first file the named output writes ("" when the phase does
// not ask for it, or it writes none).
func (o Outputs) Path(name string) string {
	for _, x := range o {
		if f := x.Files(); x.Name() == name && len(f) > 0 {
			return f[0].Path
		}
	}
	return ""
}

// Asking is the property that asks for the output (the first its Def
// reads), or its name when it reads none: what a refusal names.
func Asking(o Output) string {
	if ps := Properties(o.Name()); len(ps) > 0 {
		return ps[0]
	}
	return o.Name()
}

// Find returns the output of type T, if the phase asks for it.
func Find[T Output](o Outputs) (T, bool) {
	for _, x := range o {
		if t, ok := x.(T); ok {
			return t, true
		}
	}
	var zero T
	return zero, false
}

// Open opens every output; when one fails, those opened are dropped.
// Those that write a named pipe, a device or standard output in place
// come last, so that they are ended last: a reader that never reads holds
// one of them, not the files written before it.
func (o Outputs) Open(env *Env) (Opened, error) {
	var opened Opened
	for _, x := range o.InPlaceLast() {
		s, err := x.Open(env)
		if err != nil {
			opened.Drop()
			return Opened{}, err
		}
		opened.sinks, opened.names = append(opened.sinks, s), append(opened.names, x.Name())
	}
	return opened, nil
}

// InPlaceLast is o with those that write standard output, a named pipe or
// a device in place after the others, each part in its order.
func (o Outputs) InPlaceLast() Outputs {
	var files, inPlace Outputs
	for _, x := range o {
		if writesInPlace(x) {
			inPlace = append(inPlace, x)
			continue
		}
		files = append(files, x)
	}
	return append(files, inPlace...)
}

// writesInPlace reports whether x writes standard output or one of its
// files is a named pipe or a device (written in place, never replaced).
func writesInPlace(x Output) bool {
	if t, ok := x.(*textOutput); ok && t.path == "" {
		return true // standard output
	}
	for _, f := range x.Files() {
		if f.Ext != "" || f.Path == "" {
			continue
		}
		if st, err := os.Stat(f.Path); err == nil && st.Mode()&(os.ModeNamedPipe|os.ModeDevice|os.ModeCharDevice) != 0 {
			return true
		}
	}
	return false
}

// Opened are a phase's opened outputs.
type Opened struct {
	sinks []Sink
	names []string // each one's Output.Name
}

// Observers are the sinks that watch the run's intervals.
func (s Opened) Observers() []runner.Observer {
	var obs []runner.Observer
	for _, x := range s.sinks {
		if o, ok := x.(runner.Observer); ok {
			obs = append(obs, o)
		}
	}
	return obs
}

// End ends every sink with e, each on its own: one whose End fails drops
// its files, and the others are kept. The error, a *NotWritten, names
// each one not written.
func (s Opened) End(e Ended) error {
	var nw NotWritten
	for i, x := range s.sinks {
		if err := EndOne(x, e); err != nil {
			nw.Names, nw.Errs = append(nw.Names, s.names[i]), append(nw.Errs, err)
		}
	}
	if len(nw.Errs) == 0 {
		return nil
	}
	return &nw
}

// EndOne ends one sink with e and closes it, keeping its files only when
// it was written.
func EndOne(x Sink, e Ended) error {
	err := x.End(e)
	if cerr := x.Close(err == nil); err == nil {
		err = cerr
	}
	return err
}

// Drop closes every sink without keeping its files.
func (s Opened) Drop() {
	for _, x := range s.sinks {
		x.Close(false)
	}
}

// NotWritten is the outputs a phase's end could not write, each with
// why; every other one was written.
type NotWritten struct {
	Names []string // each one's Output.Name
	Errs  []error
}

// Error is the outputs' errors, on one line.
func (e *NotWritten) Error() string { return joined(e.Errs).Error() }

// joined is errs as one error of one line (nil when there is none).
func joined(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return errors.New(strings.Join(msgs, "; "))
}
