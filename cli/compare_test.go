package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/sink"
)

// writeResults writes a plan directory as servbench bench leaves it, with
// the results made here rather than measured: for each target, 3
// repetitions of 150 reads of about msPerOp each (a few µs apart by
// repetition), one after the other on one thread.
func writeResults(t *testing.T, dir string, msPerOp map[string]float64) {
	t.Helper()
	ix := plan.Index{Format: plan.IndexFormat, Version: 1, Plan: "cmp"}
	for _, label := range slices.Sorted(maps.Keys(msPerOp)) {
		for rep := 1; rep <= 3; rep++ {
			rec := measure.NewRecorder()
			var total int64
			for i := range 150 {
				ns := int64(msPerOp[label]*1e6) + int64(rep*37+i%7)*1000
				rec.Record(measure.Read, db.OK, ns, -1)
				rec.RecordTxn(db.OK)
				total += ns
			}
			set := &measure.Set{}
			rec.DrainInto(set)
			res := &runner.Result{Total: set, Runtime: time.Duration(total), Threads: 1, Reason: result.Completed}
			doc := sink.NewDoc(res, nil, sink.Meta{Command: "run", Binding: "basic", Workload: "workload c", Label: label},
				sink.Options{Percentiles: []float64{50, 95, 99}})
			id := fmt.Sprintf("%s/c/r100-t1-qmax-%d", label, rep)
			path := filepath.Join("runs", id+".json")
			if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, path)), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(filepath.Join(dir, path))
			if err != nil {
				t.Fatal(err)
			}
			if err := result.WriteJSON(f, doc); err != nil {
				t.Fatal(err)
			}
			f.Close()
			ix.Runs = append(ix.Runs, plan.IndexRun{ID: id, Deployment: label, Binding: "basic", System: "basic", Workload: "c",
				Records: 100, Threads: 1, Repetition: rep, Result: path, Status: "done", Throughput: doc.Throughput})
		}
	}
	if err := plan.WriteIndex(dir, &ix); err != nil {
		t.Fatal(err)
	}
}

// 3 ms against 1 ms per operation is found with certainty; a set against
// itself is within noise; single runs say they cannot tell; bad inputs
// are one line. The results are made, not measured, so the verdicts do
// not depend on how busy the machine is.
func TestCompare(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	writeResults(t, dir, map[string]float64{"fast": 1, "slow": 3})
	code, out, e := servbench(t, "compare", dir+":fast", dir+":slow")
	if code != ExitOK {
		t.Fatalf("compare: %d %s", code, e)
	}
	line := func(metric string) string {
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), metric) {
				return l
			}
		}
		t.Fatalf("no %s line in\n%s", metric, out)
		return ""
	}
	if l := line("throughput ops/s"); !strings.HasSuffix(strings.TrimSpace(l), "B lower") || !strings.Contains(l, "(3)") {
		t.Errorf("throughput: %s", l)
	}
	if l := line("READ avg µs"); !strings.HasSuffix(strings.TrimSpace(l), "B higher") {
		t.Errorf("latency: %s", l)
	}
	if !strings.Contains(out, "fast vs slow: c, 100 records, 1 thread,") {
		t.Errorf("cell heading missing:\n%s", out)
	}

	_, out, _ = servbench(t, "compare", dir+":fast", dir+":fast")
	if strings.Count(out, "within noise") != 3 {
		t.Errorf("a set against itself:\n%s", out)
	}

	a, b := filepath.Join(dir, "runs/fast/c/r100-t1-qmax-1.json"), filepath.Join(dir, "runs/slow/c/r100-t1-qmax-1.json")
	_, out, _ = servbench(t, "compare", a, b)
	if !strings.Contains(out, "no repetitions") || !strings.Contains(out, "B − A") {
		t.Errorf("single files:\n%s", out)
	}

	for _, args := range [][]string{
		{"compare", dir + ":nosuch", dir},
		{"compare", dir},
		{"compare", t.TempDir(), dir},
		{"compare", a + "," + filepath.Join(dir, "index.json"), b},
	} {
		code, _, e := servbench(t, args...)
		if code != ExitUsage || strings.Count(e, "\n") != 1 || strings.Contains(e, "goroutine") {
			t.Errorf("%v: exit %d: %q", args[1:], code, e)
		}
	}
}

// A figure is shown whole up to 10^15 and in three significant digits
// past it (1e300 was printed as three hundred digits).
func TestCompareFigures(t *testing.T) {
	for v, want := range map[float64]string{1e300: "1e+300", -1e300: "-1e+300", 12345.6: "12346", 1.23456: "1.23", 1e15: "1e+15", 999999999999999: "999999999999999"} {
		if got := fmtNum(v); got != want {
			t.Errorf("fmtNum(%g) = %q, want %q", v, got, want)
		}
	}
}

// A side that is a file but not a directory is read as a result and
// refused as one (/dev/zero was taken for a plan's directory:
// "/dev/zero/index.json: not a directory"); report names a file given
// for its directory.
func TestCompareSideNotADirectory(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.json")
	if code, _, e := servbench(t, "run", "basic", "-w", "c", "-p", "recordcount=10", "-p", "operationcount=10", "-o", a); code != ExitOK {
		t.Fatalf("run: %d %s", code, e)
	}
	code, _, e := servbench(t, "compare", a, "/dev/zero")
	if code != ExitUsage || !strings.Contains(e, "/dev/zero: not a result file") || strings.Contains(e, "index.json") {
		t.Errorf("compare a.json /dev/zero: exit %d: %s", code, e)
	}
	code, _, e = servbench(t, "report", a, "-o", filepath.Join(dir, "r.html"))
	if code == ExitOK || !strings.Contains(e, a+" is not a directory") {
		t.Errorf("report a.json: exit %d: %s", code, e)
	}
}

// failingWriter fails every write, as a full device does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// compare and merge say when their output cannot be written (exit 1; the
// merged file is written all the same), and show a result's control
// characters escaped (a workload named with ESC [2J cleared the screen).
func TestCompareAndMergeOutput(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "out")
	writeResults(t, dir, map[string]float64{"fast": 1, "slow": 3})
	a, b := filepath.Join(dir, "runs/fast/c/r100-t1-qmax-1.json"), filepath.Join(dir, "runs/slow/c/r100-t1-qmax-1.json")
	var errb bytes.Buffer
	if code := MainContext(context.Background(), []string{"compare", a, b}, failingWriter{}, &errb); code != ExitFailure || !strings.Contains(errb.String(), "compare: write the table: no space left") {
		t.Errorf("compare to a full device: exit %d: %s", code, errb.String())
	}
	raw, _ := os.ReadFile(a)
	var doc map[string]any
	json.Unmarshal(raw, &doc)
	doc["label"] = "fast\x1b[2J"
	raw, _ = json.Marshal(doc)
	odd := filepath.Join(t.TempDir(), "odd.json")
	os.WriteFile(odd, raw, 0o644)
	code, out, e := servbench(t, "compare", odd, odd)
	if code != ExitOK || strings.Contains(out, "\x1b") || !strings.Contains(out, `fast\x1b[2J`) {
		t.Errorf("a label with ESC: exit %d: %q %s", code, out, e)
	}
	spread := filepath.Join(t.TempDir(), "r.json")
	if code, _, e := servbench(t, "run", "basic", "-w", "c", "-p", "operationcount=100", "-threads", "2", "--clients", "2", "-o", spread); code != ExitOK {
		t.Fatalf("a spread run: exit %d: %s", code, e)
	}
	m := filepath.Join(t.TempDir(), "m.json")
	errb.Reset()
	c0, c1 := strings.TrimSuffix(spread, ".json")+".client-0.json", strings.TrimSuffix(spread, ".json")+".client-1.json"
	if code := MainContext(context.Background(), []string{"merge", c0, c1, "-o", m}, failingWriter{}, &errb); code != ExitFailure || !strings.Contains(errb.String(), "its summary: no space left") {
		t.Errorf("merge's summary to a full device: exit %d: %s", code, errb.String())
	}
	if _, err := result.ReadFile(m); err != nil {
		t.Errorf("the merged file: %v", err)
	}
}
