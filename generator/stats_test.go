package generator

import (
	"math"
	"math/rand/v2"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 7)) }

// chiSquareCritical approximates the 0.999 quantile of a chi-square
// distribution with k degrees of freedom (Wilson–Hilferty).
func chiSquareCritical(k int) float64 {
	const z = 3.0902 // standard normal 0.999 quantile
	kf := float64(k)
	a := 2 / (9 * kf)
	return kf * math.Pow(1-a+z*math.Sqrt(a), 3)
}

// checkFit draws n values and compares their counts with pmf (value ->
// probability) by Pearson's chi-square test, pooling values whose expected
// count is under 5 into one cell. It fails if the statistic exceeds the
// 0.999 quantile or a drawn value has probability zero.
func checkFit(t *testing.T, name string, n int, draw func() int64, pmf func(int64) float64, lo, hi int64) {
	t.Helper()
	counts := map[int64]int{}
	for i := 0; i < n; i++ {
		v := draw()
		if v < lo || v > hi {
			t.Fatalf("%s: drew %d outside [%d, %d]", name, v, lo, hi)
		}
		counts[v]++
	}
	var stat, pooledExp float64
	pooledObs, cells := 0, 0
	for v := lo; v <= hi; v++ {
		e := pmf(v) * float64(n)
		o := counts[v]
		if e == 0 && o > 0 {
			t.Fatalf("%s: drew %d, which has probability 0", name, v)
		}
		if e < 5 {
			pooledExp += e
			pooledObs += o
			continue
		}
		stat += (float64(o) - e) * (float64(o) - e) / e
		cells++
	}
	if pooledExp >= 5 {
		stat += (float64(pooledObs) - pooledExp) * (float64(pooledObs) - pooledExp) / pooledExp
		cells++
	}
	if cells < 2 {
		t.Fatalf("%s: too few cells for a chi-square test", name)
	}
	if crit := chiSquareCritical(cells - 1); stat > crit {
		t.Errorf("%s: chi-square %.1f > %.1f (%d cells): draws do not follow the distribution", name, stat, crit, cells)
	}
}
