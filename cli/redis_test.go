package cli

// The Redis binding's runs through the command: spread over clients, the
// server killed and restarted under a run, Ctrl-C while it hangs. Each test
// starts a redis-server of its own on 127.0.0.1 (SERVBENCH_REDIS_URL says
// one is installed).

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// ownServer starts a redis-server of the test's own on port, so it can be
// killed without disturbing the shared one.
func ownServer(t *testing.T, port int) *exec.Cmd {
	t.Helper()
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		bin = "/usr/bin/redis-server"
	}
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", fmt.Sprint(port), "--save", "", "--appendonly", "no",
		"--dir", t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatalf("start redis-server: %v", err)
	}
	for i := 0; i < 100; i++ {
		if c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port)); err == nil {
			c.Close()
			return cmd
		}
		time.Sleep(50 * time.Millisecond)
	}
	cmd.Process.Kill()
	t.Fatal("redis-server did not start")
	return nil
}

func redisRun(ctx context.Context, t *testing.T, args ...string) (int, *result.Doc, string) {
	out := filepath.Join(t.TempDir(), "r.json")
	var stderr strings.Builder
	code := MainContext(ctx, append(args, "-o", out), io.Discard, &stderr)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("exit %d, no result file: %v; stderr %s", code, err, stderr.String())
	}
	var d result.Doc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	return code, &d, stderr.String()
}

// TestRedisDeadServerIsNotADeadRun kills Redis in the middle of a run at a
// fixed rate and restarts it two seconds later: the run goes on, counts the
// failures by cause, recovers, ends on time and writes complete results
// whose time series shows the gap.
func TestRedisDeadServerIsNotADeadRun(t *testing.T) {
	dbtest.ServerURL(t, "SERVBENCH_REDIS_URL") // redis-server is installed
	const port = 6391
	srv := ownServer(t, port)
	url := fmt.Sprintf("redis://127.0.0.1:%d", port)

	go func() {
		time.Sleep(1500 * time.Millisecond)
		srv.Process.Kill()
		srv.Wait()
		time.Sleep(2 * time.Second)
		srv = ownServer(t, port)
	}()
	code, d, stderr := redisRun(context.Background(), t, "run", "redis", "-w", "h", "-p", "redis.url="+url,
		"-threads", "4", "-target", "1000", "-p", "operationcount=0", "-p", "maxexecutiontime=6",
		"-p", "timeseries.interval=0.25", "-p", "redis.timeout=300")
	defer func() { srv.Process.Kill(); srv.Wait() }()
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if d.Stop != result.TimeLimit || d.RuntimeMs < 5900 || d.RuntimeMs > 7000 {
		t.Errorf("stop %s after %.0f ms", d.Stop, d.RuntimeMs)
	}
	var upd result.OpResult
	for _, op := range d.Ops {
		if op.Name == "UPDATE" {
			upd = op
		}
	}
	failed := upd.Count - upd.Outcomes["OK"]
	// 1000 ops/s for 6 s with the server away for about 2 s.
	if upd.Outcomes["OK"] < 2500 || failed < 1000 || upd.Outcomes["SERVICE_UNAVAILABLE"] < failed*9/10 {
		t.Errorf("outcomes %v: want about 4000 OK and 2000 SERVICE_UNAVAILABLE", upd.Outcomes)
	}
	// The time series: OK before the kill, a gap with failures only, OK
	// again after the restart.
	phase := 0 // 0 before, 1 in the gap, 2 recovered
	for _, p := range d.Series {
		o, _ := p.Ops.Get("UPDATE")
		var f int64
		for status, n := range o.Failed {
			if status != "CANCELED" { // cut short by the end of the run
				f += n
			}
		}
		ok := o.Count - f
		switch {
		case phase == 0 && f > 0 && ok == 0:
			phase = 1
		case phase == 1 && ok > 0:
			phase = 2
		case phase == 2 && p.StartS > 4.5 && f > 0:
			t.Errorf("failures at %.2f s, after the server was back: %v", p.StartS, o.Failed)
		}
	}
	if phase != 2 {
		t.Errorf("time series does not show a gap followed by recovery (phase %d)", phase)
	}
}

// TestRedisInterruptWritesResultsSoFar: Ctrl-C (here, the context) in the middle
// of an unlimited run still writes the results.
func TestRedisInterruptWritesResultsSoFar(t *testing.T) {
	dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	const port = 6392
	srv := ownServer(t, port)
	defer func() { srv.Process.Kill(); srv.Wait() }()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(time.Second, cancel)
	code, d, _ := redisRun(ctx, t, "run", "redis", "-w", "h", "-p", fmt.Sprintf("redis.url=redis://127.0.0.1:%d", port),
		"-threads", "2", "-target", "1000", "-p", "operationcount=0")
	if code != ExitInterrupted || d.Stop != result.Interrupted || d.Operations < 500 {
		t.Errorf("exit %d, stop %s, %d operations", code, d.Stop, d.Operations)
	}
}

// TestRedisInterruptWhileServerHangs: Ctrl-C while the server hangs (SIGSTOP)
// ends the measured time when the stop is asked, not after the stop grace
// the threads stuck in the server are given, and a second Ctrl-C ends the
// wait at once: the stuck operations are abandoned, neither failed nor
// measured, and the results are written.
func TestRedisInterruptWhileServerHangs(t *testing.T) {
	dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	const port = 6393
	srv := ownServer(t, port)
	defer func() { srv.Process.Signal(syscall.SIGCONT); srv.Process.Kill(); srv.Wait() }()

	ctx, interrupt := context.WithCancel(context.Background())
	abandon := make(chan struct{})
	begun := time.Now()
	var asked, waited time.Duration // the two Ctrl-Cs, from before the run began
	signalled := make(chan struct{})
	go func() {
		defer close(signalled)
		time.Sleep(time.Second)
		srv.Process.Signal(syscall.SIGSTOP)
		time.Sleep(time.Second)
		asked = time.Since(begun)
		interrupt()
		time.Sleep(2 * time.Second)
		waited = time.Since(begun)
		close(abandon)
	}()
	// A stop grace far longer than the test: only the second Ctrl-C can
	// end the wait for the threads stuck in the hung server.
	code, d, stderr := redisRun(runner.WithAbandon(ctx, abandon), t, "run", "redis", "-w", "h",
		"-p", fmt.Sprintf("redis.url=redis://127.0.0.1:%d", port), "-threads", "4", "-target", "1000",
		"-p", "operationcount=0", "-p", "redis.timeout=600000", "-p", "stopgrace=600")
	returned := time.Since(begun)
	<-signalled
	if code != ExitInterrupted || d.Stop != result.Interrupted {
		t.Fatalf("exit %d, stop %s: %s", code, d.Stop, stderr)
	}
	if returned < waited {
		t.Fatalf("returned %v after the start, before the second Ctrl-C at %v", returned, waited)
	}
	// The run began after the test's clock did, so its measured time ends
	// no later than the first Ctrl-C as the test saw it (a moment for the
	// run to notice it).
	if got := time.Duration(d.RuntimeMs * float64(time.Millisecond)); got > asked+time.Second {
		t.Errorf("measured %v, but the stop was asked %v after the start: the wait for stuck threads was measured", got, asked)
	}
	if returned > waited+time.Minute {
		t.Errorf("returned %v after the second Ctrl-C: it did not cut the stop grace", returned-waited)
	}
	if d.Abandoned == 0 {
		t.Error("no operation abandoned although every thread was inside the hung server")
	}
	// Nor does the last INFO sample wait for the hung server after the
	// second Ctrl-C: it is cut short and said, and the results written.
	if !strings.Contains(stderr, "cut short: the run was abandoned") {
		t.Errorf("the last server-side sample not said cut short by the abandon: %s", stderr)
	}
	for _, op := range d.Ops {
		for status, n := range op.Outcomes {
			if status != "OK" {
				t.Errorf("%s: %d %s: operations stuck in a hung server and abandoned are not failures", op.Name, n, status)
			}
		}
	}
}

// One phase on 1, 2 and 4 clients against a real Redis: the load by 2
// clients inserts every record once, and each run's merged result has
// every operation of the clients, all answered, with the clients' own
// results adding up to it. (At a rate: a second, so that the clients'
// runs overlap whatever the machine is doing.)
func TestRedisClients(t *testing.T) {
	dbtest.ServerURL(t, "SERVBENCH_REDIS_URL") // redis-server is installed
	const port = 6394
	srv := ownServer(t, port) // empty: the load inserts every record
	defer func() { srv.Process.Kill(); srv.Wait() }()
	url := fmt.Sprintf("redis://127.0.0.1:%d", port)
	ctx := context.Background()
	code, load, stderr := redisRun(ctx, t, "load", "redis", "-w", "c", "-p", "redis.url="+url, "-p", "recordcount=4000",
		"--clients", "2", "-threads", "4", "-p", "dataintegrity=true")
	if code != ExitOK || load.Operations != 4000 || load.OKOperations != 4000 || load.Clients != 2 {
		t.Fatalf("load on 2 clients: exit %d, %d records (%d ok): %s", code, load.Operations, load.OKOperations, stderr)
	}
	for _, n := range []int{1, 2, 4} {
		code, run, stderr := redisRun(ctx, t, "run", "redis", "-w", "c", "-p", "redis.url="+url, "-p", "recordcount=4000",
			"-p", "operationcount=8002", "--clients", fmt.Sprint(n), "-threads", "4", "-target", "8000", "-p", "dataintegrity=true")
		if code != ExitOK {
			t.Fatalf("%d clients: exit %d: %s", n, code, stderr)
		}
		verified := int64(0)
		for _, op := range run.Ops {
			if op.Name == "VERIFY" {
				verified = op.Outcomes["OK"]
			}
		}
		if run.Operations != 8002 || run.OKOperations != 8002 || verified != 8002 {
			t.Errorf("%d clients: %d operations, %d ok, %d verified; want 8002", n, run.Operations, run.OKOperations, verified)
		}
		if n > 1 && run.Clients != n {
			t.Errorf("%d clients merged, want %d", run.Clients, n)
		}
	}
}
