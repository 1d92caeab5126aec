package cli

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
