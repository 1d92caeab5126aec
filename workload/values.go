package workload

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"strconv"
)

// appendRandomValue appends n bytes the way YCSB's RandomByteIterator makes
// them: each 32-bit random number yields six printable bytes, byte i being
// ' ' + ((bits >> 5i) & mask_i) with masks 31, 63, 95, 31, 63, 95. Both
// halves of a 64-bit draw serve, one group of six each. The bits come from
// the thread's value source, a wyrand stream (one multiplication per draw,
// inlined: values are most of the random numbers a run draws).
func appendRandomValue(dst []byte, n int, r *valueSource) []byte {
	start := len(dst)
	dst = slices.Grow(dst, n)[:start+n]
	b := dst[start:]
	for len(b) >= 12 {
		bits := r.next()
		lo, hi := six(uint32(bits)), six(uint32(bits>>32))
		binary.LittleEndian.PutUint64(b, lo|hi<<48)
		binary.LittleEndian.PutUint32(b[8:], uint32(hi>>16))
		b = b[12:]
	}
	for len(b) > 0 {
		bits := uint32(r.next())
		k := min(len(b), 6)
		for i := 0; i < k; i++ {
			b[i] = byte((bits>>(5*i))&randMasks[i]) + ' '
		}
		b = b[k:]
	}
	return dst
}

// valueSource is wyrand (Wang Yi's generator, which Go's runtime uses for
// its cheap random numbers): a Weyl sequence mixed by one 64×64→128-bit
// multiplication. It is seeded from the thread's random source, so a run
// with randomseed makes the same values.
type valueSource struct{ s uint64 }

func (v *valueSource) next() uint64 {
	v.s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(v.s, v.s^0xe7037ed1a0b428db)
	return hi ^ lo
}

// six returns the six bytes of a group in the low 48 bits, byte i at bits
// 8i: each lane is at most 95, so adding ' ' to all at once carries nowhere.
func six(bits uint32) uint64 {
	x := uint64(bits)
	w := x&31 | (x>>5&63)<<8 | (x>>10&95)<<16 | (x>>15&31)<<24 | (x>>20&63)<<32 | (x>>25&95)<<40
	return w + 0x202020202020
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
