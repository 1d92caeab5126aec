package spread

import (
	"math"
	"testing"
)

func TestShare(t *testing.T) {
	for _, c := range []struct {
		total int64
		n     int
		want  [][2]int64 // start, count per client
	}{
		{10, 1, [][2]int64{{0, 10}}},
		{10, 3, [][2]int64{{0, 4}, {4, 3}, {7, 3}}},
		{10, 4, [][2]int64{{0, 3}, {3, 3}, {6, 2}, {8, 2}}},
		{3, 3, [][2]int64{{0, 1}, {1, 1}, {2, 1}}},
		{0, 2, [][2]int64{{0, 0}, {0, 0}}},
	} {
		for i, w := range c.want {
			if s, n := Share(c.total, i, c.n); s != w[0] || n != w[1] {
				t.Errorf("Share(%d, %d, %d) = %d, %d; want %d, %d", c.total, i, c.n, s, n, w[0], w[1])
			}
		}
	}
}

// The parts add up to the whole, cover the key range without overlap, keep
// every thread's pace, and differ in their seeds.
func TestSplitAddsUp(t *testing.T) {
	whole := Part{Threads: 10, Rate: 1000, OpCount: 1_000_003, WarmupOps: 7, InsertStart: 500, InsertCount: 99_999, Seed: 42}
	for _, n := range []int{1, 2, 3, 4, 7, 10} {
		var threads int
		var rate float64
		var ops, warm int64
		next := whole.InsertStart
		seeds := map[uint64]bool{}
		for i := 0; i < n; i++ {
			p, err := Split(whole, i, n)
			if err != nil {
				t.Fatal(err)
			}
			threads += p.Threads
			rate += p.Rate
			ops += p.OpCount
			warm += p.WarmupOps
			if p.InsertStart != next {
				t.Errorf("n=%d client %d: inserts from %d, want %d", n, i, p.InsertStart, next)
			}
			next = p.InsertStart + p.InsertCount
			if perThread := p.Rate / float64(p.Threads); math.Abs(perThread-100) > 1e-9 {
				t.Errorf("n=%d client %d: %v ops/s per thread, want 100", n, i, perThread)
			}
			seeds[p.Seed] = true
		}
		if threads != 10 || math.Abs(rate-1000) > 1e-6 || ops != whole.OpCount || warm != 7 || next != 500+99_999 || len(seeds) != n {
			t.Errorf("n=%d: %d threads, %v ops/s, %d ops, %d warmup, keys to %d, %d seeds", n, threads, rate, ops, warm, next, len(seeds))
		}
	}
	// One client is the whole run.
	if p, _ := Split(whole, 0, 1); p != (Part{Threads: 10, Rate: 1000, OpCount: 1_000_003, WarmupOps: 7, InsertStart: 500, InsertCount: 99_999, Seed: 42}) {
		t.Errorf("one client: %+v", p)
	}
	// A random seed stays random (each client draws its own).
	if p, _ := Split(Part{Threads: 2, InsertCount: 2}, 1, 2); p.Seed != 0 {
		t.Errorf("seed %d from a random one", p.Seed)
	}
}

func TestSplitRefuses(t *testing.T) {
	whole := Part{Threads: 4, InsertCount: 100}
	for _, c := range []struct{ i, n int }{{0, 0}, {-1, 2}, {2, 2}, {0, 5}} {
		if _, err := Split(whole, c.i, c.n); err == nil {
			t.Errorf("client %d of %d accepted", c.i, c.n)
		}
	}
	if _, err := Split(Part{Threads: 8, InsertCount: 3}, 0, 4); err == nil {
		t.Error("3 keys for 4 clients accepted")
	}
}
