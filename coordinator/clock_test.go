package coordinator

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The sample of the shortest round trip decides: its middle against the
// coordinator's answer.
func TestBestOffset(t *testing.T) {
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	for _, c := range []struct {
		name            string
		samples         []clockSample
		offsetMs, rttMs float64
	}{
		{"one", []clockSample{{at(0), at(10), at(505)}}, 500, 10},
		{"the shortest wins", []clockSample{{at(0), at(40), at(600)}, {at(100), at(102), at(101)}, {at(200), at(230), at(215)}}, 0, 2},
		{"behind", []clockSample{{at(0), at(4), at(-998)}}, -1000, 4},
	} {
		got := bestOffset(c.samples)
		if got == nil || got.OffsetMs != c.offsetMs || got.RTTMs != c.rttMs {
			t.Errorf("%s: %+v, want offset %v ms, rtt %v ms", c.name, got, c.offsetMs, c.rttMs)
		}
	}
	if bestOffset(nil) != nil {
		t.Error("no samples gave an offset")
	}
}

// A coordinator whose clock is 250 ms ahead is found 250 ms ahead, within
// half the round trip (true whatever the machine is doing: its answer is
// read between sending and receiving).
func TestMeasureClock(t *testing.T) {
	srv := httptest.NewServer(ClockHandler(func() time.Time { return time.Now().Add(250 * time.Millisecond) }))
	defer srv.Close()
	c, err := measureClock(context.Background(), srv.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(c.OffsetMs-250) > c.RTTMs/2+0.001 {
		t.Errorf("offset %v ms ± %v, want 250", c.OffsetMs, c.RTTMs/2)
	}
	bad := httptest.NewServer(http404{})
	defer bad.Close()
	if _, err := measureClock(context.Background(), bad.URL, nil); err == nil || !strings.Contains(err.Error(), "not a time") {
		t.Errorf("a page that is not a time: %v", err)
	}
}

type http404 struct{}

func (http404) ServeHTTP(w http.ResponseWriter, _ *http.Request) { http.NotFound(w, nil) }

// A coordinator whose clock is decades off this client's is refused: one
// of the two clocks is wrong, not a little off.
func TestMeasureClockRefusesAbsurdOffsets(t *testing.T) {
	srv := httptest.NewServer(ClockHandler(func() time.Time { return time.Now().AddDate(-56, 0, 0) }))
	defer srv.Close()
	if _, err := measureClock(context.Background(), srv.URL, nil); err == nil || !strings.Contains(err.Error(), "set both clocks right") {
		t.Errorf("a clock 56 years off: %v", err)
	}
}

// The watch says the coordinator is gone once it stops answering, and
// not while it answers.
func TestWatchCoordinator(t *testing.T) {
	defer func(e, g time.Duration) { watchEvery, watchGone = e, g }(watchEvery, watchGone)
	watchEvery, watchGone = 10*time.Millisecond, 50*time.Millisecond
	srv := httptest.NewServer(ClockHandler(time.Now))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	gone := make(chan struct{})
	go watchCoordinator(ctx, srv.URL, nil, func() { close(gone) })
	for range 20 { // a coordinator answering is never gone
		select {
		case <-gone:
			t.Fatal("gone while the coordinator answers")
		case <-time.After(10 * time.Millisecond):
		}
	}
	srv.Close()
	select {
	case <-gone:
	case <-time.After(time.Minute): // a safety net, not a timing
		t.Fatal("the coordinator stopped answering and the watch did not say so")
	}
}

// A client names itself to its coordinator's clock: its gate asks the
// clock with its index.
func TestGateNamesTheClient(t *testing.T) {
	s := &Session{base: "https://127.0.0.1:4000"}
	if got := s.Gate(3).String(); got != "https://127.0.0.1:4000"+pathClock+"?client=3" {
		t.Errorf("clock URL %q", got)
	}
}
