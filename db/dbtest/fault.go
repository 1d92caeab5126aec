package dbtest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// server is one of scripts/servers' local servers, which a fault test
// kills, pauses and starts again with that script.
type server struct {
	t      *testing.T
	name   string
	script string
}

// faultServer returns the server named name (a scripts/servers name) for a
// fault test. Fault tests stop the shared servers, so they run only when
// SERVBENCH_FAULTS=1 (the test command runs them after every other test);
// otherwise the test is skipped. The server is left running when the test
// ends, whatever happened.
func faultServer(t *testing.T, name string) *server {
	t.Helper()
	if os.Getenv("SERVBENCH_FAULTS") != "1" {
		t.Skip("fault test: it kills and pauses the shared server; run with SERVBENCH_FAULTS=1 (scripts/integration does, after the other tests)")
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("fault test: no go.mod above the test's directory")
		}
		dir = parent
	}
	s := &server{t: t, name: name, script: filepath.Join(dir, "scripts", "servers")}
	t.Cleanup(func() {
		s.run("resume") // a paused server cannot be stopped or started
		s.Start()
	})
	return s
}

func (s *server) run(cmd string) error {
	out, err := exec.Command(s.script, cmd, s.name).CombinedOutput()
	if err != nil {
		return fmt.Errorf("scripts/servers %s %s: %v: %s", cmd, s.name, err, strings.TrimSpace(string(out)))
	}
	return nil
}

func (s *server) must(cmd string) {
	if err := s.run(cmd); err != nil {
		s.t.Error(err)
	}
}

// Kill kills the server with SIGKILL (its child processes too).
func (s *server) Kill() { s.must("kill") }

// Start starts the server again and waits until it is ready.
func (s *server) Start() { s.must("start") }

// Pause stops the server's processes with SIGSTOP: it hangs, connections
// stay open.
func (s *server) Pause() { s.must("pause") }

// Resume lets a paused server go on.
func (s *server) Resume() { s.must("resume") }

// Fault is how a binding's fault tests run: workload A paced at
// faultRate over 4 threads, on faultRecords records loaded first.
type Fault struct {
	// Server is the scripts/servers name of the server the faults hit.
	Server  string
	Binding string
	// Reset, when set, removes what an earlier run left (a table a load
	// cannot go over) before each fault's load.
	Reset func(t *testing.T)
	// Props are the binding's properties (connection, table, timeouts) as
	// key, value pairs.
	Props []string
	// Unreachable, when set, says why the binding's client cannot find
	// the server it started again (a stand-in that comes back unlike the
	// real server): crash then checks that the run goes on counting
	// failures for two seconds after the restart, instead of waiting for
	// answers.
	Unreachable string
}

// interval is what a fault test keeps of one interval of a run.
type interval struct {
	answers int64 // OK, or NOT_FOUND from a server that lost its data
	failed  int64 // any other cause but CANCELED
}

// watcher is an Observer a fault test reads while the run goes on.
type watcher struct {
	mu    sync.Mutex
	seen  []interval
	woken chan struct{}
}

func newWatcher() *watcher { return &watcher{woken: make(chan struct{}, 1)} }

func (w *watcher) Interval(p runner.Progress) {
	if p.Warmup {
		return
	}
	var iv interval
	for st, n := range p.Interval.Txns {
		switch s := db.Status(st); {
		case s.IsOK(), s == db.NotFound:
			iv.answers += n
		case s != db.Canceled:
			iv.failed += n
		}
	}
	w.mu.Lock()
	w.seen = append(w.seen, iv)
	w.mu.Unlock()
	select {
	case w.woken <- struct{}{}:
	default:
	}
}

// count returns the number of intervals seen so far.
func (w *watcher) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.seen)
}

// waitFor blocks until cond holds for the intervals seen from index from
// on (true), or the run ends first (done closed: false).
func (w *watcher) waitFor(done <-chan struct{}, from int, cond func([]interval) bool) bool {
	for {
		w.mu.Lock()
		seen := w.seen
		w.mu.Unlock()
		if from <= len(seen) && cond(seen[from:]) {
			return true
		}
		select {
		case <-w.woken:
		case <-done:
			return false
		}
	}
}

// answered reports whether the last n intervals all have answers and no
// failure.
func answered(n int) func([]interval) bool {
	return func(ivs []interval) bool {
		if len(ivs) < n {
			return false
		}
		for _, iv := range ivs[len(ivs)-n:] {
			if iv.answers == 0 || iv.failed > 0 {
				return false
			}
		}
		return true
	}
}

// faultLimit bounds a fault test's run when the server never comes back:
// far above any restart here (Cassandra's is the longest, under a minute).
const faultLimit = 3 * time.Minute

// A fault test's data set and pace.
const (
	faultRecords = 500
	faultRate    = 200 // operations per second over 4 threads
)

func (f *Fault) spec(t *testing.T, phase engine.Phase, kv ...string) engine.Spec {
	t.Helper()
	all := append(append([]string{"recordcount", fmt.Sprint(faultRecords)}, f.Props...), kv...)
	return engine.Spec{Binding: f.Binding, Properties: workloadProps(t, "a", all...), Phase: phase, Threads: 4}
}

func (f *Fault) load(t *testing.T) {
	t.Helper()
	if f.Reset != nil {
		f.Reset(t)
	}
	var log errorBuffer
	s := f.spec(t, engine.LoadPhase)
	s.Log = &log
	res, err := engine.Run(context.Background(), s)
	if err != nil {
		t.Fatalf("load: %v\n%s", err, log)
	}
	if all, ok := res.Total.ClientOps(); res.Err != nil || all != ok {
		t.Fatalf("load: %v; %d operations, %d ok", res.Err, all, ok)
	}
}

// run runs the paced run phase with a watcher while fault acts on the
// server; fault gets the watcher and a channel closed when the run ends.
// The run's document is written to a file and read back, as a user's
// results would be.
func (f *Fault) run(t *testing.T, ctx context.Context, limit time.Duration, fault func(w *watcher, done <-chan struct{})) *result.Doc {
	t.Helper()
	s := f.spec(t, engine.RunPhase, "operationcount", "0", "timeseries.interval", "0.25")
	s.Rate, s.Duration = engine.Give[float64](faultRate), engine.Give(limit)
	w := newWatcher()
	done := make(chan struct{})
	var faulted sync.WaitGroup
	faulted.Add(1)
	go func() {
		defer faulted.Done()
		fault(w, done)
	}()
	res, err := engine.Run(ctx, s, w)
	close(done)
	faulted.Wait()
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	doc := res.Doc()
	path := filepath.Join(t.TempDir(), "result.json")
	if err := atomicfile.WriteFile(path, func(w io.Writer) error { return result.WriteJSON(w, doc) }); err != nil {
		t.Fatalf("write the results: %v", err)
	}
	back, err := result.ReadFile(path)
	if err != nil {
		t.Fatalf("read the results back: %v", err)
	}
	if back.Operations != doc.Operations || len(back.Ops) != len(doc.Ops) || len(back.Series) == 0 {
		t.Fatalf("results read back: %d operations, %d kinds, %d intervals; written %d, %d",
			back.Operations, len(back.Ops), len(back.Series), doc.Operations, len(doc.Ops))
	}
	checkCounts(t, back)
	return back
}

// checkCounts: every operation is counted once under one outcome, and
// every failed outcome comes with its first error.
func checkCounts(t *testing.T, d *result.Doc) {
	t.Helper()
	for _, op := range d.Ops {
		var sum int64
		for status, n := range op.Outcomes {
			sum += n
			if status != "OK" && n > 0 && op.Errors[status] == "" {
				t.Errorf("%s: %d %s without the error", op.Name, n, status)
			}
		}
		if sum != op.Count {
			t.Errorf("%s: outcomes %v sum to %d, count %d", op.Name, op.Outcomes, sum, op.Count)
		}
	}
}

// Faults runs crash and stall on f's server, as subtests "crash" and
// "stall". It is skipped unless SERVBENCH_FAULTS=1 (see faultServer).
func Faults(t *testing.T, f Fault) {
	t.Helper()
	srv := faultServer(t, f.Server)
	for _, c := range []struct {
		name  string
		fault func(*testing.T, *server, Fault)
	}{{"crash", crash}, {"stall", stall}} {
		t.Run(c.name, func(t *testing.T) {
			srv.t = t
			srv.Start() // in case the fault before left it down
			c.fault(t, srv, f)
		})
	}
}

// crash kills the server with SIGKILL in the middle of a paced run and
// starts it again: the run goes on through the failures, counts them by
// cause, recovers once the server is back, and its results (written when
// the test stops the run, as Ctrl-C would) show the failures and the gap
// in the time series.
func crash(t *testing.T, srv *server, f Fault) {
	t.Helper()
	f.load(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var recovered bool
	d := f.run(t, ctx, faultLimit, func(w *watcher, done <-chan struct{}) {
		if !w.waitFor(done, 0, answered(2)) {
			return
		}
		srv.Kill()
		srv.Start()
		// The server is back: the run must find it again by itself.
		n := w.count()
		if f.Unreachable != "" {
			recovered = w.waitFor(done, n, func(ivs []interval) bool { return len(ivs) >= 8 })
		} else {
			recovered = w.waitFor(done, n, answered(4))
		}
		cancel()
	})
	switch {
	case f.Unreachable != "":
		t.Logf("the client does not find the restarted server: %s", f.Unreachable)
		if !recovered {
			t.Fatalf("the run ended within two seconds of the restart; stop %s", d.Stop)
		}
	case !recovered:
		t.Fatalf("no run of 4 intervals with only answers after the server came back; stop %s", d.Stop)
	}
	if d.Stop != result.Interrupted {
		t.Errorf("stop %s, want %s (the test stops the run once the server answers again)", d.Stop, result.Interrupted)
	}
	causes := failedCauses(d)
	if len(causes) == 0 {
		t.Fatalf("no failure counted while the server was dead: %v", outcomes(d))
	}
	t.Logf("failures by cause while the server was dead: %v; first errors: %s", causes, firstErrors(d))
	unclassified(t, causes, d)
	// The time series: intervals of answers only, then failures (all of
	// the operations on a single server, a node's share on a cluster),
	// then answers only again.
	phase, want := 0, 3
	if f.Unreachable != "" {
		want = 2
	}
	for _, p := range d.Series {
		answers, failed := seriesCounts(p)
		clean := answers > 0 && failed == 0
		if (phase == 0 || phase == 2) && clean || phase == 1 && failed > 0 {
			phase++
		}
	}
	if phase < want {
		t.Errorf("the time series does not show answers, failures, then answers again: %s", seriesText(d))
	}
}

// stall stops the server with SIGSTOP for two seconds under a paced run
// that ends on its time limit: the run ends on time, and the stall shows in
// the response time (measured from the intended start) and as a gap in the
// time series.
func stall(t *testing.T, srv *server, f Fault) {
	t.Helper()
	const hang = 2 * time.Second
	f.load(t)
	paused := -1 // the intervals seen when the server was paused
	d := f.run(t, context.Background(), 8*time.Second, func(w *watcher, done <-chan struct{}) {
		if !w.waitFor(done, 0, answered(2)) {
			return
		}
		srv.Pause()
		paused = w.count()
		time.Sleep(hang)
		srv.Resume()
	})
	if paused < 0 {
		t.Fatalf("the run ended before it answered twice: the server was never paused:%s", seriesText(d))
	}
	if d.Stop != result.TimeLimit {
		t.Errorf("stop %s, want %s", d.Stop, result.TimeLimit)
	}
	var worst float64
	for _, op := range d.Ops {
		for _, l := range []*result.Latency{op.Response, op.ResponseFailed} {
			if l != nil {
				worst = max(worst, l.MaxUs)
			}
		}
	}
	// The operations due just after the pause waited for all of it, or
	// for their timeout (a binding whose timeout is shorter than the stall
	// sets a longer one for this test).
	if worst < 0.75*float64(hang.Microseconds()) {
		t.Errorf("the longest response time is %.0f µs: the %s stall does not show", worst, hang)
	}
	gap := false
	for i, p := range d.Series {
		if ok, _ := seriesCounts(p); ok == 0 && i > 0 && i+1 < len(d.Series) {
			gap = true
		}
	}
	if !gap {
		t.Errorf("no interval of the time series without an answer although the server was paused after interval %d: the stall does not show:%s", paused, seriesText(d))
	}
	if c := failedCauses(d); len(c) > 0 {
		t.Logf("failures by cause: %v; first errors: %s", c, firstErrors(d))
		unclassified(t, c, d)
	}
}

// seriesCounts returns an interval's answers (OK or NOT_FOUND) and its
// failures (any other cause but CANCELED, an operation cut short by the
// end of the run).
func seriesCounts(p result.Point) (answers, failed int64) {
	for _, o := range p.Ops {
		answers += o.Count
		for status, n := range o.Failed {
			if status != "NOT_FOUND" {
				answers -= n
			}
			if status != "NOT_FOUND" && status != "CANCELED" {
				failed += n
			}
		}
	}
	return answers, failed
}

// failedCauses sums the failed outcomes of every operation by cause,
// leaving out NOT_FOUND (a server that lost its data answers so).
func failedCauses(d *result.Doc) map[string]int64 {
	out := map[string]int64{}
	for _, op := range d.Ops {
		for status, n := range op.Outcomes {
			if status != "OK" && status != "NOT_FOUND" && status != "CANCELED" && n > 0 {
				out[status] += n
			}
		}
	}
	return out
}

func outcomes(d *result.Doc) map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for _, op := range d.Ops {
		out[op.Name] = op.Outcomes
	}
	return out
}

// seriesText shows a time series as answers/failures per interval.
func seriesText(d *result.Doc) string {
	var b strings.Builder
	for _, p := range d.Series {
		a, f := seriesCounts(p)
		fmt.Fprintf(&b, " %.2fs:%d/%d", p.StartS, a, f)
	}
	return b.String()
}

// unclassified fails the test when a failure is ERROR, the cause of
// errors a binding does not recognise: a dead or hung server is
// SERVICE_UNAVAILABLE or TIMEOUT.
func unclassified(t *testing.T, causes map[string]int64, d *result.Doc) {
	t.Helper()
	if causes["ERROR"] > 0 {
		t.Errorf("%d failures counted as ERROR, the cause of unrecognised errors: %s", causes["ERROR"], firstErrors(d))
	}
}

// firstErrors lists the first error of each failed outcome.
func firstErrors(d *result.Doc) string {
	var b strings.Builder
	for _, op := range d.Ops {
		for status, e := range op.Errors {
			if status != "NOT_FOUND" {
				fmt.Fprintf(&b, "\n\t%s %s: %s", op.Name, status, e)
			}
		}
	}
	return b.String()
}
