package stats

import (
	"math"
	"testing"
)

// Quantiles from the t table (two-sided 95%).
func TestStudentT(t *testing.T) {
	for _, tc := range []struct{ df, want float64 }{
		{1, 12.706}, {2, 4.303}, {3, 3.182}, {5, 2.571}, {10, 2.228}, {30, 2.042}, {1000, 1.962},
	} {
		if got := StudentT(0.975, tc.df); math.Abs(got-tc.want) > 0.001 {
			t.Errorf("t(0.975, %v) = %.4f, want %.3f", tc.df, got, tc.want)
		}
	}
	if got := StudentT(0.95, 4); math.Abs(got-2.132) > 0.001 {
		t.Errorf("t(0.95, 4) = %.4f", got)
	}
}

func TestSummarizeAndWelch(t *testing.T) {
	s := Summarize([]float64{10, 12, 14})
	// mean 12, sd 2, CI = 4.303 · 2 / √3 = 4.969
	if s.N != 3 || s.Mean != 12 || math.Abs(s.SD-2) > 1e-12 || math.Abs(s.CI-4.969) > 0.001 {
		t.Errorf("%+v", s)
	}
	if one := Summarize([]float64{7}); one.CI != 0 || one.Mean != 7 {
		t.Errorf("one value: %+v", one)
	}
	// Equal sizes and spreads: ν = 2(n−1) = 4, se = √(4/3 + 4/3).
	d, ci, ok := Welch(s, Summarize([]float64{20, 22, 24}))
	if !ok || d != 10 || math.Abs(ci-2.776*math.Sqrt(8.0/3)) > 0.002 {
		t.Errorf("welch %v ± %v %v", d, ci, ok)
	}
	if _, _, ok := Welch(s, Summarize([]float64{1})); ok {
		t.Error("one repetition has no interval")
	}
}

// Batch means give an interval that holds an autocorrelated series' mean
// where the intervals' own spread, taken as independent, is too narrow;
// too few values give none.
func TestBatchMeans(t *testing.T) {
	if _, ok := BatchMeans(make([]float64, 2*MinBatches-1)); ok {
		t.Error("too few intervals gave batches")
	}
	// An AR(1) series (each value 0.9 of the one before plus noise) around
	// 100: its values' naive interval is narrower than its batches'.
	x, seed := 0.0, uint64(7)
	noise := func() float64 { // a small LCG: deterministic, no import
		seed = seed*6364136223846793005 + 1442695040888963407
		return float64(seed>>11)/float64(1<<53) - 0.5
	}
	xs := make([]float64, 900)
	for i := range xs {
		x = 0.9*x + noise()
		xs[i] = 100 + x
	}
	naive := Summarize(xs)
	s, ok := BatchMeans(xs)
	if !ok || s.N != MaxBatches {
		t.Fatalf("900 intervals: %d batches (ok %v), want %d", s.N, ok, MaxBatches)
	}
	if s.CI <= 2*naive.CI {
		t.Errorf("batch means' interval ±%.4f is not wider than the naive ±%.4f: the autocorrelation is not taken", s.CI, naive.CI)
	}
	if math.Abs(s.Mean-100) > 3*s.CI/2 || math.Abs(s.Mean-naive.Mean) > 1e-9+math.Abs(naive.Mean)*0.01 {
		t.Errorf("mean %.3f ± %.3f: want about 100", s.Mean, s.CI)
	}
	s, _ = BatchMeans(xs[:40]) // 40 values: 10 batches of 4
	if s.N != MinBatches {
		t.Errorf("40 intervals: %d batches, want %d", s.N, MinBatches)
	}
}
