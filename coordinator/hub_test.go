package coordinator

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

const testKey = "s3cret"

// sec is client i's secret in the test hubs.
func sec(i int) string { return clientSecret(testKey, i) }

// tlsServer serves h over TLS with a certificate of its own, as the
// coordinator does; it returns the server and the certificate's pin.
func tlsServer(t *testing.T, h http.Handler) (*httptest.Server, string) {
	t.Helper()
	cert, pin, err := newIdentity()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, pin
}

func testHub(t *testing.T) (*hub, *httptest.Server, *http.Client) {
	t.Helper()
	h := newHub(testKey, "run-1", 2, Phase{Command: "run", Binding: "basic", Properties: "redis.password=pw\n"}, time.Now)
	srv, pin := tlsServer(t, h)
	return h, srv, HTTPClient("", pin)
}

func do(t *testing.T, c *http.Client, method, url, token string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

func resultDoc(id, index string) *result.Doc {
	return &result.Doc{Format: result.Format, Version: result.FormatVersion, Command: "run", Binding: "basic",
		Properties: map[string]string{"coordinator.id": id, "clientindex": index}}
}

func docJSON(id, index string) []byte {
	b, _ := json.Marshal(resultDoc(id, index))
	return b
}

// Only a request carrying the secret of the client it names is served,
// on every path: not the run's key, not another client's secret, not an
// index out of range. The phase (which holds credentials) is never given
// without it.
func TestHubRefusesWithoutTheSecret(t *testing.T) {
	_, srv, c := testHub(t)
	for _, path := range []string{pathPhase, pathClock, pathReady, pathStop, pathProgress, pathResult, pathFail} {
		for _, token := range []string{"", "wrong", testKey, sec(1), sec(0)[:63], sec(0) + "0", clientSecret("s3cre", 0)} {
			code, body := do(t, c, http.MethodGet, srv.URL+path+"?client=0", token, nil)
			if code != http.StatusUnauthorized || strings.Contains(body, "pw") {
				t.Errorf("%s with token %q: %d %q", path, token, code, body)
			}
		}
	}
	code, body := do(t, c, http.MethodGet, srv.URL+pathPhase+"?client=0", sec(0), nil)
	var ph Phase
	if code != http.StatusOK || json.Unmarshal([]byte(body), &ph) != nil || ph.Properties != "redis.password=pw\n" {
		t.Errorf("the phase with the secret: %d %q", code, body)
	}
	for _, q := range []string{"", "?client=2", "?client=-1", "?client=x", "?client=1"} {
		for _, token := range []string{sec(0), sec(2), sec(-1), testKey} {
			if code, _ := do(t, c, http.MethodGet, srv.URL+pathPhase+q, token, nil); code != http.StatusUnauthorized {
				t.Errorf("client %q with token %s: %d, want 401", q, token[:6], code)
			}
		}
	}
}

// A refused request's connection is closed: whoever does not hold a
// secret does not keep a connection open.
func TestHubClosesRefusedConnections(t *testing.T) {
	h := newHub(testKey, "run-1", 1, Phase{Command: "run"}, time.Now)
	srv := httptest.NewServer(h)
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET %s?client=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong\r\nConnection: keep-alive\r\n\r\n", pathPhase)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
		t.Fatalf("%s, Connection: close %v", resp.Status, resp.Close)
	}
	conn.SetReadDeadline(time.Now().Add(time.Minute)) // bounds the test if it is left open
	if n, err := r.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("the connection after a 401: read %d, %v; want EOF", n, err)
	}
}

// A result is taken once per client, only if it is this run's, this
// phase's and the client's own; anything else fails that client, by name.
func TestHubResults(t *testing.T) {
	h, srv, c := testHub(t)
	if code, body := do(t, c, http.MethodPost, srv.URL+pathResult+"?client=0&host=h0", sec(0), docJSON("run-1", "0")); code != http.StatusOK {
		t.Fatalf("client 0's result: %d %s", code, body)
	}
	if code, _ := do(t, c, http.MethodPost, srv.URL+pathResult+"?client=1&host=h1", sec(1), docJSON("run-0", "1")); code != http.StatusBadRequest {
		t.Errorf("another run's result: %d, want 400", code)
	}
	if code, _ := do(t, c, http.MethodPost, srv.URL+pathResult+"?client=1", sec(1), []byte(strings.Repeat("x", 1000))); code != http.StatusBadRequest {
		t.Errorf("not a result: %d, want 400", code)
	}
	ms := h.members()
	if ms[0].result == nil || ms[0].failed != "" || ms[1].result != nil || !strings.Contains(ms[1].failed, "another run's result") {
		t.Errorf("members: %+v", ms)
	}
	if err := failed(h, false); err == nil || !strings.Contains(err.Error(), "client 1 of 2 (host h1) sent a result that is not its own") {
		t.Errorf("the phase's failure: %v", err)
	}
	other := resultDoc("run-1", "1")
	other.Binding = "redis"
	b, _ := json.Marshal(other)
	h2, srv2, c2 := testHub(t)
	if code, _ := do(t, c2, http.MethodPost, srv2.URL+pathResult+"?client=1", sec(1), b); code != http.StatusBadRequest || h2.members()[1].result != nil {
		t.Errorf("another phase's result: %d, want 400", code)
	}
	if code, _ := do(t, c2, http.MethodPost, srv2.URL+pathResult+"?client=0", sec(0), docJSON("run-1", "1")); code != http.StatusBadRequest {
		t.Errorf("client 0 sending client 1's result: %d, want 400", code)
	}
}

// A client's result is accepted once, from the holder of its own secret:
// the same result again (a retry whose answer was lost) is answered 200,
// another is refused (409), said on the console once and fails the
// client, and the first is dropped too: which of the two is the client's
// cannot be told.
func TestHubSecondResult(t *testing.T) {
	h, srv, c := testHub(t)
	var said []string
	h.say = func(l string) { said = append(said, l) }
	first := docJSON("run-1", "0")
	for range 2 {
		if code, body := do(t, c, http.MethodPost, srv.URL+pathResult+"?client=0", sec(0), first); code != http.StatusOK {
			t.Fatalf("client 0's result, sent again: %d %s", code, body)
		}
	}
	if ms := h.members(); ms[0].failed != "" || ms[0].result == nil {
		t.Fatalf("after the same result twice: %+v", ms[0])
	}
	forged := resultDoc("run-1", "0")
	forged.Operations = 0
	forged.Label = "forged"
	b, _ := json.Marshal(forged)
	for range 2 {
		if code, _ := do(t, c, http.MethodPost, srv.URL+pathResult+"?client=0", sec(0), b); code != http.StatusConflict {
			t.Errorf("a second, different result: %d, want 409", code)
		}
	}
	if code, _ := do(t, c, http.MethodPost, srv.URL+pathResult+"?client=0", sec(1), b); code != http.StatusUnauthorized {
		t.Errorf("client 1's secret for client 0: %d, want 401", code)
	}
	if code, _ := do(t, c, http.MethodPost, srv.URL+pathResult+"?client=0", sec(0), first); code != http.StatusConflict {
		t.Errorf("the first result after a second: %d, want 409", code)
	}
	if ms := h.members(); ms[0].result != nil {
		t.Errorf("a disputed result was kept: %+v", ms[0].result)
	}
	if err := failed(h, false); err == nil || !strings.Contains(err.Error(), "client 0 of 2 sent two different results: both refused") {
		t.Errorf("the phase's failure: %v", err)
	}
	if len(said) != 1 || !strings.Contains(said[0], "client 0 of 2 sent two different results") {
		t.Errorf("said on the console: %q", said)
	}
}

// Progress larger than its bound is refused; the stop request answers at
// once when the clients are to stop.
func TestHubProgressAndStop(t *testing.T) {
	h, srv, c := testHub(t)
	big := []byte(`{"ops": 1, "histogram": "` + strings.Repeat("A", maxProgressBytes) + `"}`)
	if code, _ := do(t, c, http.MethodPost, srv.URL+pathProgress+"?client=0", sec(0), big); code != http.StatusBadRequest {
		t.Errorf("progress over its bound: %d", code)
	}
	if code, body := do(t, c, http.MethodPost, srv.URL+pathProgress+"?client=1", sec(1), []byte(`{"end_ms": 800, "ops": 5, "failed": 1}`)); code != http.StatusOK {
		t.Errorf("progress: %d %s", code, body)
	}
	if ps := h.progress(); len(ps[1]) != 1 || ps[1][0].Ops != 5 || len(ps[0]) != 0 {
		t.Errorf("progress kept: %+v", ps)
	}
	h.stopAll()
	h.stopAll() // twice is once
	if code, body := do(t, c, http.MethodGet, srv.URL+pathStop+"?client=0", sec(0), nil); code != http.StatusOK || body != "stop" {
		t.Errorf("stop: %d %q", code, body)
	}
}

// What a client's progress says is checked before it is summed or
// printed: its end within the time the run has run, counts that are not
// negative, failures at most its operations, operations a client can do,
// a histogram of at most its operations. A refused one is said once.
func TestHubProgressChecked(t *testing.T) {
	clk := newClock()
	h := newHub(testKey, "run-1", 1, Phase{Command: "run"}, clk.now)
	var said []string
	h.say = func(l string) { said = append(said, l) }
	clk.add(10 * time.Second)
	srv, pin := tlsServer(t, h)
	c := HTTPClient("", pin)
	hist := measure.NewHistogram()
	hist.RecordValue(1000)
	hist.RecordValue(2000)
	two := result.Encode(hist)
	for _, bad := range []string{
		`{"end_ms": 9223372036854775807, "ops": 1}`,
		`{"end_ms": 20000, "ops": 1}`,
		`{"end_ms": -1, "ops": 1}`,
		`{"end_ms": -20000, "ops": 1, "warmup": true}`,
		`{"end_ms": 1000, "ops": -1}`,
		`{"end_ms": 1000, "ops": 5, "failed": -3}`,
		`{"end_ms": 1000, "ops": 5, "failed": 6}`,
		`{"end_ms": 1000, "ops": 1e30}`,
		`{"end_ms": 1000, "ops": 1.5}`,
		`{"end_ms": 1000, "ops": 20000000000}`,
		`{"end_ms": 1000, "ops": 1, "histogram": "` + two + `"}`,
		`{"end_ms": 1000, "ops": 1, "histogram": "not one"}`,
		`{"end_ms": "1000"}`,
		`[1, 2]`,
	} {
		if code, body := do(t, c, http.MethodPost, srv.URL+pathProgress+"?client=0", sec(0), []byte(bad)); code != http.StatusBadRequest {
			t.Errorf("%.80s: %d %s, want 400", bad, code, body)
		}
	}
	for _, good := range []string{
		`{"end_ms": 10000, "ops": 2, "failed": 2, "histogram": "` + two + `"}`,
		`{"end_ms": -9000, "ops": 7, "warmup": true}`,
		`{"end_ms": 0, "ops": 0}`,
	} {
		if code, body := do(t, c, http.MethodPost, srv.URL+pathProgress+"?client=0", sec(0), []byte(good)); code != http.StatusOK {
			t.Errorf("%.80s: %d %s, want 200", good, code, body)
		}
	}
	if ps := h.progress(); len(ps[0]) != 3 {
		t.Errorf("progress kept: %+v", ps)
	}
	if len(said) != 1 || !strings.Contains(said[0], "client 0 of 1 sent progress that was refused") {
		t.Errorf("said: %q", said)
	}
}

// The histograms of a client's progress kept between two status lines
// are bounded; past the bound its counts are kept without them.
func TestHubProgressHeldBounded(t *testing.T) {
	t.Parallel()
	clk := newClock()
	h := newHub(testKey, "run-1", 1, Phase{Command: "run"}, clk.now)
	clk.add(time.Hour)
	srv, pin := tlsServer(t, h)
	c := HTTPClient("", pin)
	hist := measure.NewHistogram()
	for v := range int64(3000) { // 3,000 buckets, counts that do not compress
		hist.RecordValues(1000+v, 1+v*v*v%251)
	}
	enc := result.Encode(hist)
	body := fmt.Sprintf(`{"end_ms": 0, "ops": %d, "histogram": %q}`, hist.TotalCount(), enc)
	sends := 2*maxProgressHeld/len(enc) + 1
	for range sends {
		if code, msg := do(t, c, http.MethodPost, srv.URL+pathProgress+"?client=0", sec(0), []byte(body)); code != http.StatusOK {
			t.Fatalf("%d %s", code, msg)
		}
	}
	ps, held := h.progress(), 0
	for _, p := range ps[0] {
		held += len(p.Histogram)
	}
	if len(ps[0]) != sends || held > maxProgressHeld || held < maxProgressHeld/2 {
		t.Errorf("%d of %d kept, %d bytes of histograms held (bound %d)", len(ps[0]), sends, held, maxProgressHeld)
	}
}

// A result's body is bounded before it is read: one over a result file's
// bound is refused by its length alone, one client's is read one at a
// time, and the bodies being read at once stay within resultBudget.
func TestHubResultBodyBounded(t *testing.T) {
	old := resultBudget
	resultBudget = 4096
	defer func() { resultBudget = old }()
	h := newHub(testKey, "run-1", 2, Phase{Command: "run", Binding: "basic"}, time.Now)
	srv := httptest.NewServer(h) // the handler's bounds, over plain HTTP to write by hand
	defer srv.Close()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s?client=0 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\n\r\n", pathResult, sec(0), int64(result.MaxFileBytes)+1)
	conn.SetReadDeadline(time.Now().Add(time.Minute)) // it answers at once; a server waiting for the body fails here
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("a result over %d bytes: %v %v", int64(result.MaxFileBytes), resp, err)
	}

	doc := docJSON("run-1", "0")
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+pathResult+"?client=0", pr)
	req.ContentLength = int64(len(doc))
	req.Header.Set("Authorization", "Bearer "+sec(0))
	answered := make(chan int)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	pw.Write(doc[:10]) // client 0's result is being received
	for k := 0; !receiving(h, 0); k++ {
		if k == 120000 { // it takes a few; two minutes is a safety net, not a measurement
			t.Fatal("client 0's result is not being received")
		}
		time.Sleep(time.Millisecond)
	}
	post := func(i int, body []byte) int {
		r, _ := http.NewRequest(http.MethodPost, fmt.Sprintf("%s%s?client=%d", srv.URL, pathResult, i), bytes.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+sec(i))
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(0, doc); code != http.StatusServiceUnavailable {
		t.Errorf("client 0's result while it is being received: %d, want 503", code)
	}
	big := append(docJSON("run-1", "1"), bytes.Repeat([]byte(" "), int(resultBudget)-len(doc))...)
	if code := post(1, big); code != http.StatusServiceUnavailable {
		t.Errorf("client 1's result past the budget: %d, want 503", code)
	}
	pw.Write(doc[10:])
	pw.Close()
	if code := <-answered; code != http.StatusOK {
		t.Fatalf("client 0's result: %d", code)
	}
	if code := post(1, big); code != http.StatusOK {
		t.Errorf("client 1's result once the budget is free: %d", code)
	}
}

// clock is a time the test moves, read by the servers' goroutines.
type clock struct{ ns atomic.Int64 }

func newClock() *clock {
	c := &clock{}
	c.ns.Store(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixNano())
	return c
}

func (c *clock) now() time.Time      { return time.Unix(0, c.ns.Load()) }
func (c *clock) add(d time.Duration) { c.ns.Add(int64(d)) }

func receiving(h *hub, i int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.clients[i].receiving
}

// A client sends its result again until the coordinator answers: tries
// that end without an answer (the coordinator stalled, its answer lost
// after it took the result) are made again, and the coordinator takes
// the same result once.
func TestSendResultUntilAnswered(t *testing.T) {
	oldRetry, oldTry := resultRetry, resultTry
	resultRetry, resultTry = time.Millisecond, 500*time.Millisecond // a stalled try is given up after it
	defer func() { resultRetry, resultTry = oldRetry, oldTry }()
	h := newHub(testKey, "run-1", 1, Phase{Command: "run", Binding: "basic", Properties: "coordinator.timeout=5\n"}, time.Now)
	var tries atomic.Int32
	release := make(chan struct{})
	srv, pin := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != pathResult {
			h.ServeHTTP(w, r)
			return
		}
		switch tries.Add(1) {
		case 1: // stalled: no answer at all, and none when it ends (a handler that returns answers 200)
			io.Copy(io.Discard, r.Body)
			select {
			case <-r.Context().Done():
			case <-release:
			}
		case 2: // gone before it read the result
		case 3: // took the result, and its answer was lost
			h.ServeHTTP(httptest.NewRecorder(), r)
		default:
			h.ServeHTTP(w, r)
			return
		}
		conn, _, err := http.NewResponseController(w).Hijack()
		if err == nil {
			conn.Close()
		}
	}))
	t.Cleanup(func() { close(release) })
	s, _, err := Join(context.Background(), srv.URL, sec(0), pin, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.resultWait != time.Minute {
		t.Errorf("the result is sent for %s, want a minute", s.resultWait)
	}
	if err := s.SendResult(resultDoc("run-1", "0")); err != nil {
		t.Fatalf("after %d tries: %v", tries.Load(), err)
	}
	if n := tries.Load(); n < 4 { // more when a try of a busy machine's timed out before it arrived
		t.Errorf("%d tries, want at least 4", n)
	}
	if ms := h.members(); ms[0].result == nil || ms[0].failed != "" {
		t.Errorf("the coordinator has %+v", ms[0])
	}
	// Its last word ends the tries at once.
	if err := s.SendResult(&result.Doc{Format: result.Format, Version: result.FormatVersion, Label: "another", Properties: map[string]string{"coordinator.id": "run-1", "clientindex": "0"}}); err == nil || !strings.Contains(err.Error(), "409") || !strings.Contains(err.Error(), "(1 try)") {
		t.Errorf("a second result: %v", err)
	}
}

// A coordinator that was stopped for longer than coordinator.timeout
// (SIGSTOP, a suspended machine) does not call its clients silent for
// that time when it wakes: each has the timeout again from then.
func TestSilentAfterTheCoordinatorStalled(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	h := newHub(testKey, "run-1", 2, Phase{}, func() time.Time { return now })
	h.seen(0, "")
	h.seen(1, "")
	timeout := 30 * time.Second
	begun := now
	if i := h.silent(now.Add(-timeout), begun); i >= 0 {
		t.Fatalf("client %d silent at once", i)
	}
	now = now.Add(40 * time.Second) // stopped, then woken
	if i := h.silent(now.Add(-timeout), begun); i >= 0 {
		t.Errorf("client %d called silent for the coordinator's own stall", i)
	}
	now = now.Add(time.Second)
	h.seen(1, "")
	for range 29 { // to 30 s after the stall
		now = now.Add(time.Second)
		if i := h.silent(now.Add(-timeout), begun); i >= 0 {
			t.Fatalf("client %d silent %s after the stall", i, now.Sub(begun)-40*time.Second)
		}
	}
	now = now.Add(time.Second)
	if i := h.silent(now.Add(-timeout), begun); i != 0 {
		t.Errorf("silent: %d, want client 0, unheard of since the stall", i)
	}
}

// A client session joins, is told to stop, and a coordinator that is not
// there is named in one line.
func TestSessionJoinAndWatch(t *testing.T) {
	h, srv, _ := testHub(t)
	pin := pinOf(srv)
	s, ph, err := Join(context.Background(), srv.URL, sec(1), pin, 1)
	if err != nil || ph.Binding != "basic" {
		t.Fatalf("join: %v %+v", err, ph)
	}
	stopped, abandoned, watched := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		s.Watch(context.Background(), func() { close(stopped) }, func() { close(abandoned) })
		close(watched)
	}()
	h.stopAll()
	<-stopped
	// Told to stop, the client goes on asking, for a second Ctrl-C's word.
	select {
	case <-watched:
		t.Fatal("Watch returned at the word to stop; it is to wait for the word to abandon")
	case <-time.After(50 * time.Millisecond):
	}
	h.abandonAll()
	<-abandoned
	<-watched
	if _, _, err := Join(context.Background(), srv.URL, "wrong", pin, 0); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a wrong secret: %v", err)
	}
	old := joinWait
	joinWait = 0
	defer func() { joinWait = old }()
	if _, _, err := Join(context.Background(), "https://127.0.0.1:1", testKey, "00", 0); err == nil || !strings.Contains(err.Error(), "cannot join the coordinator at https://127.0.0.1:1") {
		t.Errorf("no coordinator: %v", err)
	}
}

func pinOf(srv *httptest.Server) string {
	sum := sha256.Sum256(srv.Certificate().Raw)
	return hex.EncodeToString(sum[:])
}

func TestParseHosts(t *testing.T) {
	hs, err := parseHosts(context.Background(), "a, bob@b:2222,[::1]:22")
	if err != nil || len(hs) != 3 || hs[1].user != "bob" || hs[1].host != "b" || hs[1].port != "2222" || hs[2].host != "::1" {
		t.Errorf("%+v %v", hs, err)
	}
	for _, bad := range []string{"", ",", "-oProxyCommand=x", "a;b", "h:99999", "a b c"} {
		if _, err := parseHosts(context.Background(), bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// Over TLS, a client trusts only the run's certificate: the right
// fingerprint joins, another is refused before any secret is sent, and
// plain http is refused with a pin or without.
func TestSessionTrustsOnlyTheRunsCertificate(t *testing.T) {
	h := newHub(testKey, "run-1", 1, Phase{Command: "run", Binding: "basic", Properties: "x=1\n"}, time.Now)
	srv, pin := tlsServer(t, h)
	if _, ph, err := Join(context.Background(), srv.URL, sec(0), pin, 0); err != nil || ph.Properties != "x=1\n" {
		t.Fatalf("the right certificate: %v", err)
	}
	_, other, _ := newIdentity()
	if _, _, err := Join(context.Background(), srv.URL, sec(0), other, 0); err == nil || !strings.Contains(err.Error(), "certificate is not this run's") {
		t.Errorf("another certificate: %v", err)
	}
	for _, p := range []string{pin, ""} {
		if _, _, err := Join(context.Background(), strings.Replace(srv.URL, "https", "http", 1), sec(0), p, 0); err == nil || !strings.Contains(err.Error(), "want https://") {
			t.Errorf("plain http, pin %q: %v", p, err)
		}
	}
}

// The secret never crosses the wire in the clear: the coordinator's
// client refuses a plain http request, and does not follow a redirect.
func TestSecretNeverInTheClear(t *testing.T) {
	var seen atomic.Value
	seen.Store("")
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen.Store(r.Header.Get("Authorization"))
	}))
	defer plain.Close()
	c := HTTPClient(sec(0), "")
	if resp, err := c.Get(plain.URL + pathPhase); err == nil {
		resp.Body.Close()
		t.Errorf("a request over http was sent")
	}
	redirect, pin := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+pathPhase, http.StatusFound)
	}))
	c = HTTPClient(sec(0), pin)
	if resp, err := c.Get(redirect.URL + pathPhase); err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusFound {
			t.Errorf("a redirect was followed: %s", resp.Status)
		}
	}
	if got := seen.Load().(string); got != "" {
		t.Errorf("the plain server was sent %q", got)
	}
}

// Each client is handed its own secret, never the run's key; clients
// started from one template get the key and derive their own.
func TestClientSecrets(t *testing.T) {
	j := &job{token: testKey, pin: "ab"}
	env := func(e []string) func(string) string {
		return func(k string) string {
			for _, kv := range e {
				if v, ok := strings.CutPrefix(kv, k+"="); ok {
					return v
				}
			}
			return ""
		}
	}
	for i := range 3 {
		e := j.env("https://127.0.0.1:1", i)
		if strings.Contains(strings.Join(e, "\n"), testKey+"\n") || env(e)(KeyEnv) != "" {
			t.Errorf("client %d is given the run's key: %q", i, e)
		}
		if got := Secret(env(e), i); got != sec(i) || got == sec(i+1) {
			t.Errorf("client %d's secret: %q", i, got)
		}
	}
	e := j.env("https://127.0.0.1:1", -1)
	if got := Secret(env(e), 2); got != sec(2) || env(e)(TokenEnv) != "" {
		t.Errorf("a client from a template, index 2: %q (env %q)", got, e)
	}
}

// A client's output without a line end is passed on in pieces of
// maxRelayLine, not held whole.
func TestRelayLineBounded(t *testing.T) {
	var got []int
	p := &prefixed{say: func(s string) { got = append(got, len(s)) }}
	chunk := bytes.Repeat([]byte("x"), 1000)
	for range 3 * maxRelayLine / len(chunk) {
		p.Write(chunk)
	}
	if len(p.buf) >= maxRelayLine || len(got) < 2 || got[0] != maxRelayLine {
		t.Errorf("held %d bytes, said %v", len(p.buf), got)
	}
	p.Write([]byte("end\n"))
	p.flush()
	if len(p.buf) != 0 {
		t.Errorf("held %d bytes after a line end", len(p.buf))
	}
}

// Text from a peer is printed with its control characters escaped
// (format.Printable): a client's failure, its host's name, the lines it
// writes.
func TestPeerTextEscaped(t *testing.T) {
	h, srv, c := testHub(t)
	do(t, c, http.MethodPost, srv.URL+pathFail+"?client=0&host=h%1b%5d0%3bx%07", sec(0), []byte("boom \x1b[31mred\x1b[0m \u009b2J"))
	err := failed(h, false)
	if err == nil || strings.ContainsAny(err.Error(), "\x1b\x07\u009b") || !strings.Contains(err.Error(), `(host h\x1b]0;x\x07) failed: boom \x1b[31mred`) {
		t.Errorf("the failure: %v", err)
	}
	var out bytes.Buffer
	j := &job{stderr: &out, mu: &sync.Mutex{}}
	j.say(1, "warning \x1b[2K\rcleared")
	if got := out.String(); got != `client 1: warning \x1b[2K\x0dcleared`+"\n" {
		t.Errorf("a client's line: %q", got)
	}
}

// A client's lines are said with the run's secrets hidden: its
// properties', a plan's the clients did not know, the clients' token.
func TestClientLinesHideSecrets(t *testing.T) {
	p := props.New()
	p.Set("redis.password", "hunter1x", "test")
	var plan props.Redactor
	plan.Add("hunter2x")
	setup, err := engine.Check(engine.Spec{Binding: "basic", Workload: "a", Properties: p, Secrets: &plan})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	j := &job{stderr: &out, mu: &sync.Mutex{}, hide: hider(setup, "tok3n-hunter3x")}
	j.say(1, "error: hunter1x hunter2x tok3n-hunter3x AUTH default hunter4x")
	if got := out.String(); strings.Contains(got, "hunter") || !strings.Contains(got, "client 1: error:") {
		t.Errorf("a client's line: %q", got)
	}
}

// The clients of a phase start together as soon as every one says it is
// ready, not at startat (set long enough for the slowest orchestrator):
// each is answered the one start, readyLead after the last was ready. A
// phase whose client never says so starts at startat.
func TestReadyBarrier(t *testing.T) {
	h, srv, c := testHub(t)
	latest := time.Now().Add(time.Hour)
	h.setStart(latest)
	answers := make(chan string, 1)
	go func() {
		_, body := do(t, c, http.MethodGet, srv.URL+pathReady+"?client=0", sec(0), nil)
		answers <- body
	}()
	for { // client 0's request is held, not answered
		h.mu.Lock()
		n := h.ready
		h.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	select {
	case b := <-answers:
		t.Fatalf("client 0 answered %q before client 1 was ready", b)
	default:
	}
	before := time.Now()
	code, body := do(t, c, http.MethodGet, srv.URL+pathReady+"?client=1", sec(1), nil)
	first := <-answers
	if code != http.StatusOK || body != first {
		t.Fatalf("client 1: %d %q; client 0: %q: want one start", code, body, first)
	}
	var ns int64
	fmt.Sscan(body, &ns)
	if at := time.Unix(0, ns); at.Before(before.Add(readyLead)) || !at.Before(latest) {
		t.Errorf("start %s: want readyLead after the last ready (%s), before startat %s", at, before, latest)
	}
	// Asked again (a retry), the same start.
	if _, again := do(t, c, http.MethodGet, srv.URL+pathReady+"?client=1", sec(1), nil); again != body {
		t.Errorf("asked again: %q, want %q", again, body)
	}

	h, srv, c = testHub(t)
	latest = time.Now().Add(100 * time.Millisecond).Round(0)
	h.setStart(latest)
	if _, body := do(t, c, http.MethodGet, srv.URL+pathReady+"?client=0", sec(0), nil); body != fmt.Sprint(latest.UnixNano()) {
		t.Errorf("client 1 never ready: %q, want startat %d", body, latest.UnixNano())
	}
}

// A coordinator that takes the connection and never answers the phase
// (stalled, suspended) is given up at joinWait, said in one line, not
// waited for without end.
func TestJoinAStalledCoordinator(t *testing.T) {
	release := make(chan struct{})
	srv, pin := tlsServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer close(release)
	old := joinWait
	joinWait = 300 * time.Millisecond
	defer func() { joinWait = old }()
	_, _, err := Join(context.Background(), srv.URL, sec(0), pin, 0)
	if err == nil || !strings.Contains(err.Error(), "cannot join the coordinator at "+srv.URL+": no answer within 300ms") {
		t.Errorf("a stalled coordinator: %v", err)
	}
}
