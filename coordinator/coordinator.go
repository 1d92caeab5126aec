// Package coordinator runs one phase spread over clients: it gives every
// client the phase's properties, an identity (coordinator.id) and a secret
// of its own, serves its clock over HTTPS (hub.go: the service; join.go:
// the client's half), has an orchestrator start client i of N (local
// processes of this binary, ssh hosts, a Docker Swarm job, a Kubernetes
// Indexed Job through the API server, or manifests written for kubectl),
// and merges exactly the results that carry its identity. The command
// line and the plan runner both run spread phases through Run, and write
// their outputs through PhaseOutputs and WriteMerged.
//
// Invariants: no partial set of clients is ever merged; every output is
// checked before a client starts; the first client that fails stops the
// others, which keep their grace to send what they measured; Ctrl-C stops
// every client and what they measured is merged; a second Ctrl-C kills
// whatever still runs; a client's result is taken once.
package coordinator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/sink"
)

// Run runs a phase spread over clients (setup is the whole phase,
// checked). It serves the phase on coordinator.addr (see hub) to clients
// holding this run's secret, has the orchestrator (property orchestrator:
// local, ssh, docker) start client i as "servbench client" with the
// coordinator's URL, the secret and i in its environment, prints the
// clients' merged progress live, and merges their results, which come
// back over the network, exactly: only those that carry this run's
// coordinator.id, each client's once. A phase of one client (run on a
// host by ssh, Docker or Kubernetes) returns that client's result.
//
// Each client's result is also written beside out (ClientResultPath)
// when out names a file: every such path is checked before any client
// starts, and one that cannot be written at the end leaves the others
// written and the merged result returned, with an *OutputError. A client
// that fails, ends without its result or sends nothing for
// coordinator.timeout fails the phase, named by index and host, and
// nothing merged is returned (the others are told to stop, and what they
// send is written beside out). When ctx ends every client is told to stop
// and what they measured is merged. The bench command runs a plan's
// spread cells through it too.
//
// What the orchestrator started is removed by the cleanup Run returns
// (never nil), which the caller calls once it wrote the merged result:
// a cleanup that stalls (an API server, a host) never holds what was
// measured; it gives way at the process's second signal.
func Run(ctx context.Context, setup *engine.Setup, out string, stderr io.Writer) (m *result.Doc, cleanup func(), err error) {
	cleanup = func() {}
	hide := func(s string) string { return s }
	m, err = run(ctx, setup, out, stderr, &cleanup, &hide)
	if err != nil {
		err = &hiddenError{err, hide}
	}
	return m, cleanup, err
}

// hiddenError is an error of Run's, its text with the run's key and the
// setup's secrets hidden (an orchestrator's answer may quote them: docker
// echoing the service's environment, a Secret sent back).
type hiddenError struct {
	err  error
	hide func(string) string
}

func (e *hiddenError) Error() string { return e.hide(e.err.Error()) }
func (e *hiddenError) Unwrap() error { return e.err }

// run is Run: it sets *cleanup to remove what the orchestrator starts,
// and *hide to hide the run's key and the setup's secrets, as soon as
// each is known.
func run(ctx context.Context, setup *engine.Setup, out string, stderr io.Writer, cleanup *func(), hide *func(string) string) (*result.Doc, error) {
	n, cmd := setup.Client.Count, setup.Spec.Phase.String()
	cfg := ConfigOf(setup)
	orch, err := newOrchestrator(ctx, cfg)
	if err != nil {
		return nil, &engine.SpecError{Err: err}
	}
	if err := CheckOutputs(setup); err != nil {
		return nil, err
	}
	if !setup.Client.StartAt.IsZero() { // the coordinator sets the common start
		return nil, specErrorf("%s: startat: a spread run's clients start together when all are ready, the coordinator says when: give no startat with clients (startat is for clients started by hand, each with its --client-index)", cmd)
	}
	metricsAddr := metricsAddrOf(setup)
	paths, release, err := holdClientResults(setup, out, n, cmd)
	if err != nil {
		return nil, err
	}
	defer release()
	j := &job{cmd: cmd, n: n, metricsAddr: metricsAddr, stderr: stderr, mu: &sync.Mutex{}}
	if j.token, err = NewToken(); err != nil {
		return nil, err
	}
	j.hide = hider(setup, j.token)
	*hide = j.hide
	j.id = result.NewID()
	h, l, err := listen(cfg, orch, j, setup)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	*cleanup = cleanupOf(ctx, orch, j) // also of a prepare that failed halfway
	if err := orch.prepare(ctx, j); err != nil {
		return nil, err
	}
	if j.feeds, err = openFeeds(setup, stderr); err != nil {
		return nil, err
	}
	var final *result.Doc // the merged result the fed outputs end with
	defer func() { endFeeds(setup, j.feeds, final, stderr) }()
	if err := setStart(orch, h, j, setup); err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "servbench: %s on %d client%s (%s), starting together once all are ready, at %s at the latest; coordinator at %s\n", cmd, n, plural(n), orch, j.start.Format("15:04:05.000"), l.Addr())
	cpu0, t0 := engine.CPUTime(), time.Now()
	docs, err := follow(ctx, orch, h, j, setup)
	if cpu, wall := engine.CPUTime()-cpu0, time.Since(t0); cpu > 0 { // the coordinator's own cost: it must not be the limit either
		fmt.Fprintf(stderr, "servbench: the coordinator used %.2f s of CPU in %.1f s (%.1f%% of a core) and %s resident at most, for %d client%s\n",
			cpu.Seconds(), wall.Seconds(), 100*cpu.Seconds()/wall.Seconds(), format.Bytes(engine.MaxRSS()), n, plural(n))
	}
	unwritten := writeClientResults(h, paths)
	if err != nil {
		if unwritten != nil {
			return nil, fmt.Errorf("%w (and %v)", err, unwritten)
		}
		return nil, err
	}
	m := docs[0] // one client's phase: its result
	if len(docs) > 1 {
		if m, err = result.Merge(docs); err != nil {
			return nil, errors.New(format.Printable(err.Error())) // it may quote the clients' text
		}
	}
	sayMerged(stderr, n, docs, m)
	final = m
	if unwritten != nil {
		return m, unwritten
	}
	return m, nil
}

// holdClientResults returns where the clients' results are written,
// beside out (none for one client or no file), held until release is
// called. Every path is checked now, not after the run.
func holdClientResults(setup *engine.Setup, out string, n int, cmd string) (paths []string, release func(), err error) {
	paths = clientResultPaths(out, n)
	if err := distinct(setup.Outputs, paths); err != nil {
		return nil, nil, specErrorf("%s: %v", cmd, err)
	}
	outs := make([]sink.File, len(paths))
	for i, p := range paths {
		outs[i] = sink.File{What: fmt.Sprintf("client %d's result (beside -o)", i), Path: p}
	}
	release, err = HoldOutputs(outs)
	if err != nil {
		return nil, nil, specErrorf("%s: %v", cmd, err)
	}
	return paths, release, nil
}

// listen serves j's hub over HTTPS at coordinator.addr (or where the
// orchestrator listens), with a certificate of its own; it notes the
// certificate's pin, the port and the URL in j.
func listen(cfg Config, orch orchestrator, j *job, setup *engine.Setup) (*hub, net.Listener, error) {
	addr := cfg.Addr
	if addr == "" {
		addr = orch.listen()
	}
	h := newHub(j.token, j.id, j.n, Phase{Command: j.cmd, Binding: setup.Spec.Binding}, time.Now)
	h.hold = min(h.hold, cfg.Timeout/3)
	h.say = func(line string) { j.sayAs("servbench", line) }
	cert, pin, err := newIdentity()
	if err != nil {
		return nil, nil, fmt.Errorf("coordinator: certificate: %w", err)
	}
	j.pin = pin
	l, err := serve(addr, h, cert, maxConns(j.n))
	if err != nil {
		return nil, nil, specErrorf("%s: coordinator.addr: %v", j.cmd, err)
	}
	j.port = l.Addr().(*net.TCPAddr).Port
	j.url = "https://" + l.Addr().String()
	return h, l, nil
}

// cleanupOf is the cleanup of what orch started for j: not cut by ctx's
// end, but given up at the process's second signal.
func cleanupOf(ctx context.Context, orch orchestrator, j *job) func() {
	return func() {
		cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		defer cancel()
		if abandon := runner.AbandonOf(ctx); abandon != nil {
			go func() {
				select {
				case <-abandon:
					cancel()
				case <-cctx.Done():
				}
			}()
		}
		orch.cleanup(cctx, j)
	}
}

// setStart sets the clients' common start, long enough from now for
// every client to start and connect first (they start sooner when every
// one says it is ready: hub.serveReady), and the properties the hub
// gives them.
func setStart(orch orchestrator, h *hub, j *job, setup *engine.Setup) error {
	j.start = time.Now().Add(orch.lead() + time.Duration(j.n)*100*time.Millisecond).UTC()
	h.setStart(j.start)
	cp := ClientProps(setup)
	cp.Set("coordinator.id", j.id, "coordinator")
	cp.Set("startat", j.start.Format(time.RFC3339Nano), "coordinator")
	cp.Set("status", "false", "coordinator") // the coordinator prints the merged status
	var text bytes.Buffer
	if err := cp.Write(&text); err != nil {
		return fmt.Errorf("clients: %w", err)
	}
	h.setProperties(text.String())
	return nil
}

// writeClientResults writes every result received to its path, also of a
// phase that failed: nothing is lost; a file that cannot be written
// leaves the others written, and is said in the error returned (nil when
// none).
func writeClientResults(h *hub, paths []string) *OutputError {
	var unwritten *OutputError
	if len(paths) > 0 {
		for i, m := range h.members() {
			if m.result == nil {
				continue
			}
			if werr := writeResult(paths[i], m.result); werr != nil {
				unwritten = unwritten.Add(fmt.Sprintf("client %d's result", i), werr)
			}
		}
	}
	return unwritten
}

// sayMerged prints what the n clients measured together (m, merged from
// docs): the throughput, the clocks' offsets, clients that may have been
// the limit, and the servers' figures.
func sayMerged(stderr io.Writer, n int, docs []*result.Doc, m *result.Doc) {
	fmt.Fprintf(stderr, "servbench: %d client%s: %s ops/s over %s, %s operations (%s ok)\n",
		n, plural(n), format.Round(m.Throughput), measuredOver(docs, m), format.Thousands(m.Operations), format.Thousands(m.OKOperations))
	if off, rtt := maxClockOffset(m); rtt > 0 {
		fmt.Fprintf(stderr, "servbench: the clients' clocks were within %.2f ms of this one's (measured ± %.2f ms); their intervals are lined up on it\n", off, rtt/2)
	}
	for _, c := range m.BusyClients() {
		fmt.Fprintf(stderr, "servbench: client %d used %.0f%% of its %d cores: it may be the limit, not the database; add clients\n", c.Index, c.CPUPct, c.Cores)
	}
	for _, l := range engine.ServerLines(m.ServerSide) { // the servers' whole, and every client's units
		fmt.Fprintf(stderr, "servbench: %s\n", format.Printable(l))
	}
}

// measuredOver says what the merged result's throughput is over: the time all
// clients were measuring, or, for clients that each ran for less than
// the spread of their starts, the phase's span (see result.Merge).
func measuredOver(docs []*result.Doc, m *result.Doc) string {
	d := time.Duration(m.RuntimeMs * float64(time.Millisecond))
	span := fmt.Sprintf("%.1f s", d.Seconds())
	if d < time.Second {
		span = d.Round(time.Microsecond).String()
	}
	switch _, _, common := result.CommonWindow(docs); {
	case len(docs) == 1:
		return "its " + span
	case common:
		return "the " + span + " all were measuring"
	}
	return "the " + span + " from the first client's start to the last one's end (their runs were shorter than the spread of their starts)"
}

// follow runs the clients and waits for their results: it prints their
// merged progress, stops them all at the first failure, silence or ctx's
// end, and returns every client's result, or why there is no whole set.
func follow(ctx context.Context, orch orchestrator, h *hub, j *job, setup *engine.Setup) ([]*result.Doc, error) {
	cfg := ConfigOf(setup)
	n := j.n
	// The orchestrator's context ends when the clients are to be made
	// to stop (they were told, and had the grace to end), not at Ctrl-C:
	// then they are told first.
	octx, kill := context.WithCancel(context.WithoutCancel(ctx))
	defer kill()
	j.exited, j.placed = h.exit, h.place
	endsCh := make(chan []error, 1)
	go func() { endsCh <- orch.run(octx, j) }()
	begun := time.Now()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	every := 10 * time.Second
	if st, ok := sink.Find[*sink.StatusOutput](setup.Outputs); ok {
		every = st.Every
	}
	live := &liveStatus{every: every, n: n, measured: make([]time.Duration, n), begun: begun}
	f := &following{ctx: ctx, orch: orch, h: h, j: j, grace: killGrace(setup), kill: kill}
	ctxDone, abandon := ctx.Done(), runner.AbandonOf(ctx)
	var ends []error
	for ends == nil {
		select {
		case <-ctxDone:
			ctxDone = nil
			f.stop()
		case <-abandon: // a second Ctrl-C: no more waiting for operations
			abandon = nil
			f.abandonAll()
		case <-h.changed:
			f.check()
			if f.killAt == nil && h.complete() {
				// Every result is in: the clients only have to exit. An
				// orchestrator that cannot tell (its API gone) is not
				// waited for longer than coordinator.exitgrace.
				f.killAt = time.After(cfg.ExitGrace)
			}
		case ends = <-endsCh:
		case <-f.killAt:
			f.killLeft(abandon == nil)
		case <-f.given:
			ends = f.giveUp()
		case now := <-tick.C:
			feed(j.feeds, live.add(h.progress(), j))
			if f.failure != nil || ctx.Err() != nil {
				continue
			}
			if i := h.silent(now.Add(-cfg.Timeout), begun.Add(orch.lead())); i >= 0 {
				// The others are told to stop and have the grace to send
				// what they measured (it is written beside -o); the silent
				// one is killed with whatever still runs when it ends.
				f.failure = &clientFailure{h, i, fmt.Sprintf("sent nothing for %s (coordinator.timeout)", cfg.Timeout)}
				f.stop()
			}
		}
	}
	for i, e := range ends {
		h.exit(i, e)
	}
	f.check()
	if f.failure != nil {
		return nil, fmt.Errorf("%w: no merged result", f.failure)
	}
	feed(j.feeds, live.take(h.progress())) // what came last
	return gather(h.members(), live.measured, h.name)
}

// following is what follow knows as it waits: the first failure, when
// whatever still runs is killed (killAt), and when the orchestrator is
// given up on once it was (given); a nil channel is a time not set.
type following struct {
	ctx           context.Context
	orch          orchestrator
	h             *hub
	j             *job
	grace         time.Duration      // killGrace
	kill          context.CancelFunc // ends the orchestrator's context: kills what runs
	failure       error
	killAt, given <-chan time.Time
}

// stop tells every client to stop, and sets the kill a grace later.
func (f *following) stop() {
	f.h.stopAll()
	if f.killAt == nil {
		f.killAt = time.After(f.grace)
	}
}

// check notes the first failure of a client (or ctx's end), and stops
// the others.
func (f *following) check() {
	if f.failure == nil {
		if f.failure = failed(f.h, f.ctx.Err() != nil); f.failure != nil {
			f.stop()
		}
	}
}

// abandonAll answers a second signal: the clients are told to abandon
// their operations and send what they measured at once; what has not
// come in abandonGrace is killed (the process itself ends a second after
// the signal).
func (f *following) abandonAll() {
	f.h.abandonAll()
	var left []string
	for i, m := range f.h.members() {
		if !m.exited && m.result == nil {
			left = append(left, f.h.name(i))
		}
	}
	if len(left) > 0 {
		f.j.mu.Lock()
		fmt.Fprintf(f.j.stderr, "servbench: second signal: %s told to abandon their operations in flight and send what they measured; killed in %s\n", strings.Join(left, ", "), abandonGrace)
		f.j.mu.Unlock()
	}
	f.killAt = time.After(abandonGrace)
}

// killLeft kills the clients that have not ended, and gives the
// orchestrator its grace to return (less after a second signal:
// abandoned).
func (f *following) killLeft(abandoned bool) {
	var left []string
	for i, m := range f.h.members() {
		if !m.exited {
			left = append(left, f.h.name(i))
		}
	}
	if len(left) > 0 {
		f.j.mu.Lock()
		fmt.Fprintf(f.j.stderr, "servbench: killing %s, which had not ended\n", strings.Join(left, ", "))
		f.j.mu.Unlock()
	}
	f.kill()
	wait := orchestratorGrace
	if abandoned { // after a second signal: the process ends a second after it
		wait = abandonedOrchestrator
	}
	f.killAt, f.given = nil, time.After(wait)
}

// giveUp goes on without an orchestrator that does not return (a docker
// or API call that hangs): what the clients sent is merged without it. It
// returns how each client ended, an error for each that did not say.
func (f *following) giveUp() []error {
	ends := make([]error, f.j.n)
	var left []string
	for i, m := range f.h.members() {
		if !m.exited {
			ends[i] = fmt.Errorf("%s did not say how it ended", f.orch)
			left = append(left, f.h.name(i))
		}
	}
	running := "what it started may be left"
	if len(left) > 0 {
		running = strings.Join(left, ", ") + " may still run"
	}
	f.j.mu.Lock()
	fmt.Fprintf(f.j.stderr, "servbench: %s had not returned after the clients were killed: going on without it; %s\n", f.orch, running)
	f.j.mu.Unlock()
	return ends
}

// orchestratorGrace is how long the orchestrator may take to return once
// the clients were killed, before the coordinator goes on without it.
// After a second signal it is less: what came is merged and written
// within the process's second.
var (
	orchestratorGrace     = 3 * time.Second
	abandonedOrchestrator = 200 * time.Millisecond
)

// abandonGrace is how long clients told to abandon their operations (a
// second Ctrl-C) have to send their results before they are killed: less
// than the second's grace of the process (cli's secondGrace), so that what
// came is merged and written.
var abandonGrace = 600 * time.Millisecond

// killGrace is how long clients told to stop may take to end and send
// their results before whatever still runs is killed: a client's own
// grace for operations still inside its binding (stopgrace), and
// stopGrace more for the rest (the last sample of the servers, its
// result).
func killGrace(setup *engine.Setup) time.Duration {
	return setup.Runner.StopGrace + stopGrace
}

// gather is the clients' results of a phase that did not fail: every
// client's, or why there is no whole set (interrupted: a client stopped
// before it measured has none). measured is how long each client said
// it had been measuring (its progress), so that a client that measured
// but whose result never came is not said to have measured nothing.
func gather(ms []member, measured []time.Duration, name func(int) string) ([]*result.Doc, error) {
	var docs []*result.Doc
	var none, lost []string
	for i, m := range ms {
		switch {
		case m.result != nil:
			docs = append(docs, m.result)
		case measured[i] > 0:
			why := ""
			if m.exitErr != nil {
				why = fmt.Sprintf(" (%v)", m.exitErr)
			}
			lost = append(lost, fmt.Sprintf("%s had measured for at least %.1f s, but ended%s without sending its result", name(i), measured[i].Seconds(), why))
		default:
			none = append(none, strconv.Itoa(i))
		}
	}
	switch {
	case len(lost) > 0:
		return nil, fmt.Errorf("interrupted: %s: nothing merged", strings.Join(lost, "; "))
	case len(none) == len(ms):
		return nil, engine.ErrInterruptedBeforeMeasuring
	case len(none) > 0:
		return nil, fmt.Errorf("interrupted: client %s of %d sent neither its result nor any progress (stopped before it measured, or hung before its first progress): nothing merged", strings.Join(none, ", "), len(ms))
	}
	return docs, nil
}

// failed is the first client's failure the hub knows of: one it sent,
// or an end without a result (unless the phase was interrupted: a client
// stopped before it measured has none).
func failed(h *hub, interrupted bool) error {
	for i, m := range h.members() {
		switch {
		case m.failed != "":
			return &clientFailure{h, i, m.failed}
		case m.exited && m.result == nil && !interrupted:
			why := "ended without sending its result"
			if m.exitErr != nil {
				why = fmt.Sprintf("ended (%v) without sending its result", m.exitErr)
			}
			return &clientFailure{h, i, why}
		}
	}
	return nil
}

// clientFailure is client i's failure. It names the client when its
// message is made, so that a client that failed before its orchestrator
// told where it runs (a pod not yet seen) is named by its place once the
// orchestrator is done.
type clientFailure struct {
	h   *hub
	i   int
	why string
}

func (f *clientFailure) Error() string { return f.h.name(f.i) + " " + f.why }

// liveStatus prints the clients' merged progress every status interval
// of their measuring time: their operations per second, p99 response time
// and failures since the last line.
type liveStatus struct {
	every         time.Duration
	n             int
	fromMs, endMs int64 // the window: measuring time at the last line, and the latest an interval ended
	ops, fail     int64
	hist          *hdr.Histogram
	// measured is how long each client has said it was measuring (never
	// longer than since begun, whatever it says).
	measured []time.Duration
	begun    time.Time
}

func (l *liveStatus) add(ps [][]Progress, j *job) sink.MergedInterval {
	m := l.take(ps)
	l.line(j)
	return m
}

// take adds the clients' intervals since the last call, and returns them
// merged (each client's histograms decoded once, here).
func (l *liveStatus) take(ps [][]Progress) sink.MergedInterval {
	m := sink.MergedInterval{Clients: l.n}
	for i, list := range ps {
		reported := false
		for _, p := range list {
			if p.Warmup {
				continue
			}
			reported = true
			if d := time.Duration(p.EndMs) * time.Millisecond; p.EndMs > 0 && i < len(l.measured) {
				l.measured[i] = max(l.measured[i], min(d, time.Since(l.begun)))
			}
			m.End = max(m.End, time.Duration(p.EndMs)*time.Millisecond)
			m.Ops += p.Ops
			m.Failed += p.Failed
			if p.Histogram == "" {
				continue
			}
			if h, err := result.DecodeHistogram(p.Histogram); err == nil { // one that does not decode is left out
				if m.Histogram == nil {
					m.Histogram = measure.NewHistogram()
				}
				m.Histogram.Merge(h)
			}
		}
		if reported {
			m.Reporting++
		}
	}
	l.endMs = max(l.endMs, m.End.Milliseconds())
	l.ops += m.Ops
	l.fail += m.Failed
	if m.Histogram != nil {
		if l.hist == nil {
			l.hist = measure.NewHistogram()
		}
		l.hist.Merge(m.Histogram)
	}
	return m
}

// feed gives the clients' intervals of a tick, merged, to the fed outputs
// (the dashboard), when a client reported.
func feed(feeds []sink.Feed, m sink.MergedInterval) {
	if m.Reporting == 0 {
		return
	}
	for _, f := range feeds {
		f.Merged(m)
	}
}

// line prints a status line when a status interval of measuring time has
// passed since the last.
func (l *liveStatus) line(j *job) {
	window := time.Duration(l.endMs-l.fromMs) * time.Millisecond
	if window <= 0 || window < l.every-l.every/20 {
		return
	}
	p99 := "-"
	if l.hist != nil && l.hist.TotalCount() > 0 {
		p99 = fmt.Sprintf("%.3f ms", float64(l.hist.ValueAtQuantile(99))/1e6)
	}
	j.mu.Lock()
	fmt.Fprintf(j.stderr, "servbench: %d client%s, %d s: %s ops/s, p99 %s, %s failed (last %.0f s)\n", l.n, plural(l.n), l.endMs/1000,
		format.Round(float64(l.ops)/window.Seconds()), p99, format.Thousands(l.fail), window.Seconds())
	j.mu.Unlock()
	l.ops, l.fail, l.hist, l.fromMs = 0, 0, nil, l.endMs
}

// writeResult writes a client's result document, whole or not at all.
func writeResult(path string, d *result.Doc) error {
	return atomicfile.WriteFile(path, func(w io.Writer) error { return result.WriteJSON(w, d) })
}

// maxClockOffset is the largest clock offset of m's clients and the
// round trip it was measured with (0, 0: none measured).
func maxClockOffset(m *result.Doc) (offset, rtt float64) {
	for _, c := range m.ClientRuns {
		if c.Clock != nil && (rtt == 0 || math.Abs(c.Clock.OffsetMs) > offset) {
			offset, rtt = math.Abs(c.Clock.OffsetMs), c.Clock.RTTMs
		}
	}
	return offset, rtt
}

// A job is one spread phase for an orchestrator to run.
type job struct {
	// feeds are the outputs fed the clients' merged intervals (the
	// dashboard).
	feeds       []sink.Feed
	cmd         string
	n           int
	id          string // coordinator.id: every client's result must carry it
	token       string // the run's secret, for the clients' environment only
	pin         string // the fingerprint of the coordinator's certificate
	url         string // where the coordinator listens, as this machine reaches it
	port        int    // its port
	start       time.Time
	metricsAddr string
	stderr      io.Writer
	mu          *sync.Mutex // one line at a time on stderr
	// exited is told as each client ends, with how (nil: well); placed,
	// where an orchestrator runs client i ("host H", "pod P on node N").
	exited func(i int, err error)
	placed func(i int, host string)
	// hide hides the run's secrets in the clients' lines (nil: the
	// redaction's rules).
	hide func(string) string
}

// hider hides in a client's line the run's secrets (its properties', a
// plan's, what the rules find) and the clients' token.
func hider(setup *engine.Setup, token string) func(string) string {
	return func(line string) string { return strings.ReplaceAll(setup.Redact(line), token, props.Redacted) }
}

// say writes one line of client i's on the coordinator's stderr.
func (j *job) say(i int, line string) { j.sayAs("client "+strconv.Itoa(i), line) }

// sayAs writes one line of a client's on the coordinator's stderr, after
// who.
func (j *job) sayAs(who, line string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.hide != nil {
		line = j.hide(line)
	} else {
		line = props.RedactText(line)
	}
	fmt.Fprintf(j.stderr, "%s: %s\n", who, format.Printable(line))
}

// env is a client's environment as the orchestrator gives it: the
// coordinator's URL (as the client reaches it), the certificate's
// fingerprint and client i's secret and index; for i < 0 (every client
// from one template), the run's key instead, from which each derives its
// secret.
func (j *job) env(url string, i int) []string {
	e := []string{URLEnv + "=" + url, CertEnv + "=" + j.pin}
	if i < 0 {
		return append(e, KeyEnv+"="+j.token)
	}
	return append(e, TokenEnv+"="+j.secret(i), IndexEnv+"="+strconv.Itoa(i))
}

// An orchestrator starts a job's n clients and returns when they have all
// ended, with how each ended (nil: it exited well). When ctx ends it
// makes every client still running stop at once (they were told to stop
// through the coordinator first).
type orchestrator interface {
	// listen is the coordinator's address when coordinator.addr is not
	// given: where its clients can reach it.
	listen() string
	// prepare readies the clients' machines (a binary to run) before the
	// common start is set; cleanup removes whatever prepare and run left.
	prepare(ctx context.Context, j *job) error
	run(ctx context.Context, j *job) []error
	// cleanup's ctx ends at the process's second signal: what is left
	// then is said, not waited for.
	cleanup(ctx context.Context, j *job)
	// lead is how long the clients need to start.
	lead() time.Duration
	String() string
}

func init() {
	register(Orchestrator{Name: "local", Help: "processes here, the default",
		Read: func(*props.Props, bool) (any, error) { return nil, nil },
		start: func(context.Context, Config) (orchestrator, error) {
			exe, err := os.Executable()
			if err != nil {
				return nil, fmt.Errorf("clients: %w", err)
			}
			return &local{exe: exe}, nil
		}})
}

// local runs the clients as processes of this binary on this machine.
type local struct{ exe string }

func (*local) String() string                      { return "here" }
func (*local) lead() time.Duration                 { return 2 * time.Second }
func (*local) listen() string                      { return "127.0.0.1:0" }
func (*local) prepare(context.Context, *job) error { return nil }
func (*local) cleanup(context.Context, *job)       {}

// stopGrace is how long clients asked to stop (Ctrl-C, another failed)
// may take to send their results, beyond their own grace for operations
// still in the binding, before they are killed (see killGrace).
var stopGrace = 5 * time.Second

func (l *local) run(ctx context.Context, j *job) []error {
	ends := make([]error, j.n)
	procs := make([]*exec.Cmd, j.n)
	for i := range procs {
		c := exec.Command(l.exe, "client")
		c.Env = append(os.Environ(), j.env(j.url, i)...)
		c.Stdout = io.Discard // each client's text report; its result is what counts
		c.Stderr = &prefixed{say: func(l string) { j.say(i, l) }}
		ownGroup(c)
		if err := c.Start(); err != nil {
			for _, p := range procs[:i] {
				p.Process.Kill()
				p.Wait()
			}
			for k := range ends {
				ends[k] = fmt.Errorf("client %d could not start: %w", i, err)
			}
			return ends
		}
		procs[i] = c
	}
	var wg sync.WaitGroup
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ends[i] = p.Wait()
			p.Stderr.(*prefixed).flush()
			j.exited(i, ends[i])
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done(): // told to stop and still running: killed
		for _, p := range procs {
			p.Process.Kill()
		}
		<-done
	}
	return ends
}

// prefixed passes each whole line written to say; a line longer than
// maxRelayLine is passed on in pieces of that size (a client's output is
// not held without bound).
type prefixed struct {
	say func(string)
	buf []byte
}

const maxRelayLine = 64 << 10

func (p *prefixed) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexAny(p.buf, "\r\n")
		if i < 0 {
			if len(p.buf) >= maxRelayLine {
				p.line(p.buf[:maxRelayLine])
				p.buf = append(p.buf[:0], p.buf[maxRelayLine:]...)
				continue
			}
			return len(b), nil
		}
		p.line(p.buf[:i])
		p.buf = p.buf[i+1:]
	}
}

func (p *prefixed) line(l []byte) {
	if len(bytes.TrimSpace(l)) > 0 {
		p.say(string(l))
	}
}

func (p *prefixed) flush() {
	if len(p.buf) > 0 {
		p.line(p.buf)
		p.buf = nil
	}
}

// specErrorf is bad input, as the engine's own.
func specErrorf(format string, args ...any) error {
	return &engine.SpecError{Err: fmt.Errorf(format, args...)}
}
