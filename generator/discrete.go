package generator

import (
	"errors"
	"math/rand/v2"
)

// Discrete picks one of a few values with given weights (YCSB's
// DiscreteGenerator). Weights need not sum to one; they are normalised once.
// Values are tried in the order they were added, as YCSB does.
type Discrete struct {
	values []int64
	cum    []float64 // cumulative normalised weights
}

// NewDiscrete builds a chooser; values with weight <= 0 are left out.
func NewDiscrete(values []int64, weights []float64) (*Discrete, error) {
	var total float64
	for _, w := range weights {
		if w > 0 {
			total += w
		}
	}
	if total <= 0 {
		return nil, errors.New("no value has a positive weight")
	}
	d := &Discrete{}
	var acc float64
	for i, w := range weights {
		if w <= 0 {
			continue
		}
		acc += w / total
		d.values = append(d.values, values[i])
		d.cum = append(d.cum, acc)
	}
	return d, nil
}

// Next returns one of the values.
func (d *Discrete) Next(r *rand.Rand) int64 {
	u := r.Float64()
	for i, c := range d.cum {
		if u < c {
			return d.values[i]
		}
	}
	return d.values[len(d.values)-1] // rounding left u just above the last sum
}
