package engine

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// The clients of a spread phase start at a wall-clock time (startat) on
// their coordinator's clock. A client given clock.url asks the coordinator
// for its time clockSamples times before it waits, and keeps the answer of
// the shortest round trip (NTP's rule: the least delayed sample bounds the
// error best): offset = coordinator's time − the middle of the round trip
// on this client's clock, within ± half the round trip. The client then
// starts at startat − offset on its own clock, and its result's start and
// end are moved by the offset onto the coordinator's clock, so that the
// merge lines up the clients' intervals even when their clocks disagree.
const clockSamples = 8

// clockWarnMs: a client whose clock is further off says so.
const clockWarnMs = 10

// ClockHandler answers a client's clock request: the coordinator's
// wall-clock time in Unix nanoseconds, as text.
func ClockHandler(now func() time.Time) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, strconv.FormatInt(now().UnixNano(), 10))
	})
}

// clockSample is one request: sent and received on this client's clock,
// and the coordinator's answer.
type clockSample struct {
	sent, received, theirs time.Time
}

// bestOffset picks the sample of the shortest round trip; zero samples
// give nil.
func bestOffset(samples []clockSample) *result.Clock {
	var best *clockSample
	for i := range samples {
		s := &samples[i]
		if best == nil || s.received.Sub(s.sent) < best.received.Sub(best.sent) {
			best = s
		}
	}
	if best == nil {
		return nil
	}
	rtt := best.received.Sub(best.sent)
	mid := best.sent.Add(rtt / 2)
	return &result.Clock{OffsetMs: ms(best.theirs.Sub(mid)), RTTMs: ms(rtt)}
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// measureClock asks url clockSamples times; an error names the URL
// (which a coordinator makes and which holds no credentials).
func measureClock(ctx context.Context, url string) (*result.Clock, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	c := &http.Client{}
	var samples []clockSample
	for range clockSamples {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, fmt.Errorf("clock.url %q: %w", url, err)
		}
		sent := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			return nil, fmt.Errorf("clock: ask the coordinator at %s: %w", url, err)
		}
		body, err := io.ReadAll(io.LimitReader(resp.Body, 64))
		resp.Body.Close()
		received := time.Now()
		if err != nil {
			return nil, fmt.Errorf("clock: ask the coordinator at %s: %w", url, err)
		}
		ns, err := strconv.ParseInt(strings.TrimSpace(string(body)), 10, 64)
		if err != nil || resp.StatusCode != http.StatusOK {
			return nil, fmt.Errorf("clock: the coordinator at %s answered %s %q, not a time", url, resp.Status, props.Cut(string(body), 40))
		}
		samples = append(samples, clockSample{sent: sent, received: received, theirs: time.Unix(0, ns)})
	}
	return bestOffset(samples), nil
}
