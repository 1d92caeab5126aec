package engine

import (
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// Each stage is measured from the intervals whose middle falls in it,
// shifted by the warmup: operations, throughput over the intervals'
// time, each operation's count and p99 from their histograms merged.
func TestStageResults(t *testing.T) {
	var pts []result.Point
	for i := range 6 {
		h := hdr.New(1, 3_600_000_000_000, 3)
		for range 100 * (i + 1) {
			h.RecordValue(int64(1000 * (i + 1))) // interval i: 100·(i+1) reads of (i+1) µs
		}
		pt := result.Point{StartS: float64(i), EndS: float64(i + 1), Operations: h.TotalCount(), Ops: result.PointOps{}}
		op := result.PointOp{Count: h.TotalCount()}
		op.SetServiceTime(h)
		pt.Ops.Set("READ", op)
		pts = append(pts, pt)
	}
	stages := []runner.Stage{{Duration: 3 * time.Second, Rate: 100}, {Duration: 2 * time.Second, Rate: 500}, {Duration: 2 * time.Second, Rate: 50, Step: true}}
	got := stageResults(stages, time.Second, pts) // the first second was warmup: the stages start at -1 s
	want := []struct {
		start, end float64
		from, to   float64
		ops        int64
		p99        float64
	}{{0, 2, 100, 100, 300, 2}, {2, 4, 100, 500, 700, 4}, {4, 6, 50, 50, 1100, 6}}
	if len(got) != len(want) {
		t.Fatalf("%d stages: %+v", len(got), got)
	}
	for i, w := range want {
		g := got[i]
		if g.StartS != w.start || g.EndS != w.end || g.FromRate != w.from || g.ToRate != w.to || g.Operations != w.ops ||
			g.Throughput != float64(w.ops)/2 || g.Ops["READ"].Count != w.ops || g.Ops["READ"].P99Us < w.p99*0.99 || g.Ops["READ"].P99Us > w.p99*1.01 {
			t.Errorf("stage %d: %+v, want %+v", i+1, g, w)
		}
	}
}
