package generator

// FNVHash64 is YCSB's Utils.fnvhash64: 64-bit FNV-1a over the eight bytes
// of v, least significant byte first, returned as Java's Math.abs of the
// signed result (math.MinInt64 stays negative, as in Java).
func FNVHash64(v int64) int64 {
	const (
		offset = 0xCBF29CE484222325
		prime  = 1099511628211
	)
	h := uint64(offset)
	u := uint64(v)
	for i := 0; i < 8; i++ {
		h ^= u & 0xff
		h *= prime
		u >>= 8
	}
	s := int64(h)
	if s < 0 {
		s = -s
	}
	return s
}
