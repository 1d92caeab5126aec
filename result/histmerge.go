package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// histSum adds up encoded histograms of one geometry, one set at a time
// (a merged time series' interval after interval), without the memory
// hdrhistogram-go gives each decode and encode: a decode made the whole
// bucket array (270 KB for servbench's 33,792 buckets) and a zlib reader,
// an encode a zlib writer of 760 KB, so that two results of 100,000
// intervals each allocated 145 GB and held gigabytes. A histSum decodes
// each text's counts into one array it keeps, with a zlib reader it
// resets, and writes the sum's text with a zlib writer it resets; the
// sum's figures come from one hdr.Histogram it keeps too. A text of
// another geometry or encoding (a version 1 document's) is added through
// DecodeHistogram, as before.
//
// The text it writes is hdrhistogram-go's own, byte for byte (its V2
// compressed encoding at zlib's best compression).
type histSum struct {
	lowest, highest int64
	digits          int32
	h               *hdr.Histogram // the sum, for its figures
	counts          []int64        // the sum's counts, by index
	hi              int            // one past the highest index with a count
	slow            bool           // h holds counts counts does not (another geometry): encode h as hdrhistogram-go does
	unit, halfMag   uint           // the geometry's unit magnitude and half sub-bucket magnitude

	raw     []byte // a text's bytes, base64 undone
	payload []byte // its counts, inflated
	zr      io.ReadCloser
	br      bytes.Reader
	zw      *zlib.Writer
	zbuf    bytes.Buffer
	enc     []byte
}

// reset empties the sum, keeping its memory; after a sum of another
// geometry it starts anew.
func (s *histSum) reset() {
	if s.slow {
		s.h, s.counts, s.lowest, s.highest, s.digits = nil, nil, 0, 0, 0
	} else if s.h != nil {
		s.h.Reset()
		clear(s.counts[:s.hi])
	}
	s.hi, s.slow = 0, false
}

// add adds the histogram text holds.
func (s *histSum) add(text string) error {
	if err := s.addFast(text); err == nil || !errors.Is(err, errSlowPath) {
		return err
	}
	x, err := DecodeHistogram(text)
	if err != nil {
		return err
	}
	if s.h == nil || s.h.TotalCount() == 0 { // the first of the sum: it is the sum, as its geometry is
		s.h = x
		s.slow = true
		return nil
	}
	if err := addHistogram(&s.h, x); err != nil {
		return err
	}
	s.slow = true
	return nil
}

// errSlowPath is a text addFast leaves to DecodeHistogram.
var errSlowPath = errors.New("not of the common geometry")

// addFast adds text's counts when it is a V2 compressed histogram of the
// sum's geometry (or the first one): errSlowPath otherwise.
func (s *histSum) addFast(text string) error {
	if s.slow || len(text) > 1<<30 {
		return errSlowPath
	}
	n := base64.StdEncoding.DecodedLen(len(text))
	if cap(s.raw) < n {
		s.raw = make([]byte, n)
	}
	n, err := base64.StdEncoding.Decode(s.raw[:n], []byte(text))
	if err != nil || n < 8 || int32(binary.BigEndian.Uint32(s.raw[0:4]))&^0xf0 != hdr.V2CompressedEncodingCookieBase {
		return errSlowPath
	}
	clen := int(int32(binary.BigEndian.Uint32(s.raw[4:8])))
	if clen < 0 || clen > n-8 {
		return errSlowPath
	}
	s.br.Reset(s.raw[8 : 8+clen])
	if s.zr == nil {
		if s.zr, err = zlib.NewReader(&s.br); err != nil {
			return errSlowPath
		}
	} else if err := s.zr.(zlib.Resetter).Reset(&s.br, nil); err != nil {
		return errSlowPath
	}
	var head [40]byte
	if _, err := io.ReadFull(s.zr, head[:]); err != nil {
		return errSlowPath
	}
	cookie := int32(binary.BigEndian.Uint32(head[0:4])) &^ 0xf0
	plen := int64(int32(binary.BigEndian.Uint32(head[4:8])))
	digits := int32(binary.BigEndian.Uint32(head[12:16]))
	lowest, highest := int64(binary.BigEndian.Uint64(head[16:24])), int64(binary.BigEndian.Uint64(head[24:32]))
	ratio := math.Float64frombits(binary.BigEndian.Uint64(head[32:40]))
	if cookie != hdr.V2EncodingCookieBase || ratio != 1 || plen < 0 {
		return errSlowPath
	}
	if s.h == nil {
		if err := s.start(lowest, highest, digits); err != nil {
			return err
		}
	} else if lowest != s.lowest || highest != s.highest || digits != s.digits {
		return errSlowPath
	}
	if plen > int64(len(s.counts))*9 {
		return fmt.Errorf("histogram: %d bytes of counts for %d buckets", plen, len(s.counts))
	}
	if cap(s.payload) < int(plen) {
		s.payload = make([]byte, plen)
	}
	s.payload = s.payload[:plen]
	if _, err := io.ReadFull(s.zr, s.payload); err != nil {
		return fmt.Errorf("histogram: %w", err)
	}
	return s.addCounts(s.payload)
}

// start makes the sum one of the geometry given, as hdrhistogram-go's
// decode makes it (the geometry as written, checked against
// MaxHistogramCounts).
func (s *histSum) start(lowest, highest int64, digits int32) error {
	n := countsLen(lowest, highest, digits)
	if n > MaxHistogramCounts {
		return fmt.Errorf("histogram: declares %d buckets (1 to %d at %d digits), more than the %d a result's histogram may have", n, highest, digits, MaxHistogramCounts)
	}
	if n < 1 || lowest < 1 || digits < 1 || digits > 5 || highest < 2*lowest {
		return errSlowPath
	}
	h := hdr.New(lowest, highest, int(digits))
	if h.LowestTrackableValue() != lowest || h.HighestTrackableValue() != highest || h.SignificantFigures() != int64(digits) {
		return errSlowPath
	}
	s.h, s.lowest, s.highest, s.digits = h, lowest, highest, digits
	s.counts = make([]int64, n)
	s.unit = uint(bits.Len64(uint64(lowest)) - 1)
	s.halfMag = uint(math.Ceil(math.Log2(2*math.Pow10(int(digits))))) - 1
	return nil
}

// addCounts adds the counts of a V2 payload: zig-zag LEB128 varints, a
// count each, a negative one a run of that many zero counts.
func (s *histSum) addCounts(p []byte) error {
	idx := 0
	for len(p) > 0 {
		v, n := zigzag(p)
		if n == 0 {
			return errors.New("histogram: a count cut short")
		}
		p = p[n:]
		if v < 0 {
			if v == math.MinInt64 || -v > int64(len(s.counts)-idx) { // -MinInt64 is itself
				return errors.New("histogram: more counts than buckets")
			}
			idx += int(-v)
			continue
		}
		if idx >= len(s.counts) {
			return errors.New("histogram: more counts than buckets")
		}
		if v > 0 {
			sum := s.counts[idx] + v
			if sum < v {
				return errors.New("histogram: a count past what a count can hold")
			}
			if err := s.h.RecordValues(s.valueAt(idx), v); err != nil {
				return fmt.Errorf("histogram: %w", err)
			}
			s.counts[idx] = sum
			s.hi = max(s.hi, idx+1)
		}
		idx++
	}
	return nil
}

// valueAt is the value the counts' index idx stands for
// (hdrhistogram-go's valueFromFlatIndex).
func (s *histSum) valueAt(idx int) int64 {
	half := int64(1) << s.halfMag
	bucket := int64(idx>>s.halfMag) - 1
	sub := int64(idx)&(half-1) + half
	if bucket < 0 {
		sub -= half
		bucket = 0
	}
	return sub << (uint(bucket) + s.unit)
}

// zigzag decodes one of hdrhistogram-go's zig-zag LEB128 varints (at most
// 9 bytes, the ninth whole): the value and its length, 0 when p is cut.
func zigzag(p []byte) (int64, int) {
	var u uint64
	for i := 0; i < 9; i++ {
		if i >= len(p) {
			return 0, 0
		}
		b := p[i]
		if i == 8 {
			u |= uint64(b) << 56
			return int64(u>>1) ^ -int64(u&1), 9
		}
		u |= uint64(b&0x7f) << (7 * uint(i))
		if b&0x80 == 0 {
			return int64(u>>1) ^ -int64(u&1), i + 1
		}
	}
	return 0, 0
}

// putZigzag appends v as hdrhistogram-go writes it.
func putZigzag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f|0x80))
		u >>= 7
	}
	return append(b, byte(u))
}

// text is the sum's encoding, as Encode writes it ("" when it is empty).
func (s *histSum) text() (string, error) {
	if s.h == nil || s.h.TotalCount() == 0 {
		return "", nil
	}
	if s.slow {
		return Encode(s.h), nil
	}
	s.enc = s.enc[:0]
	for i := 0; i < s.hi; {
		c := s.counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i < s.hi && s.counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				s.enc = putZigzag(s.enc, -zeros)
				continue
			}
		}
		s.enc = putZigzag(s.enc, c)
	}
	var head [40]byte
	binary.BigEndian.PutUint32(head[0:4], uint32(hdr.V2EncodingCookieBase|0x10))
	binary.BigEndian.PutUint32(head[4:8], uint32(len(s.enc)))
	binary.BigEndian.PutUint32(head[12:16], uint32(s.digits))
	binary.BigEndian.PutUint64(head[16:24], uint64(s.lowest))
	binary.BigEndian.PutUint64(head[24:32], uint64(s.highest))
	binary.BigEndian.PutUint64(head[32:40], math.Float64bits(1))
	s.zbuf.Reset()
	var err error
	if s.zw == nil {
		s.zw, err = zlib.NewWriterLevel(&s.zbuf, zlib.BestCompression)
	} else {
		s.zw.Reset(&s.zbuf)
	}
	if err == nil {
		_, err = s.zw.Write(head[:])
	}
	if err == nil {
		_, err = s.zw.Write(s.enc)
	}
	if err == nil {
		err = s.zw.Close()
	}
	if err != nil {
		return "", err
	}
	out := make([]byte, 8, 8+s.zbuf.Len())
	binary.BigEndian.PutUint32(out[0:4], uint32(hdr.V2CompressedEncodingCookieBase|0x10))
	binary.BigEndian.PutUint32(out[4:8], uint32(s.zbuf.Len()))
	out = append(out, s.zbuf.Bytes()...)
	return base64.StdEncoding.EncodeToString(out), nil
}
