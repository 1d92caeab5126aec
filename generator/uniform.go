package generator

import "math/rand/v2"

// Uniform draws whole numbers uniformly from [Lo, Hi], both inclusive, like
// YCSB's UniformLongGenerator (without its small modulo bias).
type Uniform struct{ Lo, Hi int64 }

// Next returns a value in [Lo, Hi].
func (u Uniform) Next(r *rand.Rand) int64 {
	return u.Lo + r.Int64N(u.Hi-u.Lo+1)
}
