package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A size past its bound (a record's fields and their length, a scan's
// records, a target rate; each just past it, so that a servbench without
// the bound runs in little memory) is refused before anything runs: one line
// naming the property and the bound, exit 2, nothing written; and
// bench --dry-run refuses it as a run does (a plan's rate too, which the
// check shared by a cell's rates never saw).
func TestSizesRefusedBeforeRunning(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-p", "fieldcount=10001"}, "property fieldcount: 10001 is more than 10000 fields"},
		{[]string{"-p", "fieldlength=16777217"}, "property fieldlength: 16777217 is more than 16777216 bytes"},
		{[]string{"-p", "fieldcount=10000", "-p", "fieldlength=2000"}, "property fieldlength: a record of 10000 fields of 2000 bytes is 19.1 MiB: at most 16 MiB"},
		{[]string{"-p", "maxscanlength=1000001"}, "property maxscanlength: 1000001 is more than 1000000 records"},
		{[]string{"-target", "1e19"}, "property target: 1e+19 operations per second: want 0 (none) or 0.001 to 1e+12"},
	} {
		out := filepath.Join(t.TempDir(), "r.json")
		code, _, stderr := servbench(t, append([]string{"run", "basic", "-w", "c", "-p", "operationcount=10", "-o", out}, c.args...)...)
		if code != ExitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, %q: want 2 and one line with %q", c.args, code, stderr, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: %s written", c.args, out)
		}
	}
	for _, c := range []struct{ plan, want string }{
		{"properties: {fieldcount: 10001}\n", "property fieldcount: 10001 is more than 10000 fields"},
		{"properties: {fieldlength: 16777217}\n", "property fieldlength: 16777217 is more than 16777216 bytes"},
		{"rates: [0.0000001]\n", "property target: 1e-07 operations per second"},
		{"properties: {batchsize: 100000, fieldlength: 16000000, fieldcount: 1}\n", "of it records)"},
	} {
		if _, err := os.Stat("/proc/meminfo"); err != nil && strings.Contains(c.plan, "batchsize") {
			continue // the memory available is not known here: not checked
		}
		pf := writePlan(t, "name: s\ndeployments: [{label: b, binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [1]\noperations: 10\n"+c.plan)
		code, _, stderr := servbench(t, "bench", pf, "--dry-run")
		if code != ExitUsage || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("bench --dry-run %q: exit %d, %q: want 2 and one line with %q", c.plan, code, stderr, c.want)
		}
	}
}
