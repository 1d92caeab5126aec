package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/stats"
)

func writeDoc(t *testing.T, path string, d *result.Doc) {
	t.Helper()
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Three runs of one cell are recorded in the history as they finish; a
// fourth at a quarter of the target rate fails the gate against them
// (exit 1), one like them passes (exit 0). (Each run half a second at its
// rate: a pause of the machine's is a small part of it.) (The gate's p99 is left out here: the
// basic binding's microseconds double on a busy machine; package gate
// tests the latency verdicts.)
func TestHistoryAndGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	run := func(name, target string) string {
		t.Helper()
		out := filepath.Join(dir, name+".json")
		code, _, e := servbench(t, "run", "basic", "-w", "c", "-threads", "2", "-target", target, "-p", "operationcount=4000",
			"-p", "recordcount=100", "-p", "history.file="+db, "-o", out)
		if code != ExitOK || strings.Contains(e, "history") {
			t.Fatalf("%s: exit %d: %s", name, code, e)
		}
		return out
	}
	for _, n := range []string{"b1", "b2", "b3"} {
		run(n, "8000")
	}
	code, out, e := servbench(t, "history", "--db", db, "--binding", "basic")
	if code != ExitOK || !strings.Contains(out, "3 entries") || strings.Count(out, " run ") != 3 {
		t.Fatalf("history: exit %d: %s%s", code, out, e)
	}
	slow := run("slow", "2000")
	code, out, e = servbench(t, "gate", slow, "--db", db, "-p", "gate.p99=off")
	if code != ExitFailure || !strings.Contains(out, "3 baseline") || !strings.Contains(out, "REGRESSION") ||
		!strings.Contains(out, "no run of this config at rate 2000 in the history: its runs at rate 8000") {
		t.Errorf("a run at half the rate: exit %d: %s%s", code, out, e)
	}
	like := run("like", "8000")
	code, out, e = servbench(t, "gate", like, "--db", db, "-p", "gate.p99=off")
	// Its baseline: the runs at its rate, not the slow one.
	if code != ExitOK || !strings.Contains(out, "3 baseline") || strings.Contains(out, "REGRESSION") {
		t.Errorf("a run like the baseline: exit %d: %s%s", code, out, e)
	}
	// Given baselines, the gate says which properties differ.
	code, out, _ = servbench(t, "gate", slow, "--baseline", filepath.Join(dir, "b1.json")+","+filepath.Join(dir, "b2.json"), "--baseline",
		filepath.Join(dir, "b3.json"), "-p", "gate.p99=off")
	if code != ExitFailure || !strings.Contains(out, "differs: target: 2000 (new) vs 8000") || !strings.Contains(out, "3 baseline") {
		t.Errorf("explicit baselines: exit %d: %s", code, out)
	}
	// The trend of a figure, and an import that finds every result there.
	code, out, _ = servbench(t, "history", "--db", db, "--trend", "throughput")
	if code != ExitOK || !strings.Contains(out, "throughput over 5 entries") || strings.Count(out, "█") < 100 {
		t.Errorf("trend: exit %d: %s", code, out)
	}
	page := filepath.Join(dir, "trend.html")
	if code, _, e := servbench(t, "history", "--db", db, "--trend", "throughput", "--html", page); code != ExitOK {
		t.Errorf("--html: exit %d: %s", code, e)
	}
	if b, err := os.ReadFile(page); err != nil || strings.Count(string(b), "<circle") != 5 || !strings.Contains(string(b), "throughput over time") {
		t.Errorf("the trend's page: %d marks, %v", strings.Count(string(b), "<circle"), err)
	}
	code, out, e = servbench(t, "history", "import", "--db", db, dir)
	if code != ExitOK || !strings.Contains(out, "recorded 0 results") || !strings.Contains(out, "(5 there already)") {
		t.Errorf("import of what is there: exit %d: %s%s", code, out, e)
	}
	// A new run that did not complete fails, whatever its figures; it is
	// no baseline either. A baseline of another config among those given
	// is left out of a cell that has its own.
	d, err := result.ReadFile(like)
	if err != nil {
		t.Fatal(err)
	}
	d.Stop, d.ID = result.Interrupted, "interrupted-copy"
	cut := filepath.Join(dir, "cut", "cut.json")
	os.Mkdir(filepath.Dir(cut), 0o755)
	writeDoc(t, cut, d)
	code, out, _ = servbench(t, "gate", cut, "--db", db, "-p", "gate.p99=off")
	if code != ExitFailure || !strings.Contains(out, "did not complete (stop interrupted)") {
		t.Errorf("an interrupted run: exit %d: %s", code, out)
	}
	other := filepath.Join(dir, "other.json")
	if code, _, e := servbench(t, "run", "basic", "-w", "a", "-p", "operationcount=100", "-p", "history.file=off", "-o", other); code != ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	code, out, _ = servbench(t, "gate", like, "--baseline", filepath.Join(dir, "b1.json")+","+filepath.Join(dir, "b2.json")+","+filepath.Join(dir, "b3.json")+","+other+","+cut, "-p", "gate.p99=off")
	if code != ExitOK || !strings.Contains(out, ": 1 new, 3 baseline") {
		t.Errorf("baselines of another config and one cut short among them: exit %d: %s", code, out)
	}
	fifo := filepath.Join(dir, "fifo.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, bad := range [][]string{
		{"gate", fifo, "--db", db},
		{"gate", like, "--baseline", fifo},
		{"history", "import", "--db", db, fifo},
		{"gate", like + ",", "--db", db},
		{"gate", slow, "--db", db, "-p", "gate.p42=5"},
		{"gate", slow, "--db", filepath.Join(dir, "none.db")},
		{"history", "--db", db, "--last", "0"},
		{"history", "--db", db, "--html", page},
		{"history", "--db", db, "--since", "yesterday"},
		{"history", "import", "--db", db, filepath.Join(dir, "none")},
	} {
		if code, _, e := servbench(t, bad...); code != ExitUsage || strings.Count(strings.TrimSpace(e), "\n") != 0 {
			t.Errorf("%v: exit %d: %s", bad, code, e)
		}
	}
}

// A history that cannot be written loses nothing of the run: its result
// is written, it exits 0, and one line says the result was not recorded.
func TestUnusableHistoryLosesNoResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "h.db")
	os.WriteFile(bad, []byte(strings.Repeat("not a database\n", 1000)), 0o600)
	out := filepath.Join(dir, "r.json")
	code, _, e := servbench(t, "run", "basic", "-w", "c", "-p", "operationcount=100", "-p", "history.file="+bad, "-o", out)
	if code != ExitOK || !strings.Contains(e, "the result was not recorded (its own files are as written)") {
		t.Errorf("exit %d: %s", code, e)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Errorf("the result: %v", err)
	}
	// history.file=off records nothing, anywhere.
	off := filepath.Join(dir, "off")
	code, _, e = servbench(t, "run", "basic", "-w", "c", "-p", "operationcount=100", "-p", "history.file=off", "-o", filepath.Join(dir, "r2.json"))
	if _, err := os.Stat(off); code != ExitOK || err == nil {
		t.Errorf("off: exit %d, %v: %s", code, err, e)
	}
}

// One new run against one baseline run: the gate takes each run's noise
// from batch means of its intervals (said), and a run at half the rate
// fails it.
func TestGateOneRunAgainstOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := func(name, target string) string {
		t.Helper()
		out := filepath.Join(dir, name+".json")
		code, _, e := servbench(t, "run", "basic", "-w", "c", "-threads", "2", "-target", target, "-p", "operationcount=0",
			"-p", "maxexecutiontime=2", "-p", "timeseries.interval=0.05", "-p", "recordcount=100", "-p", "history.file=off", "-o", out)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, e)
		}
		return out
	}
	base, slow := run("base", "4000"), run("slow", "2000")
	code, out, e := servbench(t, "gate", slow, "--baseline", base, "-p", "gate.p99=off")
	// Batch means need 20 intervals a run: a busy machine's late ticks
	// may leave fewer, and then the threshold alone is said.
	enough := true
	for _, f := range []string{base, slow} {
		d, err := result.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, p := range d.Series {
			if !p.Partial {
				n++
			}
		}
		enough = enough && n >= 2*stats.MinBatches
	}
	how := "batch means of each run's intervals"
	if !enough {
		how = "the threshold alone"
	}
	if code != ExitFailure || !strings.Contains(out, how) || !strings.Contains(out, "REGRESSION") {
		t.Errorf("half the rate against one run: exit %d, want the noise from %s: %s%s", code, how, out, e)
	}
}

// A run that until stopped completed: the gate judges it, and takes it as
// a baseline (it said "did not complete (stop until)").
func TestGateTakesUntilRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	run := func(name string) string {
		t.Helper()
		out := filepath.Join(dir, name+".json")
		code, _, e := servbench(t, "run", "basic", "-w", "c", "-threads", "2", "-target", "2000", "-p", "operationcount=0",
			"-p", "maxexecutiontime=30", "-p", "timeseries.interval=0.05", "-p", "until.throughput=20", "-p", "recordcount=100",
			"-p", "history.file=off", "-o", out)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, e)
		}
		if d, err := result.ReadFile(out); err != nil || d.Stop != result.Settled {
			t.Fatalf("%s: stop %v (%v), want until", name, d.Stop, err)
		}
		return out
	}
	base, next := run("g1"), run("g2")
	code, out, e := servbench(t, "gate", next, "--baseline", base, "-p", "gate.p99=off")
	if code != ExitOK || strings.Contains(out, "did not complete") || strings.Contains(out, "no baseline") || strings.Contains(out, "differs:") {
		t.Errorf("two until runs: exit %d: %s%s", code, out, e)
	}
}
