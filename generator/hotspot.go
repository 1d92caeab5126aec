package generator

import "math/rand/v2"

// Hotspot sends HotOpnFraction of the draws to the lowest HotSetFraction of
// [lo, hi] and the rest to the remainder, uniformly within each part (YCSB's
// HotspotIntegerGenerator).
type Hotspot struct {
	lo, hot, cold int64
	opn           float64
}

// NewHotspot mirrors YCSB: fractions outside [0, 1] become 0 and reversed
// bounds are swapped.
func NewHotspot(lo, hi int64, hotSetFraction, hotOpnFraction float64) Hotspot {
	if hotSetFraction < 0 || hotSetFraction > 1 {
		hotSetFraction = 0
	}
	if hotOpnFraction < 0 || hotOpnFraction > 1 {
		hotOpnFraction = 0
	}
	if lo > hi {
		lo, hi = hi, lo
	}
	n := hi - lo + 1
	hot := int64(float64(n) * hotSetFraction)
	return Hotspot{lo: lo, hot: hot, cold: n - hot, opn: hotOpnFraction}
}

// Next returns a value in [lo, hi].
func (h Hotspot) Next(r *rand.Rand) int64 {
	if h.cold == 0 || (h.hot > 0 && r.Float64() < h.opn) {
		return h.lo + r.Int64N(h.hot)
	}
	return h.lo + h.hot + r.Int64N(h.cold)
}
