package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad input to import is one line naming what and where, exit 2, and no
// file written.
func TestImportRefuses(t *testing.T) {
	dir := t.TempDir()
	notYCSB := filepath.Join(dir, "notes.txt")
	os.WriteFile(notYCSB, []byte("just some text\n"), 0o644)
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("[OVERALL], RunTime(ms), 10\n[READ], Operations, lots\n"), 0o644)
	out := filepath.Join(dir, "r.json")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"import"}, "say what to import"},
		{[]string{"import", "jmeter", notYCSB}, "say what to import"},
		{[]string{"import", "ycsb", notYCSB}, "no output (-o RESULT.json"},
		{[]string{"import", "ycsb", "-o", out}, "no YCSB output named"},
		{[]string{"import", "ycsb", filepath.Join(dir, "missing.txt"), "-o", out}, "missing.txt"},
		{[]string{"import", "ycsb", notYCSB, "-o", out}, "notes.txt: no [OVERALL], RunTime(ms) line: not the output of YCSB's client"},
		{[]string{"import", "ycsb", bad, "-o", out}, `bad.txt:2: [READ], Operations: "lots" is not a number`},
		{[]string{"import", "ycsb", bad, notYCSB, "-o", out}, "names an existing directory"},
		{[]string{"import", "ycsb", bad, "--label", "a\x1b[31m", "-o", out}, "--label"},
	} {
		code, _, e := servbench(t, c.args...)
		if code != ExitUsage || !strings.Contains(e, c.want) || strings.Count(strings.TrimSpace(e), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", c.args, code, e, c.want)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused import wrote its output")
	}
}
