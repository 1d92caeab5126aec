package generator

import "math/rand/v2"

// YCSB's ScrambledZipfianGenerator constants: a zipfian over 10^10 items
// whose ζ is precomputed, so no construction ever sums 10^10 terms.
const (
	ScrambledItemCount = 10_000_000_000
	ScrambledZetan     = 26.46902820178302
)

// ScrambledZipfian spreads zipfian popularity over [lo, hi]: it draws a rank
// from a zipfian over 10^10+1 items and returns lo + fnv(rank) mod n. The
// popular items are therefore scattered over the range instead of packed at
// its low end. Because the 10^10 ranks are folded onto n items, this is not
// an exact Zipf over n (YCSB issue #1495); it is what YCSB measures.
type ScrambledZipfian struct {
	lo, n int64
	z     *Zipfian
}

// NewScrambledZipfian returns YCSB's generator over [lo, hi] with θ=0.99.
func NewScrambledZipfian(lo, hi int64) *ScrambledZipfian {
	return &ScrambledZipfian{
		lo: lo,
		n:  hi - lo + 1,
		z:  NewZipfianZeta(0, ScrambledItemCount, ZipfianConstant, ScrambledZetan),
	}
}

// Next returns a value in [lo, hi].
func (s *ScrambledZipfian) Next(r *rand.Rand) int64 {
	return s.lo + FNVHash64(s.z.Next(r))%s.n
}
