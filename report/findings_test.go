package report

import (
	"github.com/servbench/servbench/stats"
	"math"
	"strings"
	"testing"
)

// The findings say what the intervals allow: a lead only when Welch's
// interval of the difference excludes zero, "not distinguishable" when it
// does not, nothing without repetitions; and they name the cells too noisy
// to rank.
func TestFindingsSayWhatTheIntervalsAllow(t *testing.T) {
	cell := func(dep string, n int, mean, sd float64) *Group {
		st := stats.Summarize(nil)
		st.N, st.Mean, st.SD = n, mean, sd
		if n >= 2 {
			st.CI = stats.StudentT(0.975, float64(n-1)) * sd / math.Sqrt(float64(n))
		}
		return &Group{Key: Key{Deployment: dep, Workload: "a", Threads: 16}, Throughput: st}
	}
	for _, c := range []struct {
		a, b *Group
		want string
	}{
		{cell("redis", 3, 10000, 100), cell("pebble", 3, 5000, 100), "redis leads pebble by 5,000 ± "},
		{cell("redis-3", 2, 34958, 2047), cell("redis-1", 2, 30000, 2500), "redis-3 is not distinguishable from redis-1 at 2 repetitions"},
		{cell("redis", 1, 10000, 0), cell("pebble", 1, 5000, 0), "With 1 repetition, redis and pebble cannot be told apart"},
	} {
		if got := compareTop(c.a, c.b); !strings.Contains(got, c.want) {
			t.Errorf("%q, want %q", got, c.want)
		}
	}
	s := &Set{Groups: []*Group{cell("firm", 3, 10000, 100), cell("wobbly", 2, 10000, 500), cell("once", 1, 10000, 0)}}
	got := strings.Join(s.noise(), "\n")
	if !strings.Contains(got, "1 of 3 cells ran once") || !strings.Contains(got, "Too noisy to rank: 1 of 3 cells") ||
		!strings.Contains(got, "wobbly a t16 (± 45%)") || strings.Contains(got, "firm") {
		t.Errorf("noise:\n%s", got)
	}
	if !s.Groups[1].noisy() || s.Groups[0].noisy() || s.Groups[2].noisy() {
		t.Error("noisy marks the wrong cells")
	}
}
