package generator

import (
	"math/rand/v2"
	"sync/atomic"
)

// Sequential cycles through [Lo, Hi] in order, shared by all threads, and
// wraps around (YCSB's SequentialGenerator).
type Sequential struct {
	Lo, Hi int64
	n      atomic.Int64
}

// NewSequential returns a generator over [lo, hi].
func NewSequential(lo, hi int64) *Sequential { return &Sequential{Lo: lo, Hi: hi} }

// Next returns Lo + (k mod (Hi-Lo+1)) for the k-th call overall.
func (s *Sequential) Next(*rand.Rand) int64 {
	return s.Lo + (s.n.Add(1)-1)%(s.Hi-s.Lo+1)
}
