package result

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// A histSum's sum is hdrhistogram-go's, byte for byte: the text Encode
// writes of the histograms merged by Merge, and the same figures; of
// servbench's geometry (decoded its own way) and of others (through
// DecodeHistogram), a version 1 document's doubly encoded text too.
func TestHistSumIsHdrHistogramsMerge(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, g := range []struct {
		lowest, highest int64
		digits          int
	}{{1, 3_600_000_000_000, 3}, {1, 1_000_000, 2}, {1000, 60_000_000, 4}} {
		for _, sets := range []int{1, 2, 5} {
			want := hdr.New(g.lowest, g.highest, g.digits)
			var s histSum
			for i := 0; i < sets; i++ {
				x := hdr.New(g.lowest, g.highest, g.digits)
				for j := r.IntN(2000); j >= 0; j-- {
					v := int64(r.ExpFloat64() * float64(r.IntN(1_000_000)+1))
					x.RecordValues(min(max(v, g.lowest), g.highest), int64(r.IntN(3)+1))
				}
				if i == 1 {
					x.RecordValues(g.lowest, 1<<60) // a count of nine bytes
				}
				want.Merge(x)
				text := Encode(x)
				if i == 2 {
					text = base64.StdEncoding.EncodeToString([]byte(text)) // version 1's
				}
				if err := s.add(text); err != nil {
					t.Fatalf("%v, set %d: %v", g, i, err)
				}
			}
			if s.slow != (sets > 2) {
				t.Errorf("%v, %d sets: slow %v", g, sets, s.slow)
			}
			got, err := s.text()
			if err != nil || got != Encode(want) {
				t.Errorf("%v, %d sets: the sum's text differs (%v)", g, sets, err)
			}
			if s.h.TotalCount() != want.TotalCount() || s.h.Max() != want.Max() || s.h.Mean() != want.Mean() || s.h.ValueAtPercentile(99.9) != want.ValueAtPercentile(99.9) {
				t.Errorf("%v, %d sets: figures %d %d %v, want %d %d %v", g, sets, s.h.TotalCount(), s.h.Max(), s.h.Mean(), want.TotalCount(), want.Max(), want.Mean())
			}
			s.reset()
			if txt, _ := s.text(); txt != "" {
				t.Errorf("reset: %q", txt)
			}
		}
	}
}

// A sum of another geometry (taken the slow way) leaves the next sum as
// it would be alone.
func TestHistSumAfterAnotherGeometry(t *testing.T) {
	a, b := hdr.New(1, 3_600_000_000_000, 3), hdr.New(1, 1_000_000, 2)
	a.RecordValue(12345)
	b.RecordValue(777)
	var s histSum
	for _, texts := range [][]string{{Encode(a)}, {Encode(b), Encode(b)}, {Encode(a), Encode(a)}} {
		s.reset()
		want := hdr.New(1, 3_600_000_000_000, 3)
		if texts[0] == Encode(b) {
			want = hdr.New(1, 1_000_000, 2)
		}
		for _, x := range texts {
			if err := s.add(x); err != nil {
				t.Fatal(err)
			}
			h, _ := DecodeHistogram(x)
			want.Merge(h)
		}
		if got, _ := s.text(); got != Encode(want) {
			t.Errorf("%d texts: the sum differs", len(texts))
		}
	}
}

// Adding up interval after interval allocates next to nothing: one
// histogram's bucket array and zlib state once, not at each decode and
// encode.
func TestHistSumReusesItsMemory(t *testing.T) {
	x := hdr.New(1, 3_600_000_000_000, 3)
	for v := int64(1000); v < 5_000_000; v *= 3 {
		x.RecordValue(v)
	}
	text := Encode(x)
	var s histSum
	step := func() {
		s.reset()
		s.add(text)
		s.add(text)
		s.text()
	}
	step()
	if s.slow {
		t.Fatal("servbench's own histograms took the slow path")
	}
	if a := testing.AllocsPerRun(20, step); a > 8 {
		t.Errorf("%v allocations a step", a)
	}
}

// A hostile payload fails its merge, never panics: a run of zeros of
// -2^63 (nine 0xFF bytes: its negation is itself, and the index went to
// -2^63), runs and counts past the buckets, a count cut short.
func TestHistSumRefusesHostileCounts(t *testing.T) {
	var s histSum
	x := hdr.New(1, 3_600_000_000_000, 3)
	x.RecordValue(1000)
	if err := s.add(Encode(x)); err != nil { // the geometry, as a real interval's
		t.Fatal(err)
	}
	for name, p := range map[string][]byte{
		"a run of -2^63":              append(bytes.Repeat([]byte{0xff}, 9), 0x02),
		"a run past the buckets":      putZigzag(nil, -int64(len(s.counts))-1),
		"a count past the buckets":    append(putZigzag(nil, -int64(len(s.counts))), 0x02),
		"a count cut short":           {0x80},
		"a count past what one holds": append(putZigzag(nil, 1<<62), putZigzag(nil, 1<<62)...),
	} {
		if err := s.addCounts(p); err == nil {
			t.Errorf("%s: taken", name)
		}
	}
}

// Any payload of counts is taken or refused, never a panic.
func FuzzHistSumAddCounts(f *testing.F) {
	f.Add(append(bytes.Repeat([]byte{0xff}, 9), 0x02))
	f.Add([]byte{0x02, 0x03, 0x04})
	f.Add([]byte{0x80})
	x := hdr.New(1, 3_600_000_000_000, 3)
	x.RecordValue(1000)
	text := Encode(x)
	f.Fuzz(func(t *testing.T, p []byte) {
		var s histSum
		if err := s.add(text); err != nil {
			t.Fatal(err)
		}
		s.addCounts(p)
		s.text()
	})
}
