package coordinator

// A spread phase's outputs, in one place: which ones it refuses
// (CheckOutputs: files of one process, which merge nothing), which the
// coordinator writes from the merged result (those whose Where is
// sink.Merged: their properties are left out of what the clients are
// given, ClientProps), which each client keeps (sink.EachClient:
// ClientOutputs), and where each client's result and metrics go. Every
// path that starts clients (Run, the Kubernetes manifests) goes through
// them; a new output declares its Where and needs nothing here.

import (
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/sink"
)

// OutputError is the outputs of a phase that could not be written at its
// end, each named with why; every other output was written.
type OutputError struct {
	Failed []string
	// Merged are the merged outputs among them, by name (Unwrap gives
	// them, as a run here's outputs not written are given).
	Merged sink.NotWritten
}

// Unwrap is the merged outputs not written (nil: none).
func (e *OutputError) Unwrap() error {
	if len(e.Merged.Names) == 0 {
		return nil
	}
	return &e.Merged
}

// Add is e with what added, not written for err (a new one when e is
// nil).
func (e *OutputError) Add(what string, err error) *OutputError {
	if e == nil {
		e = &OutputError{}
	}
	e.Failed = append(e.Failed, what+": "+err.Error())
	return e
}

func (e *OutputError) Error() string {
	return "not written: " + strings.Join(e.Failed, "; ")
}

// HoldOutputs checks, before a phase runs, that each path (empty ones
// left out) can be written at its end, as a single run opens its outputs
// (package atomicfile: a directory, a link to nowhere or a read-only file
// system is refused, a pipe nobody reads too). A path that is a pipe or a
// device stays open until release, so that its reader does not see an
// end before the output is written; any other is let go at once, keeping
// what it held. The error names the first path that cannot be written.
func HoldOutputs(outs []sink.File) (release func(), err error) {
	var held []*atomicfile.File
	release = func() {
		for _, f := range held {
			f.Abort() // a pipe or device: nothing of it is dropped
		}
	}
	for _, o := range outs {
		if o.Path == "" {
			continue
		}
		f, err := atomicfile.Create(o.Path)
		if err != nil {
			release()
			return nil, fmt.Errorf("%s %s: %w", o.What, o.Path, err)
		}
		if st, err := os.Stat(o.Path); err == nil && !st.Mode().IsRegular() {
			held = append(held, f)
		} else {
			f.Abort()
		}
	}
	return release, nil
}

// PhaseOutputs are the files written from a spread phase's merged result
// (the report, the result, the time series: the outputs whose Where is
// sink.Merged), to be held before the phase runs (HoldOutputs) and
// written after it (WriteMerged).
func PhaseOutputs(o sink.Outputs) []sink.File {
	return o.Only(func(o sink.Output) bool { return merged(o) || o.Where() == sink.Coordinator }).Files()
}

// openFeeds opens the outputs the coordinator feeds as the clients'
// intervals come (the dashboard), before any client starts: one that
// cannot open (its address taken) stops the phase, as it stops a run here.
func openFeeds(setup *engine.Setup, stderr io.Writer) ([]sink.Feed, error) {
	var feeds []sink.Feed
	for _, o := range setup.Outputs.Only(func(o sink.Output) bool { return o.Where() == sink.Coordinator }) {
		s, err := setup.OpenMerged(o, engine.Writers{Stderr: stderr})
		if err != nil {
			for _, f := range feeds {
				f.Close(false)
			}
			return nil, specErrorf("%s: %s: %v", setup.Spec.Phase, sink.What(o), err)
		}
		if f, ok := s.(sink.Feed); ok {
			feeds = append(feeds, f)
		} else {
			s.Close(false)
		}
	}
	return feeds, nil
}

// endFeeds ends the fed outputs with the merged result m (nil: none, then
// they are closed with what they showed).
func endFeeds(setup *engine.Setup, feeds []sink.Feed, m *result.Doc, stderr io.Writer) {
	for _, f := range feeds {
		var err error
		if m != nil {
			err = sink.EndOne(f, setup.Merged(m))
		} else {
			err = f.Close(true)
		}
		if err != nil {
			fmt.Fprintf(stderr, "servbench: %v\n", err)
		}
	}
}

func merged(o sink.Output) bool     { return o.Where() == sink.Merged }
func oneProcess(o sink.Output) bool { return o.Where() == sink.OneProcess }

// WriteMerged writes a spread phase's merged result m to every output
// written from it (YCSB's report to exportfile, or to stdout when it is
// not given; the result; the time series), each on its own: one that
// cannot be written leaves the others written, and those written in place
// (standard output, a pipe) come last: a reader that does not read holds
// them, not the files. It adds those that failed to unwritten.
func WriteMerged(setup *engine.Setup, m *result.Doc, stdout, stderr io.Writer, unwritten *OutputError) *OutputError {
	ended := setup.Merged(m)
	for _, o := range setup.Outputs.Only(merged).InPlaceLast() {
		s, err := setup.OpenMerged(o, engine.Writers{Stdout: stdout, Stderr: stderr})
		if err == nil {
			err = sink.EndOne(s, ended)
		}
		if err != nil {
			unwritten = unwritten.Add(sink.What(o), err)
			unwritten.Merged.Names, unwritten.Merged.Errs = append(unwritten.Merged.Names, o.Name()), append(unwritten.Merged.Errs, err)
		}
	}
	return unwritten
}

// clientResultPaths are where the clients' results are written beside
// out: none without out, for one client (out is its result) or when out
// is no file (a device, a pipe: nothing is beside it).
func clientResultPaths(out string, n int) []string {
	if out == "" || n < 2 {
		return nil
	}
	if st, err := os.Stat(out); err == nil && !st.Mode().IsRegular() {
		return nil
	}
	if atomicfile.ProcessFile(out) { // /dev/stdout, /dev/fd/1 to a file: nothing of the clients' beside it in /dev
		return nil
	}
	paths := make([]string, n)
	for i := range paths {
		paths[i] = ClientResultPath(out, i)
	}
	return paths
}

// CheckOutputs refuses the outputs a phase spread over clients cannot
// write (files of one process, which merge nothing: HdrHistogram logs,
// raw samples; a report of measurementtype raw or timeseries) and metrics
// addresses the clients cannot share; its error
// is a *engine.SpecError. The plan runner calls it for every spread run
// before anything runs; Run calls it too.
func CheckOutputs(setup *engine.Setup) error {
	n, cmd := setup.Client.Count, setup.Spec.Phase.String()
	if err := checkMetricsAddrs(metricsAddrOf(setup), n); err != nil {
		return &engine.SpecError{Err: err}
	}
	if setup.Runner.Until != nil {
		return specErrorf("%s: the clients (%d, %s) each measure a share: until.throughput and until.p99 judge one process's intervals, and clients stopping each on their own would not end together: leave them out, or repeat the phase (a plan's repetitions: until)", cmd, n, setup.Client.Orchestrator)
	}
	if one := setup.Outputs.Only(oneProcess); len(one) > 0 {
		var props []string
		for _, o := range one {
			props = append(props, sink.Asking(o))
		}
		return specErrorf("%s: the clients (%d, %s) send their results to the coordinator: %s are one process's outputs, not merged: leave them out", cmd, n, setup.Client.Orchestrator, strings.Join(props, ", "))
	}
	if k := setup.Measurements().Kinds; slices.Contains(k, sink.KindRaw) || slices.Contains(k, sink.KindTimeSeries) {
		return specErrorf("%s: the clients (%d, %s) send their results to the coordinator: measurementtype=%s reports what one process kept (its raw samples, its interval averages), which is not merged: give hdrhistogram or histogram (--csv writes the merged time series)",
			cmd, n, setup.Client.Orchestrator, setup.Props.String("measurementtype", ""))
	}
	return nil
}

func metricsAddrOf(setup *engine.Setup) string {
	if m, ok := sink.Find[*sink.MetricsOutput](setup.Outputs); ok {
		return m.Addr
	}
	return ""
}

// distinct checks that no client's result is written where another
// output of the phase is, nor two outputs of the phase in one place.
func distinct(o sink.Outputs, clients []string) error {
	all := PhaseOutputs(o)
	for i, c := range clients {
		all = append(all, sink.File{What: fmt.Sprintf("client %d's result", i), Path: c})
	}
	return sink.CheckFiles(all)
}

// ClientProps are the properties every client of a phase reads from a
// file: the phase's, without those of the outputs the coordinator writes
// from the merged result (each client sends its result instead: left
// with them, every client would write one path), with the workload's
// name (which would otherwise be the file's).
func ClientProps(setup *engine.Setup) *props.Props {
	p := setup.Properties()
	all := p.Clone()
	for _, o := range setup.Outputs.Only(merged) {
		for _, k := range sink.Properties(o.Name()) {
			all.Delete(k)
		}
	}
	all.SetDefault("workloadname", engine.WorkloadName(p), "")
	return all
}

// ClientOutputs drops every output from the setup of a client of a
// coordinator but those each client keeps (sink.EachClient), whatever
// the phase it was given asks: a client sends its result to its
// coordinator, which writes the outputs, and writes no file itself (on a
// host of its own, in a container, nobody would look for one there).
// The properties of those dropped go too: its result does not say it
// wrote one.
func ClientOutputs(setup *engine.Setup) {
	setup.Outputs = setup.Outputs.Only(func(o sink.Output) bool { return o.Where() == sink.EachClient })
	var gone []string
	for _, name := range sink.Names() {
		if !slices.ContainsFunc(setup.Outputs, func(o sink.Output) bool { return o.Name() == name }) {
			gone = append(gone, name)
		}
	}
	for _, k := range sink.Properties(gone...) {
		setup.Props.Delete(k)
	}
}

// checkMetricsAddrs checks, before any client starts, that client i of n
// can serve its metrics on addr's port plus i (0: each takes a free port
// of its own and says which).
func checkMetricsAddrs(addr string, n int) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("metrics.addr %q: %v", props.Cut(addr, 40), err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return fmt.Errorf("metrics.addr %q: want a port from 0 to 65535", props.Cut(addr, 40))
	}
	if p > 0 && p+n-1 > 65535 {
		return fmt.Errorf("metrics.addr %s: client i of %d serves on port %d + i, and port %d is past 65535; give a lower port, or port 0 for one free port each", addr, n, p, p+n-1)
	}
	return nil
}

// ClientResultPath is where client i writes its result: beside the phase's
// (r.json: r.client-0.json, ...).
func ClientResultPath(merged string, i int) string {
	return strings.TrimSuffix(merged, ".json") + fmt.Sprintf(".client-%d.json", i)
}

// ClientMetricsAddr is where client i of a spread phase serves its
// metrics: the phase's port plus i.
func ClientMetricsAddr(addr string, i int) string {
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	if p == 0 { // each client takes a free port of its own and says which
		return addr
	}
	return net.JoinHostPort(host, strconv.Itoa(p+i))
}

// ClientFromTemplate makes p, the properties a client was started with
// from one template by the orchestrator from (a Swarm service, an
// Indexed Job, manifests applied by hand), client i's: its index read
// from its environment (getenv, IndexFromEnv), its result beside the
// phase's (-o r.json becomes r.client-I.json) and, for an orchestrator
// whose clients share a host's network (Orchestrator.HostNetwork:
// Docker's), its metrics on the port given plus I.
func ClientFromTemplate(p *props.Props, from string, getenv func(string) string) error {
	i, err := IndexFromEnv(from, getenv)
	if err != nil {
		return err
	}
	by := "--client-index-from " + from
	if addr, ok := p.Get("metrics.addr"); ok && orchestrators[from].HostNetwork {
		p.Set("metrics.addr", ClientMetricsAddr(addr, i), by)
	}
	p.Set("clientindex", strconv.Itoa(i), by)
	if out, ok := p.Get("result.file"); ok {
		p.Set("result.file", ClientResultPath(out, i), by)
	}
	return nil
}
