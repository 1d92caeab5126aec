package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workloads"
)

// The test binary doubles as the servbench command when asked, so signal
// tests can run it as a child process.
func TestMain(m *testing.M) {
	if os.Getenv("SERVBENCH_TEST_CLI") == "1" {
		// A client of a spread phase that a test wants to fail, or to die.
		if c := os.Getenv("SERVBENCH_CLIENT"); c != "" && c == os.Getenv("SERVBENCH_TEST_FAIL_CLIENT") {
			fmt.Fprintln(os.Stderr, "test: this client fails")
			os.Exit(ExitFailure)
		}
		if c := os.Getenv("SERVBENCH_CLIENT"); c != "" && c == os.Getenv("SERVBENCH_TEST_KILL_CLIENT") {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		if c := os.Getenv("SERVBENCH_CLIENT"); c != "" && c == os.Getenv("SERVBENCH_TEST_STOP_CLIENT") {
			syscall.Kill(os.Getpid(), syscall.SIGSTOP) // a hung client: only SIGKILL ends it
		}
		if fifo := os.Getenv("SERVBENCH_TEST_BLOCKED_OPEN"); fifo != "" {
			db.Register("blocked", blockedOpen(fifo))
		}
		if os.Getenv("SERVBENCH_TEST_STALLING") != "" {
			db.Register("stalling", stallingServer{})
			db.Register("stuck", stuckServer{})
		}
		os.Exit(Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv("SERVBENCH_CLIENT") != "" {
		// A client started without this binary made the command: running
		// the tests here would start clients of their own.
		fmt.Fprintln(os.Stderr, "test: a client started without SERVBENCH_TEST_CLI=1")
		os.Exit(ExitFailure)
	}
	// Every process the tests start from this binary (a spread phase's
	// clients) is the command, never another run of the tests.
	os.Setenv("SERVBENCH_TEST_CLI", "1")
	// The history the commands record into is the tests' own, never the
	// user's (history.DefaultPath).
	data, err := os.MkdirTemp("", "servbench-cli-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_DATA_HOME", data)
	code := m.Run()
	os.RemoveAll(data)
	if sshExe != "" {
		os.RemoveAll(filepath.Dir(sshExe)) // the servbench built for the ssh hosts (90 MB a run were left in the temp dir)
	}
	os.Exit(code)
}

func servbench(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = MainContext(context.Background(), args, &out, &errb)
	return code, out.String(), errb.String()
}

// parseReport reads YCSB's "[SECTION], Metric, value" lines.
func parseReport(t *testing.T, text string) map[string]string {
	t.Helper()
	m := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ", ", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[0], "[") {
			t.Fatalf("not a report line: %q", sc.Text())
		}
		m[parts[0]+", "+parts[1]] = parts[2]
	}
	return m
}

func num(t *testing.T, m map[string]string, key string) float64 {
	t.Helper()
	v, ok := m[key]
	if !ok {
		t.Fatalf("report has no %q", key)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s = %q", key, v)
	}
	return f
}

func TestEveryWorkloadOnPebbleWithIntegrity(t *testing.T) {
	t.Parallel()
	for _, w := range workloads.Names() {
		t.Run(w, func(t *testing.T) {
			code, out, errOut := servbench(t, "run", "pebble", "-w", w, "-threads", "2",
				"-p", "recordcount=500", "-p", "operationcount=2000", "-p", "dataintegrity=true")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			m := parseReport(t, out)
			if got := num(t, m, "[OVERALL], Throughput(ops/sec)"); got <= 0 {
				t.Errorf("throughput %v", got)
			}
			var ops float64
			for _, op := range []string{"READ", "UPDATE", "INSERT", "SCAN", "QUERY"} {
				if v, ok := m["["+op+"], Return=OK"]; ok {
					f, _ := strconv.ParseFloat(v, 64)
					ops += f
				}
				for k := range m {
					if strings.HasPrefix(k, "["+op+"], Return=") && !strings.HasSuffix(k, "=OK") {
						t.Errorf("failed operations: %s = %s", k, m[k])
					}
				}
			}
			// A READ-MODIFY-WRITE is one transaction, measured also as its
			// READ and UPDATE.
			rmw := 0.0
			if v, ok := m["[READ-MODIFY-WRITE], Operations"]; ok {
				rmw, _ = strconv.ParseFloat(v, 64)
			}
			if ops != 2000+rmw {
				t.Errorf("%v successful operations (%v RMW), want 2000 transactions", ops, rmw)
			}
			if w == "f" && rmw == 0 {
				t.Error("workload f did no READ-MODIFY-WRITE")
			}
			reads := 0.0
			if v, ok := m["[READ], Return=OK"]; ok {
				reads, _ = strconv.ParseFloat(v, 64)
			}
			if v, ok := m["[QUERY], Return=OK"]; ok { // each query is verified too
				q, _ := strconv.ParseFloat(v, 64)
				reads += q
			}
			if reads > 0 && num(t, m, "[VERIFY], Return=OK") != reads {
				t.Errorf("VERIFY OK %v of %v reads and queries", m["[VERIFY], Return=OK"], reads)
			}
			for k := range m {
				if strings.HasPrefix(k, "[VERIFY], Return=") && k != "[VERIFY], Return=OK" {
					t.Errorf("data integrity: %s = %s", k, m[k])
				}
			}
		})
	}
}

func TestEveryWorkloadOnBasic(t *testing.T) {
	t.Parallel()
	for _, w := range workloads.Names() {
		code, out, errOut := servbench(t, "run", "basic", "-w", w, "-threads", "2", "-p", "operationcount=5000")
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", w, code, errOut)
		}
		m := parseReport(t, out)
		var ops float64
		for k, v := range m {
			if strings.Contains(k, "Return=") {
				f, _ := strconv.ParseFloat(v, 64)
				ops += f
			}
		}
		// Workload F counts its READ and UPDATE and the READ-MODIFY-WRITE.
		if ops < 5000 {
			t.Errorf("%s: %v operations reported", w, ops)
		}
		if strings.Contains(errOut, "loading") {
			t.Errorf("%s: basic was preloaded: %s", w, errOut)
		}
	}
}

func TestYCSBStyleLoadThenRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	wl := filepath.Join("..", "workloads", "workloada")
	code, out, errOut := servbench(t, "load", "pebble", "-P", wl, "-p", "recordcount=3000", "-p", "pebble.dir="+dir, "-threads", "2")
	if code != 0 {
		t.Fatalf("load: exit %d: %s", code, errOut)
	}
	if got := num(t, parseReport(t, out), "[INSERT], Return=OK"); got != 3000 {
		t.Errorf("loaded %v records", got)
	}
	code, out, errOut = servbench(t, "run", "pebble", "-P", wl, "-p", "recordcount=3000", "-p", "pebble.dir="+dir,
		"-threads", "2", "-target", "2000", "-s", "-p", "status.interval=0.2", "-p", "operationcount=1000",
		"-p", "dataintegrity=true")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errOut)
	}
	if strings.Contains(errOut, "loading") {
		t.Error("a store given by pebble.dir was preloaded")
	}
	m := parseReport(t, out)
	if _, ok := m["[Intended-READ], 99thPercentileLatency(us)"]; !ok {
		t.Error("no [Intended-READ] section with -target")
	}
	if num(t, m, "[SCHEDULE], Operations") != 1000 {
		t.Error("schedule lag not reported for every operation")
	}
	if !strings.Contains(errOut, " sec: ") || !strings.Contains(errOut, "current ops/sec") {
		t.Errorf("no YCSB status line on stderr: %q", errOut)
	}
	// dataintegrity: the loaded values (written without it) are random,
	// so verification must find them wrong; that proves VERIFY checks.
	if num(t, m, "[VERIFY], Return=UNEXPECTED_STATE") == 0 {
		t.Error("VERIFY accepted random values")
	}
}

func TestJSONAndCSVResults(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	jsonPath, csvPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv")
	code, _, errOut := servbench(t, "run", "basic", "-w", "b", "-threads", "2", "-target", "4000",
		"-p", "operationcount=2000", "-p", "timeseries.interval=0.1", "-o", jsonPath, "--csv", csvPath,
		"-p", "mongodb.url=mongodb://admin:hunter2@127.0.0.1:27017", "-l", "mylabel")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("hunter2")) {
		t.Error("the result file contains a password")
	}
	var d result.Doc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
	if d.Format != result.Format || d.Version != result.FormatVersion || d.Command != "run" || d.Binding != "basic" ||
		d.Label != "mylabel" || d.Threads != 2 || d.Rate != 4000 || d.Stop != result.Completed || d.Seed == 0 {
		t.Errorf("header: %+v", d)
	}
	if d.Environment.GoVersion == "" || d.Environment.Cores == 0 || d.Environment.ServbenchVersion == "" {
		t.Errorf("environment: %+v", d.Environment)
	}
	if d.ClientCPUS <= 0 {
		t.Errorf("client_cpu_s %v: the client's CPU time is not recorded", d.ClientCPUS)
	}
	if d.Properties["recordcount"] != "1000" || d.Properties["mongodb.url"] != "mongodb://admin:REDACTED@127.0.0.1:27017" {
		t.Errorf("properties: %v", d.Properties)
	}
	// Paced at 4,000 ops/s the run is never faster than its schedule
	// (2,000 operations over 2 threads: the last slot 0.49975 s after the
	// first); how much slower depends on the machine, not on servbench.
	if want := float64(d.Operations) / (d.RuntimeMs / 1000); d.Operations != 2000 || d.RuntimeMs < 499.75 || math.Abs(d.Throughput-want) > 1e-6*want {
		t.Errorf("operations %d in %v ms at %v ops/s", d.Operations, d.RuntimeMs, d.Throughput)
	}
	var total int64
	for _, op := range d.Ops {
		for status, enc := range op.Histograms {
			h, err := result.DecodeHistogram(enc)
			if err != nil {
				t.Fatal(err)
			}
			if h.TotalCount() != op.Outcomes[status] {
				t.Errorf("%s %s: histogram holds %d, outcome count %d", op.Name, status, h.TotalCount(), op.Outcomes[status])
			}
			total += h.TotalCount()
		}
		if op.Response == nil {
			t.Errorf("%s: no response time with a target", op.Name)
		}
	}
	if total != 2000 {
		t.Errorf("histograms hold %d operations", total)
	}
	var seriesOps int64
	for _, p := range d.Series {
		seriesOps += p.Operations
	}
	if len(d.Series) < 3 || seriesOps != 2000 {
		t.Errorf("%d points holding %d operations", len(d.Series), seriesOps)
	}
	csv, _ := os.ReadFile(csvPath)
	lines := strings.Split(strings.TrimSpace(string(csv)), "\n")
	if !strings.HasPrefix(lines[0], "start_s,end_s,operation,count") || len(lines) < 4 {
		t.Errorf("csv: %q", lines)
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	badFile := filepath.Join(dir, "bad")
	os.WriteFile(badFile, []byte("recordcount=100\nreadproportion=0.5\nupdateproportion=zero\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, "unknown command"},
		{[]string{"run", "nosuchdb", "-w", "a"}, `unknown binding "nosuchdb"`},
		{[]string{"run", "-w", "z"}, `unknown workload "z"`},
		{[]string{"run", "-P", filepath.Join(dir, "missing")}, "missing"},
		{[]string{"run", "-P", badFile}, badFile + ":3: property updateproportion"},
		{[]string{"run", "-w", "a", "-p", "recordcont=5"}, "did you mean recordcount?"},
		{[]string{"run", "-w", "a", "-p", "readproportion=0.9"}, "add up to 1.4"},
		{[]string{"run", "-w", "a", "-threads", "0"}, "threadcount: 0 is less than 1"},
		{[]string{"run", "-w", "a", "-threads", "many"}, "not a whole number"},
		{[]string{"run", "-w", "a", "-target", "-5"}, "target"},
		{[]string{"run", "-w", "a", "-p", "operationcount=-1"}, "operationcount"},
		{[]string{"run", "-w", "a", "-p", "novalue"}, "is not key=value"},
		{[]string{"run", "-w", "a", "-p", "redis.password"}, `-p "redis.password" is not key=value`},
		{[]string{"run", "basic", "-w", "a", "--clients", "2", "-threads", "2", "-p", "startat=" + time.Now().Add(time.Hour).UTC().Format(time.RFC3339)}, "startat: a spread run's clients start together when all are ready"},
		{[]string{"run", "-w", "a", "-p", "redis.password hunter1x"}, `-p "redis.password REDACTED" is not key=value`},
		{[]string{"run", "-w", "a", "--bogus"}, "flag provided but not defined"},
		{[]string{"bench", "p.yaml", "--rehearse", "-o", filepath.Join(dir, "b"), "-p", "redis.password hunter3x"}, `-p "redis.password REDACTED" is not key=value`},
		{[]string{"bench", "p.yaml", "--rehearse", "-o", filepath.Join(dir, "b"), "--at", "redis redis://:hunter4x@127.0.0.1:1"}, "want NAME=URL"},
		{[]string{"run", "-w", "a", "-p", "measurementtype=rawest"}, "is not one of"},
		{[]string{"run", "-w", "a", "-p", "measurement.interval=opp"}, "is not one of"},
		{[]string{"run", "-w", "a", "-p", "measurementtype=timeseries", "-p", "timeseries.granularity=1500", "-p", "timeseries.interval=1"}, "not a multiple"},
		{[]string{"run", "basic", "extra", "-w", "a"}, "unexpected arguments"},
		{[]string{"run"}, "no workload"},
		{[]string{"run", "-w", "a", "-o", filepath.Join(dir, "no", "such", "dir", "r.json")}, "output file"},
		{[]string{"run", "pebble", "-w", "a", "-p", "pebble.sync=perhaps"}, "pebble.sync"},
	} {
		code, _, errOut := servbench(t, c.args...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", c.args, code, errOut)
		}
		if !strings.HasPrefix(errOut, "servbench: ") || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: stderr %q, want one line containing %q", c.args, errOut, c.want)
		}
		if strings.Contains(errOut, "hunter") {
			t.Errorf("%v: stderr %q shows the password", c.args, errOut)
		}
	}
}

func TestYCSBFlagsAndCompat(t *testing.T) {
	// -db with YCSB's class name; a property of another binding is warned
	// about, not rejected; exportfile receives the report.
	dir := t.TempDir()
	export := filepath.Join(dir, "report.txt")
	code, out, errOut := servbench(t, "run", "-db", "site.ycsb.BasicDB", "-w", "c", "-p", "mongodb.url=mongodb://127.0.0.1",
		"-p", "exportfile="+export, "-p", "hdrhistogram.percentiles=50,99.9")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if out != "" {
		t.Errorf("report went to stdout with exportfile set: %q", out)
	}
	b, _ := os.ReadFile(export)
	m := parseReport(t, string(b))
	num(t, m, "[READ], 99.9PercentileLatency(us)")
	num(t, m, "[READ], 50thPercentileLatency(us)")
	if !strings.Contains(errOut, "ignoring properties") || !strings.Contains(errOut, "mongodb.url") {
		t.Errorf("no warning for another binding's property: %q", errOut)
	}
	if strings.Contains(errOut, "mongodb://") && !strings.Contains(errOut, "mongodb.url") {
		t.Error("printed a connection string")
	}
	code, out, _ = servbench(t, "workloads")
	if code != 0 || strings.Count(out, "\n") < 9 || !strings.Contains(out, "update heavy") || !strings.Contains(out, "pagination  filter with OFFSET") {
		t.Errorf("workloads: %q", out)
	}
	code, out, _ = servbench(t, "version")
	if code != 0 || !strings.HasPrefix(out, "servbench ") {
		t.Errorf("version: %q", out)
	}
	code, out, _ = servbench(t, "run", "--help")
	if code != 0 || !strings.Contains(out, "-threads") {
		t.Errorf("help: %q", out)
	}
}

// TestInterruptWritesResults sends SIGINT (and SIGQUIT, Ctrl-\\) to a real
// servbench process in the middle of an unlimited run: it must exit 130
// and still write the report and the JSON result with what it measured.
func TestInterruptWritesResults(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) { interruptWritesResults(t, sig) })
	}
}

func interruptWritesResults(t *testing.T, sig syscall.Signal) {
	dir := t.TempDir()
	jsonPath := filepath.Join(dir, "r.json")
	cmd := exec.Command(os.Args[0], "run", "pebble", "-w", "a", "-threads", "2", "-target", "2000",
		"-p", "operationcount=0", "-s", "-p", "status.interval=0.2", "-o", jsonPath)
	cmd.Env = append(os.Environ(), "SERVBENCH_TEST_CLI=1")
	var out bytes.Buffer
	// The signal comes once the run has measured (its first status
	// line), however busy the machine (a fixed sleep came before it).
	errb := &watchFor{want: "current ops/sec", seen: make(chan struct{})}
	measuring := errb.seen
	cmd.Stdout, cmd.Stderr = &out, errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-measuring:
	case <-time.After(2 * time.Minute): // a safety net, not a measurement
		cmd.Process.Kill()
		t.Fatalf("the run never measured: %s", errb.String())
	}
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("servbench did not stop on %v", sig)
	}
	if code := cmd.ProcessState.ExitCode(); code != ExitInterrupted {
		t.Errorf("exit %d, want %d; stderr %s", code, ExitInterrupted, errb.String())
	}
	m := parseReport(t, out.String())
	if m["[OVERALL], Stopped"] != "interrupted" || num(t, m, "[READ], Operations") == 0 {
		t.Errorf("report: %v", m)
	}
	var d result.Doc
	raw, _ := os.ReadFile(jsonPath)
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("JSON: %v", err)
	}
	if d.Stop != result.Interrupted || d.Operations == 0 {
		t.Errorf("JSON stop %q with %d operations", d.Stop, d.Operations)
	}
	if strings.Contains(errb.String(), "panic") || strings.Contains(errb.String(), "goroutine ") {
		t.Error(errb.String())
	}
}

func TestFailedStartLeavesNoFiles(t *testing.T) {
	dir := t.TempDir()
	notADir := filepath.Join(dir, "file")
	os.WriteFile(notADir, []byte("x"), 0o644)
	jsonPath := filepath.Join(dir, "r.json")
	code, _, errOut := servbench(t, "run", "pebble", "-w", "a", "-p", "pebble.dir="+notADir, "-o", jsonPath)
	if code != ExitFailure || !strings.HasPrefix(errOut, "servbench: pebble: ") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(jsonPath); !os.IsNotExist(err) {
		t.Errorf("an empty result file was left behind: %v", err)
	}
	// A result already there is kept whole by a run that fails to start,
	// and no temporary file is left beside it.
	keep := filepath.Join(dir, "keep.json")
	os.WriteFile(keep, []byte("previous"), 0o644)
	if code, _, _ := servbench(t, "run", "redis", "-w", "a", "-p", "redis.url=redis://127.0.0.1:1", "-o", keep, "--csv", filepath.Join(dir, "k.csv")); code != ExitFailure {
		t.Errorf("a run against no server: exit %d", code)
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "previous" {
		t.Errorf("the previous result became %q (%v)", b, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// Two outputs in one file: one would silently replace the other.
	if code, _, e := servbench(t, "run", "basic", "-w", "a", "-o", keep, "--csv", keep); code != ExitUsage || !strings.Contains(e, "is named by both -o (result.file) and --csv (timeseries.file)") {
		t.Errorf("-o and --csv one file: exit %d: %s", code, e)
	}
}

// TestEveryBindingIsInTheCommand: each binding folder under db/ must be
// linked into the command; binding tests alone would not notice a missing
// import, since their own test binary links the binding.
func TestEveryBindingIsInTheCommand(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("..", "db"))
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := servbench(t, "bindings")
	if code != 0 {
		t.Fatalf("bindings: exit %d", code)
	}
	n := 0
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "dbtest" || e.Name() == "jsondoc" || e.Name() == "wire" { // the conformance kit and the bindings' shared parts
			continue
		}
		n++
		if !strings.Contains(out, e.Name()+" ") {
			t.Errorf("binding %s is not registered in the command", e.Name())
		}
	}
	if n < 9 {
		t.Errorf("found only %d binding folders", n)
	}
}

// TestVerifyOutcomesOnPebble: data loaded with random values fails every
// check (UNEXPECTED_STATE), data loaded with integrity values passes; both
// are counted under [VERIFY], as YCSB counts them.
func TestVerifyOutcomesOnPebble(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		loadIntegrity string
		outcome       string
	}{{"false", "UNEXPECTED_STATE"}, {"true", "OK"}} {
		dir := filepath.Join(t.TempDir(), "db")
		common := []string{"pebble", "-w", "c", "-p", "recordcount=50", "-p", "pebble.dir=" + dir}
		if code, _, errOut := servbench(t, append([]string{"load"}, append(common, "-p", "dataintegrity="+c.loadIntegrity)...)...); code != ExitOK {
			t.Fatalf("load: %s", errOut)
		}
		code, out, errOut := servbench(t, append([]string{"run"}, append(common, "-p", "dataintegrity=true", "-p", "operationcount=200")...)...)
		if code != ExitOK {
			t.Fatalf("run: %s", errOut)
		}
		m := parseReport(t, out)
		if m["[VERIFY], Operations"] != "200" || m["[VERIFY], Return="+c.outcome] != "200" {
			t.Errorf("load dataintegrity=%s: VERIFY operations %q, Return=%s %q; want 200 and 200",
				c.loadIntegrity, m["[VERIFY], Operations"], c.outcome, m["[VERIFY], Return="+c.outcome])
		}
		if strings.Contains(out, "VERIFY-FAILED") {
			t.Errorf("a [VERIFY-FAILED] section:\n%s", out)
		}
	}
}

// TestTimeLimitCountsNoFailures: every operation takes 20 ms, and the time
// limit falls while each thread has one in flight: those finish and count,
// so nothing fails and nothing is abandoned.
func TestTimeLimitCountsNoFailures(t *testing.T) {
	t.Parallel()
	json := filepath.Join(t.TempDir(), "r.json")
	code, out, errOut := servbench(t, "run", "basic", "-w", "a", "-threads", "4", "--duration", "0.3",
		"-p", "operationcount=0", "-p", "basicdb.simulatedelay=20", "-p", "basicdb.randomizedelay=false", "-o", json)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "FAILED") || strings.Contains(out, "CANCELED") || strings.Contains(out, "Abandoned") {
		t.Errorf("failures where the store failed nothing:\n%s", out)
	}
	d, err := result.ReadFile(json)
	if err != nil {
		t.Fatal(err)
	}
	if d.Operations == 0 || d.OKOperations != d.Operations || d.Abandoned != 0 {
		t.Errorf("operations %d, ok %d, abandoned %d", d.Operations, d.OKOperations, d.Abandoned)
	}
}

// Misspelt properties of the binding in use are refused before anything
// connects (the servers named do not exist), with the nearest name the
// binding read; another binding's are a warning.
func TestBindingPropertyTypos(t *testing.T) {
	for _, c := range []struct {
		binding, prop, want string
	}{
		{"redis", "redis.timout=5", "property redis.timout: unknown property (did you mean redis.timeout?)"},
		{"redis", "redis.pasword=x", "did you mean redis.password?"},
		{"mongodb", "mongodb.writeconcer=majority", "did you mean mongodb.writeconcern?"},
		{"postgres", "postgres.poolsiz=4", "did you mean postgres.poolsize?"},
		{"cassandra", "cassandra.keyspce=k", "did you mean cassandra.keyspace?"},
		{"couchbase", "couchbase.bucke=b", "did you mean couchbase.bucket?"},
		{"couchdb", "couchdb.retris=1", "did you mean couchdb.retries?"},
		{"dynamodb", "dynamodb.regin=x", "did you mean dynamodb.region?"},
		{"pebble", "pebble.cachsize=1", "did you mean pebble.cachesize?"},
	} {
		code, _, errOut := servbench(t, "run", c.binding, "-p", c.prop, "-p", "redis.url=redis://127.0.0.1:1")
		if code != ExitUsage || !strings.Contains(errOut, c.want) || strings.Count(strings.TrimSpace(errOut), "\n") != 0 {
			t.Errorf("%s -p %s: exit %d, %q; want exit %d and one line with %q", c.binding, c.prop, code, errOut, ExitUsage, c.want)
		}
	}
}

// --cpuprofile writes the client's CPU profile in pprof's format (gzip);
// a path that cannot be created is bad input, before anything runs.
func TestCPUProfile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	code, _, errOut := servbench(t, "run", "basic", "-w", "c", "-p", "operationcount=200000", "--cpuprofile", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(path)
	if err != nil || len(raw) < 2 || raw[0] != 0x1f || raw[1] != 0x8b {
		t.Fatalf("profile %d bytes, %v: not a gzipped pprof profile", len(raw), err)
	}
	code, _, errOut = servbench(t, "run", "basic", "-w", "c", "--cpuprofile", filepath.Join(t.TempDir(), "no", "such", "dir", "cpu"))
	if code != ExitUsage || !strings.Contains(errOut, "--cpuprofile") {
		t.Errorf("exit %d, %q: want bad input naming --cpuprofile", code, errOut)
	}
	// A run that fails to start keeps the profile already there.
	if code, _, e := servbench(t, "run", "redis", "-w", "c", "-p", "redis.url=redis://127.0.0.1:1", "--cpuprofile", path); code != ExitFailure {
		t.Errorf("a run against no server: exit %d: %s", code, e)
	}
	if again, _ := os.ReadFile(path); !bytes.Equal(again, raw) {
		t.Error("a failed start replaced the profile")
	}
}

// --trace writes the client's execution trace (go tool trace reads it);
// a path that cannot be created is bad input; a spread phase refuses it.
func TestTrace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.trace")
	code, _, errOut := servbench(t, "run", "basic", "-w", "c", "-p", "operationcount=20000", "--trace", path)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	raw, err := os.ReadFile(path)
	if err != nil || !bytes.HasPrefix(raw, []byte("go 1.")) {
		t.Fatalf("trace of %d bytes, %v: not a Go execution trace", len(raw), err)
	}
	code, _, errOut = servbench(t, "run", "basic", "-w", "c", "--trace", filepath.Join(t.TempDir(), "no", "such", "dir", "t"))
	if code != ExitUsage || !strings.Contains(errOut, "--trace") {
		t.Errorf("exit %d, %q: want bad input naming --trace", code, errOut)
	}
	code, _, errOut = servbench(t, "run", "basic", "-w", "c", "--threads", "2", "--clients", "2", "--trace", path)
	if code != ExitUsage || !strings.Contains(errOut, "--trace would record the coordinator only") {
		t.Errorf("exit %d, %q: want a spread phase to refuse --trace", code, errOut)
	}
}

// An error line says nothing the command line carries as a secret,
// wherever the error repeats it (here a workload's name).
func TestErrorLineHidesCommandLineSecrets(t *testing.T) {
	code, stdout, stderr := servbench(t, "run", "basic", "-p", "redis.password=hunter9x", "-w", "hunter9x")
	if code != ExitUsage || strings.Contains(stdout+stderr, "hunter") || !strings.Contains(stderr, "REDACTED") {
		t.Errorf("exit %d: %s%s", code, stdout, stderr)
	}
}

// A label is written and printed wherever the run is named: a secret it
// holds (found by a rule, or a secret property's value it repeats) is
// hidden in the result and on the terminal, as in its properties.
func TestLabelHidesSecrets(t *testing.T) {
	out := filepath.Join(t.TempDir(), "r.json")
	code, stdout, errOut := servbench(t, "run", "basic", "-w", "c", "-p", "operationcount=200", "-s", "-p", "redis.password=hunter7x",
		"-l", "redis-cli -a hunter5x password=hunter6x hunter7x", "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	raw, _ := os.ReadFile(out)
	for name, text := range map[string]string{"result": string(raw), "stdout": stdout, "stderr": errOut} {
		if i := strings.Index(text, "hunter"); i >= 0 {
			t.Errorf("%s shows a secret: %q", name, text[max(0, i-40):min(len(text), i+20)])
		}
	}
	var d result.Doc
	if err := json.Unmarshal(raw, &d); err != nil || !strings.HasPrefix(d.Label, "redis-cli -a REDACTED") {
		t.Errorf("label %q: %v", d.Label, err)
	}
}

// A named pipe in SSL_CERT_FILE, which Go's TLS would read at the first
// connection that checks a server (and wait on without a word), is
// refused before anything runs, in one line, by the commands that
// connect.
func TestSystemRootsChecked(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "roots")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSL_CERT_FILE", fifo)
	for _, args := range [][]string{{"run", "basic", "-w", "a"}, {"bench", "no-such-plan.yaml"}, {"client"}} {
		code, _, stderr := servbench(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "SSL_CERT_FILE="+fifo+": a named pipe") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
	if code, _, _ := servbench(t, "workloads"); code != ExitOK {
		t.Errorf("workloads: exit %d", code)
	}
}

// An HdrHistogram log prefix whose directory cannot take the logs is
// refused before the run, in one line (the logs are created as sections
// appear: they were lost after the whole run, exit 1).
func TestHlogPrefixCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, prefix := range []string{filepath.Join(dir, "nodir", "x"), filepath.Join(file, "x")} {
		code, _, stderr := servbench(t, "run", "basic", "-w", "a", "-p", "operationcount=100", "--hlog", prefix)
		if code != ExitUsage || !strings.Contains(stderr, "the logs' directory") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%s: exit %d: %s", prefix, code, stderr)
		}
	}
	code, _, stderr := servbench(t, "run", "basic", "-w", "a", "-p", "operationcount=100", "--hlog", filepath.Join(dir, "ok-"))
	if files, _ := filepath.Glob(filepath.Join(dir, "ok-*.hlog")); code != ExitOK || len(files) == 0 {
		t.Errorf("a good prefix: exit %d, %v: %s", code, files, stderr)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".servbench-hlog-*")); len(left) > 0 {
		t.Errorf("the check left %v", left)
	}
}

// A log file linked, hard or symbolic, to a user's file where the run
// writes its HdrHistogram log of READ is not written through: the user's
// file keeps what it held (it was emptied and written over).
func TestHlogNotWrittenThroughLinks(t *testing.T) {
	for _, link := range []func(old, new string) error{os.Link, os.Symlink} {
		dir := t.TempDir()
		users := filepath.Join(t.TempDir(), "notes.txt")
		if err := os.WriteFile(users, []byte("the user's own"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := link(users, filepath.Join(dir, "h-READ.hlog")); err != nil {
			t.Fatal(err)
		}
		servbench(t, "run", "basic", "-w", "c", "-p", "operationcount=100", "--hlog", filepath.Join(dir, "h-"))
		if b, _ := os.ReadFile(users); string(b) != "the user's own" {
			t.Errorf("the user's file: %.40q", b)
		}
	}
}
