package coordinator

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/result"
)

func testHub(t *testing.T) (*hub, *httptest.Server) {
	t.Helper()
	h := newHub("s3cret", "run-1", 2, Phase{Command: "run", Binding: "basic", Properties: "redis.password=pw\n"}, time.Now)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv
}

func do(t *testing.T, method, url, token string, body []byte) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// Only holders of the run's secret are served, on every path: the phase
// (which holds credentials) is never given without it.
func TestHubRefusesWithoutTheSecret(t *testing.T) {
	_, srv := testHub(t)
	for _, path := range []string{pathPhase, pathClock, pathStop, pathProgress, pathResult, pathFail} {
		for _, token := range []string{"", "wrong", "s3cre", "s3cret2"} {
			code, body := do(t, http.MethodGet, srv.URL+path+"?client=0", token, nil)
			if code != http.StatusUnauthorized || strings.Contains(body, "pw") {
				t.Errorf("%s with token %q: %d %q", path, token, code, body)
			}
		}
	}
	code, body := do(t, http.MethodGet, srv.URL+pathPhase+"?client=0", "s3cret", nil)
	var ph Phase
	if code != http.StatusOK || json.Unmarshal([]byte(body), &ph) != nil || ph.Properties != "redis.password=pw\n" {
		t.Errorf("the phase with the secret: %d %q", code, body)
	}
	for _, q := range []string{"", "?client=2", "?client=-1", "?client=x"} {
		if code, _ := do(t, http.MethodGet, srv.URL+pathPhase+q, "s3cret", nil); code != http.StatusBadRequest {
			t.Errorf("client %q: %d, want 400", q, code)
		}
	}
}

// A result is taken once per client, only if it is this run's and the
// client's own; anything else fails that client, by name.
func TestHubResults(t *testing.T) {
	h, srv := testHub(t)
	doc := func(id, index string) []byte {
		b, _ := json.Marshal(&result.Doc{Format: result.Format, Version: result.FormatVersion, Properties: map[string]string{"coordinator.id": id, "clientindex": index}})
		return b
	}
	if code, body := do(t, http.MethodPost, srv.URL+pathResult+"?client=0&host=h0", "s3cret", doc("run-1", "0")); code != http.StatusOK {
		t.Fatalf("client 0's result: %d %s", code, body)
	}
	if code, _ := do(t, http.MethodPost, srv.URL+pathResult+"?client=1&host=h1", "s3cret", doc("run-0", "1")); code != http.StatusBadRequest {
		t.Errorf("another run's result: %d, want 400", code)
	}
	if code, _ := do(t, http.MethodPost, srv.URL+pathResult+"?client=1", "s3cret", []byte(strings.Repeat("x", 1000))); code != http.StatusBadRequest {
		t.Errorf("not a result: %d, want 400", code)
	}
	ms := h.members()
	if ms[0].result == nil || ms[0].failed != "" || ms[1].result != nil || !strings.Contains(ms[1].failed, "another run's result") {
		t.Errorf("members: %+v", ms)
	}
	if err := failed(h, false); err == nil || !strings.Contains(err.Error(), "client 1 of 2 (host h1) sent a result that is not its own") {
		t.Errorf("the phase's failure: %v", err)
	}
	if code, _ := do(t, http.MethodPost, srv.URL+pathResult+"?client=0", "s3cret", doc("run-1", "1")); code != http.StatusBadRequest {
		t.Errorf("client 0 sending client 1's result: %d, want 400", code)
	}
}

// Progress larger than its bound is refused; the stop request answers at
// once when the clients are to stop.
func TestHubProgressAndStop(t *testing.T) {
	h, srv := testHub(t)
	big := []byte(`{"ops": 1, "histogram": "` + strings.Repeat("A", maxProgressBytes) + `"}`)
	if code, _ := do(t, http.MethodPost, srv.URL+pathProgress+"?client=0", "s3cret", big); code != http.StatusBadRequest {
		t.Errorf("progress over its bound: %d", code)
	}
	if code, _ := do(t, http.MethodPost, srv.URL+pathProgress+"?client=1", "s3cret", []byte(`{"end_ms": 1000, "ops": 5, "failed": 1}`)); code != http.StatusOK {
		t.Errorf("progress: %d", code)
	}
	if ps := h.progress(); len(ps[1]) != 1 || ps[1][0].Ops != 5 || len(ps[0]) != 0 {
		t.Errorf("progress kept: %+v", ps)
	}
	h.stopAll()
	h.stopAll() // twice is once
	if code, body := do(t, http.MethodGet, srv.URL+pathStop+"?client=0", "s3cret", nil); code != http.StatusOK || body != "stop" {
		t.Errorf("stop: %d %q", code, body)
	}
}

// A client session joins, is told to stop, and a coordinator that is not
// there is named in one line.
func TestSessionJoinAndWatch(t *testing.T) {
	h, srv := testHub(t)
	s, ph, err := Join(context.Background(), srv.URL, "s3cret", "", 1)
	if err != nil || ph.Binding != "basic" {
		t.Fatalf("join: %v %+v", err, ph)
	}
	stopped := make(chan struct{})
	go s.Watch(context.Background(), func() { close(stopped) })
	h.stopAll()
	<-stopped
	if _, _, err := Join(context.Background(), srv.URL, "wrong", "", 0); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a wrong secret: %v", err)
	}
	old := joinWait
	joinWait = 0
	defer func() { joinWait = old }()
	if _, _, err := Join(context.Background(), "https://127.0.0.1:1", "s3cret", "00", 0); err == nil || !strings.Contains(err.Error(), "cannot join the coordinator at https://127.0.0.1:1") {
		t.Errorf("no coordinator: %v", err)
	}
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
// fingerprint joins, another is refused before any secret is sent, and a
// pin demands https.
func TestSessionTrustsOnlyTheRunsCertificate(t *testing.T) {
	h := newHub("s3cret", "run-1", 1, Phase{Command: "run", Binding: "basic", Properties: "x=1\n"}, time.Now)
	cert, pin, err := newIdentity()
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	srv.StartTLS()
	defer srv.Close()
	if _, ph, err := Join(context.Background(), srv.URL, "s3cret", pin, 0); err != nil || ph.Properties != "x=1\n" {
		t.Fatalf("the right certificate: %v", err)
	}
	_, other, _ := newIdentity()
	if _, _, err := Join(context.Background(), srv.URL, "s3cret", other, 0); err == nil || !strings.Contains(err.Error(), "certificate is not this run's") {
		t.Errorf("another certificate: %v", err)
	}
	if _, _, err := Join(context.Background(), strings.Replace(srv.URL, "https", "http", 1), "s3cret", pin, 0); err == nil || !strings.Contains(err.Error(), "want https://") {
		t.Errorf("a pin over plain http: %v", err)
	}
}
