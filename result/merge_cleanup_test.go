package result

import (
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// cleanupOf is a CLEANUP of n values of ns each, as a run's document
// holds it: its summary and its histograms by outcome.
func cleanupOf(n int, ns int64) (*Latency, Bounded[string]) {
	h := hdr.New(1, int64(time.Hour), 3)
	for range n {
		h.RecordValue(ns)
	}
	return Summarize(h, DefaultPercentiles), Bounded[string]{"OK": Encode(h)}
}

// CLEANUP's histograms are merged as an operation's: the merged result
// keeps their sum, and its summary is recomputed from it, so that a
// spread phase's text report shows CLEANUP as a run here does. A
// document whose histograms do not hold what its cleanup counts is
// refused.
func TestMergeKeepsCleanup(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	a := windowClient(0, "", t0, time.Second)
	b := windowClient(1, "", t0.Add(time.Millisecond), time.Second)
	a.Cleanup, a.CleanupHistograms = cleanupOf(2, 1000)
	b.Cleanup, b.CleanupHistograms = cleanupOf(3, 9000)
	m, err := Merge([]*Doc{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Cleanup == nil || m.Cleanup.Count != 5 || m.Cleanup.MaxUs < 8.9 || m.Cleanup.MinUs > 1.1 {
		t.Fatalf("merged cleanup %+v", m.Cleanup)
	}
	h, err := DecodeHistogram(m.CleanupHistograms["OK"])
	if err != nil || h.TotalCount() != 5 {
		t.Fatalf("merged cleanup histogram: %v, %v", h, err)
	}
	var buf strings.Builder
	if err := WriteJSON(&buf, m); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode([]byte(buf.String())); err != nil {
		t.Errorf("the merged result is not read back: %v", err)
	}
	a.Version, a.Cleanup.Count = FormatVersion, 3
	buf.Reset()
	if err := WriteJSON(&buf, a); err != nil {
		t.Fatal(err)
	}
	if _, err := Decode([]byte(buf.String())); err == nil || !strings.Contains(err.Error(), "cleanup_histograms: they hold 2 values, cleanup counts 3") {
		t.Errorf("a cleanup that its histograms do not hold: %v", err)
	}
}
