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
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
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
	// resultWait is how long the result is sent again before the client
	// gives up: twice the phase's coordinator.timeout, at least a minute.
	resultWait time.Duration
}

// joinWait bounds how long a client tries to reach its coordinator before
// it gives up.
var joinWait = 15 * time.Second

// maxPhaseBytes bounds the phase a client reads from its coordinator: its
// properties (a property file is at most 16 MiB), binding and identity.
const maxPhaseBytes = 64 << 20

// A result is sent again after resultRetry, then twice as long each time,
// up to resultRetryMax; each try has resultTry and a second per MiB.
var (
	resultRetry    = 250 * time.Millisecond
	resultRetryMax = 4 * time.Second
	resultTry      = 30 * time.Second
)

// Join asks the coordinator at base for client index's phase, trying
// again for a while when it cannot be reached (it may still be starting).
// token is the client's secret (Secret) and pin the fingerprint of the
// coordinator's certificate (see HTTPClient); the error names the address
// tried. The coordinator is reached over https only: the secret never
// crosses a network in the clear.
func Join(ctx context.Context, base, token, pin string, index int) (*Session, *Phase, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || u.Scheme != "https" {
		return nil, nil, fmt.Errorf("coordinator %q: want https://host:port (the secret is never sent in the clear)", props.Cut(base, 80))
	}
	if token == "" {
		return nil, nil, fmt.Errorf("coordinator %s: no secret: the orchestrator sets %s or %s", base, TokenEnv, KeyEnv)
	}
	host, _ := os.Hostname()
	s := &Session{base: strings.TrimSuffix(base, "/"), index: index, host: host,
		http: HTTPClient(token, pin), queue: make(chan Progress, 64)}
	deadline := time.Now().Add(joinWait)
	// The whole join, each try too, ends at the deadline: a coordinator
	// that accepts and never answers is not waited for without end.
	jctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for {
		var ph Phase
		err := s.call(jctx, http.MethodGet, pathPhase, nil, maxPhaseBytes, func(body []byte) error { return json.Unmarshal(body, &ph) })
		if err == nil {
			s.resultWait = resultWait(&ph)
			return s, &ph, nil
		}
		var refused *httpError
		var wrong *certError
		if jctx.Err() != nil && ctx.Err() == nil {
			err = fmt.Errorf("no answer within %s", joinWait)
		}
		if errors.As(err, &refused) || errors.As(err, &wrong) || jctx.Err() != nil || time.Now().After(deadline) {
			return nil, nil, fmt.Errorf("client %d: cannot join the coordinator at %s: %w", index, s.base, err)
		}
		select {
		case <-jctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// resultWait is how long a client of phase ph sends its result again:
// twice the coordinator's timeout (its coordinator.timeout), at least a
// minute.
func resultWait(ph *Phase) time.Duration {
	p := props.New()
	if p.Parse(strings.NewReader(ph.Properties), "the coordinator's phase") != nil {
		return time.Minute
	}
	s, err := p.FloatRange("coordinator.timeout", 30, 1, 86400)
	if err != nil {
		return time.Minute
	}
	return max(time.Minute, 2*time.Duration(s*float64(time.Second)))
}

// httpError is the coordinator's answer other than 200.
type httpError struct {
	code   int
	status string
	msg    string
}

// final reports whether the coordinator's answer is its last word: not a
// 5xx (busy, or a proxy's) nor a 429.
func (e *httpError) final() bool {
	return e.code < 500 && e.code != http.StatusTooManyRequests
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
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path+sep+q.Encode(), r)
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
		return &httpError{code: resp.StatusCode, status: format.Printable(props.Cut(resp.Status, 60)), msg: format.Printable(oneLine(string(raw)))}
	}
	if read != nil {
		return read(raw)
	}
	return nil
}

// Watch asks the coordinator whether to stop, one long request after
// another, until ctx ends: stop is called once when the coordinator says
// to stop, abandon once when it says to abandon the operations in flight
// (stop first if it had not been), and then Watch returns. (A
// coordinator that is gone is the engine's to notice: it watches the
// clock.)
func (s *Session) Watch(ctx context.Context, stop, abandon func()) {
	path := pathStop
	for ctx.Err() == nil {
		var word string
		err := s.call(ctx, http.MethodGet, path, nil, 64, func(b []byte) error { word = string(b); return nil })
		if err == nil && (word == "stop" || word == "abandon") && path == pathStop {
			stop()
			path = pathStop + "?told=stop"
		}
		if err == nil && word == "abandon" {
			abandon()
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

// SendResult sends the client's result document until the coordinator
// answers, whatever ctx says, since a stopped client's result is what it
// stopped for: a try that fails (the coordinator stalled, unreachable, or
// busy: 5xx) is made again after a bounded backoff, for resultWait at
// most. The same document is sent each time, so that a coordinator that
// took it and whose answer was lost answers the retry 200.
func (s *Session) SendResult(d *result.Doc) error {
	body, err := json.Marshal(d)
	if err != nil {
		return err
	}
	wait := s.resultWait
	if wait <= 0 {
		wait = time.Minute
	}
	deadline := time.Now().Add(wait)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	pause, tries := resultRetry, 0
	for {
		tries++
		try, stop := context.WithTimeout(ctx, resultTry+time.Duration(len(body)>>20)*time.Second)
		err = s.call(try, http.MethodPost, pathResult, body, 4096, nil)
		stop()
		var answer *httpError
		var wrong *certError
		if err == nil || errors.As(err, &answer) && answer.final() || errors.As(err, &wrong) || time.Now().Add(pause).After(deadline) {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(pause):
		}
		pause = min(2*pause, resultRetryMax)
	}
	if err != nil {
		return fmt.Errorf("client %d: send the result to the coordinator at %s (%s): %w", s.index, s.base, triesWord(tries), err)
	}
	return nil
}

func triesWord(n int) string {
	if n == 1 {
		return "1 try"
	}
	return strconv.Itoa(n) + " tries"
}

// Fail tells the coordinator why this client cannot run (best effort).
func (s *Session) Fail(why string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s.call(ctx, http.MethodPost, pathFail, []byte(why), 64, nil)
}
