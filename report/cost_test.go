package report

import (
	"github.com/servbench/servbench/stats"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/result"
)

// The cost of a billion operations is shown both ways: attempted (every
// operation, failed included: what the price buys at the measured
// throughput) and successful (a failed operation is paid for but does no
// work). At 1,000 ops/s and $3.60 an hour a billion attempted operations
// cost $1,000; with a quarter of them failed, a billion successful ones
// cost $1,333.33. The cost used to divide by every operation only.
func TestCostPerBillionSuccessful(t *testing.T) {
	g := &Group{Key: Key{Deployment: "d", Workload: "a", Records: 10, Threads: 1}, Price: 3.6}
	for range 2 {
		g.Runs = append(g.Runs, &Run{Doc: &result.Doc{Throughput: 1000, Operations: 4000, OKOperations: 3000}})
	}
	g.summarize()
	if math.Abs(g.Cost-1000) > 1e-9 || math.Abs(g.CostSuccessful-4000.0/3) > 1e-9 {
		t.Fatalf("cost per billion attempted %v (want 1000), successful %v (want 1333.33)", g.Cost, g.CostSuccessful)
	}
	s := &Set{Groups: []*Group{g}}
	sec, ok := s.cost()
	if !ok || len(sec.Tables) == 0 {
		t.Fatal("no cost section")
	}
	tb := sec.Tables[0]
	a, b := slices.Index(tb.Header, "cost per 10⁹ attempted ops"), slices.Index(tb.Header, "cost per 10⁹ successful ops")
	if a < 0 || b != a+1 || tb.Rows[0][a] != "1000.00" || tb.Rows[0][b] != "1333.33" {
		t.Errorf("cost table %q %q", tb.Header, tb.Rows)
	}

	// None succeeded: no billion successful operations at any price.
	g.Runs = []*Run{{Doc: &result.Doc{Throughput: 1000, Operations: 4000}}}
	g.summarize()
	if sec, _ := s.cost(); sec.Tables[0].Rows[0][b] != "none succeeded" {
		t.Errorf("none succeeded: %q", sec.Tables[0].Rows[0])
	}
}

// A published latency the study says was exceeded ("exceeding 5 seconds",
// S1's Redis Pagination) is shown as a bound, > 5000, and is never drawn
// as a mean beside the measured cell; it could not be written before.
func TestPublishedLatencyAbove(t *testing.T) {
	refs, err := plan.ParseReference([]byte("system,workload,threads,nodes,throughput,latency_ms,latency,source\nRedis,pagination,400,18,170,5000,above,s:525\n"), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	s := &Set{Reference: refs}
	sec, ok := s.referenceSection()
	if !ok || len(sec.Tables) == 0 || len(sec.Tables[0].Rows) != 1 || sec.Tables[0].Rows[0][6] != "> 5000" {
		t.Fatalf("reference section %+v", sec.Tables)
	}
	if _, lat := s.published("Redis", "pagination", 18, 400); !math.IsNaN(lat) {
		t.Errorf("a bound exceeded drawn as a mean latency: %v", lat)
	}
}

// A runtime cell whose runs had failed operations says their share: a
// failed operation may end sooner than it would have succeeded (S3's
// runtimes counted timeouts unsaid).
func TestRuntimeCellSaysFailures(t *testing.T) {
	gs := []*Group{
		{Key: Key{Deployment: "d", Workload: "a", Records: 100, Threads: 1}, Runtime: stats.Stat{Mean: 12.5, N: 1}, FailedPct: stats.Stat{Mean: 2.5, N: 1}},
		{Key: Key{Deployment: "d", Workload: "c", Records: 100, Threads: 1}, Runtime: stats.Stat{Mean: 3, N: 1}},
	}
	tb := newRuntimeMatrix(gs).table("d", 1)
	if tb == nil || len(tb.Rows) != 3 || !strings.HasSuffix(tb.Rows[0][1], "(2.50% failed)") || strings.Contains(tb.Rows[1][1], "failed") {
		t.Errorf("runtime table %+v", tb)
	}
}
