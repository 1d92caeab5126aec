// Package stats holds the statistics servbench's figures are judged by:
// a mean with its 95% confidence interval over repetitions (Summarize),
// Welch's interval for a difference of two means, Student's t quantiles,
// and batch means, which give an interval from one run's autocorrelated
// intervals. Pure functions; nothing here measures.
package stats

import "math"

// Stat summarizes one measure over samples: a cell's repetitions, or a
// run's batches of intervals.
type Stat struct {
	N    int
	Mean float64
	SD   float64 // sample standard deviation (n − 1)
	// CI is the half-width of the 95% confidence interval of the mean,
	// t(0.975, n−1) · SD / √n; 0 with fewer than two repetitions.
	CI float64
}

// Summarize returns the mean, spread and confidence interval of xs.
func Summarize(xs []float64) Stat {
	s := Stat{N: len(xs)}
	if s.N == 0 {
		return s
	}
	for _, x := range xs {
		s.Mean += x
	}
	s.Mean /= float64(s.N)
	if s.N < 2 {
		return s
	}
	var ss float64
	for _, x := range xs {
		ss += (x - s.Mean) * (x - s.Mean)
	}
	s.SD = math.Sqrt(ss / float64(s.N-1))
	s.CI = StudentT(0.975, float64(s.N-1)) * s.SD / math.Sqrt(float64(s.N))
	return s
}

// Welch is the difference of means b − a with the half-width of its 95%
// confidence interval, by Welch's t-interval (unequal variances): the
// standard error is √(sa²/na + sb²/nb) and the degrees of freedom
// Welch–Satterthwaite's
//
//	ν = (va + vb)² / (va²/(na−1) + vb²/(nb−1)),  va = sa²/na, vb = sb²/nb.
//
// ok is false when either side has fewer than two repetitions (no
// uncertainty can be given).
func Welch(a, b Stat) (diff, ci float64, ok bool) {
	diff = b.Mean - a.Mean
	if a.N < 2 || b.N < 2 {
		return diff, 0, false
	}
	va, vb := a.SD*a.SD/float64(a.N), b.SD*b.SD/float64(b.N)
	se := math.Sqrt(va + vb)
	if se == 0 {
		return diff, 0, true
	}
	df := (va + vb) * (va + vb) / (va*va/float64(a.N-1) + vb*vb/float64(b.N-1))
	return diff, StudentT(0.975, df) * se, true
}

// StudentT is the p-quantile of Student's t distribution with df degrees
// of freedom (df may be fractional), for p in (0.5, 1): the t where the
// distribution function
//
//	F(t) = 1 − ½ · I_{df/(df+t²)}(df/2, ½)
//
// reaches p, I being the regularized incomplete beta function. F rises
// monotonically, so bisection finds t.
func StudentT(p, df float64) float64 {
	lo, hi := 0.0, 1.0
	for cdfT(hi, df) < p {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if cdfT(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
		if hi-lo < 1e-12*hi {
			break
		}
	}
	return (lo + hi) / 2
}

func cdfT(t, df float64) float64 {
	return 1 - 0.5*incBeta(df/2, 0.5, df/(df+t*t))
}

// incBeta is the regularized incomplete beta function I_x(a, b), from its
// continued fraction (modified Lentz), using the symmetry
// I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges slowly.
func incBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x > (a+1)/(a+b+2) {
		return 1 - front*betaFraction(b, a, 1-x)/b
	}
	return front * betaFraction(a, b, x) / a
}

func betaFraction(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	f := d
	// step applies one term a_k of the fraction to Lentz's C and D and
	// returns the factor it multiplies f by.
	step := func(num float64) float64 {
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		// even term: m(b−m)x / ((a+2m−1)(a+2m))
		f *= step(fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)))
		// odd term: −(a+m)(a+b+m)x / ((a+2m)(a+2m+1))
		delta := step(-(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1)))
		f *= delta
		if math.Abs(delta-1) < 1e-15 {
			break
		}
	}
	return f
}

// Batch means: one run's successive intervals are not independent (a
// slow second is followed by a slow one), so their spread understates the
// uncertainty of their mean. Cut into consecutive batches long enough,
// the batches' means are nearly independent, and their Summarize is the
// run's interval.
const (
	// MinBatches is the fewest batches an interval is given from.
	MinBatches = 10
	// MaxBatches bounds the batches: with more intervals the batches grow.
	MaxBatches = 30
)

// BatchMeans summarizes xs, a run's successive interval values, by the
// means of b consecutive batches of k values each: b = √n within
// [MinBatches, MaxBatches], k = n / b, the first n − b·k values (those
// nearest the warmup) left out. ok is false with fewer than 2·MinBatches
// values: batches of one interval would be the intervals themselves.
func BatchMeans(xs []float64) (s Stat, ok bool) {
	n := len(xs)
	if n < 2*MinBatches {
		return Summarize(xs), false
	}
	b := min(max(int(math.Sqrt(float64(n))), MinBatches), MaxBatches)
	k := n / b
	xs = xs[n-b*k:]
	means := make([]float64, b)
	for i := range means {
		var sum float64
		for _, x := range xs[i*k : (i+1)*k] {
			sum += x
		}
		means[i] = sum / float64(k)
	}
	return Summarize(means), true
}
