package engine

import (
	"context"
	"strings"
	"testing"

	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/stats"
)

// A run with until.throughput stops once its throughput's interval, from
// batch means of its intervals, is within the bound: a run held to its
// target rate is sure long before its time limit. One bounded by an
// impossible throughput (0.001% of the mean, service times drawn at
// random) runs to its limit and says it did not get there, each
// operation's p99 interval said.
func TestUntilStopsARunWhenItsFiguresAreSure(t *testing.T) {
	t.Parallel()
	s, err := Check(specOf(t, "operationcount", "0", "maxexecutiontime", "60", "target", "2000", "threadcount", "2",
		"timeseries.interval", "0.05", "until.throughput", "2"))
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Execute(context.Background(), Writers{})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Doc()
	if d.Stop != result.Settled || d.Until == nil || !d.Until.Met || d.Until.Batches < 10 || d.Until.ThroughputPct > 2 || d.Until.ThroughputBoundPct != 2 {
		t.Fatalf("stop %q, until %+v: want until, met within ±2%% over 10 batches or more", d.Stop, d.Until)
	}
	if !d.Stop.Finished() || d.RuntimeMs >= 60_000 {
		t.Errorf("stop %q after %.0f ms", d.Stop, d.RuntimeMs)
	}
	if !strings.Contains(strings.Join(res.Summary(), "\n"), "until: stopped after") {
		t.Errorf("summary: %q", res.Summary())
	}

	s, err = Check(specOf(t, "operationcount", "0", "maxexecutiontime", "2", "threadcount", "2", "basicdb.simulatedelay", "3",
		"timeseries.interval", "0.05", "until.throughput", "0.001", "until.p99", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if res, err = s.Execute(context.Background(), Writers{}); err != nil {
		t.Fatal(err)
	}
	d = res.Doc()
	// Each operation's p99 interval is said once there were batches
	// enough (a busy machine's late ticks make fewer intervals).
	if d.Stop != result.TimeLimit || d.Until == nil || d.Until.Met || (d.Until.Batches >= stats.MinBatches) != (len(d.Until.P99Pct) > 0) {
		t.Fatalf("stop %q, until %+v: want the time limit, not met, each operation's p99 interval said with %d batches or more", d.Stop, d.Until, stats.MinBatches)
	}
	if !strings.Contains(strings.Join(res.Summary(), "\n"), "before its figures were within their bounds") {
		t.Errorf("summary: %q", res.Summary())
	}
}

// until is refused without a longest run, and until.min without a bound.
func TestUntilRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ kv []string }{
		{[]string{"operationcount", "0", "until.throughput", "2"}},
		{[]string{"maxexecutiontime", "5", "until.min", "3"}},
		{[]string{"maxexecutiontime", "5", "until.p99", "200"}},
		{[]string{"maxexecutiontime", "5", "until.p99", "5", "until.min", "10"}},
		{[]string{"maxexecutiontime", "5", "until.p99", "0.5"}},
	} {
		if _, err := Check(specOf(t, c.kv...)); err == nil || !strings.Contains(err.Error(), "until.") {
			t.Errorf("%v: %v", c.kv, err)
		}
	}
	load := specOf(t, "until.throughput", "2")
	load.Phase = LoadPhase
	if _, err := Check(load); err == nil || !strings.Contains(err.Error(), "a load ends when its records are in") {
		t.Errorf("a load with until: %v", err)
	}
}
