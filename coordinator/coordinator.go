// Package coordinator runs one phase spread over clients: it gives every
// client the phase's properties and an identity (coordinator.id), serves
// its clock, has an orchestrator start client i of N (processes of this
// binary here, a Docker Swarm job; Kubernetes manifests are written for
// kubectl), and merges exactly the results that carry its identity. The
// command line and the plan runner both run spread phases through Run.
//
// Invariants: no partial set of clients is ever merged; the first client
// that fails stops the others; Ctrl-C stops every client and what they
// measured is merged; a second Ctrl-C kills whatever still runs.
package coordinator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// Run runs a phase spread over clients (setup is the whole phase,
// checked): it gives every client the phase's properties with a random
// coordinator.id (on standard input, or in a file only its owner may
// read for orchestrators that need one: they may hold credentials),
// serves its clock to them, has the orchestrator (property orchestrator:
// local, docker) run client i as "servbench load|run BINDING -P FILE"
// with its index, the common start a moment ahead and a result file of
// its own beside out (ClientResultPath), and merges their results exactly
// into out (when given), only those that carry its coordinator.id. A
// client that fails or writes no result fails the phase, named by its
// index, and nothing merged is written. When ctx ends every client stops
// and writes what it has, and those are merged. The bench command runs a
// plan's spread cells through it too.
func Run(ctx context.Context, setup *engine.Setup, out string, stderr io.Writer) (*result.Doc, error) {
	n, cmd, binding := setup.Client.Count, setup.Spec.Phase.String(), setup.Spec.Binding
	orch, err := newOrchestrator(setup.Client)
	if err != nil {
		return nil, &engine.SpecError{Err: err}
	}
	dir, err := os.MkdirTemp("", "servbench-clients-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	j := &job{cmd: cmd, binding: binding, n: n, out: out, metricsAddr: setup.Outputs.MetricsAddr, stderr: stderr, mu: &sync.Mutex{}}
	if j.out == "" {
		j.out = filepath.Join(dir, "out", "result.json")
		if err := os.Mkdir(filepath.Dir(j.out), 0o755); err != nil {
			return nil, err
		}
	}
	if j.out, err = filepath.Abs(j.out); err != nil {
		return nil, err
	}
	if err := checkMetricsAddrs(setup.Outputs.MetricsAddr, n); err != nil {
		return nil, &engine.SpecError{Err: err}
	}
	j.id = result.NewID()
	cp := ClientProps(setup.Props)
	cp.Set("coordinator.id", j.id, "coordinator")
	var text bytes.Buffer
	if err := cp.Write(&text); err != nil {
		return nil, fmt.Errorf("clients: %w", err)
	}
	j.propsText = text.Bytes()
	if orch.needsFile() {
		j.props = filepath.Join(dir, "in", "phase.properties")
		if err := writeProps(j.props, j.propsText); err != nil {
			return nil, fmt.Errorf("clients: %w", err)
		}
	}
	forget := func() {}
	if j.props != "" { // once every client has read them, no file keeps the properties
		forget = func() { os.Remove(j.props) }
	}
	clock, err := serveClock(setup.Client.CoordinatorAddr, &clockHandler{n: n, all: forget})
	if err != nil {
		return nil, specErrorf("%s: coordinator.addr: %v", cmd, err)
	}
	defer clock.Close()
	j.clockURL = "http://" + clock.Addr().String() + "/"
	// Long enough for every client to start and connect first.
	j.start = time.Now().Add(orch.lead() + time.Duration(n)*100*time.Millisecond).UTC()
	fmt.Fprintf(stderr, "servbench: %s on %d clients (%s), starting together at %s\n", cmd, n, orch, j.start.Format("15:04:05.000"))
	ends := orch.run(ctx, j)
	for i, end := range ends {
		if end != nil && end != errOtherFailed {
			return nil, fmt.Errorf("client %d of %d failed (%v): no merged result", i, n, end)
		}
	}
	var docs []*result.Doc
	var none []string
	for i := range ends {
		path := ClientResultPath(j.out, i)
		d, err := result.ReadFile(path)
		if err == nil && d.Properties["coordinator.id"] != j.id {
			err = fmt.Errorf("%s is another run's result (coordinator.id %q, this run's %s)", path, props.Cut(d.Properties["coordinator.id"], 40), j.id)
		}
		if err != nil {
			if ctx.Err() != nil { // stopped before it measured anything
				none = append(none, strconv.Itoa(i))
				continue
			}
			return nil, fmt.Errorf("client %d of %d wrote no result: %v", i, n, err)
		}
		docs = append(docs, d)
	}
	switch {
	case len(none) == n:
		return nil, engine.ErrInterruptedBeforeMeasuring
	case len(none) > 0:
		return nil, fmt.Errorf("interrupted before client %s of %d measured anything: nothing merged", strings.Join(none, ", "), n)
	}
	m, err := result.Merge(docs)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "servbench: %d clients: %s ops/s over the %.1f s all were measuring, %s operations (%s ok)\n",
		m.Clients, format.Thousands(int64(m.Throughput+0.5)), m.RuntimeMs/1000, format.Thousands(m.Operations), format.Thousands(m.OKOperations))
	if off, rtt := maxClockOffset(m); rtt > 0 {
		fmt.Fprintf(stderr, "servbench: the clients' clocks were within %.2f ms of this one's (measured ± %.2f ms); their intervals are lined up on it\n", off, rtt/2)
	}
	for _, c := range m.BusyClients() {
		fmt.Fprintf(stderr, "servbench: client %d used %.0f%% of its %d cores: it may be the limit, not the database; add clients\n", c.Index, c.CPUPct, c.Cores)
	}
	return m, nil
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

// ClientProps are the properties every client of a phase reads from a
// file: the phase's, with the workload's name (which would otherwise be
// the file's).
func ClientProps(p *props.Props) *props.Props {
	all := p.Clone()
	for _, merged := range []string{"result.file", "timeseries.file", "exportfile"} {
		all.Delete(merged) // each client is given its own result; the coordinator writes these from the merge
	}
	all.SetDefault("workloadname", engine.WorkloadName(p), "")
	return all
}

// writeProps writes the properties' text where only its owner can read
// it.
func writeProps(path string, text []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(text); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// serveClock serves this machine's clock to the clients (see engine's
// measureClock) on addr.
func serveClock(addr string, h http.Handler) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	return l, nil
}

// clockHandler answers the clients' clock requests and calls all once
// when each of the n clients has asked (each names itself, ?client=I):
// every client has read the phase's properties by then.
type clockHandler struct {
	n    int
	all  func()
	mu   sync.Mutex
	seen map[string]bool
}

func (c *clockHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	engine.ClockHandler(time.Now).ServeHTTP(w, r)
	i := r.URL.Query().Get("client")
	if i == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = map[string]bool{}
	}
	if len(c.seen) < c.n && !c.seen[i] && len(i) < 8 {
		c.seen[i] = true
		if len(c.seen) == c.n {
			c.all()
		}
	}
}

// A job is one spread phase for an orchestrator to run.
type job struct {
	cmd, binding string
	n            int
	id           string // coordinator.id: every client's result must carry it
	propsText    []byte // the phase's properties, for every client
	props        string // where they are as a file, for orchestrators that need one
	out          string // the merged result's path: client i writes ClientResultPath(out, i)
	start        time.Time
	clockURL     string
	metricsAddr  string
	stderr       io.Writer
	mu           *sync.Mutex // one line at a time on stderr
}

// clientArgs is a client's command line after "servbench": its index (or
// where to read it), the common start, the coordinator's clock and where
// to write its result, for the properties and result at the paths given
// (as the client sees them).
func (j *job) clientArgs(index []string, props, out string) []string {
	a := []string{j.cmd, j.binding, "-P", props}
	a = append(a, index...)
	return append(a, "-p", "startat="+j.start.Format(time.RFC3339Nano), "-p", "clock.url="+j.clockURL, "-o", out)
}

// say writes one line of client i's on the coordinator's stderr.
func (j *job) say(i int, line string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	fmt.Fprintf(j.stderr, "client %d: %s\n", i, line)
}

// errOtherFailed ends a client that was stopped because another failed.
var errOtherFailed = errors.New("stopped when another client failed")

// An orchestrator runs a job's n clients and returns when they have all
// ended, with each client's failure (nil: it ended or was interrupted and
// wrote its result). When ctx ends, it stops every client, which writes
// what it has.
type orchestrator interface {
	run(ctx context.Context, j *job) []error
	// lead is how long the clients need to start.
	lead() time.Duration
	// needsFile: the clients read the properties from a file (job.props)
	// rather than from their standard input.
	needsFile() bool
	String() string
}

// newOrchestrator is the orchestrator property's.
func newOrchestrator(c engine.Client) (orchestrator, error) {
	switch c.Orchestrator {
	case "docker":
		return newDocker(c.Image), nil
	case "kubernetes":
		return nil, errors.New("orchestrator=kubernetes: servbench writes the Indexed Job for kubectl to apply: give --emit DIR (see 'servbench run --help')")
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("clients: %w", err)
	}
	return &local{exe: exe}, nil
}

// local runs the clients as processes of this binary on this machine,
// each reading the phase's properties from its standard input: no file
// holds them, whatever ends the coordinator.
type local struct{ exe string }

func (*local) String() string      { return "here" }
func (*local) lead() time.Duration { return 2 * time.Second }
func (*local) needsFile() bool     { return false }

// stopGrace is how long clients asked to stop (another failed) may take to
// write their results before they are killed.
var stopGrace = 5 * time.Second

func (l *local) run(ctx context.Context, j *job) []error {
	ends := make([]error, j.n)
	procs := make([]*exec.Cmd, j.n)
	for i := range procs {
		args := j.clientArgs([]string{"--client-index", strconv.Itoa(i)}, "/dev/stdin", ClientResultPath(j.out, i))
		if j.metricsAddr != "" {
			args = append(args, "-p", "metrics.addr="+ClientMetricsAddr(j.metricsAddr, i))
		}
		c := exec.Command(l.exe, args...)
		c.Env = append(os.Environ(), "SERVBENCH_CLIENT="+strconv.Itoa(i))
		c.Stdin = bytes.NewReader(j.propsText)
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
	type exit struct {
		i   int
		err error
	}
	exits := make(chan exit, j.n)
	for i, p := range procs {
		go func() { exits <- exit{i, p.Wait()} }()
	}
	ended := make([]bool, j.n)
	const (
		running = iota
		interrupted
		otherFailed
		killed
	)
	why := make([]int, j.n) // what the coordinator did to client i
	signal := func(sig os.Signal, reason int) {
		for i, p := range procs {
			if !ended[i] {
				p.Process.Signal(sig)
				why[i] = max(why[i], reason)
			}
		}
	}
	ctxDone, abandon := ctx.Done(), runner.AbandonOf(ctx)
	var kill <-chan time.Time
	for live := j.n; live > 0; {
		select {
		case e := <-exits:
			live--
			ended[e.i] = true
			procs[e.i].Stderr.(*prefixed).flush()
			switch {
			case why[e.i] == killed:
				ends[e.i] = errors.New("killed after a second interrupt")
			case why[e.i] == otherFailed:
				ends[e.i] = errOtherFailed
			case e.err == nil || why[e.i] == interrupted && stoppedByInterrupt(e.err):
			default: // the first failure stops every other client at once
				ends[e.i] = e.err
				signal(os.Interrupt, otherFailed)
				kill = time.After(stopGrace)
			}
		case <-ctxDone: // Ctrl-C: every client stops and writes its results
			ctxDone = nil
			signal(os.Interrupt, interrupted)
		case <-abandon: // a second Ctrl-C: no more waiting
			abandon = nil
			var left []string
			for i, p := range procs {
				if !ended[i] {
					left = append(left, fmt.Sprintf("%d (pid %d)", i, p.Process.Pid))
				}
			}
			if len(left) > 0 {
				j.mu.Lock()
				fmt.Fprintf(j.stderr, "servbench: second signal: killing client %s, which had not stopped\n", strings.Join(left, ", "))
				j.mu.Unlock()
			}
			signal(os.Kill, killed)
		case <-kill:
			signal(os.Kill, otherFailed)
		}
	}
	return ends
}

// stoppedByInterrupt reports whether a client's end is its answer to an
// interrupt: exit 130, or killed by SIGINT before it could catch it.
func stoppedByInterrupt(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	if ee.ExitCode() == exitInterrupted {
		return true
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGINT
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

// prefixed passes each whole line written to say.
type prefixed struct {
	say func(string)
	buf []byte
}

func (p *prefixed) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexAny(p.buf, "\r\n")
		if i < 0 {
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

// exitInterrupted is how a client ends that was interrupted (servbench's
// exit status 130).
const exitInterrupted = 130

// specErrorf is bad input, as the engine's own.
func specErrorf(format string, args ...any) error {
	return &engine.SpecError{Err: fmt.Errorf(format, args...)}
}
