package cli

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every output of a run (-o, --csv, exportfile, --hlog) written to a
// device or through a symbolic link: the device stays a device, the link
// stays a link and its target gets the content; a full device fails the
// run in one line; a named pipe's reader gets the result.
func TestOutputsNeverReplaceWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	null, full := filepath.Join(dir, "null"), filepath.Join(dir, "full")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, (1<<8)|3); err != nil {
		t.Skipf("mknod needs root: %v", err)
	}
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, (1<<8)|7); err != nil {
		t.Fatal(err)
	}
	run := []string{"run", "basic", "-w", "a", "-p", "recordcount=10", "-p", "operationcount=200"}
	for _, out := range [][]string{{"-o", null}, {"--csv", null}, {"-p", "exportfile=" + null}, {"--hlog", null}} {
		if code, _, e := servbench(t, append(run, out...)...); code != ExitOK {
			t.Errorf("%v: exit %d: %s", out, code, e)
		}
		if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%v replaced the device: %v %v", out, st.Mode(), err)
		}
	}
	for _, out := range [][]string{{"-o", full}, {"-p", "exportfile=" + full}} {
		code, _, e := servbench(t, append(run, out...)...)
		if code != ExitFailure || strings.Count(e, "\n") > 3 || !strings.Contains(e, "no space left") {
			t.Errorf("%v: exit %d: %s", out, code, e)
		}
		if st, err := os.Lstat(full); err != nil || st.Mode()&os.ModeCharDevice == 0 {
			t.Fatalf("%v replaced the device: %v %v", out, st.Mode(), err)
		}
	}

	target := filepath.Join(dir, "kept", "r.json")
	os.Mkdir(filepath.Dir(target), 0o755)
	link := filepath.Join(dir, "r.json")
	os.Symlink(target, link)
	if code, _, e := servbench(t, append(run, "-o", link)...); code != ExitOK {
		t.Fatalf("-o a link: exit %d: %s", code, e)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by %v", st.Mode())
	}
	if b, err := os.ReadFile(target); err != nil || !strings.Contains(string(b), `"format": "servbench-result"`) {
		t.Errorf("the link's target: %v %.80s", err, b)
	}

	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	if code, _, e := servbench(t, append(run, "-o", fifo)...); code != ExitUsage || !strings.Contains(e, "nobody reads") {
		t.Errorf("-o a pipe with no reader: exit %d: %s", code, e)
	}
	// The reader opens first; a writer of the test's own holds the pipe
	// open until the write under test is done, so the reader cannot see
	// the end before it starts.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	hold, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	if code, _, e := servbench(t, append(run, "-o", fifo)...); code != ExitOK {
		t.Fatalf("-o a pipe: exit %d: %s", code, e)
	}
	hold.Close()
	select {
	case s := <-got:
		if !strings.Contains(s, `"format": "servbench-result"`) {
			t.Errorf("the pipe's reader got %.80q", s)
		}
	case <-time.After(time.Minute):
		t.Fatal("the pipe's reader got nothing in a minute")
	}
}

// A plan's bookkeeping: a failed load counts no run as done; -o naming a
// file is bad input; the plan's copy and index are written whole, with no
// temporary file left beside them.
func TestBenchBookkeeping(t *testing.T) {
	planFile := writePlan(t, `name: dead
deployments:
  - binding: redis
    properties:
      redis.url: redis://127.0.0.1:1
workloads: [a]
records: [10]
threads: [1]
operations: 10
`)
	dir := filepath.Join(t.TempDir(), "out")
	code, _, e := servbench(t, "bench", planFile, "-o", dir)
	if code != ExitFailure || !strings.Contains(e, "0 runs done now, 0 found done, 1 failed") {
		t.Errorf("a plan whose load fails: exit %d: %s", code, e)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "plan.yaml")); err != nil || !strings.Contains(string(b), "name: dead") {
		t.Errorf("the plan's copy: %v %q", err, b)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if code, _, e := servbench(t, "bench", planFile, "-o", file); code != ExitUsage || !strings.Contains(e, "is not a directory") {
		t.Errorf("bench -o FILE: exit %d: %s", code, e)
	}
}
