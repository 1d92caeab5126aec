package report

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servbench/servbench/plan"
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

// A reference file that cannot be read (larger than a plan's file may be:
// /dev/zero linked there) is refused naming it.
func TestReferenceNamedWhenRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, plan.ReferenceFile)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(plan.MaxFileBytes + 1)
	f.Close()
	err = (&Set{}).readReference(dir)
	if err == nil || !strings.HasPrefix(err.Error(), "reference "+path+": too large") {
		t.Errorf("%v", err)
	}
}
