package report

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/servbench/servbench/result"
)

// A cell's average latency is the count-weighted mean of its successful
// operations' service times, failed ones excluded, as YCSB averages each
// operation's: 10 reads OK at 100 µs and 30 updates OK at 300 µs average
// 250 µs whatever 40 timeouts at 2 s took.
func TestAverageLatencyOfSuccessfulOperations(t *testing.T) {
	slow := &result.Latency{Count: 20, MeanUs: 2e6}
	g := &Group{Runs: []*Run{{Doc: &result.Doc{Throughput: 100, Operations: 80, OKOperations: 40, Ops: []result.OpResult{
		{Name: "READ", Count: 30, Outcomes: map[string]int64{"OK": 10, "TIMEOUT": 20}, Latency: &result.Latency{Count: 10, MeanUs: 100}, LatencyFailed: slow},
		{Name: "UPDATE", Count: 50, Outcomes: map[string]int64{"OK": 30, "TIMEOUT": 20}, Latency: &result.Latency{Count: 30, MeanUs: 300}, LatencyFailed: slow},
	}}}}}
	g.summarize()
	if math.Abs(g.AvgUs.Mean-250) > 1e-9 {
		t.Errorf("average latency %v µs, want 250 (the successful operations')", g.AvgUs.Mean)
	}
}

// What the plans' departures, the docs and the report's own words say the
// average latency is: none may call it the mean over every operation
// (failed included), which is not what the code computes (the test
// above). The departures said so of S1 and S2.
func TestNoTextCallsTheAverageEveryOperations(t *testing.T) {
	wrong := regexp.MustCompile(`(?i)all-operation|(mean|average)( latency)? (over|of) (every|all)( the cell's)? (operations?|quer(y|ies))\b|all operations' average`)
	var files []string
	for _, glob := range []string{"../plans/*.yaml", "../docs/*.md", "../docs/studies/*.md", "../*.md", "*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("only %d files found: %q", len(files), files)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if m := wrong.FindString(line); m != "" {
				t.Errorf("%s:%d says %q: the average latency is over the successful operations", f, i+1, m)
			}
		}
	}
}
