package result

import (
	"math/rand/v2"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Three clients that each measured a third of the same operations merge
// into exactly the figures of one client that measured them all: the
// histograms are added, never the percentiles averaged. The clients here
// are made, with latencies spread over four decades and a different mix
// in each (client 2 has the slow tail), so averaging their p99s would be
// far off.
func TestMergedPercentilesAreOneClientsWithAllThreads(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	newHist := func() *hdr.Histogram { return hdr.New(1, 3_600_000_000_000, 3) }
	all := newHist()
	parts := []*hdr.Histogram{newHist(), newHist(), newHist()}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 300_000 {
		c := i % 3
		ns := int64(20_000 + rnd.IntN(200_000)) // 20–220 µs
		if c == 2 && rnd.IntN(20) == 0 {
			ns = int64(5_000_000 + rnd.IntN(100_000_000)) // 5–105 ms
		}
		parts[c].RecordValue(ns)
		all.RecordValue(ns)
	}
	doc := func(i int, h *hdr.Histogram) *Doc {
		n := h.TotalCount()
		return &Doc{Format: Format, Command: "run", Binding: "redis", Workload: "workload c", Threads: 4,
			Properties: map[string]string{"clients": "3", "clientindex": string(rune('0' + i))},
			Start:      t0, End: t0.Add(10 * time.Second), RuntimeMs: 10_000, Stop: Completed, HistogramUnit: "ns",
			Operations: n, OKOperations: n, Throughput: float64(n) / 10, Label: "c" + string(rune('0'+i)),
			Seed: uint64(i + 1),
			Ops:  []OpResult{{Name: "READ", Count: n, Outcomes: map[string]int64{"OK": n}, Histograms: map[string]string{"OK": Encode(h)}}},
		}
	}
	m, err := Merge([]*Doc{doc(0, parts[0]), doc(1, parts[1]), doc(2, parts[2])})
	if err != nil {
		t.Fatal(err)
	}
	want := Summarize(all, DefaultPercentiles)
	got := m.Ops[0].Latency
	if got == nil || got.Count != want.Count || got.MaxUs != want.MaxUs || got.MeanUs != want.MeanUs {
		t.Fatalf("merged %+v, one client with all %+v", got, want)
	}
	for p, w := range want.Percentiles {
		if got.Percentiles[p] != w {
			t.Errorf("p%s: merged %v µs, one client with all %v µs", p, got.Percentiles[p], w)
		}
	}
	// Averaging the clients' p99s, as a merge must not, is far off.
	var avg float64
	for _, h := range parts {
		avg += float64(h.ValueAtQuantile(99)) / 1000 / 3
	}
	if w := want.Percentiles["99"]; avg > 0.8*w && avg < 1.2*w {
		t.Errorf("the made clients do not tell a sum from an average: p99 %v, average of p99s %v", w, avg)
	}
	if m.Threads != 12 || len(m.ClientRuns) != 3 {
		t.Errorf("merged %d threads, %d client runs", m.Threads, len(m.ClientRuns))
	}
}
