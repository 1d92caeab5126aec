package result

import (
	"fmt"
	"math"
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

// histOf is a histogram of geometry lowest..highest ns at three digits
// holding n values of ns each, encoded.
func histOf(lowest, highest int64, n int, ns int64) string {
	h := hdr.New(lowest, highest, 3)
	for range n {
		h.RecordValue(ns)
	}
	return Encode(h)
}

// readBack is d written and read again: what every command would read.
func readBack(t *testing.T, d *Doc) (*Doc, error) {
	t.Helper()
	var buf strings.Builder
	if err := WriteJSON(&buf, d); err != nil {
		t.Fatal(err)
	}
	return Decode([]byte(buf.String()))
}

// Clients whose histograms have other geometries (one tracks 1 ns to
// 1 µs, the other to an hour) merge with every value kept, into a
// geometry that holds both: HdrHistogram's Merge dropped the values
// outside the first one's range, and the merged result said so nowhere
// (CLEANUP), or could not be read back (an operation).
func TestMergeKeepsValuesOfOtherGeometries(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	a := windowClient(0, "", t0, time.Second)
	b := windowClient(1, "", t0.Add(time.Millisecond), time.Second)
	for i, d := range []*Doc{a, b} {
		hi, v := int64(1000), int64(500) // a: narrow
		if i == 1 {
			hi, v = int64(time.Hour), int64(time.Millisecond)
		}
		d.Version, d.Operations, d.OKOperations = FormatVersion, 2, 2
		d.Ops = []OpResult{{Name: "READ", Count: 2, Outcomes: map[string]int64{"OK": 2}, Histograms: map[string]string{"OK": histOf(1, hi, 2, v)}}}
		d.Cleanup = &Latency{Count: 2, MinUs: float64(v) / 1000, MaxUs: float64(v) / 1000, MeanUs: float64(v) / 1000, Percentiles: map[string]float64{}}
		d.CleanupHistograms = Bounded[string]{"OK": histOf(1, hi, 2, v)}
	}
	m, err := Merge([]*Doc{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if m.Cleanup == nil || m.Cleanup.Count != 4 || m.Cleanup.MaxUs < 999 {
		t.Errorf("merged cleanup %+v, want 4 values up to 1 ms", m.Cleanup)
	}
	if l := m.Ops[0].Latency; l == nil || l.Count != 4 || l.MaxUs < 999 {
		t.Errorf("merged READ latency %+v, want 4 values up to 1 ms", l)
	}
	if _, err := readBack(t, m); err != nil {
		t.Errorf("the merged result is not read back: %v", err)
	}
}

// What a merged CLEANUP cannot show whole is left out or refused: a
// client's CLEANUP without its histograms (an older result, an import)
// leaves the merged result without one, not with the others' as the
// whole; counts that overflow together, or more outcomes in all than a
// result holds, are refused; an outcome without values is read back.
func TestMergeCleanupWholeOrNothing(t *testing.T) {
	t0 := time.Date(2026, 11, 28, 9, 30, 0, 0, time.UTC)
	pair := func() (*Doc, *Doc) {
		a, b := windowClient(0, "", t0, time.Second), windowClient(1, "", t0.Add(time.Millisecond), time.Second)
		a.Cleanup, a.CleanupHistograms = cleanupOf(2, 1000)
		b.Cleanup, b.CleanupHistograms = cleanupOf(3, 9000)
		return a, b
	}
	a, b := pair()
	b.CleanupHistograms = nil
	if m, err := Merge([]*Doc{a, b}); err != nil || m.Cleanup != nil || m.CleanupHistograms != nil {
		t.Errorf("a client's cleanup without histograms: %v, merged %+v %v", err, m.Cleanup, m.CleanupHistograms)
	}
	a, b = pair()
	a.Cleanup.Count, b.Cleanup.Count = math.MaxInt64, 1
	if _, err := Merge([]*Doc{a, b}); err == nil || !strings.Contains(err.Error(), "more than a count can hold") {
		t.Errorf("cleanup counts that overflow together: %v", err)
	}
	a, b = pair()
	for i, d := range []*Doc{a, b} {
		for j := range MaxEntries/2 + 1 {
			d.CleanupHistograms[fmt.Sprintf("E%d_%d", i, j)] = histOf(1, int64(time.Hour), 1, 1000)
		}
	}
	if _, err := Merge([]*Doc{a, b}); err == nil || !strings.Contains(err.Error(), "cleanup: more than 256 outcomes") {
		t.Errorf("more cleanup outcomes in all than a result holds: %v", err)
	}
	a, b = pair()
	a.Version, b.Version = FormatVersion, FormatVersion
	a.CleanupHistograms["ERROR"] = Encode(nil)
	b.CleanupHistograms["ERROR"] = base64Empty(t)
	m, err := Merge([]*Doc{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := readBack(t, m); err != nil {
		t.Errorf("a merged cleanup with an outcome without values is not read back: %v", err)
	}
}

// base64Empty is an empty histogram in HdrHistogram's encoding (not "").
func base64Empty(t *testing.T) string {
	b, err := hdr.New(1, int64(time.Hour), 3).Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
