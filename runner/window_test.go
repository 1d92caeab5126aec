package runner

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
)

// windowStore is a store that also takes operations in pipelining windows:
// each window is one call, and its size is kept.
type windowStore struct {
	store
	window int
	sizes  []int
}

func (s *windowStore) Window() int { return s.window }

func (s *windowStore) Pipeline(ctx context.Context, _ string, ops []db.PipelineOp) {
	s.mu.Lock()
	s.sizes = append(s.sizes, len(ops))
	s.mu.Unlock()
	err := s.op(ctx)
	for i := range ops {
		ops[i].Err = err
	}
}

// A window of n operations takes n slots of the schedule: at 200 ops/s on
// one thread, windows of 8 start 40 ms apart, and the last one is cut to
// what is left of the operation count. Warmup runs one operation at a time.
func TestPipelineWindows(t *testing.T) {
	clock := &fakeClock{}
	s := &windowStore{store: store{clock: clock}, window: 8}
	cfg, w := setup(t, false, "threadcount", "1", "target", "200", "operationcount", "20", "warmupoperationcount", "3")
	cfg.Clock = clock
	res, err := Run(context.Background(), cfg, w, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.sizes, []int{8, 8, 4}) {
		t.Errorf("windows of %v, want 8, 8, 4", s.sizes)
	}
	if ops(res) != 20 || res.Total.OpCount(measure.Read) != 20 {
		t.Errorf("%d operations, %d reads measured; want 20", ops(res), res.Total.OpCount(measure.Read))
	}
	// 3 warmup reads alone, then the windows.
	if len(s.starts) != 6 {
		t.Fatalf("%d calls, want 3 reads and 3 windows", len(s.starts))
	}
	for i, want := range []time.Duration{5, 10, 15, 55, 95} {
		if d := time.Duration(s.starts[i+1] - s.starts[0]); d != want*time.Millisecond {
			t.Errorf("call %d started %v after the first, want %v", i+2, d, want*time.Millisecond)
		}
	}
}

// A load ignores the window (records go one at a time, or in batches).
func TestLoadIgnoresWindow(t *testing.T) {
	s := &windowStore{window: 8}
	res := runWith(t, context.Background(), s, true, nil, "threadcount", "2", "recordcount", "100")
	if ops(res) != 100 || len(s.sizes) != 0 {
		t.Errorf("%d records, %d windows; want 100 and none", ops(res), len(s.sizes))
	}
}
