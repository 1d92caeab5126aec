package coordinator

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// The coordinator's protocol: HTTPS on coordinator.addr with the run's own
// certificate (see tls.go), every client naming itself (?client=I&host=H)
// and every request carrying that client's own secret as a bearer token:
// the HMAC of its index under the run's key (clientSecret), so that the
// secret of one index is no other's. The run's key never crosses the
// wire. A request whose secret is not its index's is refused (401) and
// its connection closed.
//
//	GET  /v1/phase     the phase: command, binding, properties (credentials too)
//	GET  /v1/clock     the coordinator's time (ClockHandler)
//	GET  /v1/ready     the client is ready to measure (connected, its clock
//	                   measured); answered, in Unix nanoseconds on the
//	                   coordinator's clock, with the common start: readyLead
//	                   after the last client said it is ready, or startat if
//	                   that comes first (a client that never starts)
//	GET  /v1/stop      answers "stop" when the clients are to stop, or "run"
//	                   after stopPoll: a client always has one open (liveness);
//	                   "abandon" when they are to stop waiting for the
//	                   operations in flight and send what they measured at
//	                   once (the coordinator's second Ctrl-C). A client told
//	                   to stop asks again with ?told=stop, answered only by
//	                   "abandon" or "run"
//	POST /v1/progress  one interval's counts (Progress), JSON, checked against
//	                   what the client can have done since the run began
//	POST /v1/result    the client's result document, JSON: taken once per
//	                   client; the same document again is answered 200 (a
//	                   retry whose answer was lost), another is refused (409)
//	                   and fails the client
//	POST /v1/fail      why the client cannot run, text
const (
	pathPhase    = "/v1/phase"
	pathClock    = "/v1/clock"
	pathReady    = "/v1/ready"
	pathStop     = "/v1/stop"
	pathProgress = "/v1/progress"
	pathResult   = "/v1/result"
	pathFail     = "/v1/fail"
)

// The environment a client is started with: the coordinator's URL as the
// client reaches it, the client's own secret and its index. Orchestrators
// that start every client from one template (a Docker service, a
// Kubernetes Job) cannot give each its own secret: their clients are given
// the run's key instead (KeyEnv), and each derives its secret from it and
// its index (Secret).
const (
	URLEnv   = "SERVBENCH_COORDINATOR"
	TokenEnv = "SERVBENCH_TOKEN"
	KeyEnv   = "SERVBENCH_KEY"
	IndexEnv = "SERVBENCH_CLIENT"
)

// stopPoll is how long the coordinator holds a client's stop request
// before it answers "run" and the client asks again (at most a third of
// the timeout: the asking is how a client that has not started measuring
// shows it is alive).
var stopPoll = 5 * time.Second

// Bounds on what a client may send. A progress body holds one interval's
// histogram (at most about 400 KiB encoded: 33,792 buckets of at most 9
// bytes each, compressed and base64); the histograms a client's progress
// holds between two status lines are kept up to maxProgressHeld, past
// which only the counts are (the result, not the live view, is what
// counts). A client can do at most maxOpsPerMs operations a millisecond,
// far more than any does, so that what the coordinator sums cannot
// overflow.
const (
	maxProgressBytes = 1 << 20
	maxProgressHeld  = 4 << 20
	maxProgressKept  = 10000
	maxOpsPerMs      = 1_000_000
	maxFailBytes     = 4 << 10
	maxHostBytes     = 255
	bodyWait         = 30 * time.Second // to send a body other than a result's
)

// resultBudget bounds the bytes of result documents being received at
// once, whichever clients send them (each client one at a time, each
// document at most result.MaxFileBytes): a client over it is told to send
// again (503). Tests lower it.
var resultBudget int64 = result.MaxFileBytes

// stallGap: when the coordinator itself did not look at its clients for
// longer (stopped, its machine suspended), no client is called silent for
// that time: each has coordinator.timeout again from when it woke.
var stallGap = 5 * time.Second

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

// NewToken returns a run's key: 32 random bytes, hex.
func NewToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// clientSecret is client i's secret under the run's key: HMAC-SHA256 of
// its index, hex. Holding one index's secret tells nothing of another's.
func clientSecret(key string, i int) string {
	mac := hmac.New(sha256.New, []byte(key))
	io.WriteString(mac, "servbench client "+strconv.Itoa(i))
	return hex.EncodeToString(mac.Sum(nil))
}

// secret is client i's secret, as its orchestrator hands it over.
func (j *job) secret(i int) string { return clientSecret(j.token, i) }

// Secret is the secret of client index in the environment getenv: its own
// (TokenEnv), or derived from the run's key (KeyEnv); "" when neither is
// set.
func Secret(getenv func(string) string, index int) string {
	if t := getenv(TokenEnv); t != "" {
		return t
	}
	if k := getenv(KeyEnv); k != "" {
		return clientSecret(k, index)
	}
	return ""
}

// member is what the coordinator knows of one client.
type member struct {
	host     string // where it runs: as the orchestrator placed it, or as it says
	placed   bool   // the orchestrator named its host
	lastSeen time.Time
	progress []Progress // since the last status line
	result   *result.Doc
	sum      [sha256.Size]byte // of the result's JSON as sent
	disputed bool              // two results were sent: neither is kept
	failed   string
	exited   bool  // the orchestrator saw it end
	exitErr  error // how (nil: well)

	receiving bool  // a result is being read
	posting   bool  // a progress is being read
	ops       int64 // operations its progress counted so far
	held      int   // bytes of histograms in progress
	warned    uint8 // what it was warned of (warn*)
	ready     bool  // it said it is ready to measure
}

// What a client is warned of on the console, once each.
const (
	warnProgress uint8 = 1 << iota
	warnSecond
)

// A hub serves one spread phase to its n clients and collects what they
// send. Its methods are safe for concurrent use.
type hub struct {
	key   string // the run's key: client i's secret is clientSecret(key, i)
	id    string // coordinator.id: every result must carry it
	n     int
	phase Phase
	now   func() time.Time
	hold  time.Duration // how long a stop request is held
	begun time.Time     // the hub's start: no client has measured for longer
	// say prints a line about a client on the console (nil: nowhere).
	say func(string)

	mu        sync.Mutex
	clients   []member
	receiving int64 // bytes of results being read
	stopped   bool
	abandoned bool
	checked   time.Time     // the last look for silent clients
	awake     time.Time     // the coordinator's last waking from a stall
	stop      chan struct{} // closed when the clients are to stop
	abandon   chan struct{} // closed when they are to abandon their operations in flight
	changed   chan struct{} // a result or a failure arrived (buffered, 1)

	// The common start: at the latest startAt (set before the clients
	// start), sooner once every client is ready.
	startAt time.Time
	ready   int           // the clients that said they are ready
	started time.Time     // the start decided when the last was ready
	allIn   chan struct{} // closed when started is decided
}

// readyLead is how long after its last client said it is ready a spread
// phase starts: time for the answer to reach every client.
const readyLead = 250 * time.Millisecond

func newHub(key, id string, n int, ph Phase, now func() time.Time) *hub {
	return &hub{key: key, id: id, n: n, phase: ph, now: now, hold: stopPoll, begun: now(), clients: make([]member, n),
		stop: make(chan struct{}), abandon: make(chan struct{}), changed: make(chan struct{}, 1), allIn: make(chan struct{})}
}

// setStart sets the phase's latest common start (startat).
func (h *hub) setStart(t time.Time) {
	h.mu.Lock()
	h.startAt = t
	h.mu.Unlock()
}

// serveReady notes that client i is ready and answers, once every client
// is or startat comes, with the common start.
func (h *hub) serveReady(w http.ResponseWriter, r *http.Request, i int) {
	h.mu.Lock()
	m := &h.clients[i]
	if !m.ready {
		m.ready = true
		h.ready++
		if h.ready == h.n {
			h.started = h.now().Add(readyLead)
			if !h.startAt.IsZero() && h.started.After(h.startAt) {
				h.started = h.startAt
			}
			close(h.allIn)
		}
	}
	latest := h.startAt
	h.mu.Unlock()
	start := latest
	wait := time.Until(latest)
	if latest.IsZero() {
		wait = h.hold
	}
	t := time.NewTimer(max(wait, 0))
	defer t.Stop()
	select {
	case <-h.allIn:
		h.mu.Lock()
		start = h.started
		h.mu.Unlock()
	case <-t.C:
	case <-h.stop:
	case <-r.Context().Done():
		return
	}
	if start.IsZero() {
		io.WriteString(w, "0") // no startat: the client keeps its own
		return
	}
	io.WriteString(w, strconv.FormatInt(start.UnixNano(), 10))
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

// abandonAll tells every client to stop at once, abandoning the
// operations still in its binding, and send what it measured (once).
func (h *hub) abandonAll() {
	h.stopAll()
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.abandoned {
		h.abandoned = true
		close(h.abandon)
	}
}

// ServeHTTP checks that the request carries the secret of the client it
// names, notes that the client was seen, and answers. A request that
// does not is refused with its connection closed, whatever it names.
func (h *hub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	i, err := strconv.Atoi(q.Get("client"))
	if err != nil || i < 0 || i >= h.n || !h.holds(r, i) {
		w.Header().Set("Connection", "close")
		http.Error(w, "not a client of this run", http.StatusUnauthorized)
		return
	}
	trustConn(r)
	host := q.Get("host")
	if len(host) > maxHostBytes {
		host = host[:maxHostBytes]
	}
	h.seen(i, host)
	if r.Method == http.MethodPost && r.URL.Path != pathResult { // a result's has its own (serveResult)
		http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyWait))
	}
	switch {
	case r.URL.Path == pathClock && r.Method == http.MethodGet:
		ClockHandler(h.now).ServeHTTP(w, r)
	case r.URL.Path == pathReady && r.Method == http.MethodGet:
		h.serveReady(w, r, i)
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

// holds reports whether r carries client i's secret.
func (h *hub) holds(r *http.Request, i int) bool {
	auth, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	return ok && subtle.ConstantTimeCompare([]byte(auth), []byte(clientSecret(h.key, i))) == 1
}

// seen notes a request from client i.
func (h *hub) seen(i int, host string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := &h.clients[i]
	m.lastSeen = h.now()
	if host != "" && !m.placed {
		m.host = format.Printable(host)
	}
}

// warn says why on the console, about client i, the first time it is
// warned of what.
func (h *hub) warn(i int, what uint8, why string) {
	h.mu.Lock()
	first := h.clients[i].warned&what == 0
	h.clients[i].warned |= what
	h.mu.Unlock()
	if first && h.say != nil {
		h.say(h.name(i) + " " + format.Printable(why))
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
	stop := h.stop
	if r.URL.Query().Get("told") == "stop" {
		stop = nil
	}
	select {
	case <-h.abandon:
		io.WriteString(w, "abandon")
	case <-stop:
		select {
		case <-h.abandon:
			io.WriteString(w, "abandon")
		default:
			io.WriteString(w, "stop")
		}
	case <-t.C:
		io.WriteString(w, "run")
	case <-r.Context().Done():
	}
}

// serveProgress takes one interval of client i's, one at a time, if it
// can be: see checkProgress. A refused one is said on the console once.
func (h *hub) serveProgress(w http.ResponseWriter, r *http.Request, i int) {
	h.mu.Lock()
	m := &h.clients[i]
	if m.posting {
		h.mu.Unlock()
		http.Error(w, "progress: one at a time", http.StatusTooManyRequests)
		return
	}
	m.posting = true
	h.mu.Unlock()
	defer func() { h.mu.Lock(); m.posting = false; h.mu.Unlock() }()
	var p Progress
	err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxProgressBytes)).Decode(&p)
	if err == nil {
		err = h.checkProgress(i, &p)
	}
	if err != nil {
		h.warn(i, warnProgress, "sent progress that was refused (and may be again, unsaid): "+oneLine(err.Error()))
		http.Error(w, "progress: "+err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	if len(m.progress) < maxProgressKept {
		if m.held+len(p.Histogram) > maxProgressHeld {
			p.Histogram = ""
		}
		m.held += len(p.Histogram)
		m.progress = append(m.progress, p)
	}
	m.ops += p.Ops
	h.mu.Unlock()
	io.WriteString(w, "ok")
}

// checkProgress checks an interval of client i's against what it can have
// done since the hub began: its end within that time (and not before the
// measuring began, unless it is warmup), counts not negative, failures
// at most its operations, at most maxOpsPerMs operations a millisecond
// over all its intervals, and a histogram of at most its operations.
func (h *hub) checkProgress(i int, p *Progress) error {
	ms := h.now().Sub(h.begun).Milliseconds()
	ms += ms/100 + 1000 // its clock and the coordinator's need not tick alike
	h.mu.Lock()
	ops := h.clients[i].ops
	h.mu.Unlock()
	switch {
	case p.EndMs > ms || p.EndMs < -ms:
		return fmt.Errorf("end_ms %d: the run began %d ms ago", p.EndMs, ms)
	case p.EndMs < 0 && !p.Warmup:
		return fmt.Errorf("end_ms %d: negative after the warmup", p.EndMs)
	case p.Ops < 0 || p.Failed < 0:
		return fmt.Errorf("ops %d, failed %d: negative", p.Ops, p.Failed)
	case p.Failed > p.Ops:
		return fmt.Errorf("failed %d of ops %d", p.Failed, p.Ops)
	case p.Ops > maxOpsPerMs*ms-ops:
		return fmt.Errorf("ops %d: more than %d a millisecond since the run began", p.Ops, maxOpsPerMs)
	}
	if p.Histogram == "" {
		return nil
	}
	hist, err := result.DecodeHistogram(p.Histogram)
	if err != nil {
		return err
	}
	if c := hist.TotalCount(); c < 0 || c > p.Ops {
		return fmt.Errorf("histogram of %d values for %d operations", c, p.Ops)
	}
	return nil
}

// serveResult takes client i's result, once: see the protocol above. Its
// body is read whole (at most result.MaxFileBytes, and within
// resultBudget with the others being read), one at a time per client;
// the same body again is only hashed as it arrives, never held.
func (h *hub) serveResult(w http.ResponseWriter, r *http.Request, i int) {
	if r.ContentLength > result.MaxFileBytes {
		http.Error(w, fmt.Sprintf("result: %d bytes, more than a result's %d MiB", r.ContentLength, result.MaxFileBytes>>20), http.StatusRequestEntityTooLarge)
		return
	}
	size := r.ContentLength
	if size < 0 {
		size = result.MaxFileBytes
	}
	// A slow sender cannot hold the budget for long: a MiB a second.
	http.NewResponseController(w).SetReadDeadline(time.Now().Add(bodyWait + time.Duration(size>>20)*time.Second))
	h.mu.Lock()
	m := &h.clients[i]
	if m.result != nil || m.disputed {
		sum := m.sum
		h.mu.Unlock()
		h.resultAgain(w, r, i, sum)
		return
	}
	if m.receiving || h.receiving+size > resultBudget {
		h.mu.Unlock()
		w.Header().Set("Retry-After", "1")
		http.Error(w, "result: others are being received: send it again", http.StatusServiceUnavailable)
		return
	}
	m.receiving, h.receiving = true, h.receiving+size
	h.mu.Unlock()
	defer func() { h.mu.Lock(); m.receiving, h.receiving = false, h.receiving-size; h.mu.Unlock() }()
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, size))
	if err != nil {
		bodyError(w, err)
		return
	}
	d, err := result.Decode(raw)
	if err == nil && d.Properties["coordinator.id"] != h.id {
		err = fmt.Errorf("another run's result (coordinator.id %q)", props.Cut(d.Properties["coordinator.id"], 40))
	}
	if err == nil && d.Properties["clientindex"] != strconv.Itoa(i) {
		err = fmt.Errorf("client %d sent client %q's result", i, props.Cut(d.Properties["clientindex"], 20))
	}
	if err == nil && (d.Command != h.phase.Command || d.Binding != h.phase.Binding) {
		err = fmt.Errorf("a %s of %q, not this phase's %s of %s", props.Cut(d.Command, 20), props.Cut(d.Binding, 40), h.phase.Command, h.phase.Binding)
	}
	if err != nil {
		h.fail(i, "sent a result that is not its own: "+oneLine(err.Error()))
		http.Error(w, "result: "+err.Error(), http.StatusBadRequest)
		return
	}
	h.mu.Lock()
	m.result, m.sum = d, sha256.Sum256(raw)
	h.mu.Unlock()
	h.notify()
	io.WriteString(w, "ok")
}

// resultAgain answers a result of client i's after its first (whose
// hash is sum): the same one is a retry (200), another is refused (409),
// said on the console and fails the client: two results for one index
// mean one of them is not its client's, and which cannot be told, so the
// first is dropped too (neither is merged nor written).
func (h *hub) resultAgain(w http.ResponseWriter, r *http.Request, i int, sum [sha256.Size]byte) {
	hash := sha256.New()
	if _, err := io.Copy(hash, http.MaxBytesReader(w, r.Body, result.MaxFileBytes)); err != nil {
		bodyError(w, err)
		return
	}
	h.mu.Lock()
	m := &h.clients[i]
	same := !m.disputed && bytes.Equal(hash.Sum(nil), sum[:])
	if !same {
		m.result, m.disputed = nil, true
	}
	h.mu.Unlock()
	if same {
		io.WriteString(w, "ok")
		return
	}
	const why = "sent two different results: both refused, neither merged nor written (one is not its client's, and which cannot be told)"
	h.warn(i, warnSecond, why)
	h.fail(i, why)
	http.Error(w, "result: client "+strconv.Itoa(i)+"'s result was received already, and it is another", http.StatusConflict)
}

// bodyError answers a request whose body could not be read.
func bodyError(w http.ResponseWriter, err error) {
	var big *http.MaxBytesError
	if errors.As(err, &big) {
		http.Error(w, fmt.Sprintf("result: more than %d bytes", big.Limit), http.StatusRequestEntityTooLarge)
		return
	}
	http.Error(w, "result: "+err.Error(), http.StatusBadRequest)
}

// fail records client i's failure (the first one counts), printable.
func (h *hub) fail(i int, why string) {
	h.mu.Lock()
	if h.clients[i].failed == "" {
		h.clients[i].failed = format.Printable(why)
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
	h.clients[i].host, h.clients[i].placed = format.Printable(host), true
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
// before cutoff, nor since the coordinator last woke from a stall (see
// stallGap), and has neither result nor failure (-1: none).
func (h *hub) silent(cutoff time.Time, since time.Time) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.now()
	if !h.checked.IsZero() && now.Sub(h.checked) > stallGap {
		h.awake = now
	}
	h.checked = now
	for i, m := range h.clients {
		if m.result != nil || m.failed != "" || m.exited {
			continue
		}
		last := m.lastSeen
		if last.IsZero() {
			last = since
		}
		if last.Before(h.awake) {
			last = h.awake
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
		out[i], h.clients[i].progress, h.clients[i].held = h.clients[i].progress, nil, 0
	}
	return out
}

// serve listens on addr and serves h over TLS with cert, at most conns
// connections at once (see maxConns); the listener's close ends it. A
// connection's TLS handshake and each request's header have 10 s, an
// idle connection is closed after a minute.
func serve(addr string, h http.Handler, cert tls.Certificate, conns int) (net.Listener, error) {
	tcp, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	l := capConns(tcp, conns)
	// A client killed mid-request is the coordinator's to judge (by its
	// index), not the HTTP server's to log on the user's terminal.
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute, ErrorLog: log.New(io.Discard, "", 0),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if tc, ok := c.(*tls.Conn); ok {
				c = tc.NetConn()
			}
			return context.WithValue(ctx, connKey{}, c)
		}}
	go srv.Serve(tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13}))
	return l, nil
}

// maxConns is how many connections the coordinator of n clients serves
// at once: each client's (its stop request, always open, a progress, a
// result, the clock's, and those kept alive between them) and 64 more.
// 5,000 idle connections held 5,020 descriptors and 60 MB more.
func maxConns(n int) int { return 64 + 8*n }

// capped is a listener that has at most max of its connections open at
// once (and one more accepted, waiting for a slot). When all are open,
// the oldest of those that have not yet carried a client's secret (see
// trust) is closed for the new one, so that connections nobody
// authenticates (each may take 10 s) cannot keep the clients out; when
// every one has, Accept waits for one to close.
type capped struct {
	net.Listener
	max   int
	freed chan struct{} // a connection closed (buffered, 1)
	done  chan struct{} // closed by Close: Accept waits no more
	once  sync.Once

	mu      sync.Mutex
	open    int
	pending []*slotConn // open and not trusted yet, oldest first
}

func capConns(l net.Listener, max int) *capped {
	return &capped{Listener: l, max: max, freed: make(chan struct{}, 1), done: make(chan struct{})}
}

// Accept takes the next connection, then waits for a slot for it: one
// free, or the oldest untrusted connection's (closed for it), or the
// first to close.
func (l *capped) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		l.mu.Lock()
		if l.open < l.max {
			l.open++
			sc := &slotConn{Conn: c, l: l}
			l.pending = append(l.pending, sc)
			l.mu.Unlock()
			return sc, nil
		}
		var oldest *slotConn
		if len(l.pending) > 0 {
			oldest = l.pending[0]
		}
		l.mu.Unlock()
		if oldest != nil {
			oldest.Close()
			continue
		}
		select {
		case <-l.freed:
		case <-l.done:
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

// release gives back the slot of c.
func (l *capped) release(c *slotConn) {
	l.mu.Lock()
	l.open--
	l.drop(c)
	l.mu.Unlock()
	select {
	case l.freed <- struct{}{}:
	default:
	}
}

// drop takes c off the pending list (l.mu held).
func (l *capped) drop(c *slotConn) {
	for k, p := range l.pending {
		if p == c {
			l.pending = append(l.pending[:k], l.pending[k+1:]...)
			return
		}
	}
}

func (l *capped) Close() error {
	l.once.Do(func() { close(l.done) })
	return l.Listener.Close()
}

// slotConn is a connection of a capped listener's, which holds its slot
// until it is closed.
type slotConn struct {
	net.Conn
	l    *capped
	once sync.Once
}

func (c *slotConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.release(c) })
	return err
}

// trust notes that c carried a client's secret: it is no longer closed
// for a newer connection.
func (c *slotConn) trust() {
	c.l.mu.Lock()
	c.l.drop(c)
	c.l.mu.Unlock()
}

type connKey struct{}

// trustConn notes that the connection of r (served by serve) carried a
// client's secret.
func trustConn(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(*slotConn); ok {
		c.trust()
	}
}

// oneLine folds a message onto one line, at most 300 characters.
func oneLine(s string) string {
	return format.Printable(props.Cut(strings.Join(strings.Fields(s), " "), 300))
}
