package result

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// windowClient is client i of 2 of a short run: 200 reads from start,
// lasting d, of the coordinator id ("" : none).
func windowClient(i int, id string, start time.Time, d time.Duration) *Doc {
	p := map[string]string{"clients": "2", "clientindex": strconv.Itoa(i)}
	if id != "" {
		p["coordinator.id"] = id
	}
	return &Doc{Format: Format, Command: "run", Binding: "basic", Workload: "workload c", Threads: 1, Properties: p,
		Start: start, End: start.Add(d), RuntimeMs: float64(d) / 1e6, Stop: Completed, HistogramUnit: "ns",
		Operations: 200, OKOperations: 200, Throughput: 200 / d.Seconds(), Seed: uint64(i + 1), ID: NewID(),
		Ops: []OpResult{{Name: "READ", Count: 200, Outcomes: map[string]int64{"OK": 200}}}}
}

// Two clients a coordinator started together, each done in 0.2 ms, the
// second started 0.5 ms after the first (the spread of their starts):
// they did not overlap, and still merge, over the phase's span (0.7 ms),
// every operation counted. Runs that are not one coordinator's clients
// and did not overlap are refused as before.
func TestMergeShortRunOfOneCoordinator(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 1, 14, 41, 337_631_352, time.UTC)
	a := windowClient(0, "c0ffee", t0, 200*time.Microsecond)
	b := windowClient(1, "c0ffee", t0.Add(500*time.Microsecond), 200*time.Microsecond)
	if _, _, ok := CommonWindow([]*Doc{a, b}); ok {
		t.Fatal("the made clients overlap")
	}
	m, err := Merge([]*Doc{a, b})
	if err != nil {
		t.Fatalf("the clients of one coordinator: %v", err)
	}
	if m.Operations != 400 || m.Clients != 2 || !m.Start.Equal(t0) || !m.End.Equal(b.End) || m.RuntimeMs != 0.7 {
		t.Errorf("merged %d operations of %d clients from %v to %v (%v ms)", m.Operations, m.Clients, m.Start, m.End, m.RuntimeMs)
	}
	if want := 400 / 0.0007; m.Throughput < want*0.999 || m.Throughput > want*1.001 {
		t.Errorf("throughput %v, want %v (every operation over the span)", m.Throughput, want)
	}
	// Clients that overlap keep the common window.
	c := windowClient(1, "c0ffee", t0.Add(100*time.Microsecond), 200*time.Microsecond)
	if m, err := Merge([]*Doc{a, c}); err != nil || !m.Start.Equal(c.Start) || !m.End.Equal(a.End) {
		t.Errorf("overlapping clients: %v, window %v to %v", err, m.Start, m.End)
	}
	for name, docs := range map[string][]*Doc{
		"no coordinator":          {windowClient(0, "", t0, time.Second), windowClient(1, "", t0.Add(time.Hour), time.Second)},
		"two coordinators":        {windowClient(0, "c0ffee", t0, time.Second), windowClient(1, "beef", t0.Add(time.Hour), time.Second)},
		"one without coordinator": {windowClient(0, "c0ffee", t0, time.Second), windowClient(1, "", t0.Add(time.Hour), time.Second)},
	} {
		if _, err := Merge(docs); err == nil || !strings.Contains(err.Error(), "did not overlap") {
			t.Errorf("%s: %v, want refused", name, err)
		}
	}
	// Clients that measured no time at all have no window to merge over.
	z := windowClient(0, "c0ffee", t0, 0)
	if _, err := Merge([]*Doc{z, windowClient(1, "c0ffee", t0, 0)}); err == nil {
		t.Error("clients that measured no time merged")
	}
}

// A result whose start or end was changed so that they no longer lie its
// runtime apart (a start in year 1 stretched the window the merge counts
// in, and the merged throughput fell to one client's) is refused, naming
// it; results of a second's rounding and clock offset still merge.
func TestMergeRefusesAWindowAtOddsWithItsRuntime(t *testing.T) {
	t0 := time.Date(2026, 11, 25, 1, 14, 41, 0, time.UTC)
	a := windowClient(0, "c0ffee", t0, 2*time.Second)
	b := windowClient(1, "c0ffee", t0, 2*time.Second)
	b.Start = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := Merge([]*Doc{a, b}); err == nil || !strings.Contains(err.Error(), "result 2: its start and end are") {
		t.Errorf("a start in year 1: %v, want refused naming result 2", err)
	}
	c := windowClient(1, "c0ffee", t0.Add(10*time.Millisecond), 2*time.Second)
	c.End = c.End.Add(300 * time.Millisecond)
	if _, err := Merge([]*Doc{a, c}); err != nil {
		t.Errorf("a window 0.3 s longer than its runtime: %v", err)
	}
}
