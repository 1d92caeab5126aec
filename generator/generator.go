// Package generator implements YCSB's number generators with YCSB's exact
// arithmetic. A Generator holds only configuration (and, for the counters,
// shared atomic state); the randomness comes from the caller's *rand.Rand,
// so each client thread draws from its own source and no draw takes a lock.
package generator

import "math/rand/v2"

// Generator draws the next value of a distribution.
type Generator interface {
	Next(r *rand.Rand) int64
}

// Func adapts a function to Generator.
type Func func(r *rand.Rand) int64

// Next calls f(r).
func (f Func) Next(r *rand.Rand) int64 { return f(r) }

// Constant always returns the same value.
type Constant int64

// Next returns c.
func (c Constant) Next(*rand.Rand) int64 { return int64(c) }
