package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workloads"
)

// ycsbFlags are the flags YCSB's command line has, written with one dash.
var ycsbFlags = map[string]bool{"threads": true, "target": true, "db": true, "l": true, "s": true, "p": true, "P": true}

// usageError is bad input: exit status 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }

func badf(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// phaseArgs is what load and run take.
type phaseArgs struct {
	binding string
	props   *props.Props
	cpuprof string // --cpuprofile: the client's own CPU profile (pprof)
	trace   string // --trace: the client's own execution trace (go tool trace)
	// indexFrom names the orchestrator whose environment gives this
	// client's index (--client-index-from NAME: coordinator.Templated).
	indexFrom string
	emit      string // --emit DIR: write the orchestrator's manifests there, run nothing
	help      bool
}

// propAction is one property-setting flag; they are applied in
// command-line order so later ones win, as in YCSB (-P files, then -p).
type propAction func(p *props.Props) error

type actionList struct {
	actions *[]propAction
	make    func(string) propAction
}

func (a actionList) String() string { return "" }
func (a actionList) Set(v string) error {
	*a.actions = append(*a.actions, a.make(v))
	return nil
}

type boolAction struct{ actionList }

func (boolAction) IsBoolFlag() bool { return true }

// parsePhase parses "servbench load|run [binding] [flags]". Flags may come
// before or after the binding name.
func parsePhase(ctx context.Context, cmd string, args []string, stderr io.Writer) (*phaseArgs, error) {
	pa := &phaseArgs{}
	var acts []propAction
	fs := phaseFlags(ctx, cmd, pa, &acts)
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				pa.help = true
				return pa, nil
			}
			return nil, badf("%s: %s (see 'servbench %s --help')", cmd, props.RedactText(err.Error()), cmd) // the flag package quotes a bad value whole
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
	if pa.help {
		return pa, nil
	}
	if len(positional) > 1 {
		return nil, badf("%s: unexpected arguments %q: give one binding name (see 'servbench %s --help')", cmd, strings.Join(positional[1:], " "), cmd)
	}
	p := props.New()
	for _, a := range acts {
		if err := a(p); err != nil {
			return nil, usageError{err}
		}
	}
	if len(positional) == 1 {
		pa.binding = positional[0]
	}
	if dbName, ok := p.Get("db"); ok {
		name := dbClass(dbName)
		if pa.binding != "" && pa.binding != name {
			return nil, badf("%s: binding %q and -db %q disagree", cmd, pa.binding, dbName)
		}
		pa.binding = name
	}
	if pa.binding == "" {
		pa.binding = "pebble"
	}
	if _, ok := p.Get("workload"); !ok && len(p.Keys()) == 0 {
		return nil, badf("%s: no workload: give a built-in one with -w (a..h or pagination, see 'servbench workloads') or a property file with -P", cmd)
	}
	pa.props = p
	return pa, nil
}

// phaseFlags is the flag set of "servbench load|run": the flags that set
// a property append their action to *acts, in the order given; the
// others set pa's fields.
func phaseFlags(ctx context.Context, cmd string, pa *phaseArgs, acts *[]propAction) *flag.FlagSet {
	fs := flag.NewFlagSet("servbench "+cmd, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	setter := func(key, flagName string) func(string) propAction { // the property's source is the flag as written
		source := "--" + flagName
		if ycsbFlags[flagName] {
			source = "-" + flagName
		}
		return func(v string) propAction {
			return func(p *props.Props) error { p.Set(key, v, source); return nil }
		}
	}
	file := actionList{acts, func(v string) propAction {
		return func(p *props.Props) error { return p.LoadFileContext(ctx, v) }
	}}
	builtin := actionList{acts, func(v string) propAction {
		return func(p *props.Props) error { return workloads.Load(p, v) }
	}}
	prop := actionList{acts, func(v string) propAction {
		return func(p *props.Props) error {
			k, val, err := props.ParseAssignment(v)
			if err != nil {
				return err
			}
			p.Set(k, val, "-p "+k)
			return nil
		}
	}}
	for _, name := range []string{"P", "property-file"} {
		fs.Var(file, name, "")
	}
	for _, name := range []string{"w", "workload"} {
		fs.Var(builtin, name, "")
	}
	for _, name := range []string{"p", "property"} {
		fs.Var(prop, name, "")
	}
	for _, name := range []string{"threads", "threadcount"} {
		fs.Var(actionList{acts, setter("threadcount", name)}, name, "")
	}
	fs.Var(actionList{acts, setter("target", "target")}, "target", "")
	fs.Var(boolAction{actionList{acts, func(v string) propAction {
		return func(p *props.Props) error { p.Set("status", v, "-s"); return nil }
	}}}, "s", "")
	fs.Var(boolAction{actionList{acts, func(v string) propAction {
		return func(p *props.Props) error { p.Set("status", v, "--status"); return nil }
	}}}, "status", "")
	for _, name := range []string{"l", "label"} {
		fs.Var(actionList{acts, setter("label", name)}, name, "")
	}
	fs.Var(actionList{acts, setter("db", "db")}, "db", "")
	fs.Var(actionList{acts, setter("clients", "clients")}, "clients", "")
	fs.Var(actionList{acts, setter("clientindex", "client-index")}, "client-index", "")
	fs.Var(actionList{acts, setter("metrics.addr", "metrics-addr")}, "metrics-addr", "")
	fs.Var(actionList{acts, setter("dashboard.addr", "dashboard")}, "dashboard", "")
	fs.Var(actionList{acts, setter("orchestrator", "orchestrator")}, "orchestrator", "")
	flags := map[string]bool{}
	for _, o := range coordinator.All() { // each orchestrator's flags, as its properties say
		for _, pr := range o.Properties {
			if pr.Flag != "" && !flags[pr.Flag] {
				flags[pr.Flag] = true
				fs.Var(actionList{acts, setter(pr.Name, pr.Flag)}, pr.Flag, "")
			}
		}
	}
	fs.StringVar(&pa.indexFrom, "client-index-from", "", "")
	fs.StringVar(&pa.emit, "emit", "", "")
	for _, name := range []string{"maxexecutiontime", "duration"} {
		fs.Var(actionList{acts, setter("maxexecutiontime", name)}, name, "")
	}
	for _, name := range []string{"o", "json"} {
		fs.Var(actionList{acts, setter("result.file", name)}, name, "")
	}
	fs.Var(actionList{acts, setter("timeseries.file", "csv")}, "csv", "")
	fs.Var(actionList{acts, setter("hdrhistogram.log", "hlog")}, "hlog", "")
	fs.StringVar(&pa.cpuprof, "cpuprofile", "", "")
	fs.StringVar(&pa.trace, "trace", "", "")
	fs.BoolVar(&pa.help, "h", false, "")
	fs.BoolVar(&pa.help, "help", false, "")
	return fs
}

// dbClass maps YCSB's -db class names to binding names.
func dbClass(v string) string {
	switch v {
	case "site.ycsb.BasicDB", "com.yahoo.ycsb.BasicDB", "site.ycsb.BasicTSDB":
		return "basic"
	}
	return v
}
