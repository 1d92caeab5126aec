package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// blockedOpen is a binding whose Open blocks in the open of a named pipe
// nobody writes, its context ignored, as a driver reading a file it was
// named does: the command the tests run as a child process registers it
// (SERVBENCH_TEST_BLOCKED_OPEN) under the name "blocked".
type blockedOpen string

func (blockedOpen) Summary() string { return "a driver blocked in the open of a named pipe" }

func (b blockedOpen) Open(_ context.Context, _ *props.Props, o db.Options) (db.DB, error) {
	if o.CheckOnly {
		return nil, nil
	}
	fmt.Fprintln(os.Stderr, "test: opening the named pipe")
	f, err := os.Open(string(b)) // no context reaches it
	if err == nil {
		f.Close()
	}
	return nil, errors.New("test: the named pipe was opened")
}

// stallingServer is a binding (the basic one) whose server stops
// answering once the run began, on every connection: its server-side
// sampling answers the baseline, then never again, no context reaching
// it, and its close never ends. The command the tests run as a child
// process registers it (SERVBENCH_TEST_STALLING) as "stalling".
type stallingServer struct{}

func (stallingServer) Summary() string { return "a server that stops answering every connection" }

func (stallingServer) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	b, _ := db.Lookup("basic")
	d, err := b.Open(ctx, p, o)
	if err != nil || d == nil {
		return d, err
	}
	return &stallingDB{DB: d}, nil
}

type stallingDB struct {
	db.DB
	read atomic.Bool // the run began (a load's samples all answer)
}

func (s *stallingDB) Read(ctx context.Context, table, key string, fields []string, r *db.Record) error {
	s.read.Store(true)
	return s.DB.Read(ctx, table, key, fields, r)
}

func (s *stallingDB) Sample(context.Context) (db.Sample, error) {
	if s.read.Load() {
		fmt.Fprintln(os.Stderr, "test: the server stopped answering")
		select {} // no context reaches it
	}
	return db.Sample{}, nil
}

func (s *stallingDB) Close() error {
	if s.read.Load() {
		select {}
	}
	return s.DB.Close()
}

// stuckServer is a binding (the basic one) whose operations stop
// returning once the run has done some: every read after the twentieth
// of a process blocks, no context reaching it (a server that accepts and
// never answers). Registered as "stuck" with "stalling".
type stuckServer struct{}

func (stuckServer) Summary() string { return "a server whose operations stop returning" }

func (stuckServer) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	b, _ := db.Lookup("basic")
	d, err := b.Open(ctx, p, o)
	if err != nil || d == nil {
		return d, err
	}
	return &stuckDB{DB: d}, nil
}

var stuckReads atomic.Int64

type stuckDB struct{ db.DB }

func (s *stuckDB) Read(ctx context.Context, table, key string, fields []string, r *db.Record) error {
	switch n := stuckReads.Add(1); {
	case n == 20:
		fmt.Fprintln(os.Stderr, "test: the server stopped answering")
		fallthrough
	case n > 20:
		select {}
	}
	return s.DB.Read(ctx, table, key, fields, r)
}

// signalTwice sends cmd SIGINT, then again until it says it saw the
// second (two sent at once may arrive as one), and returns when it ended
// (done), killing it at failsafe.
func signalTwice(t *testing.T, cmd *exec.Cmd, done <-chan error, stderr *watchFor, failsafe <-chan time.Time) {
	t.Helper()
	// Two signals sent together may reach the process as one: the second
	// is sent again while the process has not said it had one, but only
	// after a second, so that a busy process saying it late is not sent a
	// third (which ends it at once, without waiting).
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(50 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			if !strings.Contains(stderr.String(), "second signal") {
				cmd.Process.Signal(syscall.SIGINT)
			}
		case <-failsafe:
			cmd.Process.Kill()
			t.Fatalf("not ended by a second signal: %s", stderr)
		}
	}
}

// startCommand starts the command args in a process of its own (this
// test binary as servbench), with env added to its environment and its
// stderr going to stderr; done receives its end.
func startCommand(t *testing.T, stderr io.Writer, env []string, args ...string) (*exec.Cmd, <-chan error) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(append(os.Environ(), "SERVBENCH_TEST_CLI=1"), env...)
	cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	return cmd, done
}

// twoSignalsWhileStalled runs the command args with the stalling binding,
// sends SIGINT once its server stalled (stalls times: each client's) and again until the second is
// seen, and returns what it said once it ended, checking that it exited
// 130 by itself, not forced after the grace.
func twoSignalsWhileStalled(t *testing.T, stalls int, args ...string) string {
	t.Helper()
	stderr := &watchFor{want: "test: the server stopped answering", times: stalls, seen: make(chan struct{})}
	stalled := stderr.seen
	cmd, done := startCommand(t, stderr, []string{"SERVBENCH_TEST_STALLING=1"}, args...)
	failsafe := time.After(time.Minute)
	select {
	case <-stalled:
	case err := <-done:
		t.Fatalf("ended before the server stalled: %v: %s", err, stderr)
	case <-failsafe:
		cmd.Process.Kill()
		t.Fatalf("the server never stalled: %s", stderr)
	}
	signalTwice(t, cmd, done, stderr, failsafe)
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted || strings.Contains(stderr.String(), "exiting without waiting") {
		t.Errorf("exit %d, want %d and no forced exit: %s", code, ExitInterrupted, stderr)
	}
	return stderr.String()
}

// Two signals in a row while the server stalls on every connection, its
// server-side sampling's too, write what the run measured (-o and --csv)
// and end the command without the forced exit: nothing after the run
// waits on the server once it is abandoned.
func TestSecondSignalWritesWhatTheStalledRunMeasured(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out, csv := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv")
	said := twoSignalsWhileStalled(t, 1, "run", "stalling", "-w", "a", "-p", "recordcount=10", "-p", "operationcount=0",
		"-p", "server.interval=0.1", "--duration", "600", "-o", out, "--csv", csv)
	d, err := result.ReadFile(out)
	if err != nil {
		t.Fatalf("-o not written: %v: %s", err, said)
	}
	if d.Stop != result.Interrupted {
		t.Errorf("stop %q, want interrupted", d.Stop)
	}
	if b, err := os.ReadFile(csv); err != nil || len(b) == 0 {
		t.Errorf("--csv not written (%v): %s", err, said)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("left beside the outputs: %v", left)
	}
}

// The same in a spread run: the coordinator tells its clients, stuck in
// operations that never return, to abandon them; they send what they
// measured and the merged result is written. (They were killed before
// sending anything: nothing was merged.)
func TestSecondSignalWritesWhatTheStuckClientsMeasured(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	said := twoSignalsWhileStalled(t, 2, "run", "stuck", "-w", "c", "-p", "recordcount=10", "-p", "operationcount=0",
		"--clients", "2", "--threads", "2", "--duration", "600", "-o", out)
	d, err := result.ReadFile(out)
	if err != nil {
		t.Fatalf("-o not written: %v: %s", err, said)
	}
	if d.Stop != result.Interrupted || d.Operations == 0 {
		t.Errorf("stop %q, %d operations: %s", d.Stop, d.Operations, said)
	}
	for i := range 2 {
		if _, err := result.ReadFile(filepath.Join(dir, fmt.Sprintf("r.client-%d.json", i))); err != nil {
			t.Errorf("client %d's result: %v", i, err)
		}
	}
}

// The same in a plan: the run's result and index.json are written.
func TestSecondSignalWritesThePlanOfAStalledRun(t *testing.T) {
	t.Parallel()
	planFile := writePlan(t, `name: stalled
deployments: [{label: stalling, binding: stalling, properties: {server.interval: 0.1}}]
workloads: [a]
records: [10]
threads: [1]
duration: 600
`)
	dir := filepath.Join(t.TempDir(), "out")
	said := twoSignalsWhileStalled(t, 1, "bench", planFile, "-o", dir)
	ix := readIndex(t, dir)
	if len(ix.Runs) != 1 || ix.Runs[0].Status != "interrupted" {
		t.Fatalf("index %+v: %s", ix.Runs, said)
	}
	d, err := result.ReadFile(filepath.Join(dir, ix.Runs[0].Result))
	if err != nil {
		t.Fatalf("the run's result not written: %v: %s", err, said)
	}
	if d.Stop != result.Interrupted || d.Operations == 0 {
		t.Errorf("the run's result: stop %q, %d operations", d.Stop, d.Operations)
	}
}

// A second signal ends the process, whatever it is blocked in (here a
// driver's open of a named pipe, which no context reaches): exit 130, the
// result file named by -o as it was, no temporary file left beside it.
func TestSecondSignalEndsBlockedProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo, out := filepath.Join(dir, "fifo"), filepath.Join(dir, "r.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	os.WriteFile(out, []byte("before"), 0o644)
	cmd := exec.Command(os.Args[0], "run", "blocked", "-w", "a", "-p", "recordcount=10", "-o", out)
	cmd.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1", "SERVBENCH_TEST_BLOCKED_OPEN="+fifo)
	stderr := &watchFor{want: "test: opening the named pipe", seen: make(chan struct{})}
	blocked := stderr.seen
	cmd.Stdout, cmd.Stderr = &bytes.Buffer{}, stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	failsafe := time.After(time.Minute)
	select {
	case <-blocked:
	case err := <-done:
		t.Fatalf("ended before blocking: %v: %s", err, stderr)
	case <-failsafe:
		cmd.Process.Kill()
		t.Fatalf("never blocked: %s", stderr)
	}
	signalTwice(t, cmd, done, stderr, failsafe)
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted || !strings.Contains(stderr.String(), "exiting without waiting") {
		t.Errorf("exit %d, want %d: %s", code, ExitInterrupted, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "before" {
		t.Errorf("-o holds %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.lock")); len(left) != 0 {
		t.Errorf("lock files left: %v", left)
	}
}

// After the second signal and its grace, an output being written is let
// finish (up to writeGrace) before the process exits; one created but
// not written is removed, its path keeping what it held.
func TestSecondSignalLetsAWriteFinish(t *testing.T) {
	dir := t.TempDir()
	written, kept := filepath.Join(dir, "written.json"), filepath.Join(dir, "kept.json")
	os.WriteFile(written, []byte("before"), 0o644)
	os.WriteFile(kept, []byte("before"), 0o644)
	exited := make(chan int, 1)
	waiting := make(chan struct{})
	e := &ending{grace: time.Millisecond, writeGrace: time.Minute, exit: func(c int) { exited <- c }, stderr: &bytes.Buffer{}, writeWait: func() { close(waiting) }}
	sigs := make(chan os.Signal, 3)
	writing, forever := make(chan struct{}), make(chan struct{})
	defer close(forever)
	go e.run(sigs, func(context.Context) int {
		k, err := atomicfile.Create(kept)
		if err != nil {
			t.Error(err)
			return 1
		}
		defer k.Abort()
		f, err := atomicfile.Create(written)
		if err != nil {
			t.Error(err)
			return 1
		}
		f.WriteString("after")
		close(writing)
		<-waiting // the process waits for the write
		if err := f.Commit(); err != nil {
			t.Error(err)
		}
		<-forever // then blocked in something else
		return 0
	})
	<-writing
	sigs <- syscall.SIGINT
	sigs <- syscall.SIGINT
	select {
	case code := <-exited:
		if code != ExitInterrupted {
			t.Errorf("exit %d", code)
		}
	case <-time.After(time.Minute):
		t.Fatal("no exit")
	}
	if b, _ := os.ReadFile(written); string(b) != "after" {
		t.Errorf("the output being written holds %q", b)
	}
	if b, _ := os.ReadFile(kept); string(b) != "before" {
		t.Errorf("the output not written holds %q", b)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// The raw samples' file (measurement.raw.output_file) named as a pipe
// nobody reads is refused in one line before the run, as every output's
// is: its open waited for a reader without end, silently, past Ctrl-C.
func TestRawOutputPipeNobodyReads(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	var e bytes.Buffer
	code := runUntil(t, context.Background(), make(chan struct{}), &e, "run", "basic", "-w", "a", "-p", "operationcount=10",
		"-p", "measurementtype=raw", "-p", "measurement.raw.output_file="+fifo)
	if code == ExitOK || !strings.Contains(e.String(), "a named pipe that nobody reads") || strings.Count(e.String(), "\n") != 1 {
		t.Errorf("raw output to a pipe nobody reads: exit %d: %s", code, e.String())
	}
}

// merge and compare read their inputs until Ctrl-C: a named pipe nobody
// writes (a result) gives way, exit 130. A pipe is still read: a result
// may come from one (/dev/stdin). A plan directory's index.json, which
// bench writes as a regular file, is refused when it is not one.
func TestInputsGiveWayToCtrlC(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.json")
	plan := filepath.Join(dir, "plan")
	os.Mkdir(plan, 0o755)
	for _, p := range []string{fifo, filepath.Join(plan, "index.json")} {
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Skip(err)
		}
	}
	for _, c := range []struct {
		args []string
		pipe string
	}{
		{[]string{"merge", fifo, "-o", filepath.Join(dir, "m.json")}, fifo},
		{[]string{"compare", fifo, fifo}, fifo},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var e bytes.Buffer
		done := make(chan int, 1)
		go func() { done <- MainContext(ctx, c.args, &bytes.Buffer{}, &e) }()
		cancel()
		select {
		case code := <-done:
			if code != ExitInterrupted || !strings.Contains(e.String(), "stopped while reading") || strings.Count(e.String(), "\n") != 1 {
				t.Errorf("%s of a pipe nobody writes, interrupted: exit %d: %s", c.args[0], code, e.String())
			}
		case <-time.After(time.Minute):
			t.Fatalf("%s of a pipe nobody writes: not stopped a minute after Ctrl-C", c.args[0])
		}
		if w, err := os.OpenFile(c.pipe, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // the read left behind ends
		}
	}
	if code, _, e := servbench(t, "report", plan, "-o", filepath.Join(dir, "r.html")); code != ExitUsage || !strings.Contains(e, "not a regular file") || strings.Count(e, "\n") != 1 {
		t.Errorf("report of a directory whose index.json is a pipe: exit %d: %s", code, e)
	}
	// A result from a pipe is read.
	var res [2]string
	for i := range res {
		res[i] = filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		if code, _, e := servbench(t, "run", "basic", "-w", "a", "-p", "operationcount=10", "-o", res[i]); code != ExitOK {
			t.Fatalf("run: exit %d: %s", code, e)
		}
	}
	b, _ := os.ReadFile(res[1])
	fed := filepath.Join(dir, "fed.json")
	if err := syscall.Mkfifo(fed, 0o600); err != nil {
		t.Fatal(err)
	}
	go func() {
		if w, err := os.OpenFile(fed, os.O_WRONLY, 0); err == nil {
			w.Write(b)
			w.Close()
		}
	}()
	if code, out, e := servbench(t, "compare", res[0], fed); code != ExitOK || !strings.Contains(out, "B: "+fed) {
		t.Errorf("compare with a result from a pipe: exit %d: %s%s", code, out, e)
	}
}

// silentListener accepts connections on 127.0.0.1 and never answers; the
// channel receives a value at each connection accepted.
func silentListener(t *testing.T) (addr string, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan struct{}, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	return ln.Addr().String(), ch
}

// Ctrl-C while the binding connects (a server that accepts and never
// answers) exits 130, as interrupted: it exited 1, as a failed run.
func TestCtrlCWhileConnecting(t *testing.T) {
	addr, accepted := silentListener(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		<-accepted
		cancel()
	}()
	var e bytes.Buffer
	out := filepath.Join(t.TempDir(), "r.json")
	code := runUntil(t, ctx, make(chan struct{}), &e, "run", "postgres", "-w", "a", "-p", "postgres.url=postgres://u@"+addr+"/db?sslmode=disable", "-p", "postgres.connecttimeout=120000", "-o", out)
	if code != ExitInterrupted || !strings.Contains(e.String(), "nothing was measured") {
		t.Errorf("Ctrl-C while connecting: exit %d, want %d, saying nothing was measured: %s", code, ExitInterrupted, e.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a run that measured nothing wrote %s (%v): guarantees.md says it writes none", out, err)
	}
}

// Ctrl-C while the run's inserts are removed after it (cleanupinserts)
// exits 130, the results written: it exited 0.
func TestCtrlCDuringCleanup(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	saved := basic.Output
	defer func() { basic.Output = saved }()
	basic.Output = writerFunc(func(p []byte) (int, error) {
		if bytes.Contains(p, []byte("DELETE")) { // the removal has begun
			cancel()
		}
		return len(p), nil
	})
	out := filepath.Join(t.TempDir(), "r.json")
	var e bytes.Buffer
	registerForgetful.Do(func() { db.Register("cli-test-forgetful", forgetful{}) })
	code := runUntil(t, ctx, make(chan struct{}), &e, "run", "cli-test-forgetful", "-w", "a", "-threads", "2", "-p", "operationcount=3000", "-p", "readproportion=0", "-p", "updateproportion=0",
		"-p", "insertproportion=1", "-p", "basicdb.verbose=true", "-p", "cleanupinserts=true", "-o", out)
	if ctx.Err() == nil {
		t.Fatalf("the removal of the inserts never began: exit %d: %s", code, e.String())
	}
	if code != ExitInterrupted || !strings.Contains(e.String(), "cleanupinserts") {
		t.Errorf("Ctrl-C during cleanupinserts: exit %d, want %d: %s", code, ExitInterrupted, e.String())
	}
	if d, err := result.ReadFile(out); err != nil || d.Operations != 3000 {
		t.Errorf("the result: %v", err)
	}
}

// forgetful is basic whose reads find nothing, so that cleanupinserts
// takes the run's inserts for its own and removes them (basic reads every
// key as found: the run cannot tell its inserts, and removes none).
type forgetful struct{}

var registerForgetful sync.Once

func (forgetful) Summary() string { return "basic, every read not found" }

func (forgetful) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	b, err := db.Lookup(basic.Name)
	if err != nil {
		return nil, err
	}
	d, err := b.Open(ctx, p, o)
	if err != nil || d == nil {
		return nil, err
	}
	return forgetfulDB{d}, nil
}

type forgetfulDB struct{ db.DB }

func (forgetfulDB) Read(context.Context, string, string, []string, *db.Record) error {
	return db.ErrNotFound
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// A plan whose reference (published figures) is a named pipe that never
// ends gives way to Ctrl-C, exit 130: the plan's check read it without a
// context, past Ctrl-C.
func TestBenchFilesGiveWayToCtrlC(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ref.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	planFile := writePlan(t, `name: ref
reference: `+fifo+`
deployments:
  - binding: basic
workloads: [a]
records: [10]
threads: [1]
operations: 10
`)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var e bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- MainContext(ctx, []string{"bench", planFile, "-o", filepath.Join(dir, "out")}, &bytes.Buffer{}, &e)
	}()
	// The open for writing returns when the command opens the pipe to
	// read it: it then waits for bytes that never come.
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cancel()
	select {
	case code := <-done:
		if code != ExitInterrupted || !strings.Contains(e.String(), "stopped while reading") || strings.Count(e.String(), "\n") != 1 {
			t.Errorf("a plan whose reference is a pipe that never ends, interrupted: exit %d: %s", code, e.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("a plan whose reference is a pipe that never ends: not stopped a minute after Ctrl-C")
	}
}

// A command that ends within the grace after the second signal (the
// operations in flight abandoned, the results written) ends the process
// with its own status: the process is not ended under it.
func TestSecondSignalCommandEnds(t *testing.T) {
	exited := make(chan int, 1)
	e := &ending{grace: time.Hour, writeGrace: time.Hour, exit: func(c int) { exited <- c }, stderr: &bytes.Buffer{}}
	sigs := make(chan os.Signal, 3)
	sigs <- syscall.SIGINT
	sigs <- syscall.SIGTERM
	code := e.run(sigs, func(ctx context.Context) int {
		<-ctx.Done()
		<-runner.AbandonOf(ctx) // the second signal
		return 42
	})
	select {
	case c := <-exited:
		t.Errorf("the process was ended (%d) under a command that ended", c)
	default:
	}
	if code != 42 {
		t.Errorf("status %d, want the command's", code)
	}
}

// A plan resumed whose directory holds a run's result as a named pipe
// neither reads it (it waited for a writer past Ctrl-C) nor writes there:
// that run fails naming the pipe, by itself, and the plan ends (exit 1).
func TestBenchResultAPipe(t *testing.T) {
	planFile := writePlan(t, `name: resumed
deployments:
  - binding: basic
workloads: [a]
records: [10]
threads: [1]
operations: 10
`)
	code, ids, e := servbench(t, "bench", planFile, "--dry-run")
	if code != ExitOK {
		t.Fatalf("--dry-run: exit %d: %s", code, e)
	}
	dir := filepath.Join(t.TempDir(), "out")
	fifo := filepath.Join(dir, "runs", strings.Fields(ids)[0]+".json")
	os.MkdirAll(filepath.Dir(fifo), 0o755)
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- MainContext(context.Background(), []string{"bench", planFile, "-o", dir}, &bytes.Buffer{}, &errb)
	}()
	select {
	case code := <-done:
		if code != ExitFailure || !strings.Contains(errb.String(), "named pipe") {
			t.Errorf("a run's result a pipe: exit %d: %s", code, errb.String())
		}
	case <-time.After(time.Minute): // a safety net, not a timing
		t.Fatal("a run's result a pipe: the plan waited for it")
	}
}

// An output that writes a named pipe whose reader never reads (-o) holds
// only itself: the outputs to regular files (--csv) are written before it,
// and two signals end the command.
func TestStuckPipeOutputLosesNoOtherOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pipe, csv := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(pipe, os.O_RDONLY|syscall.O_NONBLOCK, 0) // a reader that never reads
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	// A result larger than the pipe's buffer (64 KiB): a time series of 100
	// points of five operations each, 180 KB.
	stderr := &watchFor{}
	cmd, done := startCommand(t, stderr, nil, "run", "basic", "-w", "a", "-p", "recordcount=10", "-p", "operationcount=0",
		"-p", "readproportion=0.2", "-p", "updateproportion=0.2", "-p", "insertproportion=0.2", "-p", "scanproportion=0.2",
		"-p", "readmodifywriteproportion=0.2", "-p", "timeseries.interval=0.01", "-p", "target=5000", "--duration", "1", "-o", pipe, "--csv", csv)
	failsafe := time.After(time.Minute)
	for { // until --csv is written (the run ended and the pipe holds -o)
		if st, err := os.Stat(csv); err == nil && st.Size() > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("ended with the pipe unread: %v: %s", err, stderr)
		case <-failsafe:
			cmd.Process.Kill()
			t.Fatalf("--csv never written: %s", stderr)
		case <-time.After(10 * time.Millisecond):
		}
	}
	signalTwice(t, cmd, done, stderr, failsafe)
	b, err := os.ReadFile(csv)
	if err != nil || !strings.Contains(string(b), "\n") {
		t.Errorf("--csv: %v %.80q", err, b)
	}
}
