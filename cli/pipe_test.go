package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/result"
)

// Standard error a pipe whose reader is gone (`2>&1 | head -1`): the run
// stops as at Ctrl-C and writes what it measured, where the pipe's signal
// killed it with nothing written.
func TestClosedPipeStopsTheRunWhole(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "r.json")
	cmd := exec.Command(os.Args[0], "run", "basic", "-w", "a", "-threads", "2", "-target", "2000",
		"-p", "operationcount=0", "--duration", "600", "-s", "-p", "status.interval=0.2", "-o", jsonPath)
	cmd.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// The reader leaves once the run has measured (its first status line).
	lines := bufio.NewScanner(r)
	for lines.Scan() && !strings.Contains(lines.Text(), "current ops/sec") {
	}
	r.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Minute): // a safety net, not a measurement: the run lasts 600 s
		cmd.Process.Kill()
		t.Fatal("servbench went on with its standard error closed")
	}
	interruptedWhole(t, cmd, jsonPath)
}

// Standard output and error one pipe, full, whose reader never reads (a
// pager on its first screen, a wrapper that reads only once the process
// ended): the run measures on, the first signal stops it and its result
// is written, and the second ends the process, blocked as it is in
// writing its text report to standard output. The status lines had held
// the run, no signal ended the process, and the result was never written.
func TestUnreadStreamsHoldNothing(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "r.json")
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	// Filled to the brim, then blocking again for the writer to come.
	if err := syscall.SetNonblock(fds[1], true); err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte("x"), 4096)
	for {
		if _, err := syscall.Write(fds[1], chunk); err != nil {
			if err == syscall.EAGAIN {
				break
			}
			t.Fatal(err)
		}
	}
	if err := syscall.SetNonblock(fds[1], false); err != nil {
		t.Fatal(err)
	}
	r, w := os.NewFile(uintptr(fds[0]), "r"), os.NewFile(uintptr(fds[1]), "w")
	defer r.Close()
	cmd := exec.Command(os.Args[0], "run", "basic", "-w", "a", "-threads", "1", "-target", "1000",
		"-p", "operationcount=0", "--duration", "600", "-s", "-p", "status.interval=0.1",
		"--hlog", filepath.Join(dir, "h"), "-o", jsonPath)
	cmd.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	defer func() {
		cmd.Process.Kill()
		<-done
	}()
	// waitFor polls until ok, with a safety net (not a measurement: the
	// run lasts 600 s).
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for i := 0; !ok(); i++ {
			select {
			case <-done:
				t.Fatalf("servbench ended (%v) before %s", cmd.ProcessState, what)
			case <-time.After(50 * time.Millisecond):
			}
			if i > 2400 {
				t.Fatalf("no %s after two minutes", what)
			}
		}
	}
	// The HdrHistogram log is made at the first measured interval.
	waitFor("interval measured", func() bool { m, _ := filepath.Glob(filepath.Join(dir, "h*")); return len(m) > 0 })
	cmd.Process.Signal(os.Interrupt)
	waitFor("result written", func() bool { _, err := os.Stat(jsonPath); return err == nil })
	cmd.Process.Signal(os.Interrupt)
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("servbench went on after a second signal")
	}
	interruptedWhole(t, cmd, jsonPath)
}

// interruptedWhole checks that cmd, ended, exited as interrupted, with
// what it measured in its result at jsonPath.
func interruptedWhole(t *testing.T, cmd *exec.Cmd, jsonPath string) {
	t.Helper()
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Errorf("exit %d (%v), want %d", code, cmd.ProcessState, ExitInterrupted)
	}
	d, err := result.ReadFile(jsonPath)
	if err != nil {
		t.Fatalf("the result: %v", err)
	}
	if d.Stop != result.Interrupted || d.Operations == 0 {
		t.Errorf("the result: stopped %s after %d operations, want interrupted after some", d.Stop, d.Operations)
	}
}

// An output that writes standard output, where the text report goes, is
// refused in one line (exit 2): -o /dev/stdout, --trace /dev/fd/1, or the
// file standard output is; the result was mixed with the report and could
// not be read. With the report in a file (exportfile), -o /dev/stdout is
// the result alone.
func TestTextReportSharesNoOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout := filepath.Join(dir, "out")
	run := func(args ...string) (int, string) {
		f, err := os.Create(stdout)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		var stderr bytes.Buffer
		cmd := exec.Command(os.Args[0], append([]string{"run", "basic", "-w", "a", "-p", "operationcount=100"}, args...)...)
		cmd.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1")
		cmd.Stdout, cmd.Stderr = f, &stderr
		cmd.Run()
		return cmd.ProcessState.ExitCode(), stderr.String()
	}
	for _, args := range [][]string{{"-o", "/dev/stdout"}, {"--trace", "/dev/fd/1", "-o", filepath.Join(dir, "r.json")}, {"-o", stdout}} {
		code, stderr := run(args...)
		if code != ExitUsage || !strings.Contains(stderr, "and the text report (standard output)") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if code, stderr := run("-o", "/dev/stdout", "-p", "exportfile="+filepath.Join(dir, "report.txt")); code != ExitOK {
		t.Fatalf("the report in a file: exit %d: %s", code, stderr)
	}
	if _, err := result.ReadFile(stdout); err != nil {
		t.Errorf("the result on standard output: %v", err)
	}
}

// Standard error redirected to a file (2>FILE) that an output writes too
// is refused in one line (exit 2): the output, renamed over it, lost
// every message. Standard error elsewhere leaves the output alone, and
// so does the text report sharing its file (> log 2>&1).
func TestStandardErrorSharesNoOutput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	errFile := filepath.Join(dir, "err")
	for _, out := range []string{errFile, filepath.Join(dir, "r.json")} {
		f, err := os.Create(errFile)
		if err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "run", "basic", "-w", "a", "-p", "operationcount=100", "-o", out)
		cmd.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1")
		cmd.Stderr = f
		cmd.Run()
		f.Close()
		said, _ := os.ReadFile(errFile)
		code := cmd.ProcessState.ExitCode()
		if out == errFile {
			if code != ExitUsage || !strings.Contains(string(said), "is named by both -o (result.file) and standard error") || strings.Count(string(said), "\n") != 1 {
				t.Errorf("-o at standard error's file: exit %d: %s", code, said)
			}
			continue
		}
		if _, err := result.ReadFile(out); code != ExitOK || err != nil {
			t.Errorf("-o elsewhere: exit %d, %v: %s", code, err, said)
		}
	}
	log, err := os.Create(errFile)
	if err != nil {
		t.Fatal(err)
	}
	defer log.Close()
	cmd := exec.Command(os.Args[0], "run", "basic", "-w", "a", "-p", "operationcount=100")
	cmd.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1")
	cmd.Stdout, cmd.Stderr = log, log
	err = cmd.Run()
	said, _ := os.ReadFile(errFile)
	if err != nil || !strings.Contains(string(said), "[OVERALL], Throughput(ops/sec)") {
		t.Errorf("> log 2>&1: %v: %s", err, said)
	}
}
