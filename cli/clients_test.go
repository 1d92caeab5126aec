package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
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
	// A run's clients each draw from the whole key space (no insert range
	// of their own, as YCSB clients given one workload file), with seeds
	// of their own.
	if !slices.Equal(starts, []string{"", "", ""}) || len(seeds) != 3 {
		t.Errorf("insert ranges start at %q, %d distinct seeds", starts, len(seeds))
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
		{[]string{"run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--hlog", "x-"}, "send their results to the coordinator"},
		{[]string{"run", "basic", "-w", "a", "--clients", "2", "--client-index", "2", "-threads", "2"}, "want 0 to 1"},
		// Who asks for ssh hosts gets them, or is told: never a run here.
		{[]string{"run", "basic", "-w", "a", "--clients", "1", "--orchestrator", "ssh"}, "orchestrator=ssh needs the hosts"},
		{[]string{"run", "basic", "-w", "a", "--hosts", "127.0.0.1"}, "only the ssh orchestrator reads it"},
		{[]string{"run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--orchestrator", "docker", "--hosts", "127.0.0.1"}, "only the ssh orchestrator reads it"},
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
	t.Parallel()
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
	for _, c := range []struct{ file, want string }{{fifo, "not a regular file"}, {fifo + "-none", "kubernetes: "}} {
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

// execKubeconfig writes a kubeconfig whose user's credentials come from an
// exec plugin, sh -c script, for an API server nobody serves.
func execKubeconfig(t *testing.T, script string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "kubeconfig")
	q := strconv.Quote(script)
	os.WriteFile(f, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster: {server: 'https://127.0.0.1:1', insecure-skip-tls-verify: true}\n"+
		"contexts:\n- name: lab\n  context: {cluster: lab, user: u}\ncurrent-context: lab\nusers:\n- name: u\n  user:\n    exec:\n"+
		"      apiVersion: client.authentication.k8s.io/v1beta1\n      command: sh\n      args: ['-c', "+q+"]\n      interactiveMode: Never\n"), 0o600)
	return f
}

// A kubeconfig's exec credential plugin that prints without end is
// stopped at 1 MiB, in one line naming it (client-go read it whole: out
// of memory), and the command fails.
func TestKubeconfigExecPluginOutputBounded(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--orchestrator", "kubernetes",
		"-p", "kubernetes.kubeconfig="+execKubeconfig(t, "exec yes"))
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	cmd.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1")
	err := cmd.Run()
	if err == nil || !strings.Contains(errb.String(), "the kubeconfig's exec credential plugin sh printed more than 1 MiB") {
		t.Errorf("%v: %s", err, errb.String())
	}
}

// A kubeconfig's exec credential plugin that never answers is stopped by
// Ctrl-C twice with the command, and with whatever it started: client-go
// left it running.
func TestKubeconfigExecPluginEndsWithTheCommand(t *testing.T) {
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command(os.Args[0], "run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--orchestrator", "kubernetes",
		"-p", "kubernetes.kubeconfig="+execKubeconfig(t, "sleep 600 & echo $! > "+pidFile+"; wait"))
	stderr := &watchFor{want: "second signal", seen: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	cmd.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1")
	cmd.WaitDelay = time.Second // the plugin's sleep holds stderr while it lives
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var pid int
	for failsafe := time.Now().Add(time.Minute); pid == 0; time.Sleep(20 * time.Millisecond) {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		select {
		case err := <-done:
			t.Fatalf("ended before the plugin started: %v: %s", err, stderr)
		default:
		}
		if time.Now().After(failsafe) { // a safety net, not a measurement
			cmd.Process.Kill()
			t.Fatalf("the plugin never started: %s", stderr)
		}
	}
	signalTwice(t, cmd, done, stderr, time.After(time.Minute)) // a safety net, not a measurement
	// The kernel kills what was tied to the command as it ends; the
	// plugin's child goes with its group.
	for failsafe := time.Now().Add(time.Minute); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(failsafe) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the plugin's sleep (pid %d) still runs after the command ended: %s", pid, stderr)
		}
	}
}

// Every output of a spread phase is checked before any client starts:
// a client's result beside -o that is a directory, or a link into a
// directory that does not exist, the time series' path that is a
// directory, a client's result named as another output. Each is refused
// in one line naming it (exit 2), and no client starts.
func TestClientsOutputsCheckedBeforeTheRun(t *testing.T) {
	for _, c := range []struct {
		name  string
		make  func(dir string) []string // the extra arguments
		wants []string
	}{
		{"a client's result is a directory", func(dir string) []string {
			os.Mkdir(filepath.Join(dir, "r.client-1.json"), 0o755)
			return nil
		}, []string{"client 1's result", "r.client-1.json", "is a directory"}},
		{"a client's result links nowhere", func(dir string) []string {
			os.Symlink(filepath.Join(dir, "none", "x.json"), filepath.Join(dir, "r.client-0.json"))
			return nil
		}, []string{"client 0's result", "no such file or directory"}},
		{"the time series is a directory", func(dir string) []string {
			os.Mkdir(filepath.Join(dir, "t.csv"), 0o755)
			return []string{"--csv", filepath.Join(dir, "t.csv")}
		}, []string{"--csv", "t.csv", "is a directory"}},
		{"the report is a client's result", func(dir string) []string {
			return []string{"-p", "exportfile=" + filepath.Join(dir, "r.client-1.json")}
		}, []string{"named by both exportfile and client 1's result"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "r.json")
			args := append([]string{"run", "basic", "-w", "c", "--clients", "2", "-threads", "2", "-p", "operationcount=10", "-o", out}, c.make(dir)...)
			code, _, stderr := servbench(t, args...)
			if code != ExitUsage || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || strings.Contains(stderr, "starting together") {
				t.Errorf("exit %d: %s", code, stderr)
			}
			for _, w := range c.wants {
				if !strings.Contains(stderr, w) {
					t.Errorf("%q not said: %s", w, stderr)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a merged result was written")
			}
		})
	}
}

// An output that cannot be written at the end of a spread phase (made a
// directory while the clients ran) leaves every other output written:
// the merged result, the other clients' results, the time series and the
// report; the run fails naming the one that was not written.
func TestClientsOutputFailingAtTheEndLeavesTheOthers(t *testing.T) {
	t.Parallel()
	for _, broken := range []string{"r.client-1.json", "r.json"} {
		t.Run(broken, func(t *testing.T) {
			dir := t.TempDir()
			path := func(f string) string { return filepath.Join(dir, f) }
			w := &lines{n: 2, started: make(chan struct{})}
			started := w.started
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			go func() {
				select {
				case <-started: // the clients measure: the outputs were checked
				case <-time.After(3 * time.Minute): // a safety net, not a measurement
				}
				if err := os.Mkdir(path(broken), 0o755); err != nil {
					t.Error(err)
				}
				cancel()
			}()
			code := MainContext(ctx, []string{"run", "basic", "-w", "c", "--clients", "2", "-threads", "2", "-target", "1000",
				"-p", "operationcount=0", "-s", "-p", "status.interval=0.2", "-o", path("r.json"), "--csv", path("t.csv"),
				"-p", "exportfile=" + path("report.txt")}, io.Discard, w)
			w.mu.Lock()
			stderr := w.b.String()
			w.mu.Unlock()
			if code != ExitFailure || !strings.Contains(stderr, "not written: ") || !strings.Contains(stderr, broken) ||
				!strings.Contains(stderr, "every other output was written") {
				t.Errorf("exit %d: %s", code, stderr)
			}
			for _, f := range []string{"r.json", "r.client-0.json", "r.client-1.json"} {
				if f == broken {
					continue
				}
				if d, err := result.ReadFile(path(f)); err != nil || d.Operations == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
			for _, f := range []string{"t.csv", "report.txt"} {
				if st, err := os.Stat(path(f)); err != nil || st.Size() == 0 {
					t.Errorf("%s: %v", f, err)
				}
			}
		})
	}
}

// clientPID is the process ID of client i of the coordinator whose
// standard error is text ("coordinator at ADDR"), a child of this
// process: found by its environment.
func clientPID(t *testing.T, text string, i int) int {
	t.Helper()
	_, addr, ok := strings.Cut(text, "coordinator at ")
	if !ok {
		t.Fatalf("no coordinator address in %q", text)
	}
	addr, _, _ = strings.Cut(addr, "\n")
	want := []string{"SERVBENCH_CLIENT=" + strconv.Itoa(i), "SERVBENCH_COORDINATOR=https://" + addr}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		env, err := os.ReadFile(filepath.Join(p, "environ"))
		if err != nil {
			continue
		}
		vars := strings.Split(string(env), "\x00")
		if slices.Contains(vars, want[0]) && slices.Contains(vars, want[1]) {
			pid, _ := strconv.Atoi(filepath.Base(p))
			return pid
		}
	}
	t.Fatalf("no process of client %d of the coordinator at %s", i, addr)
	return 0
}

// A client that goes silent mid-run (stopped with SIGSTOP once the
// clients measure) fails the phase by name after coordinator.timeout; the
// healthy client is told to stop and has its grace to send what it
// measured, which is written beside -o, and nothing merged is written.
func TestClientsSilentClientLeavesTheOthersResults(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the coordinator's timeout; the full suite runs it")
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("finds the clients' processes in /proc")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	w := &lines{n: 2, started: make(chan struct{})}
	started := w.started
	go func() {
		select {
		case <-started:
		case <-time.After(3 * time.Minute): // a safety net, not a measurement
			return
		}
		w.mu.Lock()
		text := w.b.String()
		w.mu.Unlock()
		pid := clientPID(t, text, 1)
		syscall.Kill(pid, syscall.SIGSTOP)
		t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	}()
	code := MainContext(context.Background(), []string{"run", "basic", "-w", "c", "--clients", "2", "-threads", "2", "-target", "1000",
		"-p", "operationcount=0", "-s", "-p", "status.interval=0.2", "-p", "coordinator.timeout=5", "-p", "stopgrace=1", "-o", out}, io.Discard, w)
	w.mu.Lock()
	stderr := w.b.String()
	w.mu.Unlock()
	if code != ExitFailure || !strings.Contains(stderr, "run: client 1 of 2 ") || !strings.Contains(stderr, " sent nothing for 5s (coordinator.timeout): no merged result") {
		t.Errorf("exit %d: %s", code, stderr)
	}
	if d, err := result.ReadFile(strings.TrimSuffix(out, ".json") + ".client-0.json"); err != nil || d.Operations == 0 || d.Stop != result.Interrupted {
		t.Errorf("the healthy client's result: %v %+v", err, d)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a merged result was written without client 1")
	}
}

// A client writes no file whatever its phase asks (result.file,
// exportfile, timeseries.file, hdrhistogram.fileoutput,
// measurement.raw.output_file, hdrhistogram.log): it sends its result to
// its coordinator, which writes the outputs.
func TestClientWritesNoFile(t *testing.T) {
	dir := t.TempDir()
	in := func(f string) string { return filepath.Join(dir, f) }
	p := props.New()
	for k, v := range map[string]string{"operationcount": "10", "recordcount": "10", "result.file": in("r.json"), "exportfile": in("e.txt"),
		"timeseries.file": in("t.csv"), "hdrhistogram.fileoutput": "true", "hdrhistogram.output.path": in("h-"),
		"measurement.raw.output_file": in("raw.txt"), "hdrhistogram.log": in("l-"), "measurementtype": "raw"} {
		p.Set(k, v, "a coordinator")
	}
	setup, err := checkPhase(context.Background(), "run", engine.Spec{Binding: "basic", Properties: p}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	coordinator.ClientOutputs(setup)
	res, err := setup.Execute(context.Background(), engine.Writers{})
	if err != nil || res.Doc().Operations != 10 {
		t.Fatalf("%v", err)
	}
	if files, _ := os.ReadDir(dir); len(files) > 0 {
		t.Errorf("a client wrote %v", files)
	}
	for _, k := range []string{"result.file", "exportfile", "timeseries.file", "measurement.raw.output_file", "hdrhistogram.log"} {
		if v, ok := res.Doc().Properties[k]; ok {
			t.Errorf("its result says %s=%s", k, v)
		}
	}
}

// With no usable kubeconfig the kubernetes orchestrator says in one line
// which kubeconfig and context it looked for, not client-go's advice to
// set an environment variable of its own.
func TestKubeconfigNamedWhenUnusable(t *testing.T) {
	home := t.TempDir()
	none := filepath.Join(home, "none")
	t.Setenv("KUBECONFIG", none) // never the user's own: that one would be used
	code, _, stderr := servbench(t, "run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--orchestrator", "kubernetes")
	if code != ExitUsage || !strings.Contains(stderr, "$KUBECONFIG "+none+" (no such file), its current context: no kubeconfig found") ||
		strings.Contains(stderr, "KUBERNETES_MASTER") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("no kubeconfig: exit %d: %s", code, stderr)
	}
	kc := filepath.Join(home, "kc")
	os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\nclusters: []\n"), 0o600)
	t.Setenv("KUBECONFIG", kc)
	code, _, stderr = servbench(t, "run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--orchestrator", "kubernetes", "-p", "kubernetes.context=lab")
	if code != ExitUsage || !strings.Contains(stderr, "$KUBECONFIG "+kc) || !strings.Contains(stderr, `context "lab"`) {
		t.Errorf("no such context: exit %d: %s", code, stderr)
	}
}

// fakeSSH puts an ssh command first on PATH that runs the script it is
// given here, with home as the "host's" home and the connection coming
// from 127.0.0.1, and notes each call in the returned log: an ssh host
// that is this machine, without an sshd. A script holding hold (when
// given) runs, then the file log+".held" is made and the ssh waits to be
// killed.
func fakeSSH(t *testing.T, home, hold string) (log string) {
	t.Helper()
	bin := t.TempDir()
	log = filepath.Join(bin, "calls")
	script := "#!/bin/sh\necho \"$@\" >>" + log + "\nfor a; do last=$a; done\nHOME=" + home +
		"; export HOME\nSSH_CONNECTION='127.0.0.1 50000 127.0.0.1 22'; export SSH_CONNECTION\n"
	if hold != "" {
		script += "case \"$last\" in *" + hold + "*) sh -c \"$last\"; touch " + log + ".held; exec sleep 600;; esac\n"
	}
	script += "exec sh -c \"$last\"\n"
	if err := os.WriteFile(filepath.Join(bin, "ssh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// --clients 1 --orchestrator ssh runs its one client on the host, through
// ssh, as for more clients (not here without a word). The copy of
// servbench it puts there is removed at the end, and a copy an earlier
// run left there (its coordinator killed) is removed too; a young one (a
// run starting) stays.
func TestOneClientOverSSHAndStaleCopies(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("the ssh orchestrator asks the host for sha256sum")
	}
	home := t.TempDir()
	log := fakeSSH(t, home, "")
	copies := filepath.Join(home, ".servbench")
	old := time.Now().Add(-time.Hour)
	for _, d := range []string{"run.left", "run.young"} {
		os.MkdirAll(filepath.Join(copies, d), 0o700)
		os.WriteFile(filepath.Join(copies, d, "pid.0"), []byte("99999999\n"), 0o600)
	}
	os.Chtimes(filepath.Join(copies, "run.left"), old, old)
	out := filepath.Join(t.TempDir(), "r.json")
	code, _, stderr := servbench(t, "run", "basic", "-w", "c", "-p", "operationcount=100", "--clients", "1",
		"--orchestrator", "ssh", "--hosts", "127.0.0.1", "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if calls, _ := os.ReadFile(log); !strings.Contains(string(calls), "127.0.0.1") {
		t.Errorf("one client asked for over ssh ran without ssh: %s", stderr)
	}
	if d, err := result.ReadFile(out); err != nil || d.Operations != 100 {
		t.Errorf("its result: %v", err)
	}
	if !strings.Contains(stderr, "client 0 (127.0.0.1): servbench: ran workload C") || !strings.Contains(stderr, "removed a copy of servbench") {
		t.Errorf("stderr: %s", stderr)
	}
	left, _ := os.ReadDir(copies)
	if len(left) != 1 || left[0].Name() != "run.young" {
		t.Errorf("left on the host: %v", left)
	}
}

// Ctrl-C while servbench is being copied to an ssh host (the copy made,
// its ssh not ended) leaves no copy there: the copy's directory, said
// before the ssh was stopped, is removed.
func TestSSHInterruptedWhileCopying(t *testing.T) {
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("the ssh orchestrator asks the host for sha256sum")
	}
	home := t.TempDir()
	log := fakeSSH(t, home, "mktemp")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for i := 0; i < 6000; i++ { // a safety net of 10 minutes, not a measurement
			if _, err := os.Stat(log + ".held"); err == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		cancel()
	}()
	var stderr bytes.Buffer
	code := MainContext(ctx, []string{"run", "basic", "-w", "c", "-p", "operationcount=10", "--clients", "2", "-threads", "2",
		"--orchestrator", "ssh", "--hosts", "127.0.0.1"}, io.Discard, &stderr)
	if code != ExitInterrupted || !strings.Contains(stderr.String(), "copying servbench") {
		t.Errorf("exit %d: %s", code, stderr.String())
	}
	if left, _ := os.ReadDir(home); len(left) > 0 {
		t.Errorf("left on the host: %v", left)
	}
}

// benchLog is the text of a plan's run log in dir, "" while there is none.
func benchLog(dir, run string) string {
	b, _ := os.ReadFile(filepath.Join(dir, "runs", run+".log"))
	return string(b)
}

// A plan's spread run checks its outputs before any client starts, as the
// command line does: its result path a directory ran both clients and
// lost all they measured (their results are not written beside a path
// that is not a file).
func TestBenchSpreadOutputsCheckedFirst(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	dir := filepath.Join(t.TempDir(), "out")
	const run = "basic/c/r100-t2-c2-qmax-1"
	if err := os.MkdirAll(filepath.Join(dir, "runs", run+".json"), 0o755); err != nil {
		t.Fatal(err)
	}
	pf := writePlan(t, "name: p\ndeployments: [{label: basic, binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [2]\nclients: [2]\noperations: 100\n")
	var errb bytes.Buffer
	code := MainContext(context.Background(), []string{"bench", "-o", dir, pf}, &bytes.Buffer{}, &errb)
	if lg := benchLog(dir, run); code != ExitFailure || !strings.Contains(errb.String(), "is a directory") || strings.Contains(lg, "on 2 clients") {
		t.Errorf("exit %d: %s\nlog: %s", code, errb.String(), lg)
	}
}

// A plan's run of one client that an orchestrator is asked for runs
// there, as from the command line, never here without a word (its load
// too): here, an unusable kubeconfig fails it.
func TestBenchOneClientElsewhere(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	kc := filepath.Join(t.TempDir(), "no-kubeconfig")
	pf := writePlan(t, `name: p
deployments: [{label: basic, binding: basic, properties: {orchestrator: kubernetes, kubernetes.kubeconfig: "`+kc+`"}}]
workloads: [c]
records: [100]
threads: [2]
clients: [1]
operations: 100
`)
	var errb bytes.Buffer
	code := MainContext(context.Background(), []string{"bench", "-o", dir, pf}, &bytes.Buffer{}, &errb)
	logs, _ := filepath.Glob(filepath.Join(dir, "*", "*.log"))
	more, _ := filepath.Glob(filepath.Join(dir, "runs", "*", "*", "*.log"))
	var all strings.Builder
	for _, f := range append(logs, more...) {
		b, _ := os.ReadFile(f)
		all.Write(b)
	}
	if code == ExitOK || strings.Contains(all.String(), "ran workload") || strings.Contains(all.String(), "loaded workload") || !strings.Contains(all.String(), kc) {
		t.Errorf("exit %d: %s\nlogs: %s", code, errb.String(), all.String())
	}
}

// A plan's spread run whose client result cannot be written at its end
// keeps the merged result, as the command line does (it was dropped).
func TestBenchSpreadClientFileFailingKeepsTheMerged(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	dir := filepath.Join(t.TempDir(), "out")
	const run = "basic/c/r100-t2-c2-q1000-1"
	pf := writePlan(t, `name: p
deployments: [{label: basic, binding: basic, properties: {status.interval: 0.2}}]
workloads: [c]
records: [100]
threads: [2]
clients: [2]
rates: [1000]
operations: 0
duration: 600
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		// The clients measure once the merged status is printed: their
		// outputs were checked. (A safety net, not a measurement.)
		for end := time.Now().Add(3 * time.Minute); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
			if strings.Contains(benchLog(dir, run), "servbench: 2 clients, ") {
				break
			}
		}
		if err := os.Mkdir(filepath.Join(dir, "runs", run+".client-1.json"), 0o755); err != nil {
			t.Error(err)
		}
		cancel()
	}()
	var errb bytes.Buffer
	MainContext(ctx, []string{"bench", "-o", dir, pf}, &bytes.Buffer{}, &errb)
	lg := benchLog(dir, run)
	if !strings.Contains(lg, "not written: client 1's result") {
		t.Errorf("the log does not name client 1's result: %s", lg)
	}
	for _, f := range []string{run + ".json", run + ".client-0.json"} {
		if d, err := result.ReadFile(filepath.Join(dir, "runs", f)); err != nil || d.Operations == 0 {
			t.Errorf("%s: %v (%s)", f, err, errb.String())
		}
	}
}

// A file of one process (HdrHistogram logs, raw samples) is refused for a
// spread phase the same way from the command line and from a plan, before
// any client starts: the clients would each write it and lose one
// another's (a plan with clients [2] and hdrhistogram.fileoutput said
// "1 run done" while one client's log was lost).
func TestSpreadRefusesOneProcessOutputs(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	for _, kv := range [][2]string{{"hdrhistogram.fileoutput", "true"}, {"hdrhistogram.log", "h-"}, {"measurement.raw.output_file", "raw.txt"}} {
		dir := t.TempDir()
		val := kv[1]
		if kv[0] != "hdrhistogram.fileoutput" {
			val = filepath.Join(dir, val)
		}
		code, _, e := servbench(t, "run", "basic", "-w", "c", "-p", "recordcount=100", "-p", "operationcount=100", "-p", "measurementtype=raw",
			"-p", "hdrhistogram.output.path="+filepath.Join(dir, "h-"), "-p", kv[0]+"="+val, "--threads", "2", "--clients", "2")
		if code != ExitUsage || !strings.Contains(e, kv[0]) || !strings.Contains(e, "one process's outputs") || strings.Contains(e, "on 2 clients") {
			t.Errorf("command line, %s: exit %d: %s", kv[0], code, e)
		}
		out := filepath.Join(dir, "out")
		pf := writePlan(t, fmt.Sprintf("name: p\ndeployments: [{label: basic, binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [2]\nclients: [2]\noperations: 100\n"+
			"properties: {measurementtype: raw, hdrhistogram.output.path: %q, %s: %q}\n", filepath.Join(dir, "h-"), kv[0], val))
		var errb bytes.Buffer
		code = MainContext(context.Background(), []string{"bench", "-o", out, pf}, &bytes.Buffer{}, &errb)
		if lg := benchLog(out, "basic/c/r100-t2-c2-qmax-1"); code == ExitOK || !strings.Contains(errb.String()+lg, "one process's outputs") || strings.Contains(lg, "on 2 clients") {
			t.Errorf("plan, %s: exit %d: %s\nlog: %s", kv[0], code, errb.String(), lg)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, "h-*")); len(left) > 0 {
			t.Errorf("%s: files written: %v", kv[0], left)
		}
	} // A report of what one process kept (raw samples, interval averages)
	// is refused too: the merged one would lose its lines and, for two
	// types, the names of its sections.
	for _, mt := range []string{"raw", "timeseries", "hdrhistogram+raw"} {
		code, _, e := servbench(t, "run", "basic", "-w", "c", "-p", "recordcount=100", "-p", "operationcount=100", "-p", "measurementtype="+mt, "--threads", "2", "--clients", "2")
		if code != ExitUsage || !strings.Contains(e, "measurementtype="+mt+" reports what one process kept") || strings.Contains(e, "on 2 clients") {
			t.Errorf("measurementtype=%s: exit %d: %s", mt, code, e)
		}
	}
}

// Every kubeconfig client-go would read whole is checked first: a large
// file (sparse here) or a pipe nobody writes, named by
// kubernetes.kubeconfig, in $KUBECONFIG's list or as ~/.kube/config, and
// the files a kubeconfig names (relative to its directory). Each is
// refused in one line naming where it came from (exit 2): a 3 GB one ran
// out of memory, a pipe held the command past Ctrl-C.
func TestKubeconfigFilesBounded(t *testing.T) {
	dir := t.TempDir()
	big, fifo := filepath.Join(dir, "big"), filepath.Join(dir, "fifo")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 3<<30); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "good")
	os.WriteFile(good, []byte("apiVersion: v1\nkind: Config\nclusters: []\n"), 0o600)
	named := filepath.Join(dir, "sub", "named")
	os.MkdirAll(filepath.Dir(named), 0o700)
	if err := syscall.Mkfifo(filepath.Join(dir, "sub", "ca.crt"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(named, []byte("apiVersion: v1\nkind: Config\nclusters:\n- name: lab\n  cluster:\n    server: https://127.0.0.1:1\n    certificate-authority: ca.crt\ncontexts:\n- name: lab\n  context: {cluster: lab, user: u}\ncurrent-context: lab\nusers:\n- name: u\n  user: {token: x}\n"), 0o600)
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, ".kube"), 0o700)
	t.Setenv("HOME", home)
	for _, c := range []struct{ name, prop, env, homeFile, want string }{
		{"property big", big, "", "", "kubernetes.kubeconfig " + big + ": 3221225472 bytes, more than"},
		{"KUBECONFIG big", "", good + ":" + big, "", "$KUBECONFIG " + big + ": 3221225472 bytes"},
		{"KUBECONFIG fifo", "", good + ":" + fifo, "", "$KUBECONFIG " + fifo + ": a named pipe, not a regular file"},
		{"home big", "", "", big, "the default kubeconfig " + filepath.Join(home, ".kube", "config") + ": 3221225472 bytes"},
		{"home fifo", "", "", fifo, "the default kubeconfig " + filepath.Join(home, ".kube", "config") + ": a named pipe"},
		{"named ca", named, "", "", `kubernetes.kubeconfig: cluster "lab": certificate-authority ` + filepath.Join(dir, "sub", "ca.crt") + ": a named pipe"},
	} {
		t.Setenv("KUBECONFIG", c.env)
		cfg := filepath.Join(home, ".kube", "config")
		os.Remove(cfg)
		if c.homeFile != "" {
			if err := os.Symlink(c.homeFile, cfg); err != nil {
				t.Fatal(err)
			}
		}
		args := []string{"run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--orchestrator", "kubernetes"}
		if c.prop != "" {
			args = append(args, "-p", "kubernetes.kubeconfig="+c.prop)
		}
		done := make(chan [2]string, 1)
		go func() {
			code, _, e := servbench(t, args...)
			done <- [2]string{strconv.Itoa(code), e}
		}()
		select {
		case r := <-done:
			if r[0] != strconv.Itoa(ExitUsage) || !strings.Contains(r[1], c.want) || strings.Count(strings.TrimSpace(r[1]), "\n") > 0 {
				t.Errorf("%s: exit %s: %s, want %q", c.name, r[0], r[1], c.want)
			}
		case <-time.After(2 * time.Minute): // a safety net, not a measurement
			t.Fatalf("%s: the command did not end", c.name)
		}
	}
}

// kubePlugin runs a spread run under a kubeconfig whose exec plugin is
// sh -c script, sends sig (nil: none) once the plugin runs (it writes
// started), and returns the exit code and what the command said.
func kubePlugin(t *testing.T, script string, sig os.Signal) (int, string) {
	t.Helper()
	started := filepath.Join(t.TempDir(), "started")
	cmd := exec.Command(os.Args[0], "run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "--orchestrator", "kubernetes",
		"-p", "kubernetes.kubeconfig="+execKubeconfig(t, "touch "+started+"; "+script))
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errb
	cmd.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1")
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	if sig != nil {
		for failsafe := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(started); err == nil {
				break
			}
			if time.Now().After(failsafe) { // a safety net, not a measurement
				cmd.Process.Kill()
				t.Fatalf("the plugin never started: %s", errb.String())
			}
		}
		cmd.Process.Signal(sig)
	}
	select {
	case <-done:
	case <-time.After(3 * time.Minute): // a safety net, not a measurement
		cmd.Process.Kill()
		<-done
		t.Fatalf("not ended: %s", errb.String())
	}
	return cmd.ProcessState.ExitCode(), errb.String()
}

// What a plugin says on stderr is passed on with its secrets hidden: what
// the rules find in it, and the values its command line and environment
// carry as secrets, wherever it repeats them.
func TestKubeconfigExecPluginStderrHidden(t *testing.T) {
	t.Setenv("MYPASSWORD", "hunterKubeEnv1")
	code, said := kubePlugin(t, `echo "login failed for token $MYPASSWORD (arg --password=hunterKubeArg1)" >&2; echo "again: hunterKubeArg1" >&2; exit 1`, nil)
	if code == ExitOK || strings.Contains(said, "hunter") || !strings.Contains(said, "login failed for token REDACTED") || !strings.Contains(said, "again: REDACTED") {
		t.Errorf("exit %d: %s", code, said)
	}
}

// One signal stops a run waiting for its kubeconfig's exec plugin: the
// plugin is told to stop with it (client-go's wait for it takes no
// context: the run went on until the plugin's minute was up, then its
// cleanup waited a minute more). The Secret's create never left (no
// credentials), so the cleanup asks the API server for nothing: it ran
// the plugin once more, for 10 s, to delete what was never made.
func TestKubeconfigExecPluginStoppedByOneSignal(t *testing.T) {
	t.Parallel()
	code, said := kubePlugin(t, "sleep 600", syscall.SIGTERM)
	if code != ExitInterrupted || strings.Contains(said, "second signal") || !strings.Contains(said, "plugin sh stopped (interrupted)") || strings.Contains(said, "within 1m0s") ||
		strings.Contains(said, "delete Secret") || strings.Count(said, "plugin sh") != 1 {
		t.Errorf("exit %d: %s", code, said)
	}
}

// A plugin that answers and exits, leaving behind a process that holds
// its output, is taken at its word: its credentials are used (the
// connection to the API server then fails), not awaited for the minute;
// what it left in its process group ends with it.
func TestKubeconfigExecPluginLeavingAProcess(t *testing.T) {
	t.Parallel()
	cred := `{"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential", "status": {"token": "t0ken"}}`
	code, said := kubePlugin(t, "setsid sleep 30 & echo '"+cred+"'", nil)
	if code == ExitOK || strings.Contains(said, "gave no credentials") || !strings.Contains(said, "127.0.0.1:1") {
		t.Errorf("exit %d: %s", code, said)
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	kubePlugin(t, "sleep 300 & echo $! > "+pidFile+"; echo '"+cred+"'", nil)
	b, _ := os.ReadFile(pidFile)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("the plugin's child: %q", b)
	}
	for failsafe := time.Now().Add(time.Minute); syscall.Kill(pid, 0) == nil; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(failsafe) { // a safety net, not a measurement
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the plugin's child (pid %d) outlived it", pid)
		}
	}
}

// What a plugin says on stderr is passed on bounded (64 KiB) and with its
// control characters escaped (2 MB of escape sequences reached the
// terminal raw).
func TestKubeconfigExecPluginStderrBounded(t *testing.T) {
	t.Parallel()
	code, said := kubePlugin(t, `yes "$(printf '\033[31mRED')" | head -c 2000000 >&2; exit 3`, nil)
	if code == ExitOK || len(said) > 200<<10 || strings.Contains(said, "\x1b") || !strings.Contains(said, "more on stderr, not shown") {
		t.Errorf("exit %d, %d bytes said, ESC %v: %.300s", code, len(said), strings.Contains(said, "\x1b"), said)
	}
}

// until judges one process's intervals: a spread phase refuses it before
// any client starts.
func TestSpreadRefusesUntil(t *testing.T) {
	t.Parallel()
	code, _, e := servbench(t, "run", "basic", "-w", "c", "-p", "recordcount=100", "-p", "operationcount=0", "-p", "maxexecutiontime=5",
		"-p", "until.throughput=2", "--threads", "2", "--clients", "2")
	if code != ExitUsage || !strings.Contains(e, "until.throughput") || strings.Contains(e, "on 2 clients") {
		t.Errorf("exit %d: %s", code, e)
	}
}

// A spread phase's page is checked before any client starts: an address
// that is not host:port, or one taken, refuses the phase as it refuses a
// run here.
func TestSpreadRefusesABadDashboard(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, addr := range []string{"127.0.0.1:99999", "127.0.0.1", ln.Addr().String()} {
		code, _, e := servbench(t, "run", "basic", "-w", "c", "-p", "recordcount=100", "-p", "operationcount=100",
			"--threads", "2", "--clients", "2", "--dashboard", addr)
		if code != ExitUsage || !strings.Contains(e, "dashboard") || strings.Contains(e, "on 2 clients") {
			t.Errorf("--dashboard %s: exit %d: %s", addr, code, e)
		}
	}
}
