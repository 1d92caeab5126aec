package coordinator

import (
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// The clients of a spread phase start at a wall-clock time (startat) on
// their coordinator's clock. A client asks the coordinator (its Gate's
// Clock) for its time clockSamples times before it waits, and keeps the answer of
// the shortest round trip (NTP's rule: the least delayed sample bounds the
// error best): offset = coordinator's time − the middle of the round trip
// on this client's clock, within ± half the round trip. The client then
// starts at startat − offset on its own clock, and its result's start and
// end are moved by the offset onto the coordinator's clock, so that the
// merge lines up the clients' intervals even when their clocks disagree.
const clockSamples = 8

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

// gate joins one client to its coordinator's clock (engine.Gate): url is
// the clock's address with the client's index, so that the coordinator
// knows who asked; http carries the client's secret and trusts only the
// coordinator's certificate.
type gate struct {
	url   string // the clock's
	ready string // the ready barrier's
	http  *http.Client
}

// Gate is the engine's way to this session's coordinator for client i:
// its clock before the common start, and the watch that stops the run
// when the coordinator is gone.
func (s *Session) Gate(i int) engine.Gate {
	at := func(path string) string {
		u := s.base + path
		if pu, err := url.Parse(u); err == nil {
			q := pu.Query()
			q.Set("client", strconv.Itoa(i))
			pu.RawQuery = q.Encode()
			u = pu.String()
		}
		return u
	}
	return gate{url: at(pathClock), ready: at(pathReady), http: s.http}
}

func (g gate) String() string { return g.url }
func (g gate) Clock(ctx context.Context) (*result.Clock, error) {
	return measureClock(ctx, g.url, g.http)
}
func (g gate) Watch(ctx context.Context, gone func()) { watchCoordinator(ctx, g.url, g.http, gone) }

// Ready says this client is ready and returns the common start the
// coordinator answers (on its clock; zero: keep startat), waiting at most
// until latest, a little after the latest start.
func (g gate) Ready(ctx context.Context, latest time.Time) (time.Time, error) {
	ctx, cancel := context.WithDeadline(ctx, latest.Add(10*time.Second))
	defer cancel()
	c := g.http
	if c == nil {
		c = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, g.ready, nil)
	if err != nil {
		return time.Time{}, fmt.Errorf("ready %q: %w", g.ready, err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return time.Time{}, fmt.Errorf("ready: ask the coordinator at %s: %w", g.ready, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64))
	if err != nil {
		return time.Time{}, fmt.Errorf("ready: ask the coordinator at %s: %w", g.ready, err)
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(body)), 10, 64)
	if err != nil || resp.StatusCode != http.StatusOK {
		return time.Time{}, fmt.Errorf("ready: the coordinator at %s answered %s %q, not a time", g.ready, resp.Status, props.Cut(string(body), 40))
	}
	if ns == 0 {
		return time.Time{}, nil
	}
	return time.Unix(0, ns), nil
}

// measureClock asks url clockSamples times; an error names the URL
// (which a coordinator makes and which holds no credentials).
func measureClock(ctx context.Context, url string, c *http.Client) (*result.Clock, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if c == nil {
		c = http.DefaultClient
	}
	var samples []clockSample
	for range clockSamples {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, fmt.Errorf("clock %q: %w", url, err)
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
	best := bestOffset(samples)
	if best != nil && math.Abs(best.OffsetMs) > maxClockOffsetMs {
		return nil, fmt.Errorf("clock: the coordinator at %s is %s off this machine's clock: set both clocks right (NTP) first", url, (time.Duration(math.Abs(best.OffsetMs)) * time.Millisecond).Round(time.Second))
	}
	return best, nil
}

// maxClockOffsetMs: a client whose clock is further off its coordinator's
// than an hour has a clock that is wrong, not a little off.
const maxClockOffsetMs = 3600_000

// Coordinator watch: a client of a spread phase asks its coordinator's
// clock every watchEvery; when no answer came for watchGone (and at least
// three asks failed), the coordinator is gone (killed, its machine down)
// and the client stops as if interrupted, so no client runs on forever.
var (
	watchEvery = time.Second
	watchGone  = 10 * time.Second
)

// watchCoordinator calls gone once when the coordinator at url stops
// answering, and returns when ctx ends.
func watchCoordinator(ctx context.Context, url string, c *http.Client, gone func()) {
	if c == nil {
		c = http.DefaultClient
	}
	t := time.NewTicker(watchEvery)
	defer t.Stop()
	last, failed := time.Now(), 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ask, cancel := context.WithTimeout(ctx, 5*time.Second)
		req, err := http.NewRequestWithContext(ask, http.MethodGet, url, nil)
		if err != nil {
			cancel()
			return
		}
		resp, err := c.Do(req)
		if err == nil {
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64))
			resp.Body.Close()
		}
		cancel()
		if err == nil {
			last, failed = time.Now(), 0
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if failed++; failed >= 3 && time.Since(last) >= watchGone {
			gone()
			return
		}
	}
}
