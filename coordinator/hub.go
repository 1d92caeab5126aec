package coordinator

import (
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// The coordinator's protocol: HTTPS on coordinator.addr with the run's own
// certificate (see tls.go), every request carrying the run's secret as a
// bearer token (TokenEnv hands it to a client; it is never in a property,
// an argument or a file), every client naming itself (?client=I&host=H).
//
//	GET  /v1/phase     the phase: command, binding, properties (credentials too)
//	GET  /v1/clock     the coordinator's time (engine.ClockHandler)
//	GET  /v1/stop      answers "stop" when the clients are to stop, or "run"
//	                   after stopPoll: a client always has one open (liveness)
//	POST /v1/progress  one interval's counts (Progress), JSON
//	POST /v1/result    the client's result document, JSON
//	POST /v1/fail      why the client cannot run, text
const (
	pathPhase    = "/v1/phase"
	pathClock    = "/v1/clock"
	pathStop     = "/v1/stop"
	pathProgress = "/v1/progress"
	pathResult   = "/v1/result"
	pathFail     = "/v1/fail"
)

// The environment a client is started with: the coordinator's URL as the
// client reaches it, the run's secret and the client's index.
const (
	URLEnv   = "SERVBENCH_COORDINATOR"
	TokenEnv = "SERVBENCH_TOKEN"
	IndexEnv = "SERVBENCH_CLIENT"
)

// stopPoll is how long the coordinator holds a client's stop request
// before it answers "run" and the client asks again (at most a third of
// the timeout: the asking is how a client that has not started measuring
// shows it is alive).
var stopPoll = 5 * time.Second

// Bounds on what a client may send.
const (
	maxProgressBytes = 1 << 20
	maxFailBytes     = 4 << 10
	maxHostBytes     = 255
)

// Phase is what a client is given: the command, the binding and the
// phase's properties as text.
type Phase struct {
	Command    string `json:"command"` // load or run
	Binding    string `json:"binding"`
	Properties string `json:"properties"`
}

// Progress is one interval of a client's, sent as it ends.
type Progress struct {
	EndMs  int64 `json:"end_ms"` // since the client's start of measuring
	Ops    int64 `json:"ops"`    // client operations in the interval, any outcome
	Failed int64 `json:"failed"`
	Warmup bool  `json:"warmup,omitempty"`
	Final  bool  `json:"final,omitempty"`
	// Histogram is the interval's response times of every operation
	// (result.Encode), so that the coordinator's p99 is the merged one.
	Histogram string `json:"histogram,omitempty"`
}

// NewToken returns a run's secret: 32 random bytes, hex.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// member is what the coordinator knows of one client.
type member struct {
	host     string // where it runs: as the orchestrator placed it, or as it says
	placed   bool   // the orchestrator named its host
	lastSeen time.Time
	progress []Progress // since the last status line
	result   *result.Doc
	failed   string
	exited   bool  // the orchestrator saw it end
	exitErr  error // how (nil: well)
}

// A hub serves one spread phase to its n clients and collects what they
// send. Its methods are safe for concurrent use.
type hub struct {
	token string
	id    string // coordinator.id: every result must carry it
	n     int
	phase Phase
	now   func() time.Time
	hold  time.Duration // how long a stop request is held

	mu      sync.Mutex
	clients []member
	stopped bool
	stop    chan struct{} // closed when the clients are to stop
	changed chan struct{} // a result or a failure arrived (buffered, 1)
}

func newHub(token, id string, n int, ph Phase, now func() time.Time) *hub {
	return &hub{token: token, id: id, n: n, phase: ph, now: now, hold: stopPoll, clients: make([]member, n),
		stop: make(chan struct{}), changed: make(chan struct{}, 1)}
}

func (h *hub) notify() {
	select {
	case h.changed <- struct{}{}:
	default:
	}
}

// setProperties sets the phase's properties, which the clients are given
// (the server may be answering already).
func (h *hub) setProperties(text string) {
	h.mu.Lock()
	h.phase.Properties = text
	h.mu.Unlock()
}

// stopAll tells every client to stop (once).
func (h *hub) stopAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.stopped {
		h.stopped = true
		close(h.stop)
	}
}

// ServeHTTP checks the secret and the client's index, notes that the
// client was seen, and answers.
func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "Bearer ") || subtle.ConstantTimeCompare([]byte(auth[len("Bearer "):]), []byte(h.token)) != 1 {
		http.Error(w, "not a client of this run", http.StatusUnauthorized)
		return
	}
	q := r.URL.Query()
	i, err := strconv.Atoi(q.Get("client"))
	if err != nil || i < 0 || i >= h.n {
		http.Error(w, fmt.Sprintf("client=%q: want 0 to %d", props.Cut(q.Get("client"), 20), h.n-1), http.StatusBadRequest)
		return
	}
	host := q.Get("host")
	if len(host) > maxHostBytes {
		host = host[:maxHostBytes]
	}
	h.seen(i, host)
	switch {
	case r.URL.Path == pathClock && r.Method == http.MethodGet:
		engine.ClockHandler(h.now).ServeHTTP(w, r)
	case r.URL.Path == pathPhase && r.Method == http.MethodGet:
		h.servePhase(w, i)
	case r.URL.Path == pathStop && r.Method == http.MethodGet:
		h.serveStop(w, r)
	case r.URL.Path == pathProgress && r.Method == http.MethodPost:
		h.serveProgress(w, r, i)
	case r.URL.Path == pathResult && r.Method == http.MethodPost:
		h.serveResult(w, r, i)
	case r.URL.Path == pathFail && r.Method == http.MethodPost:
		msg, _ := io.ReadAll(io.LimitReader(r.Body, maxFailBytes))
		h.fail(i, "failed: "+oneLine(string(msg)))
		io.WriteString(w, "ok")
	default:
		http.NotFound(w, r)
	}
}

// seen notes a request from client i.
func (h *hub) seen(i int, host string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := &h.clients[i]
	m.lastSeen = h.now()
	if host != "" && !m.placed {
		m.host = host
	}
}

func (h *hub) servePhase(w http.ResponseWriter, i int) {
	h.mu.Lock()
	ph := h.phase
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(ph)
}

func (h *hub) serveStop(w http.ResponseWriter, r *http.Request) {
	t := time.NewTimer(h.hold)
	defer t.Stop()
	select {
	case <-h.stop:
		io.WriteString(w, "stop")
	case <-t.C:
		io.WriteString(w, "run")
	case <-r.Context().Done():
	}
}

func (h *hub) serveProgress(w http.ResponseWriter, r *http.Request, i int) {
	var p Progress
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxProgressBytes)).Decode(&p); err != nil {
		http.Error(w, "progress: "+err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	if m := &h.clients[i]; len(m.progress) < 10000 {
		m.progress = append(m.progress, p)
	}
	h.mu.Unlock()
	io.WriteString(w, "ok")
}

func (h *hub) serveResult(w http.ResponseWriter, r *http.Request, i int) {
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, result.MaxFileBytes))
	if err != nil {
		http.Error(w, "result: "+err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	d, err := result.Decode(raw)
	if err == nil && d.Properties["coordinator.id"] != h.id {
		err = fmt.Errorf("another run's result (coordinator.id %q)", props.Cut(d.Properties["coordinator.id"], 40))
	}
	if err == nil && d.Properties["clientindex"] != strconv.Itoa(i) {
		err = fmt.Errorf("client %d sent client %q's result", i, props.Cut(d.Properties["clientindex"], 20))
	}
	if err != nil {
		h.fail(i, "sent a result that is not its own: "+oneLine(err.Error()))
		http.Error(w, "result: "+err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	if h.clients[i].result == nil {
		h.clients[i].result = d
	}
	h.mu.Unlock()
	h.notify()
	io.WriteString(w, "ok")
}

// fail records client i's failure (the first one counts).
func (h *hub) fail(i int, why string) {
	h.mu.Lock()
	if h.clients[i].failed == "" {
		h.clients[i].failed = why
	}
	h.mu.Unlock()
	h.notify()
}

// name is "client I of N (where)": where the orchestrator placed it
// ("host H", "pod P on node N"), or the host it says it runs on.
func (h *hub) name(i int) string {
	h.mu.Lock()
	where, placed := h.clients[i].host, h.clients[i].placed
	h.mu.Unlock()
	switch {
	case where == "":
		return fmt.Sprintf("client %d of %d", i, h.n)
	case placed:
		return fmt.Sprintf("client %d of %d (%s)", i, h.n, where)
	}
	return fmt.Sprintf("client %d of %d (host %s)", i, h.n, where)
}

// place records where the orchestrator runs client i ("host H", "pod P
// on node N").
func (h *hub) place(i int, host string) {
	h.mu.Lock()
	h.clients[i].host, h.clients[i].placed = host, true
	h.mu.Unlock()
}

// exit records that client i ended, and how.
func (h *hub) exit(i int, err error) {
	h.mu.Lock()
	if m := &h.clients[i]; !m.exited {
		m.exited, m.exitErr = true, err
	}
	h.mu.Unlock()
	h.notify()
}

// complete reports whether every client has sent its result.
func (h *hub) complete() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, m := range h.clients {
		if m.result == nil {
			return false
		}
	}
	return true
}

// members is a copy of what the hub knows of each client.
func (h *hub) members() []member {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]member, h.n)
	copy(out, h.clients)
	for i := range out {
		out[i].progress = nil
	}
	return out
}

// silent returns the first client that has not been heard from since
// before cutoff, and has neither result nor failure (-1: none).
func (h *hub) silent(cutoff time.Time, since time.Time) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i, m := range h.clients {
		if m.result != nil || m.failed != "" || m.exited {
			continue
		}
		last := m.lastSeen
		if last.IsZero() {
			last = since
		}
		if last.Before(cutoff) {
			return i
		}
	}
	return -1
}

// progress takes every client's intervals since the last call.
func (h *hub) progress() [][]Progress {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([][]Progress, h.n)
	for i := range h.clients {
		out[i], h.clients[i].progress = h.clients[i].progress, nil
	}
	return out
}

// serve listens on addr and serves h over TLS with cert; the listener's
// close ends it.
func serve(addr string, h http.Handler, cert tls.Certificate) (net.Listener, error) {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	// A client killed mid-request is the coordinator's to judge (by its
	// index), not the HTTP server's to log on the user's terminal.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go srv.Serve(tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13}))
	return l, nil
}

// oneLine folds a message onto one line, at most 300 characters.
func oneLine(s string) string {
	return props.Cut(strings.Join(strings.Fields(s), " "), 300)
}
