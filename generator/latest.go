package generator

import (
	"context"
	"math/rand/v2"
)

// Limiter reports the highest value readers may use: the last acknowledged
// insert.
type Limiter interface{ Last() int64 }

// SkewedLatest favours the most recent values of basis (YCSB's
// SkewedLatestGenerator): it returns last - Z where Z is zipfian over
// [0, last), so last is the most popular and 0 is never returned.
// It keeps a zipfian whose ζ grows with basis; use one per thread.
type SkewedLatest struct {
	basis Limiter
	z     *Zipfian
}

// NewSkewedLatest builds the generator; z must be a zipfian over
// [0, basis.Last()) (see NewSkewedLatestZipfian), typically a Clone of a
// shared one so ζ is summed once.
func NewSkewedLatest(basis Limiter, z *Zipfian) *SkewedLatest {
	return &SkewedLatest{basis: basis, z: z}
}

// NewSkewedLatestZipfian returns the zipfian SkewedLatest needs for a
// basis whose last value is last.
func NewSkewedLatestZipfian(last int64) *Zipfian {
	z, _ := NewSkewedLatestZipfianContext(context.Background(), last)
	return z
}

// NewSkewedLatestZipfianContext is NewSkewedLatestZipfian that stops,
// returning ctx's error, when ctx ends while ζ is summed.
func NewSkewedLatestZipfianContext(ctx context.Context, last int64) (*Zipfian, error) {
	if last < 1 {
		last = 1
	}
	zetan, err := ZetaContext(ctx, 0, last, ZipfianConstant, 0)
	if err != nil {
		return nil, err
	}
	return NewZipfianZeta(0, last-1, ZipfianConstant, zetan), nil
}

// Next returns a value in [1, last].
func (s *SkewedLatest) Next(r *rand.Rand) int64 {
	max := s.basis.Last()
	return max - s.z.NextN(r, max)
}
