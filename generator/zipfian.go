package generator

import (
	"context"
	"math"
	"math/rand/v2"
)

// ZipfianConstant is YCSB's default skew θ.
const ZipfianConstant = 0.99

// Zipfian draws from [Base, Base+items) so that rank i (0 = Base, the most
// popular) has probability about 1/((i+1)^θ · ζ(n,θ)), using the algorithm
// of Gray et al., "Quickly Generating Billion-Record Synthetic Databases"
// (SIGMOD 1994), exactly as YCSB's ZipfianGenerator does.
//
// With ζ(n,θ) = Σ_{i=1..n} i^-θ, α = 1/(1-θ) and
// η = (1 - (2/n)^(1-θ)) / (1 - ζ(2,θ)/ζ(n,θ)), a uniform U in [0,1) maps to
//
//	0                               if U·ζ(n) < 1
//	1                               if U·ζ(n) < 1 + 2^-θ
//	floor(n · (ηU - η + 1)^α)       otherwise.
//
// The first two ranks are exact; the rest follow the continuous
// approximation of the Zipf CDF.
//
// A Zipfian is not safe for concurrent use when NextN grows the item count
// (the skewed-latest case); give each thread its own Clone.
type Zipfian struct {
	items        int64 // item count given at construction
	base         int64
	theta        float64
	zeta2theta   float64
	alpha        float64
	zetan        float64
	eta          float64
	countForZeta int64
	second       float64 // 1 + 0.5^θ: where rank 1's slice of U·ζ ends
	// α split as m + frac, m a whole number, when frac is only the
	// rounding of 1/(1-θ) (YCSB's θ = 0.99 gives α = 100 - 9·10^-14): x^α
	// is then x^m by squaring, corrected by frac (see pow).
	whole uint
	frac  float64
}

// NewZipfian returns a generator over [min, max] with skew θ, computing
// ζ(n,θ) (O(n): about a second per 10^8 items).
func NewZipfian(min, max int64, theta float64) *Zipfian {
	return NewZipfianZeta(min, max, theta, Zeta(0, max-min+1, theta, 0))
}

// NewZipfianZeta is NewZipfian with ζ(n,θ) given.
func NewZipfianZeta(min, max int64, theta, zetan float64) *Zipfian {
	z := &Zipfian{
		items:        max - min + 1,
		base:         min,
		theta:        theta,
		zeta2theta:   Zeta(0, 2, theta, 0),
		alpha:        1 / (1 - theta),
		zetan:        zetan,
		countForZeta: max - min + 1,
		second:       1 + math.Pow(0.5, theta),
	}
	z.eta = z.etaFor(z.items)
	if m := math.Round(z.alpha); m >= 1 && m <= 1<<10 && math.Abs(z.alpha-m) < 1e-12 {
		z.whole, z.frac = uint(m), z.alpha-m
	}
	return z
}

// pow returns x^α for x in (0, 1]. With α a whole number m plus a rounding
// remainder f, it is x^m by repeated squaring times 1 + f·ln x, ln x taken
// as 2(x-1)/(x+1) (f·ln x is below 10^-11, so its own error is below
// rounding where n·x^α reaches 1): within a few units in the last place of
// math.Pow (TestZipfianPow), and about ten times faster; math.Pow was most of
// a draw's cost.
func (z *Zipfian) pow(x float64) float64 {
	if z.whole == 0 {
		return math.Pow(x, z.alpha)
	}
	p := 1.0
	for m, b := z.whole, x; m > 0; m >>= 1 {
		if m&1 != 0 {
			p *= b
		}
		b *= b
	}
	if z.frac != 0 {
		p *= 1 + z.frac*2*(x-1)/(x+1)
	}
	return p
}

func (z *Zipfian) etaFor(items int64) float64 {
	return (1 - math.Pow(2/float64(items), 1-z.theta)) / (1 - z.zeta2theta/z.zetan)
}

// Zeta extends a partial sum: initial + Σ_{i=from+1..to} i^-θ.
// Zeta(0, n, θ, 0) is ζ(n,θ).
func Zeta(from, to int64, theta, initial float64) float64 {
	sum, _ := ZetaContext(context.Background(), from, to, theta, initial)
	return sum
}

// ZetaContext is Zeta that stops, returning ctx's error, when ctx ends:
// ζ over 10^9 items takes about ten seconds. The sum is the same, term by
// term in the same order.
func ZetaContext(ctx context.Context, from, to int64, theta, initial float64) (float64, error) {
	sum := initial
	for i := from; i < to; i++ {
		if (i-from)&(1<<20-1) == 0 && ctx.Err() != nil {
			return 0, ctx.Err()
		}
		sum += 1 / math.Pow(float64(i+1), theta)
	}
	return sum, nil
}

// Clone returns an independent copy (for per-thread use with NextN).
func (z *Zipfian) Clone() *Zipfian { c := *z; return &c }

// Items returns the item count. Zetan returns ζ(n,θ); Eta returns η.
func (z *Zipfian) Items() int64 { return z.items }

// Zetan returns ζ(n,θ) for the current item count.
func (z *Zipfian) Zetan() float64 { return z.zetan }

// Eta returns η.
func (z *Zipfian) Eta() float64 { return z.eta }

// Next draws over the construction item count.
func (z *Zipfian) Next(r *rand.Rand) int64 { return z.NextN(r, z.items) }

// NextN draws over itemCount items. When itemCount grew since the last
// call, ζ is extended incrementally; a smaller count keeps the larger ζ.
// Like YCSB, η is recomputed from the construction item count.
func (z *Zipfian) NextN(r *rand.Rand, itemCount int64) int64 {
	if itemCount > z.countForZeta {
		z.zetan = Zeta(z.countForZeta, itemCount, z.theta, z.zetan)
		z.countForZeta = itemCount
		z.eta = z.etaFor(z.items)
	}
	u := r.Float64()
	uz := u * z.zetan
	if uz < 1 {
		return z.base
	}
	if uz < z.second {
		return z.base + 1
	}
	return z.base + int64(float64(itemCount)*z.pow(z.eta*u-z.eta+1))
}
