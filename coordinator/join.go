package coordinator

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// A Session is one client's side of the protocol (see hub): it joins the
// phase, follows the coordinator's word to stop, sends progress at each
// interval (it is a runner.Observer) and, at the end, the result.
type Session struct {
	base  string // the coordinator's URL as this client reaches it, without a trailing /
	index int
	host  string
	http  *http.Client
	queue chan Progress
}

// joinWait bounds how long a client tries to reach its coordinator before
// it gives up.
var joinWait = 15 * time.Second

// Join asks the coordinator at base for client index's phase, trying
// again for a while when it cannot be reached (it may still be starting).
// token is the run's secret and pin the fingerprint of the coordinator's
// certificate (see HTTPClient); the error names the address tried.
func Join(ctx context.Context, base, token, pin string, index int) (*Session, *Phase, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || u.Scheme != "https" && (u.Scheme != "http" || pin != "") {
		return nil, nil, fmt.Errorf("coordinator %q: want https://host:port", base)
	}
	if token == "" {
		return nil, nil, fmt.Errorf("coordinator %s: no secret: the orchestrator sets %s", base, TokenEnv)
	}
	host, _ := os.Hostname()
	s := &Session{base: strings.TrimSuffix(base, "/"), index: index, host: host,
		http: HTTPClient(token, pin), queue: make(chan Progress, 64)}
	deadline := time.Now().Add(joinWait)
	for {
		var ph Phase
		err := s.call(ctx, http.MethodGet, pathPhase, nil, 1<<30, func(body []byte) error { return json.Unmarshal(body, &ph) })
		if err == nil {
			return s, &ph, nil
		}
		var refused *httpError
		var wrong *certError
		if errors.As(err, &refused) || errors.As(err, &wrong) || ctx.Err() != nil || time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("client %d: cannot join the coordinator at %s: %w", index, s.base, err)
		}
		select {
		case <-ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// ClockURL is the coordinator's clock as this client reaches it (the
// property clock.url).
func (s *Session) ClockURL() string { return s.base + pathClock }

// HTTP is the client the session asks its coordinator with: the engine
// measures the clock with it (engine.Spec.Coordinator).
func (s *Session) HTTP() *http.Client { return s.http }

// httpError is the coordinator's answer other than 200.
type httpError struct {
	status string
	msg    string
}

func (e *httpError) Error() string { return fmt.Sprintf("%s: %s", e.status, e.msg) }

// call makes one request and hands the answer's body (at most limit
// bytes) to read.
func (s *Session) call(ctx context.Context, method, path string, body []byte, limit int64, read func([]byte) error) error {
	q := url.Values{"client": {strconv.Itoa(s.index)}, "host": {s.host}}
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path+"?"+q.Encode(), r)
	if err != nil {
		return err
	}
	resp, err := s.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return ue.Err // the URL is named by the caller, once
		}
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, limit))
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return &httpError{status: resp.Status, msg: oneLine(string(raw))}
	}
	if read != nil {
		return read(raw)
	}
	return nil
}

// Watch asks the coordinator whether to stop, one long request after
// another, until ctx ends; stop is called once when the coordinator says
// so. (A coordinator that is gone is the engine's to notice: it watches
// the clock.)
func (s *Session) Watch(ctx context.Context, stop func()) {
	for ctx.Err() == nil {
		var word string
		err := s.call(ctx, http.MethodGet, pathStop, nil, 64, func(b []byte) error { word = string(b); return nil })
		if err == nil && word == "stop" {
			stop()
			return
		}
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(time.Second):
			}
		}
	}
}

// Send sends queued progress until ctx ends; progress that finds the
// queue full is dropped (the result, not the live view, is what counts).
func (s *Session) Send(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case p := <-s.queue:
			body, _ := json.Marshal(p)
			c, cancel := context.WithTimeout(ctx, 5*time.Second)
			s.call(c, http.MethodPost, pathProgress, body, 64, nil)
			cancel()
		}
	}
}

// Interval implements runner.Observer: the interval's counts and response
// times, queued for Send.
func (s *Session) Interval(p runner.Progress) {
	ops, ok := p.Interval.ClientOps()
	pr := Progress{EndMs: p.End.Milliseconds(), Ops: ops, Failed: ops - ok, Warmup: p.Warmup, Final: p.Final}
	if ops > 0 && !p.Warmup {
		pr.Histogram = result.Encode(clientOpsHistogram(p.Interval))
	}
	select {
	case s.queue <- pr:
	default:
	}
}

// clientOpsHistogram merges the latencies of every client operation of
// an interval: response times when the run is paced (measured from the
// intended start), else service times.
func clientOpsHistogram(set *measure.Set) *hdr.Histogram {
	var response, service *hdr.Histogram
	add := func(dst **hdr.Histogram, h *hdr.Histogram) {
		if h == nil || h.TotalCount() == 0 {
			return
		}
		if *dst == nil {
			*dst = measure.NewHistogram()
		}
		(*dst).Merge(h)
	}
	for op := measure.Op(0); op < measure.NumOps; op++ {
		if !op.IsClientOp() {
			continue
		}
		for st := range set.Response[op] {
			add(&response, set.Response[op][st])
			add(&service, set.Service[op][st])
		}
	}
	if response != nil {
		return response
	}
	return service
}

// SendResult sends the client's result document; it tries for a while,
// whatever ctx says, since a stopped client's result is what it stopped
// for.
func (s *Session) SendResult(d *result.Doc) error {
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := s.call(ctx, http.MethodPost, pathResult, body, 4096, nil); err != nil {
		return fmt.Errorf("client %d: send the result to the coordinator at %s: %w", s.index, s.base, err)
	}
	return nil
}

// Fail tells the coordinator why this client cannot run (best effort).
func (s *Session) Fail(why string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.call(ctx, http.MethodPost, pathFail, []byte(why), 64, nil)
}
