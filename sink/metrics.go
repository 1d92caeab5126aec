package sink

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/runner"
)

// Prometheus metrics served while the phase runs (metrics.addr): every
// client of a spread phase serves its own.
var metricsDef = Def{Name: "metrics", What: "the metrics", Properties: []string{"metrics.addr"}, Read: func(p *props.Props) (Output, error) {
	addr := p.String("metrics.addr", "")
	if addr == "" {
		return nil, nil
	}
	if _, port, err := net.SplitHostPort(addr); err != nil || port == "" {
		return nil, p.Errorf("metrics.addr", "want host:port, such as 127.0.0.1:9464")
	}
	return &MetricsOutput{Addr: addr}, nil
}}

// MetricsOutput serves the phase's metrics on Addr (host:port; port 0:
// any, which it says).
type MetricsOutput struct{ Addr string }

func (o *MetricsOutput) Name() string  { return "metrics" }
func (o *MetricsOutput) Where() Where  { return EachClient }
func (o *MetricsOutput) Files() []File { return nil }

// Open listens on Addr and serves /metrics until the sink is closed.
func (o *MetricsOutput) Open(env *Env) (Sink, error) {
	ln, err := net.Listen("tcp", o.Addr)
	if err != nil {
		return nil, fmt.Errorf("metrics.addr: %w", err)
	}
	m := &Metrics{
		Labels: map[string]string{"run": env.Run, "client": strconv.Itoa(env.Client), "workload": env.Workload, "binding": env.Binding},
		Target: env.Rate, CPU: env.CPU,
	}
	if env.Measurements != nil {
		m.LateThreshold = env.Measurements.LateThreshold
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 10 * time.Second, IdleTimeout: 30 * time.Second, ErrorLog: log.New(io.Discard, "", 0)}
	go srv.Serve(&fewConns{Listener: ln, max: maxMetricsConns})
	if _, port, _ := net.SplitHostPort(o.Addr); port == "0" && env.Stderr != nil {
		fmt.Fprintf(env.Stderr, "servbench: metrics on http://%s/metrics\n", ln.Addr())
	}
	return &metricsSink{Metrics: m, srv: srv}, nil
}

// maxMetricsConns is how many connections the metrics endpoint keeps open
// at once: a scraper or two, and room. It faces the network
// (metrics.addr=0.0.0.0:PORT): 17,500 idle connections held 458 MB.
const maxMetricsConns = 64

// fewConns is a listener that keeps at most max of its connections open:
// a new one closes the oldest (an idle keep-alive, or one held open by
// a peer), so that a scraper always gets in.
type fewConns struct {
	net.Listener
	max  int
	mu   sync.Mutex
	open []*fewConn // oldest first
}

func (l *fewConns) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	fc := &fewConn{Conn: c, l: l}
	l.mu.Lock()
	var oldest *fewConn
	if len(l.open) >= l.max {
		oldest = l.open[0]
		l.open = l.open[1:]
	}
	l.open = append(l.open, fc)
	l.mu.Unlock()
	if oldest != nil {
		oldest.Conn.Close()
	}
	return fc, nil
}

type fewConn struct {
	net.Conn
	l *fewConns
}

func (c *fewConn) Close() error {
	c.l.mu.Lock()
	if i := slices.Index(c.l.open, c); i >= 0 {
		c.l.open = slices.Delete(c.l.open, i, i+1)
	}
	c.l.mu.Unlock()
	return c.Conn.Close()
}

type metricsSink struct {
	*Metrics // the runner.Observer
	srv      *http.Server
}

func (s *metricsSink) End(Ended) error { return nil }

// Close stops serving.
func (s *metricsSink) Close(bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	s.srv.Shutdown(ctx)
	return nil
}

// Metrics serves a run's progress in Prometheus' text exposition format
// (version 0.0.4): operations and transactions by outcome, latency
// histograms, the target rate, late operations and the client's CPU
// time, each labelled with the run, the client, the workload and the
// binding. It is a runner.Observer: the page is rendered once per interval
// from the drained totals, never on an operation's path, and a scrape
// copies the last rendering.
type Metrics struct {
	Labels        map[string]string    // constant labels of every sample
	Target        float64              // ops/s asked for; 0 = as fast as possible
	LateThreshold time.Duration        // a later start than this counts as late
	CPU           func() time.Duration // the process's CPU time so far; nil = not served

	mu   sync.Mutex
	page []byte
}

// latencyBuckets are the histograms' upper bounds in seconds.
var latencyBuckets = [...]float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

// Interval implements runner.Observer.
func (m *Metrics) Interval(p runner.Progress) {
	var b bytes.Buffer
	labels := m.labelText()
	with := func(extra string) string {
		switch {
		case labels == "":
			return "{" + extra + "}"
		case extra == "":
			return "{" + labels + "}"
		}
		return "{" + labels + "," + extra + "}"
	}
	measuring := 1
	if p.Warmup {
		measuring = 0
	}
	fmt.Fprintf(&b, "# HELP servbench_measuring 1 once warmup is over.\n# TYPE servbench_measuring gauge\nservbench_measuring%s %d\n", with(""), measuring)
	fmt.Fprintf(&b, "# HELP servbench_target_ops_per_second The rate asked for (0: as fast as possible).\n# TYPE servbench_target_ops_per_second gauge\nservbench_target_ops_per_second%s %g\n", with(""), m.Target)
	t := p.Total
	b.WriteString("# HELP servbench_transactions_total Transactions finished, by outcome: what throughput counts.\n# TYPE servbench_transactions_total counter\n")
	for st, n := range t.Txns {
		if n > 0 && db.Status(st) != db.Canceled {
			fmt.Fprintf(&b, "servbench_transactions_total%s %d\n", with(`outcome="`+db.Status(st).String()+`"`), n)
		}
	}
	b.WriteString("# HELP servbench_operations_total Operations measured, by operation and outcome.\n# TYPE servbench_operations_total counter\n")
	for op := range t.Service {
		for st := range t.Service[op] {
			if n := t.Count(measure.Op(op), db.Status(st)); n > 0 {
				fmt.Fprintf(&b, "servbench_operations_total%s %d\n", with(`op="`+measure.Op(op).String()+`",outcome="`+db.Status(st).String()+`"`), n)
			}
		}
	}
	b.WriteString("# HELP servbench_operation_duration_seconds Service time of operations, by operation (every outcome).\n# TYPE servbench_operation_duration_seconds histogram\n")
	for op := range t.Service {
		var counts [len(latencyBuckets) + 1]int64
		var sum float64
		var total int64
		for st := range t.Service[op] {
			if h := t.Service[op][st]; h != nil && h.TotalCount() > 0 {
				addBuckets(&counts, h)
				sum += h.Mean() * float64(h.TotalCount()) / 1e9
				total += h.TotalCount()
			}
		}
		if total == 0 {
			continue
		}
		name := `op="` + measure.Op(op).String() + `"`
		var cum int64
		for i, le := range latencyBuckets {
			cum += counts[i]
			fmt.Fprintf(&b, "servbench_operation_duration_seconds_bucket%s %d\n", with(name+`,le="`+strconv.FormatFloat(le, 'g', -1, 64)+`"`), cum)
		}
		fmt.Fprintf(&b, "servbench_operation_duration_seconds_bucket%s %d\n", with(name+`,le="+Inf"`), total)
		fmt.Fprintf(&b, "servbench_operation_duration_seconds_sum%s %g\n", with(name), sum)
		fmt.Fprintf(&b, "servbench_operation_duration_seconds_count%s %d\n", with(name), total)
	}
	if t.Lag != nil {
		late := int64(0)
		for _, bar := range t.Lag.Distribution() {
			if bar.Count > 0 && bar.From > m.LateThreshold.Nanoseconds() {
				late += bar.Count
			}
		}
		fmt.Fprintf(&b, "# HELP servbench_late_operations_total Operations that started more than schedule.latethreshold behind their intended start.\n# TYPE servbench_late_operations_total counter\nservbench_late_operations_total%s %d\n", with(""), late)
	}
	if m.CPU != nil {
		fmt.Fprintf(&b, "# HELP servbench_client_cpu_seconds_total CPU time of the client process.\n# TYPE servbench_client_cpu_seconds_total counter\nservbench_client_cpu_seconds_total%s %g\n", with(""), m.CPU().Seconds())
	}
	m.mu.Lock()
	m.page = b.Bytes()
	m.mu.Unlock()
}

// addBuckets adds h's values to the latency buckets they fall in (the
// last counts those above every bound).
func addBuckets(counts *[len(latencyBuckets) + 1]int64, h *hdr.Histogram) {
	for _, bar := range h.Distribution() {
		if bar.Count == 0 {
			continue
		}
		v := float64(bar.To) / 1e9 // the bar's upper edge: within HDR's precision
		i := 0
		for i < len(latencyBuckets) && v > latencyBuckets[i] {
			i++
		}
		counts[i] += bar.Count
	}
}

func (m *Metrics) labelText() string {
	keys := make([]string, 0, len(m.Labels))
	for k := range m.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, k+`="`+escapeLabel(m.Labels[k])+`"`)
	}
	return strings.Join(parts, ",")
}

func escapeLabel(v string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(v)
}

// ServeHTTP writes the last rendering.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	m.mu.Lock()
	page := m.page
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	w.Write(page)
}
