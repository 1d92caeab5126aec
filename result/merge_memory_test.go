package result

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Merging two time series of 2,000 intervals, each with servbench's own
// histogram (33,792 buckets, 270 KB decoded from 200 bytes of text),
// holds one interval's histograms at a time, not every interval's: the
// process's peak memory grows by far less than the 540 MB that keeping
// them all takes (two such results of 30,000 intervals ran merge out of
// memory); and it allocates little for each: hdrhistogram-go's decode and
// encode took 1.4 MB an interval (145 GB for two results of 100,000).
func TestMergeSeriesMemory(t *testing.T) {
	h := hdr.New(1, 3_600_000_000_000, 3)
	h.RecordValue(1000)
	enc := Encode(h)
	start := time.Unix(1_700_000_000, 0)
	doc := func() *Doc {
		d := &Doc{Start: start}
		for i := 0; i < 2000; i++ {
			d.Series = append(d.Series, Point{StartS: float64(i), EndS: float64(i + 1), Operations: 1,
				Ops: PointOps{{Name: "READ", PointOp: PointOp{Count: 1, Histogram: enc}}}})
		}
		return d
	}
	docs := []*Doc{doc(), doc()}
	var before, after syscall.Rusage
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	out, err := mergeSeries(docs, start, start.Add(2000*time.Second))
	syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	runtime.ReadMemStats(&m1)
	if per := (m1.TotalAlloc - m0.TotalAlloc) / 2000; per > 16<<10 {
		t.Errorf("the merge allocated %d bytes an interval", per)
	}
	if err != nil || len(out) != 2000 || readOp(out[0]).Count != 2 || readOp(out[0]).MaxUs < 0.999 {
		t.Fatalf("merged: %d intervals, %+v, %v", len(out), readOp(out[0]), err)
	}
	if grew := (after.Maxrss - before.Maxrss) << 10; grew > 200<<20 {
		t.Errorf("the merge's peak memory grew by %d MB", grew>>20)
	}
}

// The histograms a merge keeps are bounded in all, not only one by one:
// operations × outcomes × service and response time of the largest
// geometry a result may have (131,072 buckets, 1 MiB decoded) is refused
// in one line past MaxMergeBuckets (two 80 KB results ran merge out of
// memory).
func TestMergeHistogramsBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("decodes 256 MiB of histograms: the full suite runs it")
	}
	h := hdr.New(1, 2_000_000, 4)
	h.RecordValue(1000)
	enc := Encode(h)
	d := &Doc{}
	for op := 0; op < 2; op++ {
		x := OpResult{Name: fmt.Sprintf("OP%d", op), Histograms: Bounded[string]{}, ResponseHistograms: Bounded[string]{}}
		for s := 0; s < 256; s++ {
			x.Histograms[fmt.Sprintf("S%d", s)] = enc
			x.ResponseHistograms[fmt.Sprintf("S%d", s)] = enc
		}
		d.Ops = append(d.Ops, x)
	}
	err := newOpMerge().add(d, &counts{})
	if err == nil || !strings.Contains(err.Error(), "more than 33554432 buckets in all") {
		t.Errorf("1,024 histograms of 131,072 buckets: %v", err)
	}
}

// readOp is an interval's READ.
func readOp(p Point) PointOp {
	o, _ := p.Ops.Get("READ")
	return o
}

// Two results whose intervals each name the most operations a reader
// takes, under other names, are not merged into intervals no reader takes
// (merge wrote one that compare and merge then refused).
func TestMergeSeriesHoldsToTheBounds(t *testing.T) {
	start := time.Unix(1_700_000_000, 0)
	doc := func(prefix string) *Doc {
		p := Point{StartS: 0, EndS: 1, Operations: MaxPointOps}
		for i := range MaxPointOps {
			p.Ops.Set(fmt.Sprintf("%s%d", prefix, i), PointOp{Count: 1})
		}
		q := p
		q.StartS, q.EndS, q.Ops = 1, 2, slices.Clone(p.Ops)
		return &Doc{Start: start, Series: []Point{p, q}}
	}
	_, err := mergeSeries([]*Doc{doc("A"), doc("B")}, start, start.Add(2*time.Second))
	if err == nil || !strings.Contains(err.Error(), "more than 1024 operations") {
		t.Errorf("merged: %v", err)
	}
	if out, err := mergeSeries([]*Doc{doc("A"), doc("A")}, start, start.Add(2*time.Second)); err != nil || len(out) != 2 || len(out[0].Ops) != MaxPointOps {
		t.Errorf("the same names: %d intervals, %v", len(out), err)
	}
}
