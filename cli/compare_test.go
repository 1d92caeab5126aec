package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// 3 ms against 1 ms per operation is found with certainty; a set against itself is within
// noise; single runs say they cannot tell; bad inputs are one line.
func TestCompare(t *testing.T) {
	planFile := writePlan(t, `name: cmp
targets:
  - label: fast
    binding: basic
    properties:
      basicdb.simulatedelay: 1
      basicdb.randomizedelay: false
  - label: slow
    binding: basic
    properties:
      basicdb.simulatedelay: 3
      basicdb.randomizedelay: false
workloads: [c]
records: [100]
threads: [1]
operations: 150
repetitions: 3
`)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, e := servbench(t, "bench", planFile, "-o", dir); code != ExitOK {
		t.Fatalf("bench: %d %s", code, e)
	}
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
	if !strings.Contains(out, "fast vs slow: c, 100 records, 1 threads") {
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
