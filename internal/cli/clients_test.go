package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/result"
)

// --clients 3 runs three processes of servbench here from a common start,
// each its share (threads, operations, its own keys to insert, its own
// seed), keeps each client's result beside the merged one, and merges them
// exactly: the counts add up. (At a rate, so that the clients run long
// enough to overlap whatever the machine is doing: 1 to 2 s.)
func TestClientsHere(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, stderr := servbench(t, "run", "basic", "-w", "a", "--clients", "3", "-threads", "4",
		"-p", "recordcount=999", "-p", "operationcount=30001", "-target", "20000", "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	m, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Standard output holds YCSB's report of the merged result, as for
	// any run: its counts are the merged ones.
	rep := parseReport(t, stdout)
	var reported float64
	for _, o := range m.Ops {
		if o.Name == "READ" || o.Name == "UPDATE" {
			reported += num(t, rep, "["+o.Name+"], Operations")
			if got := num(t, rep, "["+o.Name+"], Return=OK"); got != float64(o.Outcomes["OK"]) {
				t.Errorf("[%s] Return=OK %v, merged %d", o.Name, got, o.Outcomes["OK"])
			}
		}
	}
	if reported != 30001 || num(t, rep, "[OVERALL], RunTime(ms)") != math.Trunc(m.RuntimeMs) {
		t.Errorf("the report on standard output: %v operations, runtime %v ms (merged %v):\n%s", reported, rep["[OVERALL], RunTime(ms)"], m.RuntimeMs, stdout)
	}
	var ops, threads int64
	var starts []string
	seeds := map[uint64]bool{}
	for i := 0; i < 3; i++ {
		d, err := result.ReadFile(strings.TrimSuffix(out, ".json") + fmt.Sprintf(".client-%d.json", i))
		if err != nil {
			t.Fatalf("client %d: %v", i, err)
		}
		ops += d.Operations
		threads += int64(d.Threads)
		starts = append(starts, d.Properties["insertstart"])
		seeds[d.Seed] = true
		if d.Properties["clientindex"] != fmt.Sprint(i) || d.Properties["clients"] != "3" {
			t.Errorf("client %d's result says clientindex %q of %q", i, d.Properties["clientindex"], d.Properties["clients"])
		}
	}
	if m.Clients != 3 || m.Operations != 30001 || ops != 30001 || threads != 4 {
		t.Errorf("merged %d clients, %d operations; the clients did %d with %d threads; want 3, 30001, 30001, 4", m.Clients, m.Operations, ops, threads)
	}
	if !slices.Equal(starts, []string{"0", "333", "666"}) || len(seeds) != 3 {
		t.Errorf("insert ranges start at %v, %d distinct seeds", starts, len(seeds))
	}
	for i := 0; i < 3; i++ {
		if !strings.Contains(stderr, fmt.Sprintf("client %d: servbench: ran workload A", i)) {
			t.Errorf("client %d's lines are not on stderr:\n%s", i, stderr)
		}
	}
}

// A client that fails, or is killed, fails the phase, named, and no
// merged result is written.
func TestClientsOneFails(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{"SERVBENCH_TEST_FAIL_CLIENT", "client 1 of 2 ended (exit status 1) without sending its result: no merged result"},
		{"SERVBENCH_TEST_KILL_CLIENT", "client 1 of 2 ended (signal: killed) without sending its result: no merged result"},
	} {
		t.Run(c.env, func(t *testing.T) {
			t.Setenv(c.env, "1")
			out := filepath.Join(t.TempDir(), "r.json")
			// Client 0 would run for ever: the failure of client 1 must
			// stop it at once (the minute is a safety net, not a timing).
			done := make(chan [2]string, 1)
			go func() {
				code, _, stderr := servbench(t, "run", "basic", "-w", "c", "--clients", "2", "-threads", "2", "-target", "1000", "-p", "operationcount=0", "-o", out)
				done <- [2]string{strconv.Itoa(code), stderr}
			}()
			select {
			case r := <-done:
				if r[0] != strconv.Itoa(ExitFailure) || !strings.Contains(r[1], c.want) {
					t.Errorf("exit %s: %s", r[0], r[1])
				}
			case <-time.After(2 * time.Minute):
				t.Fatal("client 0 was not stopped when client 1 failed")
			}
			if _, err := result.ReadFile(out); err == nil {
				t.Error("a merged result was written without client 1")
			}
		})
	}
}

func TestClientsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "basic", "-w", "a", "--clients", "3", "-threads", "2"}, "2 threads for 3 clients"},
		{[]string{"run", "pebble", "-w", "a", "--clients", "2", "-threads", "2"}, "pebble is embedded"},
		{[]string{"run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--hlog", "x-"}, "each client writes its own result"},
		{[]string{"run", "basic", "-w", "a", "--clients", "2", "--client-index", "2", "-threads", "2"}, "want 0 to 1"},
	} {
		code, _, stderr := servbench(t, c.args...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, stderr)
		}
	}
}

// lines is a stderr that tells when the coordinator has printed a status
// line of its n clients' merged progress: they are measuring.
type lines struct {
	mu      sync.Mutex
	b       strings.Builder
	n       int
	started chan struct{}
}

func (l *lines) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if strings.Contains(l.b.String(), fmt.Sprintf("servbench: %d clients, ", l.n)) && l.started != nil {
		close(l.started)
		l.started = nil
	}
	return len(p), nil
}

// interruptWhenMeasuring runs servbench with args, a phase on n clients,
// and cancels it (Ctrl-C) once the coordinator prints their merged status
// line; it returns the exit code and standard error.
func interruptWhenMeasuring(t *testing.T, n int, args ...string) (int, string) {
	t.Helper()
	w := &lines{n: n, started: make(chan struct{})}
	started := w.started
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-started:
		case <-time.After(3 * time.Minute): // a safety net, not a measurement
			t.Error("the clients did not start measuring")
		}
		cancel()
	}()
	code := MainContext(ctx, args, io.Discard, w)
	w.mu.Lock()
	defer w.mu.Unlock()
	return code, w.b.String()
}

// Ctrl-C during a spread phase stops every client, which writes what it
// measured, and those results are merged: exit 130, a merged result of
// both clients that says it was interrupted.
func TestClientsInterrupted(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	out := filepath.Join(t.TempDir(), "r.json")
	code, text := interruptWhenMeasuring(t, 2, "run", "basic", "-w", "c", "--clients", "2", "-threads", "2", "-target", "1000",
		"--duration", "600", "-p", "operationcount=0", "-s", "-p", "status.interval=0.2", "-o", out)
	if code != ExitInterrupted {
		t.Fatalf("exit %d: %s", code, text)
	}
	m, err := result.ReadFile(out)
	if err != nil || m.Clients != 2 || m.Stop != result.Interrupted || m.Operations == 0 {
		t.Errorf("merged result %v: %d clients, stop %s, %d operations", err, m.Clients, m.Stop, m.Operations)
	}
}

// A client that hangs (stopped with SIGSTOP before it asked for its phase)
// fails the phase by name once it has sent nothing for coordinator.timeout;
// it is killed and nothing merged is written.
func TestClientsSilentClientFails(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the coordinator's timeout; the full suite runs it")
	}
	t.Setenv("SERVBENCH_TEST_STOP_CLIENT", "1")
	out := filepath.Join(t.TempDir(), "r.json")
	done := make(chan [2]string, 1)
	go func() {
		code, _, stderr := servbench(t, "run", "basic", "-w", "c", "--clients", "2", "-threads", "2", "-target", "100",
			"-p", "operationcount=0", "-p", "coordinator.timeout=1", "-o", out)
		done <- [2]string{strconv.Itoa(code), stderr}
	}()
	select {
	case r := <-done:
		if r[0] != strconv.Itoa(ExitFailure) || !strings.Contains(r[1], "client 1 of 2 sent nothing for 1s (coordinator.timeout): no merged result") {
			t.Errorf("exit %s: %s", r[0], r[1])
		}
	case <-time.After(2 * time.Minute): // a safety net, not a measurement
		t.Fatal("the silent client did not fail the phase")
	}
	if _, err := result.ReadFile(out); err == nil {
		t.Error("a merged result was written without client 1")
	}
}

// A hosts file that is a pipe nobody writes does not hold the run: Ctrl-C
// ends it (exit 130); one over its bound, or missing, is bad input in one
// line, and no client starts.
func TestSSHHostsFileAttacks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "hosts")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, bytes.Repeat([]byte("h\n"), 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	args := func(hosts string) []string {
		return []string{"run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--orchestrator", "ssh", "--hosts", "@" + hosts}
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }() // Ctrl-C while it waits on the pipe
	w := &watchFor{want: "never", seen: make(chan struct{})}
	if code := runUntil(t, ctx, make(chan struct{}), w, args(fifo)...); code != ExitInterrupted || strings.Contains(w.String(), "starting together") {
		t.Errorf("a hosts pipe nobody writes: exit %d: %s", code, w.String())
	}
	for _, c := range []struct{ file, want string }{{big, "ssh.hosts: "}, {filepath.Join(dir, "none"), "no such file"}} {
		code, _, e := servbench(t, args(c.file)...)
		if code != ExitUsage || !strings.Contains(e, c.want) || strings.Count(strings.TrimSpace(e), "\n") > 0 {
			t.Errorf("hosts file %s: exit %d: %s", c.file, code, e)
		}
	}
}

// A kubeconfig that is a pipe nobody writes is refused in one line
// (client-go would wait on it for ever); one that is missing too.
func TestKubeconfigAttacks(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "kubeconfig")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, want string }{{fifo, "is not a regular file"}, {fifo + "-none", "kubernetes: "}} {
		done := make(chan [2]string, 1)
		go func() {
			code, _, e := servbench(t, "run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--orchestrator", "kubernetes",
				"-p", "kubernetes.kubeconfig="+c.file)
			done <- [2]string{strconv.Itoa(code), e}
		}()
		select {
		case r := <-done:
			if r[0] != strconv.Itoa(ExitUsage) || !strings.Contains(r[1], c.want) || strings.Count(strings.TrimSpace(r[1]), "\n") > 0 {
				t.Errorf("kubeconfig %s: exit %s: %s", c.file, r[0], r[1])
			}
		case <-time.After(2 * time.Minute): // a safety net, not a measurement
			t.Fatalf("kubeconfig %s: the command did not end", c.file)
		}
	}
}
