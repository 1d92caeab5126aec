package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servbench/servbench/result"
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

// An output never replaces an input: -o naming the input (as written,
// through ./, a symbolic or a hard link), or a directory where one
// input's result would be another input, is refused before anything is
// written.
func TestImportRefusesItsInput(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "internal", "ycsbtext", "testdata", "ycsb-run-a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "run.txt")
	other := filepath.Join(dir, "run.txt.json") // run.txt's result in -o DIR, and an input
	for _, f := range []string{in, other} {
		if err := os.WriteFile(f, text, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link, hard := filepath.Join(dir, "link.json"), filepath.Join(dir, "hard.json")
	if err := os.Symlink("run.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{in, "-o", in}, "would write over the input"},
		{[]string{in, "-o", filepath.Join(dir, ".", "run.txt")}, "would write over the input"},
		{[]string{in, "-o", link}, "-o " + link + " would write over the input " + in},
		{[]string{in, "-o", hard}, "would write over the input"},
		{[]string{in, other, "-o", dir}, "-o " + other + " would write over the input " + other},
		{[]string{in, link, "-o", t.TempDir()}, "are the same file"},
	} {
		code, _, e := servbench(t, append([]string{"import", "ycsb"}, c.args...)...)
		if code != ExitUsage || !strings.Contains(e, c.want) || strings.Count(strings.TrimSpace(e), "\n") > 0 {
			t.Errorf("%v: exit %d, %q; want 2 and one line with %q", c.args, code, e, c.want)
		}
	}
	for _, f := range []string{in, other} {
		if b, _ := os.ReadFile(f); string(b) != string(text) {
			t.Errorf("%s was written over", f)
		}
	}
}

// Several files are all read before any result is written: one bad file
// (here past the bound on operation names) leaves no result at all.
func TestImportAllOrNothing(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "internal", "ycsbtext", "testdata", "ycsb-run-a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir, out := t.TempDir(), t.TempDir()
	good, bad := filepath.Join(dir, "good.txt"), filepath.Join(dir, "bad.txt")
	os.WriteFile(good, text, 0o644)
	var names strings.Builder
	names.WriteString("[OVERALL], RunTime(ms), 10\n[OVERALL], Throughput(ops/sec), 0\n")
	for i := range 40 {
		fmt.Fprintf(&names, "OP%c%c,1700000000000,5\n", 'A'+i/26, 'A'+i%26)
	}
	os.WriteFile(bad, []byte(names.String()), 0o644)
	code, _, e := servbench(t, "import", "ycsb", good, bad, "-o", out)
	if code != ExitUsage || !strings.Contains(e, "bad.txt:35: more than 32 operation names") || strings.Count(strings.TrimSpace(e), "\n") > 0 {
		t.Errorf("exit %d, %q; want 2 and one line naming bad.txt:35", code, e)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("a refused import wrote %v", entries)
	}
}

// YCSB's NaN (an operation that measured nothing) is left out of the
// result, which is written.
func TestImportNaN(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("..", "internal", "ycsbtext", "testdata", "servbench-read-not-found.txt"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	in, out := filepath.Join(dir, "nf.txt"), filepath.Join(dir, "nf.json")
	os.WriteFile(in, text, 0o644)
	if code, _, e := servbench(t, "import", "ycsb", in, "-o", out); code != ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	d, err := result.ReadFile(out)
	if err != nil || d.Operations != 40 || d.OKOperations != 0 || d.Ops[0].Latency != nil || d.Ops[0].LatencyFailed == nil {
		t.Errorf("%v: %+v", err, d)
	}
}
