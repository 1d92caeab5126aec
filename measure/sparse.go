package measure

import (
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A thread's histograms have the standard geometry (NewHistogram's: 1 ns
// to an hour at three significant digits; an hour's index is 33,420) but
// are sparse:
// while an interval holds few values (a paced thread's handful a second)
// they are a list of the values themselves, grown to what an interval
// brings (8 bytes a value); past listLen values, counts in
// chunks of 256, each allocated when a value first falls in it, so a busy
// thread's latencies fill a few chunks of the 131. A thread costs
// kilobytes where a whole HdrHistogram costs 270 KB (two of them per
// operation and outcome, as the recorder's interval buffers are double).
// Merging one into an HdrHistogram is exact: every value, or count, goes
// to the index it would have had there.
const (
	subHalfMag = 10 // log2 of half the sub-buckets: 2,048 sub-buckets hold three significant digits
	subHalf    = 1 << subHalfMag
	subMask    = 2*subHalf - 1
	listLen    = 1024
	chunkBits  = 8
	chunkLen   = 1 << chunkBits
	numChunks  = int(maxIndex>>chunkBits) + 1
	maxIndex   = int64((maxBucket+1)<<subHalfMag) + (maxRecord >> maxBucket) - subHalf
	maxBucket  = 41 - subHalfMag // the bucket of maxRecord: 2^41 <= an hour in ns < 2^42 (TestSparseGeometry)
)

// sparse is one thread's histogram of one operation and outcome. Written
// by its thread only, between the phaser's enter and exit.
type sparse struct {
	n      int64                        // values recorded since the last reset
	list   []int64                      // the values, while chunks is nil
	chunks *[numChunks]*[chunkLen]int64 // counts by index, once more than listLen values came in an interval
}

// index is HdrHistogram's counts index of v for the standard geometry.
func index(v int64) int {
	bucket := 63 - bits.LeadingZeros64(uint64(v|subMask)) - subHalfMag
	return (bucket+1)<<subHalfMag + int(v>>uint(bucket)) - subHalf
}

// valueAt is the lowest value that index i holds.
func valueAt(i int) int64 {
	bucket := i>>subHalfMag - 1
	sub := int64(i&(subHalf-1)) + subHalf
	if bucket < 0 {
		sub -= subHalf
		bucket = 0
	}
	return sub << uint(bucket)
}

// record adds v, clamped into the histogram's range.
func (s *sparse) record(v int64) {
	if v < 0 {
		v = 0
	} else if v > maxRecord {
		v = maxRecord
	}
	if s.chunks == nil {
		if s.n < listLen {
			if s.list == nil {
				s.list = make([]int64, 0, 16)
			}
			s.list = append(s.list, v) // grows only past the most an interval brought before
			s.n++
			return
		}
		s.spill()
	}
	s.count(v)
	s.n++
}

// count adds v to the chunks.
func (s *sparse) count(v int64) {
	i := index(v)
	c := s.chunks[i>>chunkBits]
	if c == nil {
		c = new([chunkLen]int64)
		s.chunks[i>>chunkBits] = c
	}
	c[i&(chunkLen-1)]++
}

// spill moves the list into chunks: from now on, s counts.
func (s *sparse) spill() {
	s.chunks = new([numChunks]*[chunkLen]int64)
	for _, v := range s.list {
		s.count(v)
	}
	s.list = nil
}

// addTo adds every count into h (created on first need).
func (s *sparse) addTo(hp **hdr.Histogram) {
	if s == nil || s.n == 0 {
		return
	}
	if *hp == nil {
		*hp = NewHistogram()
	}
	h := *hp
	if s.chunks == nil {
		for _, v := range s.list {
			_ = h.RecordValue(v) // in range by construction
		}
		return
	}
	for ci, c := range s.chunks {
		if c == nil {
			continue
		}
		for j, n := range c {
			if n != 0 {
				_ = h.RecordValues(valueAt(ci<<chunkBits|j), n) // in range by construction
			}
		}
	}
}

// reset empties s, keeping its chunks: a thread's latencies fall where
// they fell before.
func (s *sparse) reset() {
	if s == nil || s.n == 0 {
		return
	}
	s.n = 0
	if s.chunks == nil {
		s.list = s.list[:0]
		return
	}
	for _, c := range s.chunks {
		if c != nil {
			*c = [chunkLen]int64{}
		}
	}
}

// bytes is what s holds in memory.
func (s *sparse) bytes() int64 {
	if s == nil {
		return 0
	}
	n := int64(40)
	n += 8 * int64(cap(s.list))
	if s.chunks == nil {
		return n
	}
	n += int64(8 * numChunks)
	for _, c := range s.chunks {
		if c != nil {
			n += 8 * chunkLen
		}
	}
	return n
}
