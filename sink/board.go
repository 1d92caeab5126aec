package sink

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// A Board is the state the live page (--dashboard) shows, served as JSON
// at /data.json beside the page at /; the page asks for it every second.
// A run's board is fed at interval ends (the dashboard output), a plan's
// as its cells end (the command line's bench). Safe for concurrent use.
type Board struct {
	mu sync.Mutex
	d  BoardData
	// asked is when data.json was last served; endSeen is closed once
	// it was served with the end's figures.
	asked     time.Time
	endSeen   chan struct{}
	endServed bool
}

// lingerFor is how long a board that somebody watched (data.json served
// in the last watchedWithin) waits after the end for the page to fetch the
// end's figures once.
const (
	lingerFor     = 2 * time.Second
	watchedWithin = 5 * time.Second
)

// Linger waits, when somebody watched the board lately, until the page
// fetched the end's figures or lingerFor passed.
func (b *Board) Linger() {
	b.mu.Lock()
	watched := !b.asked.IsZero() && time.Since(b.asked) < watchedWithin
	seen := b.seen()
	b.mu.Unlock()
	if !watched {
		return
	}
	select {
	case <-seen:
	case <-time.After(lingerFor):
	}
}

// seen is endSeen, made on first use; b.mu is held.
func (b *Board) seen() chan struct{} {
	if b.endSeen == nil {
		b.endSeen = make(chan struct{})
	}
	return b.endSeen
}

// BoardData is what the page draws.
type BoardData struct {
	Title    string  `json:"title"`
	Binding  string  `json:"binding,omitempty"`
	Workload string  `json:"workload,omitempty"`
	Label    string  `json:"label,omitempty"`
	Target   float64 `json:"target_ops_per_sec,omitempty"`
	// Ended: the run (or plan) ended; its figures are the result's.
	Ended      bool    `json:"ended"`
	ElapsedS   float64 `json:"elapsed_s"`
	Operations int64   `json:"operations"`
	Throughput float64 `json:"throughput"`
	CPUS       float64 `json:"client_cpu_s,omitempty"`
	// Ops are each operation's figures so far (at the end, the result's).
	Ops []BoardOp `json:"ops,omitempty"`
	// Points are the run's time series, as its result keeps it.
	Points []result.Point `json:"points,omitempty"`
	// Client are the client's own figures each interval: how late the
	// schedule started operations, how long its goroutines waited to run.
	Client []BoardClientPoint `json:"client,omitempty"`
	// SchedP99Us is the client's scheduling delay's p99 over the run so
	// far (at the end, the result's).
	SchedP99Us float64 `json:"client_sched_p99_us,omitempty"`
	// ServerSide is what the servers' sampling has so far (at the end,
	// the result's), each series thinned to maxBoardSeriesPoints.
	ServerSide *result.ServerSide `json:"server_side,omitempty"`
	// Clients is, for a spread phase's coordinator, the clients that
	// reported an interval, of ClientsAll.
	Clients    int `json:"clients,omitempty"`
	ClientsAll int `json:"clients_all,omitempty"`
	// Plan is a plan's progress (bench); Running names the run whose
	// figures the page shows (Follow).
	Plan    *BoardPlan `json:"plan,omitempty"`
	Running string     `json:"running,omitempty"`
}

// BoardOp is one operation's figures.
type BoardOp struct {
	Name      string           `json:"name"`
	Count     int64            `json:"count"`
	P50Us     float64          `json:"p50_us"`
	P99Us     float64          `json:"p99_us"`
	P999Us    float64          `json:"p999_us"`
	RespP99Us float64          `json:"response_p99_us,omitempty"`
	Failed    map[string]int64 `json:"failed,omitempty"`
}

// BoardClientPoint is the client's own figures over one interval.
type BoardClientPoint struct {
	EndS float64 `json:"end_s"`
	// LagP99Us and LagMaxUs: how late operations started behind their
	// intended start (a target rate's schedule; 0 without one).
	LagP99Us float64 `json:"lag_p99_us,omitempty"`
	LagMaxUs float64 `json:"lag_max_us,omitempty"`
	// SchedP99Us: how long the client's goroutines waited to run (the Go
	// runtime's scheduling latency, its bucket's upper bound).
	SchedP99Us float64 `json:"sched_p99_us"`
}

// BoardPlan is a plan's progress: its runs by status, the one running,
// when it should end, and the runs finished so far.
type BoardPlan struct {
	Total   int            `json:"total"`
	Done    int            `json:"done"`
	Failed  int            `json:"failed"`
	Skipped int            `json:"skipped"`
	Left    int            `json:"left"`
	Running string         `json:"running,omitempty"`
	EndsAt  string         `json:"ends_at,omitempty"` // RFC 3339, an estimate
	Runs    []BoardPlanRun `json:"runs,omitempty"`
}

// BoardPlanRun is one finished run of a plan.
type BoardPlanRun struct {
	ID         string  `json:"id"`
	Status     string  `json:"status"`
	Throughput float64 `json:"throughput,omitempty"`
	// P99Us is the highest p99 of its operations (service time), µs.
	P99Us float64 `json:"p99_us,omitempty"`
}

// MaxBoardRuns bounds the plan's runs a board keeps (a plan has at most
// 100,000).
const MaxBoardRuns = 100000

// Update changes the board's data under its lock.
func (b *Board) Update(f func(d *BoardData)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	f(&b.d)
}

// maxBoardPoints bounds the points the page is sent: a day's run at one
// interval a second is thinned to every 44th (and its last), so that a
// page asking every second gets a few hundred kilobytes.
const maxBoardPoints = 2000

// maxBoardSeriesPoints and maxBoardSeries bound the server side's series
// the page is sent (a source may keep 131,072 points).
const (
	maxBoardSeriesPoints = 300
	maxBoardSeries       = 200
)

// JSON is the board's data, its points thinned to maxBoardPoints; b.mu is
// not held.
func (b *Board) JSON() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.json()
}

// json is JSON with b.mu held.
func (b *Board) json() []byte {
	d := b.d
	d.Points = withoutHistograms(thinned(d.Points, maxBoardPoints))
	d.Client = thinned(d.Client, maxBoardPoints)
	d.ServerSide = thinServerSide(d.ServerSide)
	j, _ := json.Marshal(&d) // escapes <, > and &: safe inside a script
	return j
}

// thinned is every k-th of list and its last, at most about n (list
// itself when it has no more than n).
func thinned[T any](list []T, n int) []T {
	if len(list) <= n {
		return list
	}
	k := (len(list) + n - 1) / n
	out := make([]T, 0, len(list)/k+1)
	for i := 0; i < len(list); i += k {
		out = append(out, list[i])
	}
	if (len(list)-1)%k != 0 {
		out = append(out, list[len(list)-1])
	}
	return out
}

// withoutHistograms is points without their operations' encoded
// histograms, which the page does not draw (a copy: points are the
// board's own).
func withoutHistograms(points []result.Point) []result.Point {
	out := make([]result.Point, len(points))
	for i, p := range points {
		ops := make(result.PointOps, len(p.Ops))
		for k, o := range p.Ops {
			o.Histogram = ""
			ops[k] = o
		}
		p.Ops = ops
		out[i] = p
	}
	return out
}

// thinServerSide is ss with at most maxBoardSeries series, each of at
// most maxBoardSeriesPoints points (a copy; ss is not changed).
func thinServerSide(ss *result.ServerSide) *result.ServerSide {
	if ss == nil {
		return nil
	}
	out := *ss
	out.Sources = make([]result.Source, 0, len(ss.Sources))
	// Each source its share of the series, those of a source with fewer
	// going to the ones after it: one endpoint's thousands do not hide
	// the next one's.
	left := maxBoardSeries
	for i, src := range ss.Sources {
		share := left / (len(ss.Sources) - i)
		series := src.Series[:min(len(src.Series), share)]
		left -= len(series)
		src.Dropped += len(src.Series) - len(series)
		src.Series = make([]result.Series, len(series))
		for i, x := range series {
			x.Points = thinned(x.Points, maxBoardSeriesPoints)
			src.Series[i] = x
		}
		out.Sources = append(out.Sources, src)
	}
	return &out
}

// Page writes the page: live, it asks /data.json every second; frozen
// (the page written beside the results), it holds its data.
func (b *Board) Page(w io.Writer, frozen bool) error {
	data := "null"
	if frozen {
		data = string(b.JSON())
	}
	_, err := io.WriteString(w, strings.Replace(boardPage, "/*DATA*/null", data, 1))
	return err
}

// Serve serves the board on ln until the returned server is closed:
// read-only, and with a token (non-empty) every request must carry it
// (?token= or Authorization: Bearer).
func (b *Board) Serve(ln net.Listener, token string) *http.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:")
		b.Page(w, false)
	})
	mux.HandleFunc("/data.json", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		b.mu.Lock()
		j := b.json()
		b.asked = time.Now()
		ended := b.d.Ended
		b.mu.Unlock()
		// The whole answer is sent before the end is said to be seen:
		// the server is shut down once it is (Linger, Stop).
		w.Header().Set("Content-Length", strconv.Itoa(len(j)))
		w.Write(j)
		http.NewResponseController(w).Flush()
		if ended {
			b.mu.Lock()
			if !b.endServed {
				b.endServed = true
				close(b.seen())
			}
			b.mu.Unlock()
		}
	})
	var h http.Handler = mux
	if token != "" {
		h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			got := r.URL.Query().Get("token")
			if a, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
				got = a
			}
			if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				http.Error(w, "a token is asked for", http.StatusUnauthorized)
				return
			}
			mux.ServeHTTP(w, r)
		})
	}
	h = readOnly(h)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 10 * time.Second, IdleTimeout: 30 * time.Second, MaxHeaderBytes: 16 << 10, ErrorLog: log.New(io.Discard, "", 0)}
	go srv.Serve(&fewConns{Listener: ln, max: maxMetricsConns})
	return srv
}

// Stop stops a board's server: the answers being sent are finished (a
// second at most), then every connection is closed.
func Stop(srv *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if srv.Shutdown(ctx) != nil {
		srv.Close()
	}
}

// readOnly refuses every method but GET and HEAD.
func readOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			http.Error(w, "read-only", http.StatusMethodNotAllowed)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// ListenBoard checks a dashboard's address and token (a non-loopback
// address asks for a token, as the coordinator's does) and listens.
func ListenBoard(addr, token, what string) (net.Listener, error) {
	if err := CheckBoardAddr(addr, token, what); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return ln, nil
}

// CheckBoardAddr checks a dashboard's address before anything runs:
// host:port, a port number, and a token unless it is a loopback address.
func CheckBoardAddr(addr, token, what string) error {
	host, port, err := net.SplitHostPort(addr)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return fmt.Errorf("%s %q: want host:port, such as 127.0.0.1:8080", what, props.Cut(addr, 80))
	}
	if ip := net.ParseIP(host); (ip == nil || !ip.IsLoopback()) && token == "" {
		return fmt.Errorf("%s %s is not a loopback address: give dashboard.token too (every request must carry it)", what, addr)
	}
	return nil
}

// WriteFrozen writes the board's frozen page at path, whole or not at all.
func (b *Board) WriteFrozen(path string) error {
	var page bytes.Buffer
	b.Page(&page, true)
	return atomicfile.WriteFile(path, func(w io.Writer) error { _, err := w.Write(page.Bytes()); return err })
}

// boardDef is the live page of a run (--dashboard ADDR): served while it
// runs, written frozen beside its result at the end.
var boardDef = Def{Name: "dashboard", What: "the dashboard", Properties: []string{"dashboard.addr", "dashboard.token", "dashboard.file"},
	Read: func(p *props.Props) (Output, error) {
		addr := p.String("dashboard.addr", "")
		token := p.String("dashboard.token", "")
		file := p.String("dashboard.file", "")
		if addr == "" {
			if token != "" || file != "" {
				return nil, p.Errorf("dashboard.addr", "dashboard.token and dashboard.file belong to a dashboard: give --dashboard ADDR")
			}
			return nil, nil
		}
		if err := CheckBoardAddr(addr, token, "dashboard.addr"); err != nil {
			return nil, p.Errorf("dashboard.addr", "%v", err)
		}
		if file == "" {
			if r := p.String("result.file", ""); strings.HasSuffix(r, ".json") {
				file = strings.TrimSuffix(r, ".json") + ".dashboard.html"
			}
		}
		return &BoardOutput{Addr: addr, Token: token, File: file}, nil
	}}

// BoardOutput is the dashboard a phase asks for: served on Addr, written
// frozen at File ("" for none).
type BoardOutput struct{ Addr, Token, File string }

func (o *BoardOutput) Name() string { return "dashboard" }

// Where says the coordinator's, for a spread phase: its page shows the
// clients' merged intervals as they come, then their merged result.
func (o *BoardOutput) Where() Where { return Coordinator }

func (o *BoardOutput) Files() []File {
	if o.File == "" {
		return nil
	}
	return []File{{What: "the dashboard (dashboard.file)", Path: o.File}}
}

// Open listens and serves the page; the address is said on stderr.
func (o *BoardOutput) Open(env *Env) (Sink, error) {
	ln, err := ListenBoard(o.Addr, o.Token, "dashboard.addr")
	if err != nil {
		return nil, err
	}
	s := &boardSink{o: o, env: env, board: &Board{}, sched: measure.SchedSnapshot()}
	s.board.Update(func(d *BoardData) {
		d.Title = "servbench " + env.Workload
		d.Binding, d.Workload, d.Label, d.Target = env.Binding, env.Workload, env.Label, env.Rate
	})
	s.srv = s.board.Serve(ln, o.Token)
	if env.Stderr != nil {
		fmt.Fprintf(env.Stderr, "servbench: dashboard on http://%s/\n", ln.Addr())
	}
	return s, nil
}

type boardSink struct {
	o      *BoardOutput
	env    *Env
	board  *Board
	srv    *http.Server
	series Series // the run's time series, as its result keeps it
	// sched is the runtime's scheduling histogram at the last interval's
	// end, and at the measured run's start.
	sched, sched0 *metrics.Float64Histogram
	// A spread phase's merged figures so far (Merged): its operations and
	// failures, and every operation's response times.
	spreadOps, spreadFailed int64
	spreadEnd               time.Duration
	spreadHist              *hdr.Histogram
}

// Follow returns an observer that shows one run's intervals on b (a
// plan's page: the run going on), the last run's figures cleared first;
// env gives its client's CPU and server side (nil: none).
func (b *Board) Follow(name string, env *Env) runner.Observer {
	if env == nil {
		env = &Env{}
	}
	b.Update(func(d *BoardData) {
		d.Running, d.ElapsedS, d.Operations, d.Throughput, d.CPUS, d.SchedP99Us = name, 0, 0, 0, 0, 0
		d.Ops, d.Points, d.Client, d.ServerSide = nil, nil, nil, nil
	})
	return &boardSink{board: b, env: env, sched: measure.SchedSnapshot()}
}

// Merged implements Feed: a spread phase's clients' intervals, one point
// of every operation together ("all"), the figures so far beside it.
func (s *boardSink) Merged(p MergedInterval) {
	if p.End <= s.spreadEnd && p.Ops == 0 {
		s.board.Update(func(d *BoardData) { d.Clients, d.ClientsAll = p.Reporting, p.Clients })
		return
	}
	pt := result.Point{StartS: s.spreadEnd.Seconds(), EndS: p.End.Seconds(), Operations: p.Ops}
	if span := p.End - s.spreadEnd; span > 0 {
		pt.Throughput = float64(p.Ops) / span.Seconds()
	}
	op := result.PointOp{Count: p.Ops}
	if p.Failed > 0 {
		op.Failed = result.Bounded[int64]{"failed": p.Failed}
	}
	if h := p.Histogram; h != nil && h.TotalCount() > 0 {
		op.SetFigures(h, "") // the page draws no histogram
		if s.spreadHist == nil {
			s.spreadHist = measure.NewHistogram()
		}
		s.spreadHist.Merge(h)
	}
	pt.Ops = result.PointOps{{Name: spreadAll, PointOp: op}}
	s.spreadOps += p.Ops
	s.spreadFailed += p.Failed
	s.spreadEnd = max(s.spreadEnd, p.End)
	all := BoardOp{Name: spreadAll, Count: s.spreadOps}
	if h := s.spreadHist; h != nil {
		all.RespP99Us = us(h.ValueAtPercentile(99))
	}
	if s.spreadFailed > 0 {
		all.Failed = map[string]int64{"failed": s.spreadFailed}
	}
	s.board.Update(func(d *BoardData) {
		d.Points = append(d.Points, pt)
		d.Operations, d.ElapsedS, d.Ops = s.spreadOps, s.spreadEnd.Seconds(), []BoardOp{all}
		d.Throughput = throughput(s.spreadOps, s.spreadEnd)
		d.Clients, d.ClientsAll = p.Reporting, p.Clients
	})
}

// spreadAll names, on a spread phase's page, every operation together:
// its clients send one histogram of all their operations each interval.
const spreadAll = "all operations"

// Interval implements runner.Observer: the board's figures so far.
func (s *boardSink) Interval(p runner.Progress) {
	s.series.Interval(p)
	now := measure.SchedSnapshot()
	last := s.sched
	s.sched = now
	if p.Warmup {
		return
	}
	if s.sched0 == nil { // the first measured interval: the run's start (Open and Follow take a first snapshot)
		s.sched0 = last
	}
	cp := BoardClientPoint{EndS: p.End.Seconds(), SchedP99Us: durUs(measure.SchedBetween(last, now).P99)}
	if l := p.Interval.Lag; l != nil && l.TotalCount() > 0 {
		cp.LagP99Us, cp.LagMaxUs = us(l.ValueAtPercentile(99)), us(l.Max())
	}
	runP99 := durUs(measure.SchedBetween(s.sched0, now).P99)
	var ss *result.ServerSide
	if s.env.ServerSide != nil {
		ss = s.env.ServerSide(p.Now.Add(-p.End))
	}
	all, _ := p.Total.ClientOps()
	var ops []BoardOp
	for _, o := range newPoint(0, p.End, p.Total).Ops { // the figures so far, as an interval's
		ops = append(ops, BoardOp{Name: o.Name, Count: o.Count, P50Us: o.P50Us, P99Us: o.P99Us, P999Us: o.P999Us, RespP99Us: o.RespP99Us, Failed: o.Failed})
	}
	var cpu float64
	if s.env.CPU != nil {
		cpu = s.env.CPU().Seconds()
	}
	s.board.Update(func(d *BoardData) {
		d.ElapsedS, d.Operations, d.Ops, d.CPUS = p.End.Seconds(), all, ops, cpu
		d.Throughput = throughput(all, p.End)
		d.Client = append(d.Client, cp)
		d.SchedP99Us = runP99
		if ss != nil {
			d.ServerSide = ss
		}
		// The points new since the last interval (and the last one again:
		// the run's end merges a sliver into it): no copy of the whole.
		n, pts := len(d.Points), s.series.Points
		if n > 0 && n <= len(pts) {
			d.Points[n-1] = pts[n-1]
		}
		if n <= len(pts) {
			d.Points = append(d.Points, pts[n:]...)
		}
	})
}

// End shows the result's own figures: the page agrees with the file.
func (s *boardSink) End(e Ended) error {
	d := e.Doc
	s.board.Update(func(b *BoardData) {
		b.Ended, b.ElapsedS, b.Operations, b.Throughput, b.CPUS = true, d.RuntimeMs/1000, d.Operations, d.Throughput, d.ClientCPUS
		b.Points = d.Series
		b.SchedP99Us = d.ClientSchedP99Us
		if d.Clients > 1 {
			b.Clients, b.ClientsAll = d.Clients, d.Clients
		}
		if d.ServerSide != nil {
			b.ServerSide = d.ServerSide
		}
		b.Ops = b.Ops[:0]
		for _, op := range d.Ops {
			bo := BoardOp{Name: op.Name, Count: op.Count}
			if op.Latency != nil {
				bo.P50Us, bo.P99Us, bo.P999Us = op.Latency.Percentiles["50"], op.Latency.Percentiles["99"], op.Latency.Percentiles["99.9"]
			}
			if op.Response != nil {
				bo.RespP99Us = op.Response.Percentiles["99"]
			}
			for st, n := range op.Outcomes {
				if st != "OK" && n > 0 {
					if bo.Failed == nil {
						bo.Failed = map[string]int64{}
					}
					bo.Failed[st] = n
				}
			}
			b.Ops = append(b.Ops, bo)
		}
	})
	return nil
}

// Close stops serving, once a page watching has the end's figures (a
// moment at most), and writes the frozen page.
func (s *boardSink) Close(keep bool) error {
	s.board.Linger()
	Stop(s.srv)
	if !keep || s.o.File == "" {
		return nil
	}
	if err := s.board.WriteFrozen(s.o.File); err != nil {
		return fmt.Errorf("the dashboard %s: %w", s.o.File, err)
	}
	return nil
}

// durUs is d in microseconds.
func durUs(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
