package cli

import (
	"slices"

	"fmt"
	"io/fs"
	"os/exec"
	"strconv"
	"sync"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workloads"

	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// Every output of a run (-o, --csv, exportfile, --hlog) written to a
// device or through a symbolic link: the device stays a device, the link
// stays a link and its target gets the content; a full device fails the
// run in one line; a named pipe's reader gets the result.
func TestOutputsNeverReplaceWhatIsThere(t *testing.T) {
	t.Parallel()
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

// A property file that never ends is refused at its bound; one that never
// answers (a named pipe nobody writes) gives way to Ctrl-C; a byte order
// mark before the first property is not part of its name.
func TestPropertyFilesBoundedAndStoppable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if zero := filepath.Join(dir, "zero"); syscall.Mknod(zero, syscall.S_IFCHR|0o666, (1<<8)|5) == nil {
		code, _, e := servbench(t, "run", "basic", "-P", zero)
		if code != ExitUsage || !strings.Contains(e, "more than 16 MiB") || strings.Count(e, "\n") != 1 {
			t.Errorf("-P /dev/zero: exit %d: %s", code, e)
		}
	}
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- MainContext(ctx, []string{"run", "basic", "-P", fifo}, &out, &errb) }()
	cancel()
	select {
	case code := <-done:
		if code != ExitInterrupted || !strings.Contains(errb.String(), "stopped while reading") {
			t.Errorf("-P a pipe nobody writes, interrupted: exit %d: %s", code, errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("-P a pipe nobody writes: not stopped a minute after Ctrl-C")
	}
	if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close() // the read left behind ends
	}
	bom := filepath.Join(dir, "bom.properties")
	os.WriteFile(bom, []byte("\uFEFFrecordcount=10\noperationcount=100\nworkload=site.ycsb.workloads.CoreWorkload\n"), 0o644)
	if code, stdout, e := servbench(t, "run", "basic", "-P", bom); code != ExitOK || !strings.Contains(stdout, "[OVERALL], RunTime") || strings.Contains(e, "unknown") {
		t.Errorf("a file with a byte order mark: exit %d: %s", code, e)
	}
}

// runUntil runs the command in this process with ctx and the abandon
// channel a second Ctrl-C closes; stderr goes to w. The two minutes are a
// safety net, not a timing.
func runUntil(t *testing.T, ctx context.Context, abandon chan struct{}, w io.Writer, args ...string) int {
	t.Helper()
	done := make(chan int, 1)
	go func() { done <- MainContext(runner.WithAbandon(ctx, abandon), args, io.Discard, w) }()
	select {
	case code := <-done:
		return code
	case <-time.After(2 * time.Minute):
		t.Fatalf("%v did not end", args)
	}
	return -1
}

// watchFor is a stderr that closes seen when a line holding want is
// written.
type watchFor struct {
	mu    sync.Mutex
	b     strings.Builder
	want  string
	times int // seen closes once want was written this many times (0: once)
	seen  chan struct{}
}

func (w *watchFor) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if w.seen != nil && strings.Count(w.b.String(), w.want) >= max(w.times, 1) {
		close(w.seen)
		w.seen = nil
	}
	return len(p), nil
}

func (w *watchFor) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// A spread run interrupted before its clients measured anything merges
// nothing, even with an earlier run's client results beside its output:
// every client result must carry this run's coordinator.id.
func TestClientsMergeOnlyTheirOwnRun(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	out := filepath.Join(t.TempDir(), "st.json")
	args := []string{"run", "basic", "-w", "a", "-p", "recordcount=100", "--clients", "2", "-threads", "2", "-p", "target=500", "-p", "operationcount=200", "-o", out}
	if code, _, e := servbench(t, args...); code != ExitOK {
		t.Fatalf("first run: exit %d: %s", code, e)
	}
	first, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &watchFor{want: "starting together", seen: make(chan struct{})}
	seen := w.seen
	go func() { <-seen; cancel() }() // Ctrl-C before the common start
	code := runUntil(t, ctx, make(chan struct{}), w, args...)
	if code != ExitInterrupted || !strings.Contains(w.String(), "interrupted before") {
		t.Errorf("interrupted before the start: exit %d: %s", code, w.String())
	}
	if now, _ := os.ReadFile(out); !bytes.Equal(now, first) {
		t.Error("the first run's client results were merged into the second's output")
	}
	// A client result of another run among this run's is refused by name.
	d, err := result.ReadFile(strings.TrimSuffix(out, ".json") + ".client-0.json")
	if err != nil || d.Properties["coordinator.id"] == "" {
		t.Fatalf("a client result without coordinator.id: %v", err)
	}
}

// A second Ctrl-C ends a spread phase whose client is hung (stopped with
// SIGSTOP): the clients are told to abandon their operations, and what
// has not ended soon after is killed, named.
func TestClientsSecondInterruptKillsAHungClient(t *testing.T) {
	t.Setenv("SERVBENCH_TEST_STOP_CLIENT", "1")
	ctx, cancel := context.WithCancel(context.Background())
	abandon := make(chan struct{})
	w := &watchFor{want: "starting together", seen: make(chan struct{})}
	seen := w.seen
	go func() {
		<-seen
		cancel()       // the first Ctrl-C: client 1 cannot hear it
		close(abandon) // the second
	}()
	code := runUntil(t, ctx, abandon, w, "run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "-target", "100", "-p", "operationcount=0",
		"-o", filepath.Join(t.TempDir(), "r.json"))
	_, killed, _ := strings.Cut(w.String(), "servbench: killing ")
	killed, _, _ = strings.Cut(killed, "\n")
	if code != ExitInterrupted || !strings.Contains(w.String(), "told to abandon their operations in flight") || !strings.Contains(killed, "client 1 of 2") {
		t.Errorf("exit %d: %s", code, w.String())
	}
}

// Clients whose coordinator is killed (SIGKILL) stop by themselves, and no
// file of the run's properties (which may hold passwords) is left.
func TestClientsStopWhenTheCoordinatorIsGone(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the clients to notice")
	}
	tmp := t.TempDir()
	out := filepath.Join(tmp, "orphans.json")
	exe, _ := os.Executable()
	c := exec.Command(exe, "run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "-target", "100", "-p", "operationcount=0",
		"-o", out)
	c.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1", "TMPDIR="+tmp)
	w := &watchFor{want: "starting together", seen: make(chan struct{})}
	seen := w.seen
	c.Stderr = w
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer c.Process.Kill()
	select {
	case <-seen:
	case <-time.After(2 * time.Minute):
		t.Fatalf("the coordinator did not start its clients: %s", w.String())
	}
	_, addr, _ := strings.Cut(w.String(), "coordinator at ")
	addr, _, _ = strings.Cut(addr, "\n")
	if addr == "" {
		t.Fatalf("the coordinator did not say its address: %s", w.String())
	}
	clients := func() []int { // the processes this coordinator started
		var pids []int
		procs, _ := filepath.Glob("/proc/[0-9]*/environ")
		for _, p := range procs {
			b, _ := os.ReadFile(p)
			if bytes.Contains(b, []byte("SERVBENCH_COORDINATOR=https://"+addr+"\x00")) {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
				pids = append(pids, pid)
			}
		}
		return pids
	}
	for deadline := time.Now().Add(time.Minute); len(clients()) < 2; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no two clients running: %s", w.String())
		}
	}
	c.Process.Kill()
	c.Wait()
	for deadline := time.Now().Add(2 * time.Minute); len(clients()) > 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("clients %v still run two minutes after their coordinator was killed", clients())
		}
	}
	filepath.WalkDir(tmp, func(path string, d fs.DirEntry, err error) error {
		if strings.HasSuffix(path, ".properties") {
			t.Errorf("%s, the run's properties, outlived it", path)
		}
		return nil
	})
}

// --metrics-addr with port 0: each client takes a free port of its own and
// says which; a port whose last client would be past 65535 is refused
// before any client starts.
func TestClientsMetricsPorts(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	code, _, e := servbench(t, "run", "basic", "-w", "a", "--clients", "3", "-threads", "3", "-target", "300", "-p", "operationcount=300", "--metrics-addr", "127.0.0.1:0",
		"-o", filepath.Join(t.TempDir(), "r.json"))
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	ports := map[string]bool{}
	for i := range 3 {
		for _, l := range strings.Split(e, "\n") {
			if p := strings.TrimPrefix(l, fmt.Sprintf("client %d: servbench: metrics on http://127.0.0.1:", i)); p != l {
				ports[strings.TrimSuffix(p, "/metrics")] = true
			}
		}
	}
	if len(ports) != 3 || ports["0"] || ports["1"] || ports["2"] {
		t.Errorf("clients' metrics ports %v: %s", ports, e)
	}
	code, _, e = servbench(t, "run", "basic", "-w", "a", "--clients", "3", "-threads", "3", "--metrics-addr", "127.0.0.1:65534")
	if code != ExitUsage || !strings.Contains(e, "port 65536 is past 65535") || strings.Contains(e, "starting together") {
		t.Errorf("ports past 65535: exit %d: %s", code, e)
	}
}

// --hlog into a named pipe nobody reads fails the run in one line instead
// of waiting for ever.
func TestHlogIntoAPipeNobodyReads(t *testing.T) {
	prefix := filepath.Join(t.TempDir(), "h-")
	syscall.Mkfifo(prefix+"READ.hlog", 0o644)
	done := make(chan string, 1)
	go func() {
		code, _, e := servbench(t, "run", "basic", "-w", "c", "-p", "recordcount=10", "-p", "operationcount=100", "--hlog", prefix)
		done <- strconv.Itoa(code) + " " + e
	}()
	select {
	case r := <-done:
		if !strings.HasPrefix(r, "1 ") || !strings.Contains(r, "nobody reads") {
			t.Errorf("exit and stderr: %s", r)
		}
	case <-time.After(2 * time.Minute): // a safety net, not a timing
		t.Fatal("the run waited for a reader")
	}
}

// One set of output properties gives the same files whoever runs the
// phase: the command line, a Go program (engine.Execute) and a phase
// spread over two clients (whose files come from the merge); a plan's run
// the same text report, beside its result.
func TestOutputsTheSameEveryWay(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	root := t.TempDir()
	const ops = 2000
	outputs := func(dir string, hdr bool) []string {
		os.MkdirAll(dir, 0o755)
		// Intervals of 0.1 s: the half-second runs' spread clients have
		// several intervals to line up in the merged time series.
		kv := []string{"exportfile=" + filepath.Join(dir, "text.txt"), "timeseries.file=" + filepath.Join(dir, "series.csv"), "timeseries.interval=0.1"}
		if hdr {
			kv = append(kv, "hdrhistogram.fileoutput=true", "hdrhistogram.output.path="+filepath.Join(dir, "h-"))
		}
		return kv
	}
	base := []string{"run", "basic", "-w", "c", "-p", "recordcount=100", "-p", "operationcount=" + strconv.Itoa(ops), "-threads", "2", "-target", "4000"}
	withProps := func(kv []string) []string {
		args := slices.Clone(base)
		for _, x := range kv {
			args = append(args, "-p", x)
		}
		return args
	}
	results := map[string]string{}

	cliDir := filepath.Join(root, "cli")
	if code, _, e := servbench(t, append(withProps(outputs(cliDir, true)), "-o", filepath.Join(cliDir, "r.json"))...); code != ExitOK {
		t.Fatalf("command line: exit %d: %s", code, e)
	}
	results["cli"] = filepath.Join(cliDir, "r.json")

	goDir := filepath.Join(root, "go")
	p := props.New()
	workloads.Load(p, "c")
	for _, x := range append(outputs(goDir, true), "recordcount=100", "operationcount="+strconv.Itoa(ops), "result.file="+filepath.Join(goDir, "r.json")) {
		k, v, _ := strings.Cut(x, "=")
		p.Set(k, v, "test")
	}
	setup, err := engine.Check(engine.Spec{Binding: "basic", Properties: p, Threads: 2, Rate: engine.Give(4000.0)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Execute(context.Background(), engine.Writers{}); err != nil {
		t.Fatalf("engine.Execute: %v", err)
	}
	results["go"] = filepath.Join(goDir, "r.json")

	// A plan names no output file (one path for its every run: refused);
	// each run's text report is beside its result.
	planDir := filepath.Join(root, "plan")
	pf := writePlan(t, "name: outputs\ndeployments: [{binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [2]\nrates: [4000]\noperations: "+
		strconv.Itoa(ops)+"\nproperties:\n  timeseries.interval: 0.1\n")
	if code, _, e := servbench(t, "bench", pf, "-o", filepath.Join(planDir, "out")); code != ExitOK {
		t.Fatalf("plan: exit %d: %s", code, e)
	}
	ix := readIndex(t, filepath.Join(planDir, "out"))
	results["plan"] = filepath.Join(planDir, "out", ix.Runs[0].Result)

	spreadDir := filepath.Join(root, "spread")
	if code, _, e := servbench(t, append(withProps(outputs(spreadDir, false)), "--clients", "2", "-o", filepath.Join(spreadDir, "r.json"))...); code != ExitOK {
		t.Fatalf("spread: exit %d: %s", code, e)
	}
	results["spread"] = filepath.Join(spreadDir, "r.json")

	var header string
	for way, dir := range map[string]string{"cli": cliDir, "go": goDir, "plan": planDir, "spread": spreadDir} {
		textFile := filepath.Join(dir, "text.txt")
		if way == "plan" {
			textFile = strings.TrimSuffix(results[way], ".json") + ".txt"
		}
		text, err := os.ReadFile(textFile)
		rep := parseReport(t, string(text))
		if err != nil || num(t, rep, "[READ], Operations") != ops || rep["[OVERALL], RunTime(ms)"] == "" {
			t.Errorf("%s: exportfile %v:\n%s", way, err, text)
		}
		d, err := result.ReadFile(results[way])
		if err != nil || d.Operations != ops {
			t.Errorf("%s: result %v, %d operations", way, err, d.Operations)
		}
		if way == "plan" {
			continue
		}
		csv, err := os.ReadFile(filepath.Join(dir, "series.csv"))
		first, _, _ := strings.Cut(string(csv), "\n")
		// A spread run's series holds the intervals its clients' series
		// line up in (result's mergeSeries): on a busy machine their
		// boundaries wander (0.10, 0.15, 0.32, 0.46 s for 0.1 s seen) and
		// none may; the file and its columns are there all the same.
		if err != nil || way != "spread" && !strings.Contains(string(csv), ",READ,") {
			t.Errorf("%s: timeseries.file %v: %q%s", way, err, first, clientSeries(dir))
		}
		if header == "" {
			header = first
		} else if first != header {
			t.Errorf("%s: the time series' columns %q, another way's %q", way, first, header)
		}
		if _, err := os.Stat(filepath.Join(dir, "h-READ.hdr")); (err == nil) != (way != "spread") {
			t.Errorf("%s: hdrhistogram.fileoutput: %v", way, err)
		}
	}
}

// clientSeries tells, for a failure's message, each client result's start
// and interval boundaries in dir.
func clientSeries(dir string) string {
	files, _ := filepath.Glob(filepath.Join(dir, "*.client-*.json"))
	var b strings.Builder
	for _, f := range files {
		d, err := result.ReadFile(f)
		if err != nil {
			fmt.Fprintf(&b, "\n%s: %v", filepath.Base(f), err)
			continue
		}
		fmt.Fprintf(&b, "\n%s: start %s, runtime %.1f ms, intervals", filepath.Base(f), d.Start.Format("15:04:05.000000"), d.RuntimeMs)
		for _, p := range d.Series {
			fmt.Fprintf(&b, " [%.4f %.4f%s]", p.StartS, p.EndS, map[bool]string{true: " partial"}[p.Partial])
		}
	}
	return b.String()
}

// --trace and --cpuprofile are outputs like the others: one naming the
// file another output writes is refused before the run (the result was
// replaced by the trace, exit 0), and one that cannot be written (a full
// device) fails the run naming it, while the result is written (exit 0).
// sink's TestProcessWriteDropped has a pipe whose reader left.
func TestProcessOutputsInTheOneList(t *testing.T) {
	dir := t.TempDir()
	run := []string{"run", "basic", "-w", "a", "-p", "recordcount=10", "-p", "operationcount=200"}
	out := filepath.Join(dir, "r.json")
	os.WriteFile(out, []byte("old"), 0o644)
	for _, flag := range []string{"--trace", "--cpuprofile"} {
		for _, other := range [][]string{{"-o", out}, {"--csv", out}, {"-p", "exportfile=" + out}, {"--hlog", filepath.Join(dir, "r")}} {
			name := out
			if other[0] == "--hlog" {
				name = filepath.Join(dir, "rREAD.hlog") // one of the logs, a section each
				os.WriteFile(name, []byte("old"), 0o644)
			}
			code, _, e := servbench(t, append(run, flag, name, other[0], other[1])...)
			if code != ExitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, flag) {
				t.Errorf("%s and %s naming one file: exit %d: %s", flag, other, code, e)
			}
			if b, _ := os.ReadFile(name); string(b) != "old" {
				t.Fatalf("%s and %s naming one file: it holds %.40q", flag, other, b)
			}
		}
	}

	full := filepath.Join(dir, "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, (1<<8)|7); err != nil {
		t.Logf("mknod (needs root): %v; the full device is left out", err)
	} else {
		for _, flag := range []string{"--trace", "--cpuprofile"} {
			os.Remove(out)
			code, _, e := servbench(t, append(run, flag, full, "-o", out)...)
			if code != ExitFailure || strings.Count(e, "\n") > 3 || !strings.Contains(e, flag+" "+full) || !strings.Contains(e, "no space left") {
				t.Errorf("%s to a full device: exit %d: %s", flag, code, e)
			}
			if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), `"format": "servbench-result"`) {
				t.Errorf("%s to a full device: the result: %v %.80s", flag, err, b)
			}
		}
	}
}

// A spread phase with fewer operations than clients: a client whose share
// is none does none and ends at once (a share of 0 ran without end, as
// operationcount=0 does), and the merged result counts the operations
// asked for; the same in a plan.
func TestSharesOfNoneEndAtOnce(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang fails, it does not wait forever
	defer cancel()
	out := filepath.Join(dir, "one.json")
	var errb bytes.Buffer
	code := MainContext(ctx, []string{"run", "basic", "-w", "a", "-p", "recordcount=10", "--clients", "2", "-threads", "2", "-p", "operationcount=1", "-o", out}, io.Discard, &errb)
	if code != ExitOK {
		t.Fatalf("1 operation on 2 clients: exit %d: %s", code, errb.String())
	}
	d, err := result.ReadFile(out)
	if err != nil || d.Operations != 1 || d.Clients != 2 {
		t.Fatalf("1 operation on 2 clients: %v, %+v", err, d)
	}

	pf := writePlan(t, "name: none\ndeployments: [{label: basic, binding: basic}]\nworkloads: [c]\nrecords: [10]\nthreads: [4]\nclients: [4]\noperations: 3\n")
	errb.Reset()
	pdir := filepath.Join(dir, "plan")
	if code := MainContext(ctx, []string{"bench", "-o", pdir, pf}, io.Discard, &errb); code != ExitOK {
		t.Fatalf("a plan of 3 operations on 4 clients: exit %d: %s", code, errb.String())
	}
	for _, c := range readIndex(t, pdir).Runs {
		d, err := result.ReadFile(filepath.Join(pdir, c.Result))
		if err != nil || c.Status != "done" || d.Operations != 3 || d.Clients != 4 {
			t.Errorf("%s: %s, %v, %+v", c.ID, c.Status, err, d)
		}
	}
}

// A run holds its outputs while it runs: a second run writing the same -o
// at once (a spread run's r.json and r.client-I.json mixed with the
// first's) is refused in one line, leaving them as they were; a lock file
// a killed run left blocks nothing; a run leaves no lock file behind.
func TestOneRunWritesAnOutputAtOnce(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	os.WriteFile(out, []byte("old"), 0o644)
	unlock, err := atomicfile.Lock([]string{out}) // the first run, writing r.json now
	if err != nil {
		t.Fatal(err)
	}
	spread := []string{"run", "basic", "-w", "a", "-p", "recordcount=10", "--clients", "2", "-threads", "2", "-p", "operationcount=20", "-o", out}
	for _, args := range [][]string{spread, {"run", "basic", "-w", "a", "-p", "recordcount=10", "-p", "operationcount=20", "--csv", filepath.Join(dir, "s.csv"), "-o", out}} {
		code, _, e := servbench(t, args...)
		if code != ExitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, "another servbench run is writing it") || !strings.Contains(e, out) {
			t.Errorf("%v while another run writes -o: exit %d: %s", args, code, e)
		}
	}
	if b, _ := os.ReadFile(out); string(b) != "old" {
		t.Errorf("the first run's -o holds %.40q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "r.client-0.json")); err == nil {
		t.Error("the refused run wrote a client's result")
	}
	unlock()

	// A run killed while it held the lock leaves its lock file, unlocked.
	os.WriteFile(filepath.Join(dir, ".r.json.lock"), nil, 0o644)
	if code, _, e := servbench(t, spread...); code != ExitOK {
		t.Fatalf("after a killed run's lock file: exit %d: %s", code, e)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("files left: %v", left)
	}
}

// A report's outputs are checked before any is written: -o naming a file
// the report reads, --export into the plan's directory over its
// reference.csv, or -o among the exported files are refused in one line,
// leaving every file as it was; a full device fails it.
func TestReportOutputsChecked(t *testing.T) {
	t.Parallel()
	// A directory of nothing: bad input, in one line naming what it lacks.
	if code, _, e := servbench(t, "report", t.TempDir(), "-o", filepath.Join(t.TempDir(), "r.html")); code != ExitUsage ||
		strings.Count(e, "\n") != 1 || !strings.Contains(e, "index.json") {
		t.Errorf("report of an empty directory: exit %d: %s", code, e)
	}
	dir := filepath.Join(t.TempDir(), "out")
	pf := writePlan(t, "name: r\nreference: ref.csv\ndeployments: [{label: basic, binding: basic}]\nworkloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\n")
	os.WriteFile(filepath.Join(filepath.Dir(pf), "ref.csv"), []byte("system,workload,threads,throughput,latency_ms,latency,source\nbasic,c,1,1000,,,a study\n"), 0o644)
	if code, _, e := servbench(t, "bench", pf, "-o", dir); code != ExitOK {
		t.Fatalf("bench: exit %d: %s", code, e)
	}
	keep := map[string][]byte{}
	os.WriteFile(filepath.Join(dir, ".lock"), []byte("lock"), 0o644)
	for _, f := range []string{"index.json", "reference.csv", "plan.yaml", ".lock", "runs/basic/c/r10-t1-qmax-1.txt"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		keep[f] = b
	}
	page := filepath.Join(t.TempDir(), "r.html")
	for _, args := range [][]string{
		{"-o", filepath.Join(dir, "index.json")},
		{"-o", page, "--export", dir},
		{"-o", filepath.Join(filepath.Dir(page), "summary.csv"), "--export", filepath.Dir(page)},
		// The files bench writes there: its lock (a second bench would
		// then be let in), setup log, a run's text report.
		{"-o", filepath.Join(dir, ".lock")},
		{"-o", filepath.Join(dir, "setup.log")},
		{"-o", filepath.Join(dir, "runs", "basic", "c", "r10-t1-qmax-1.txt")},
	} {
		code, _, e := servbench(t, append([]string{"report", dir}, args...)...)
		t.Logf("report %v: %s", args, e)
		if code != ExitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, "write") {
			t.Errorf("report %v: exit %d: %s", args, code, e)
		}
	}
	for f, b := range keep {
		if now, _ := os.ReadFile(filepath.Join(dir, f)); !bytes.Equal(now, b) {
			t.Errorf("%s was overwritten", f)
		}
	}
	if code, _, e := servbench(t, "report", dir, "-o", filepath.Join(dir, "report.html")); code != ExitOK {
		t.Errorf("a report of its own name in the plan's directory: exit %d: %s", code, e)
	}
	full := filepath.Join(t.TempDir(), "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, (1<<8)|7); err == nil {
		if code, _, e := servbench(t, "report", dir, "-o", full); code != ExitFailure || !strings.Contains(e, "no space left") {
			t.Errorf("report -o a full device: exit %d: %s", code, e)
		}
		// One output that cannot be written leaves every other written:
		// the exports after a page that failed, the exports beside one
		// that failed.
		ex := filepath.Join(t.TempDir(), "ex")
		code, _, e := servbench(t, "report", dir, "-o", full, "--export", ex)
		files, _ := os.ReadDir(ex)
		if code != ExitFailure || !strings.Contains(e, "no space left") || len(files) < 3 {
			t.Errorf("report -o a full device --export: exit %d, %d exports: %s", code, len(files), e)
		}
		first := files[0].Name()
		os.RemoveAll(ex)
		os.MkdirAll(ex, 0o755)
		os.Symlink(full, filepath.Join(ex, first))
		code, _, e = servbench(t, "report", dir, "-o", page, "--export", ex)
		again, _ := os.ReadDir(ex)
		if code != ExitFailure || !strings.Contains(e, first) || len(again) != len(files) {
			t.Errorf("an export on a full device: exit %d, %d of %d exports: %s", code, len(again), len(files), e)
		}
		if _, err := os.Stat(page); err != nil {
			t.Errorf("the page beside an export on a full device: %v", err)
		}
	}
}

// An output file a plan's property names (a time series, here over its
// run's log) is one path for every load, run and repetition: refused in
// one line before anything runs, naming the property and its line.
func TestPlanRunFilesInTheOneList(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	log := filepath.Join(dir, "runs", "basic", "c", "r10-t1-qmax-1.log")
	pf := writePlan(t, "name: t\ndeployments: [{label: basic, binding: basic}]\nworkloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\nproperties:\n  timeseries.file: '"+log+"'\n")
	code, _, e := servbench(t, "bench", pf, "-o", dir)
	if code != ExitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, "plan.yaml:8: deployment basic: timeseries.file names one file for every load, run and repetition") {
		t.Errorf("a plan whose time series names its run's log: exit %d: %s", code, e)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.json")); !os.IsNotExist(err) {
		t.Errorf("the refused plan ran: %v", err)
	}
}

// No output of a run writes over a file it reads: a property file (-P)
// or a file a property names, whichever flag names the output.
func TestOutputsNeverNameAnInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := filepath.Join(dir, "wl.props")
	const text = "recordcount=10\noperationcount=20\n"
	os.WriteFile(in, []byte(text), 0o644)
	link := filepath.Join(dir, "link.props")
	os.Symlink(in, link)
	for _, out := range [][]string{{"-o", in}, {"--csv", in}, {"-p", "exportfile=" + in}, {"--trace", in}, {"--cpuprofile", in}, {"-o", link}} {
		code, _, e := servbench(t, append([]string{"run", "basic", "-w", "a", "-P", in}, out...)...)
		if code != ExitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, "a property file the run reads") {
			t.Errorf("%v naming the property file: exit %d: %s", out, code, e)
		}
		if b, _ := os.ReadFile(in); string(b) != text {
			t.Fatalf("%v naming the property file: it holds %.60q", out, b)
		}
	}
	// A property file none of whose keys is left (every one set again,
	// or none at all), and one among the files an HdrHistogram prefix
	// writes.
	comments := filepath.Join(dir, "c.props")
	os.WriteFile(comments, []byte("# nothing\n"), 0o644)
	hlog := filepath.Join(dir, "x-READ.hlog")
	os.WriteFile(hlog, []byte("recordcount=10\n"), 0o644)
	for _, c := range [][]string{
		{"-P", in, "-p", "recordcount=10", "-p", "operationcount=20", "-o", in},
		{"-P", comments, "-o", comments},
		{"-P", hlog, "--hlog", filepath.Join(dir, "x-")},
	} {
		code, _, e := servbench(t, append([]string{"run", "basic", "-w", "a"}, c...)...)
		if code != ExitUsage || !strings.Contains(e, "a property file the run reads") {
			t.Errorf("%v: exit %d: %s", c, code, e)
		}
	}
	if b, _ := os.ReadFile(comments); string(b) != "# nothing\n" {
		t.Errorf("the comments' file holds %.60q", b)
	}
	if b, _ := os.ReadFile(hlog); string(b) != "recordcount=10\n" {
		t.Errorf("the HdrHistogram-named property file holds %.60q", b)
	}
	// A file another property names.
	hist := filepath.Join(dir, "hist.txt")
	os.WriteFile(hist, []byte("BlockSize\t1\n10\t1\n"), 0o644)
	code, _, e := servbench(t, "run", "basic", "-w", "a", "-p", "recordcount=10", "-p", "operationcount=10", "-p", "fieldlengthdistribution=histogram",
		"-p", "fieldlengthhistogram="+hist, "-o", hist)
	if code != ExitUsage || !strings.Contains(e, "property fieldlengthhistogram") {
		t.Errorf("-o naming the field length histogram: exit %d: %s", code, e)
	}
	if b, _ := os.ReadFile(hist); string(b) != "BlockSize\t1\n10\t1\n" {
		t.Errorf("the histogram file holds %.60q", b)
	}
}

// A plan's files are never among those bench writes: the kept copy of
// the plan (DIR/plan.yaml) given as the plan, a workload file that is
// DIR's setup log, are refused before anything runs.
func TestBenchNeverWritesItsInputs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(dir, 0o755)
	kept := filepath.Join(dir, "plan.yaml")
	const text = "name: t\ndeployments: [{label: basic, binding: basic}]\nworkloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\n"
	os.WriteFile(kept, []byte(text), 0o644)
	code, _, e := servbench(t, "bench", kept, "-o", dir)
	if code != ExitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, "among the files bench writes") {
		t.Errorf("bench DIR/plan.yaml -o DIR: exit %d: %s", code, e)
	}
	if b, _ := os.ReadFile(kept); string(b) != text {
		t.Errorf("the plan holds %q", b)
	}
	wl := filepath.Join(dir, "setup.log")
	os.WriteFile(wl, []byte("recordcount=10\n"), 0o644)
	pf := writePlan(t, "name: t\ndeployments: [{label: basic, binding: basic, setup: [{shell: echo hi}]}]\nworkloads: ['"+wl+"']\nrecords: [10]\nthreads: [1]\noperations: 10\n")
	code, _, e = servbench(t, "bench", pf, "-o", dir)
	if code != ExitUsage || !strings.Contains(e, "among the files bench writes") {
		t.Errorf("a workload file DIR/setup.log: exit %d: %s", code, e)
	}
	if b, _ := os.ReadFile(wl); string(b) != "recordcount=10\n" {
		t.Errorf("the workload file holds %q", b)
	}
	// A run's output naming the directory's own files or the plan's
	// reference is refused before anything runs; the file keeps what it
	// held.
	base := t.TempDir()
	ref := filepath.Join(base, "ref.csv")
	const refText = "system,workload,threads,throughput,latency_ms,latency,source\nbasic,c,1,1000,,,a study\n"
	os.WriteFile(ref, []byte(refText), 0o644)
	out := filepath.Join(base, "out")
	for _, target := range []string{filepath.Join(out, "plan.yaml"), filepath.Join(out, "setup.log"), filepath.Join(out, ".lock"), ref} {
		pf := writePlan(t, "name: t\nreference: '"+ref+"'\ndeployments: [{label: basic, binding: basic, properties: {exportfile: '"+target+"'}}]\nworkloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\n")
		code, _, e := servbench(t, "bench", pf, "-o", out)
		if code != ExitUsage || !strings.Contains(e, "exportfile names one file") {
			t.Errorf("exportfile %s: exit %d: %s", target, code, e)
		}
		if b, _ := os.ReadFile(ref); string(b) != refText {
			t.Fatalf("exportfile %s: the reference holds %.60q", target, b)
		}
		if b, err := os.ReadFile(filepath.Join(out, "plan.yaml")); err == nil && !strings.HasPrefix(string(b), "name: t") {
			t.Fatalf("exportfile %s: DIR/plan.yaml holds %.60q", target, b)
		}
		os.RemoveAll(out)
	}
	// A workload file at the path of a load's log is refused, not emptied.
	logPath := filepath.Join(out, "loads", "basic-r10-fields.log")
	os.MkdirAll(filepath.Dir(logPath), 0o755)
	os.WriteFile(logPath, []byte("recordcount=10\n"), 0o644)
	pf = writePlan(t, "name: t\ndeployments: [{label: basic, binding: basic}]\nworkloads: ['"+logPath+"']\nrecords: [10]\nthreads: [1]\noperations: 10\n")
	if code, _, e := servbench(t, "bench", pf, "-o", out); code != ExitUsage {
		t.Errorf("a workload file at a load's log: exit %d: %s", code, e)
	}
	if b, _ := os.ReadFile(logPath); string(b) != "recordcount=10\n" {
		t.Errorf("the workload file at a load's log holds %q", b)
	}
}

// A plan's output that cannot be written (a run's text report or log, the
// setup log, the index, each on a full device) fails the plan (exit 1),
// named; the runs' results are written.
func TestBenchOutputsThatFailAreSaid(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	full := filepath.Join(base, "full")
	if err := syscall.Mknod(full, syscall.S_IFCHR|0o666, (1<<8)|7); err != nil {
		t.Skipf("mknod (needs root): %v", err)
	}
	pf := writePlan(t, "name: t\ndeployments: [{label: basic, binding: basic, setup: [{shell: echo hi}]}]\nworkloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\n")
	for _, f := range []string{"runs/basic/c/r10-t1-qmax-1.txt", "runs/basic/c/r10-t1-qmax-1.log", "setup.log", "index.json"} {
		dir := filepath.Join(base, strings.NewReplacer("/", "-", ".", "-").Replace(f))
		os.MkdirAll(filepath.Join(dir, "runs", "basic", "c"), 0o755)
		os.Symlink(full, filepath.Join(dir, f))
		code, _, e := servbench(t, "bench", pf, "-o", dir)
		if code != ExitFailure || !strings.Contains(e, "no space left") {
			t.Errorf("%s on a full device: exit %d: %s", f, code, e)
		}
		if f != "setup.log" {
			if _, err := os.Stat(filepath.Join(dir, "runs", "basic", "c", "r10-t1-qmax-1.json")); err != nil {
				t.Errorf("%s on a full device: the run's result: %v", f, err)
			}
		}
	}
}

// A plan's workload file that never answers (a named pipe nobody writes)
// gives way to the first Ctrl-C, as -P does.
func TestPlanWorkloadFileStoppable(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "wl")
	syscall.Mkfifo(fifo, 0o644)
	pf := writePlan(t, "name: t\ndeployments: [{label: basic, binding: basic}]\nworkloads: ['"+fifo+"']\nrecords: [10]\nthreads: [1]\noperations: 10\n")
	ctx, cancel := context.WithCancel(context.Background())
	var errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- MainContext(ctx, []string{"bench", pf, "-o", filepath.Join(dir, "out")}, io.Discard, &errb)
	}()
	// Once the workload file is being read, a writer that writes nothing
	// holds the read; then Ctrl-C.
	var w *os.File
	for w == nil {
		select {
		case code := <-done:
			t.Fatalf("ended before reading the workload file: exit %d: %s", code, errb.String())
		default:
		}
		w, _ = os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0) // fails until a reader opened it
		time.Sleep(time.Millisecond)
	}
	defer w.Close() // the read left behind ends
	cancel()
	select {
	case code := <-done:
		if code != ExitInterrupted {
			t.Errorf("a plan's workload a pipe nobody writes, interrupted: exit %d: %s", code, errb.String())
		}
	case <-time.After(time.Minute): // a safety net, not a timing
		t.Fatal("a plan's workload a pipe nobody writes: not stopped a minute after Ctrl-C")
	}
}

// The files bench and report read back from a plan's directory (its setup
// log, its index) are its own regular files: a link to a device there is
// refused, named, before memory is given to it (/dev/zero was read to a
// gigabyte).
func TestBenchReadsBackOnlyItsOwnFiles(t *testing.T) {
	pf := writePlan(t, "name: t\ndeployments: [{label: basic, binding: basic, setup: [{shell: echo hi}]}]\nworkloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\n")
	for _, f := range []string{"setup.json"} {
		dir := filepath.Join(t.TempDir(), "out")
		os.MkdirAll(dir, 0o755)
		os.Symlink("/dev/zero", filepath.Join(dir, f))
		code, _, e := servbench(t, "bench", pf, "-o", dir)
		if code == ExitOK || !strings.Contains(e, f) || !strings.Contains(e, "not a regular file") {
			t.Errorf("%s a link to /dev/zero: exit %d: %s", f, code, e)
		}
	}
	fifoDir := filepath.Join(t.TempDir(), "out")
	os.MkdirAll(fifoDir, 0o755)
	syscall.Mkfifo(filepath.Join(fifoDir, "setup.log"), 0o644)
	if code, _, e := servbench(t, "bench", pf, "-o", fifoDir); code == ExitOK || !strings.Contains(e, "setup.log: a named pipe or socket") {
		t.Errorf("setup.log a named pipe: exit %d: %s", code, e)
	}
	dir := t.TempDir()
	os.Symlink("/dev/zero", filepath.Join(dir, "index.json"))
	if code, _, e := servbench(t, "report", dir, "-o", filepath.Join(t.TempDir(), "r.html")); code != ExitUsage || !strings.Contains(e, "index.json: not a regular file") {
		t.Errorf("report of an index.json linked to /dev/zero: exit %d: %s", code, e)
	}
}
