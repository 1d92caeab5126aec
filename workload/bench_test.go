package workload

import (
	"context"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	_ "github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/measure"
)

func BenchmarkAppendKey(b *testing.B) {
	buf := make([]byte, 0, 32)
	b.ReportAllocs()
	for i := int64(0); b.Loop(); i++ {
		buf = AppendKey(buf[:0], i, 1, false)
	}
}

func BenchmarkRandomValue100(b *testing.B) {
	r := &valueSource{1}
	buf := make([]byte, 0, 100)
	b.ReportAllocs()
	b.SetBytes(100)
	for b.Loop() {
		buf = appendRandomValue(buf[:0], 100, r)
	}
}

func BenchmarkDeterministicValue100(b *testing.B) {
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	b.SetBytes(100)
	for b.Loop() {
		buf = AppendDeterministicValue(buf[:0], "user6284781860667377211", "field3", 100)
	}
}

func basicThread(t testing.TB, builtin string, kv ...string) *Thread {
	t.Helper()
	p := propsFor(t, builtin, kv...)
	w, err := New(p, true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := db.Lookup("basic")
	d, err := b.Open(context.Background(), p, db.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	th := w.NewThread(0, 1)
	th.Bind(d, measure.NewRecorder())
	th.Measuring = true
	th.Intended = 0
	return th
}

// TestTransactionDoesNotAllocate: in steady state a whole operation (key
// choice, key, values, the call, measurement) allocates nothing.
func TestTransactionDoesNotAllocate(t *testing.T) {
	for _, w := range []string{"a", "b", "c", "d", "e", "f", "g", "h", "pagination", "customer-a", "customer-d"} {
		kv := []string{"operationcount", "1000000"}
		if c, ok := strings.CutPrefix(w, "customer-"); ok { // core workloads on customer documents, with queries
			w = c
			kv = append(kv, "document", "customer", "query1proportion", "0.1", "readproportion", "0.4", "updateproportion", "0.45", "insertproportion", "0.05")
		}
		th := basicThread(t, w, kv...)
		ctx := context.Background()
		for i := 0; i < 1000; i++ { // create histograms, grow buffers
			th.Transaction(ctx)
		}
		if n := testing.AllocsPerRun(2000, func() { th.Transaction(ctx) }); n != 0 {
			t.Errorf("workload %s: %v allocations per operation", w, n)
		}
	}
}

func BenchmarkTransactionBasic(b *testing.B) {
	for _, w := range []string{"a", "c", "e", "f"} {
		b.Run(w, func(b *testing.B) {
			th := basicThread(b, w, "operationcount", "10000000", "recordcount", "1000000")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				th.Transaction(ctx)
			}
		})
	}
}

// nopPipeliner answers every window at once, without a word; queries go to
// the store it wraps.
type nopPipeliner struct {
	db.DB
	db.Querier
}

func (nopPipeliner) Window() int                                       { return 16 }
func (nopPipeliner) Pipeline(context.Context, string, []db.PipelineOp) {}

func windowThread(t testing.TB, builtin string, kv ...string) *Thread {
	th := basicThread(t, builtin, kv...)
	th.Bind(nopPipeliner{th.db, th.querier}, th.rec)
	th.Intended = 0
	return th
}

// TestWindowDoesNotAllocate: a window of 16 operations, drawn, handed to
// the binding and measured, allocates nothing in steady state.
func TestWindowDoesNotAllocate(t *testing.T) {
	for _, w := range []string{"a", "b", "c", "f", "pagination"} {
		th := windowThread(t, w, "operationcount", "1000000")
		ctx := context.Background()
		for i := 0; i < 200; i++ {
			th.Window(ctx, 16)
		}
		if n := testing.AllocsPerRun(500, func() { th.Window(ctx, 16) }); n != 0 {
			t.Errorf("workload %s: %v allocations per window", w, n)
		}
	}
}

// BenchmarkWindowBasic is the harness's cost per operation in windows of
// 16 (compare BenchmarkTransactionBasic).
func BenchmarkWindowBasic(b *testing.B) {
	for _, w := range []string{"a", "c"} {
		b.Run(w, func(b *testing.B) {
			th := windowThread(b, w, "operationcount", "10000000", "recordcount", "1000000")
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				th.Window(ctx, 16)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(16*b.N), "ns/operation")
		})
	}
}
