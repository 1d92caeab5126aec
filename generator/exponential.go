package generator

import (
	"math"
	"math/rand/v2"
)

// Exponential draws from an exponential distribution whose given percentile
// lies at range (YCSB's ExponentialGenerator(percentile, range)).
//
// For X ~ Exp(γ), P(X < x) = 1 - e^{-γx}. Asking that percentile/100 of the
// mass lie below range gives γ = -ln(1 - percentile/100) / range. A draw is
// the inverse CDF of a uniform U: X = -ln(U)/γ, truncated to a whole number.
type Exponential struct{ gamma float64 }

// NewExponential returns the generator for (percentile, rng).
func NewExponential(percentile, rng float64) Exponential {
	return Exponential{gamma: -math.Log(1-percentile/100) / rng}
}

// Gamma returns the rate parameter γ.
func (e Exponential) Gamma() float64 { return e.gamma }

// Next returns floor(-ln(U)/γ).
func (e Exponential) Next(r *rand.Rand) int64 {
	u := r.Float64()
	for u == 0 {
		u = r.Float64()
	}
	return int64(-math.Log(u) / e.gamma)
}
