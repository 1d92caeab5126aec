package measure

import (
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
