package measure

import (
	"math/bits"
	"math/rand/v2"
	"slices"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"sync"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
)

// TestDrainWhileRecording: a reader drains while writers record; every
// value ends up in exactly one interval.
func TestDrainWhileRecording(t *testing.T) {
	var c Collector
	const writers, per = 4, 200_000
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		r := c.NewRecorder()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				r.Record(Read, db.OK, int64(i%5000+1), -1)
				r.RecordTxn(db.OK)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var sum int64
	for finished := false; !finished; {
		select {
		case <-done:
			finished = true
		case <-time.After(time.Millisecond):
		}
		sum += c.Tick().Count(Read, db.OK)
	}
	if sum != writers*per {
		t.Errorf("intervals hold %d values, want %d", sum, writers*per)
	}
	if all, ok := c.Total().ClientOps(); all != writers*per || ok != all {
		t.Errorf("total transactions %d (%d ok)", all, ok)
	}
}

func TestMergeIsExact(t *testing.T) {
	a, b := NewRecorder(), NewRecorder()
	for i := int64(1); i <= 1000; i++ {
		a.Record(Update, db.OK, i*1000, i*2000)
		b.Record(Update, db.NotFound, i*10, -1)
	}
	var s Set
	a.DrainInto(&s)
	b.DrainInto(&s)
	if s.Count(Update, db.OK) != 1000 || s.Count(Update, db.NotFound) != 1000 || s.OpCount(Update) != 2000 {
		t.Fatalf("counts %d %d", s.Count(Update, db.OK), s.Count(Update, db.NotFound))
	}
	if s.Response[Update][db.NotFound] != nil {
		t.Error("response time recorded without an intended start")
	}
	ok := s.Merged(Update, false, func(st db.Status) bool { return st == db.OK })
	if got := ok.ValueAtPercentile(50); got < 499_000 || got > 501_000 {
		t.Errorf("median %d ns, want about 500 µs", got)
	}
	if got := s.Response[Update][db.OK].Max(); got < 1_999_000 {
		t.Errorf("response max %d", got)
	}
	// Values beyond the histogram's range are clamped, not lost.
	c := NewRecorder()
	c.Record(Read, db.OK, 2*HighestNs, -1)
	var s2 Set
	c.DrainInto(&s2)
	if s2.Count(Read, db.OK) != 1 {
		t.Error("an out-of-range latency was dropped")
	}
}

func TestRecordDoesNotAllocate(t *testing.T) {
	r := NewRecorder()
	r.Record(Read, db.OK, 1000, 2000) // first use creates the histograms
	r.RecordLag(10)
	if n := testing.AllocsPerRun(1000, func() {
		r.Record(Read, db.OK, 1234, 5678)
		r.RecordLag(42)
		r.RecordTxn(db.OK)
	}); n != 0 {
		t.Errorf("recording allocates %v times per operation", n)
	}
}

func BenchmarkRecord(b *testing.B) {
	r := NewRecorder()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Record(Read, db.OK, int64(i&0xffff), -1)
	}
}

func BenchmarkRecordWithResponse(b *testing.B) {
	r := NewRecorder()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		r.Record(Read, db.OK, int64(i&0xffff), int64(i&0xfffff))
	}
}

// TestSparseGeometry: a thread's sparse histogram indexes every value as
// HdrHistogram does, up to the clamp, so merging it is exact.
func TestSparseGeometry(t *testing.T) {
	if index(maxRecord) != int(maxIndex) || bits.Len64(uint64(maxRecord)) != maxBucket+subHalfMag+1 {
		t.Fatalf("index(maxRecord) = %d, maxIndex %d: the geometry's constants are off", index(maxRecord), maxIndex)
	}
	h := NewHistogram()
	want := NewHistogram()
	var s sparse
	rng := rand.New(rand.NewPCG(1, 2))
	values := []int64{0, 1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 1 << 20, maxRecord - 1, maxRecord, maxRecord + 1, -5}
	for i := 0; i < 100_000; i++ {
		values = append(values, int64(rng.Uint64N(uint64(1)<<rng.UintN(43))))
	}
	for _, v := range values {
		s.record(v)
		c := min(max(v, 0), maxRecord)
		if err := want.RecordValue(c); err != nil {
			t.Fatal(err)
		}
		if i, w := index(c), valueAt(index(c)); w > c || index(w) != i {
			t.Fatalf("value %d: index %d holds from %d, which indexes to %d", c, i, w, index(w))
		}
	}
	var got *hdr.Histogram
	s.addTo(&got)
	h.Merge(got)
	if !slices.Equal(want.Export().Counts, h.Export().Counts) || want.TotalCount() != h.TotalCount() {
		t.Fatal("a sparse histogram merged is not the HdrHistogram of the same values")
	}
	if want.ValueAtQuantile(99) != h.ValueAtQuantile(99) || want.Max() != h.Max() || want.Min() != h.Min() {
		t.Errorf("p99 %d max %d min %d, want %d %d %d", h.ValueAtQuantile(99), h.Max(), h.Min(), want.ValueAtQuantile(99), want.Max(), want.Min())
	}
	s.reset()
	var empty *hdr.Histogram
	s.addTo(&empty)
	if s.n != 0 || empty != nil {
		t.Error("a reset histogram still adds counts")
	}
}

// TestThreadMemory: a thread's histograms hold what its intervals bring,
// not whole HdrHistograms (270 KB each): a paced thread's few values a
// second are a list of them; a busy thread's counts fill the chunks its
// latencies fall in.
func TestThreadMemory(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	spread := func() int64 { return 1000 + int64(rng.ExpFloat64()*200_000) } // 1 µs on, a long tail
	var s Set
	paced := NewRecorder()
	for iv := 0; iv < 20; iv++ { // 20 intervals of 150 operations: 64 threads at 10,000 ops/s
		for i := 0; i < 150; i++ {
			paced.Record(Read, db.OK, spread(), spread())
			paced.RecordLag(spread())
		}
		paced.DrainInto(&s)
	}
	// Three histograms in use, two interval buffers each, each a list of at
	// most 256 values.
	if got, most := paced.HistogramBytes(), int64(3*2*(40+8*256)); got > most {
		t.Errorf("a paced thread holds %d bytes of histograms, want at most %d", got, most)
	}
	busy := NewRecorder()
	for iv := 0; iv < 5; iv++ {
		for i := 0; i < 200_000; i++ {
			busy.Record(Read, db.OK, 50_000+int64(rng.NormFloat64()*5_000), -1)
		}
		busy.DrainInto(&s)
	}
	// A full HdrHistogram is 270 KB: two buffers of one would be 540 KB.
	if got, most := busy.HistogramBytes(), int64(2*(40+8*numChunks+8*chunkLen*8)); got > most {
		t.Errorf("a busy thread holds %d bytes of histograms, want at most %d (8 chunks a buffer)", got, most)
	}
	if n := s.Count(Read, db.OK); n != 20*150+5*200_000 {
		t.Errorf("%d reads merged, want %d", n, 20*150+5*200_000)
	}
}

// TestIntervalDoesNotAllocate: once a thread's histograms have grown to what
// its intervals bring, recording and draining allocate nothing.
func TestIntervalDoesNotAllocate(t *testing.T) {
	for _, per := range []int{100, 5000} { // a list; chunks
		r := NewRecorder()
		var s Set
		values := make([]int64, per)
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range values {
			values[i] = 1000 + int64(rng.ExpFloat64()*100_000)
		}
		interval := func() {
			for _, v := range values {
				r.Record(Update, db.OK, v, v+10)
				r.RecordLag(v / 2)
				r.RecordTxn(db.OK)
			}
			r.DrainInto(&s)
		}
		interval()
		interval()
		if n := testing.AllocsPerRun(5, interval); n != 0 {
			t.Errorf("%d values an interval: %v allocations an interval", per, n)
		}
	}
}
