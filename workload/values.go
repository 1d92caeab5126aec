package workload

import (
	"math/rand/v2"
	"slices"
	"strconv"
)

// appendRandomValue appends n bytes the way YCSB's RandomByteIterator makes
// them: each 32-bit random number yields six printable bytes, byte i being
// ' ' + ((bits >> 5i) & mask_i) with masks 31, 63, 95, 31, 63, 95. Both
// halves of a 64-bit draw serve, one group of six each.
func appendRandomValue(dst []byte, n int, r *rand.Rand) []byte {
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	b := dst[start:]
	for len(b) >= 12 {
		bits := r.Uint64()
		putSix(b[:6], uint32(bits))
		putSix(b[6:12], uint32(bits>>32))
		b = b[12:]
	}
	for len(b) > 0 {
		bits := r.Uint32()
		k := min(len(b), 6)
		for i := 0; i < k; i++ {
			b[i] = byte((bits>>(5*i))&randMasks[i]) + ' '
		}
		b = b[k:]
	}
	return dst
}

func putSix(b []byte, bits uint32) {
	_ = b[5]
	b[0] = byte(bits&31) + ' '
	b[1] = byte(bits>>5&63) + ' '
	b[2] = byte(bits>>10&95) + ' '
	b[3] = byte(bits>>15&31) + ' '
	b[4] = byte(bits>>20&63) + ' '
	b[5] = byte(bits>>25&95) + ' '
}

var randMasks = [6]uint32{31, 63, 95, 31, 63, 95}

// AppendDeterministicValue appends YCSB's data-integrity value for a field
// (CoreWorkload.buildDeterministicValue): start from "key:field", then
// while shorter than size append ':' and then the Java String.hashCode of
// everything so far, that ':' included (signed decimal); finally cut to
// size bytes.
//
// Java's hashCode is h = 31·h + c over the characters, so it is kept
// running as bytes are appended instead of being recomputed.
func AppendDeterministicValue(dst []byte, key, field string, size int) []byte {
	start := len(dst)
	var h int32
	add := func(b []byte) {
		for _, c := range b {
			h = 31*h + int32(c)
		}
	}
	dst = append(dst, key...)
	dst = append(dst, ':')
	dst = append(dst, field...)
	add(dst[start:])
	for len(dst)-start < size {
		dst = append(dst, ':')
		h = 31*h + ':'
		from := len(dst)
		dst = strconv.AppendInt(dst, int64(h), 10)
		add(dst[from:])
	}
	return dst[:start+size]
}
