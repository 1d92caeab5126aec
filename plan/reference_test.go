package plan

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The shipped reference files read, and each figure is in its source: the
// seed line it names holds its thread count and its throughput as the text
// writes them (checked where the studies' text is at hand, beside the
// repository).
func TestShippedReferences(t *testing.T) {
	files, _ := filepath.Glob("../plans/*-reference.csv")
	if len(files) == 0 {
		t.Fatal("no reference files in plans/")
	}
	seeds := filepath.Join("..", "..", "shared", "spec", "seeds")
	_, err := os.Stat(seeds)
	haveSeeds := err == nil
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		refs, err := ParseReference(raw, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range refs {
			file, rest, _ := strings.Cut(r.Source, ":")
			n, err := strconv.Atoi(strings.SplitN(rest, ",", 2)[0])
			if err != nil {
				t.Errorf("%s:%d: source %q does not name a line", f, r.Line, r.Source)
				continue
			}
			if !haveSeeds {
				continue
			}
			text, err := os.ReadFile(filepath.Join(seeds, file))
			if err != nil {
				t.Errorf("%s:%d: %v", f, r.Line, err)
				continue
			}
			lines := strings.Split(string(text), "\n")
			if n < 1 || n > len(lines) {
				t.Errorf("%s:%d: %s has no line %d", f, r.Line, file, n)
				continue
			}
			l := strings.ReplaceAll(lines[n-1], ",", "")
			thr := strconv.FormatFloat(r.Throughput/1000, 'f', -1, 64) + "K"
			if r.Throughput >= 1e6 {
				thr = strconv.FormatFloat(r.Throughput/1e6, 'f', -1, 64) + "M"
			}
			if !strings.Contains(l, strconv.Itoa(r.ThreadsHi)) || !strings.Contains(l, thr+" ops/s") {
				t.Errorf("%s:%d: %s line %d %q does not say %d threads and %s ops/s", f, r.Line, file, n, lines[n-1], r.ThreadsHi, thr)
			}
		}
	}
	if !haveSeeds {
		t.Log("the studies' text (../shared/spec/seeds) is not here: sources not checked against it")
	}
}

// A reference file that cannot be read fails on its line.
func TestParseReferenceRefuses(t *testing.T) {
	head := "system,workload,threads,throughput,latency_ms,latency,source\n"
	for _, c := range []struct{ in, want string }{
		{"system,threads\n", "r.csv:1: want the header system,workload,threads"},
		{"", "r.csv: no header line"},
		{head + "X,a,many,5,,,s\n", `r.csv:2: threads "many": want a thread count or a range`},
		{head + "X,a,9-3,5,,,s\n", `r.csv:2: threads "9-3"`},
		{head + "# a comment\nX,a,3,-5,,,s\n", `r.csv:3: throughput "-5"`},
		{head + "X,a,3,5,0,,s\n", `r.csv:2: latency_ms "0"`},
		{head + "X,a,3,5,1,about,s\n", `r.csv:2: latency "about": want mean, below`},
		{head + "X,a,3,5,1,below,\n", "r.csv:2: give system, workload and source"},
		{head + "X,a,3\n", "r.csv"},
	} {
		if _, err := ParseReference([]byte(c.in), "r.csv"); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.in, err, c.want)
		}
	}
}
