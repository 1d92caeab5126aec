package probe

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/result"
)

const nodeText = `# HELP node_cpu_seconds_total Seconds the CPUs spent in each mode.
# TYPE node_cpu_seconds_total counter
node_cpu_seconds_total{cpu="0",mode="idle"} 70
node_cpu_seconds_total{cpu="0",mode="user"} 20
node_cpu_seconds_total{cpu="0",mode="iowait"} 10
node_cpu_seconds_total{cpu="1",mode="idle"} 90
node_cpu_seconds_total{cpu="1",mode="system"} 10
node_memory_MemTotal_bytes 1000
node_memory_MemAvailable_bytes 400
node_disk_read_bytes_total{device="vda"} 4096
node_disk_read_bytes_total{device="dm-0"} 4096
node_disk_io_time_seconds_total{device="vda"} 2.5
node_network_receive_bytes_total{device="lo"} 500
node_network_receive_bytes_total{device="eth0"} 100
# TYPE my_requests counter
my_requests{path="/a \"quoted\" }"} 3
my_requests{path="/b"} 4 1700000000000
unrelated_metric{x="y"} not-a-number-but-ignored
`

func stat(t *testing.T, stats []db.Stat, name, node string) db.Stat {
	t.Helper()
	for _, s := range stats {
		if s.Name == name && s.Node == node {
			return s
		}
	}
	t.Fatalf("no %s %s in %+v", name, node, stats)
	return db.Stat{}
}

// The series known from node_exporter become servbench's quantities:
// CPU busy (not idle, iowait or steal) as %·s over the CPUs, memory used,
// disk bytes without device-mapper copies, each disk's busy time, network
// without loopback unless the endpoint is on it, and named extras summed
// over their label sets (a brace and quotes inside a label value).
func TestPrometheusStats(t *testing.T) {
	for _, loopback := range []bool{false, true} {
		m, err := parseText(strings.NewReader(nodeText), (&Prometheus{Extra: []string{"my_requests"}}).wanted())
		if err != nil {
			t.Fatal(err)
		}
		p := &Prometheus{Extra: []string{"my_requests"}, Loopback: loopback}
		st := p.stats(m)
		if s := stat(t, st, "cpu_busy_pct", ""); !s.Counter || s.Value != 30*100/2 {
			t.Errorf("cpu_busy_pct %+v, want counter 1500 (30 busy s over 2 CPUs, in %%·s)", s)
		}
		if s := stat(t, st, "memory_used_bytes", ""); s.Counter || s.Value != 600 {
			t.Errorf("memory_used_bytes %+v, want gauge 600", s)
		}
		if s := stat(t, st, "disk_read_bytes", ""); s.Value != 4096 {
			t.Errorf("disk_read_bytes %v, want 4096 (dm-0 is a copy of vda's)", s.Value)
		}
		if s := stat(t, st, "disk_busy_pct", "vda"); s.Value != 250 {
			t.Errorf("disk_busy_pct %v, want 250", s.Value)
		}
		want := 100.0
		if loopback {
			want = 600
		}
		if s := stat(t, st, "network_receive_bytes", ""); s.Value != want {
			t.Errorf("loopback %v: network_receive_bytes %v, want %v", loopback, s.Value, want)
		}
		if s := stat(t, st, "my_requests", ""); s.Value != 7 || !s.Counter {
			t.Errorf("my_requests %+v, want counter 7", s)
		}
	}
}

// A scrape that is not Prometheus' text fails in one line naming the line;
// bodies and lines past their bounds are refused, not read whole.
func TestParseTextRefuses(t *testing.T) {
	want := map[string]bool{"a": true, "b": true}
	for _, c := range []struct{ in, err string }{
		{"a{x=\"1\" 2\n", "line 1: a: labels not closed"},
		{"a 1\nb\n", "line 2: b: no value"},
		{"a{} x1\n", `line 1: a: value "x1" is not a number`},
		{"a " + strings.Repeat("1", maxLine+1) + "\n", "line 1: longer than"},
		{strings.Repeat("z 1\n", MaxScrapeBytes/4+1), "more than 16 MiB"}, // lines of a metric not read
	} {
		_, err := parseText(strings.NewReader(c.in), want)
		if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.20q: error %v, want one line with %q", c.in, err, c.err)
		}
	}
}

// clock is a made clock the recorder reads.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

type script struct {
	samples []db.Sample
	errs    []error
	i       int
}

func (s *script) Name() string { return "scripted" }
func (s *script) Kind() string { return result.SourceBinding }
func (s *script) Sample(context.Context) (db.Sample, error) {
	i := s.i
	s.i++
	return s.samples[i], s.errs[i]
}

func counter(v float64) db.Sample {
	return db.Sample{Stats: []db.Stat{{Name: "commands", Unit: "ops", Counter: true, Value: v}, {Name: "keys", Value: v / 10}}}
}

// Counters become rates per interval from a made clock; a sample just
// after a tick (the last one) extends the last point; a counter that goes
// back (a restart) makes no point and loses nothing; the total is the
// readings' growth, exact; a failed sample is counted and its first error
// kept in one line.
func TestRecorderRates(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &clock{start}
	src := &script{
		samples: []db.Sample{counter(100), counter(1100), {}, counter(3100), counter(50), counter(1050), counter(1060)},
		errs:    []error{nil, nil, errors.New("INFO: connection\nreset"), nil, nil, nil, nil},
	}
	r := New(time.Second, src)
	r.Now, r.Timeout = c.now, time.Hour // only the made clock tells time here
	at := []time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second, 4 * time.Second, 5 * time.Second, 5*time.Second + 100*time.Millisecond}
	for _, d := range at {
		c.t = start.Add(d)
		r.Sample(context.Background())
	}
	ss := r.Result(start, 5000)
	s := ss.Sources[0]
	if s.Failed != 1 || s.Error != "INFO: connection reset" {
		t.Errorf("failed %d %q, want 1 and the error on one line", s.Failed, s.Error)
	}
	x := s.Get("commands", "")
	want := [][2]float64{{1, 1000}, {3, 1000}, {5.1, 1010 / 1.1}}
	if len(x.Points) != len(want) {
		t.Fatalf("points %v, want %v", x.Points, want)
	}
	for i := range want {
		if x.Points[i][0] != want[i][0] || x.Points[i][1]-want[i][1] > 1e-9 || want[i][1]-x.Points[i][1] > 1e-9 {
			t.Errorf("point %d %v, want %v", i, x.Points[i], want[i])
		}
	}
	if x.Total != 3000+1010 || x.PerOperation != float64(4010)/5000 || x.Unit != "ops/s" {
		t.Errorf("total %v per op %v unit %q, want 4010, %v, ops/s", x.Total, x.PerOperation, x.Unit, float64(4010)/5000)
	}
	if g := s.Get("keys", ""); g.Counter || len(g.Points) != 5 || g.Max != 310 {
		t.Errorf("gauge keys %+v: want 5 points (the sliver replaces the one before), max 310", g)
	}
}

// With a warmup, the growth before the measured start is not counted: the
// points before it whole and the part of the point across it.
func TestRecorderWarmup(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &clock{start}
	src := &script{samples: []db.Sample{counter(0), counter(100), counter(200), counter(300)}, errs: make([]error, 4)}
	r := New(time.Second, src)
	r.Now, r.Timeout = c.now, time.Hour
	for i := range 4 {
		c.t = start.Add(time.Duration(i) * time.Second)
		r.Sample(context.Background())
	}
	x := r.Result(start.Add(1500*time.Millisecond), 150).Sources[0].Get("commands", "")
	if x.Total != 150 || x.FromS != -1.5 {
		t.Errorf("total %v from %v, want 150 (the growth after 1.5 s) from -1.5", x.Total, x.FromS)
	}
}

// An endpoint that answers an error, or none, fails its samples with the
// endpoint named, its password and query hidden; the recorder goes on.
func TestPrometheusFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			w.Write([]byte(nodeText))
			return
		}
		http.Error(w, "no", http.StatusNotFound)
	}))
	defer srv.Close()
	ok, _ := url.Parse(srv.URL + "/metrics")
	missing, _ := url.Parse(strings.Replace(srv.URL, "http://", "http://bob:s3cret@", 1) + "/nothing?token=abc")
	closed := httptest.NewServer(http.NotFoundHandler())
	dead, _ := url.Parse(closed.URL + "/metrics")
	closed.Close()
	r := New(time.Second, NewPrometheus(ok, nil), NewPrometheus(missing, nil), NewPrometheus(dead, nil))
	r.Sample(context.Background())
	r.Sample(context.Background())
	ss := r.Result(time.Now(), 1)
	if ss.Sources[0].Error != "" || ss.Sources[0].Get("cpu_busy_pct", "") == nil {
		t.Errorf("the answering endpoint: %+v", ss.Sources[0])
	}
	for _, s := range ss.Sources[1:] {
		if s.Failed != 2 || s.Error == "" || strings.Contains(s.Error, "s3cret") || strings.Contains(s.Error, "abc") {
			t.Errorf("%s: failed %d, error %q: want 2 failures, no secret", s.Name, s.Failed, s.Error)
		}
	}
	if !strings.Contains(ss.Sources[1].Error, "404") || !strings.Contains(ss.Sources[2].Error, "refused") {
		t.Errorf("errors %q, %q: want the status and the refusal", ss.Sources[1].Error, ss.Sources[2].Error)
	}
	for _, l := range r.Failures() {
		if strings.Contains(l, "s3cret") || strings.Contains(l, "\n") {
			t.Errorf("failure line %q", l)
		}
	}
	if n := len(r.Failures()); n != 2 {
		t.Errorf("%d failure lines, want 2", n)
	}
}

type blocking struct{}

func (blocking) Name() string { return "blocking" }
func (blocking) Kind() string { return result.SourceBinding }
func (blocking) Sample(ctx context.Context) (db.Sample, error) {
	<-ctx.Done()
	return db.Sample{}, ctx.Err()
}

// A sample that the recorder's stopping cuts short (Ctrl-C, the run's end)
// is dropped, not counted as a failure of its source: the baseline of a
// run stopped as it starts, and the last sample.
func TestStopDropsCutSamples(t *testing.T) {
	r := New(time.Hour, blocking{})
	run, ctrlC := context.WithCancel(context.Background())
	ctrlC()
	r.Start(run)
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	r.Stop(stopped)
	if s := r.Result(time.Now(), 1).Sources[0]; s.Failed != 0 || s.Error != "" || len(r.Failures()) != 0 {
		t.Errorf("%+v: a cut sample counted as failed", s)
	}
}

type deaf struct{ release chan struct{} }

func (deaf) Name() string { return "deaf" }
func (deaf) Kind() string { return result.SourceBinding }
func (d deaf) Sample(context.Context) (db.Sample, error) {
	<-d.release
	return db.Sample{}, nil
}

// A source that does not heed its context (an embedded store wedged by a
// failure) is waited for no longer than the timeout, counted as failed,
// and not asked again while its sample is out: the run's end is never held
// by it.
func TestDeafSourceIsLeftBehind(t *testing.T) {
	d := deaf{make(chan struct{})}
	defer close(d.release)
	r := New(time.Hour, d)
	r.Timeout = 20 * time.Millisecond
	r.Sample(context.Background())
	r.Sample(context.Background())
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	r.Stop(stopped)
	s := r.Result(time.Now(), 1).Sources[0]
	if s.Failed != 2 || !strings.HasPrefix(s.Error, "no answer within 20ms") {
		t.Errorf("failed %d, error %q: want 2 failures (the stop's sample is dropped), the first without an answer", s.Failed, s.Error)
	}
}

// gated answers its first sample when release is closed, saying when it
// was asked (the test waits for that: a send that gave up when the test
// had not reached its receive yet let the baseline through unseen, and
// the test then waited for ever, once on a busy machine); the others at
// once.
type gated struct {
	entered, release chan struct{}
	first            *sync.Once
}

func (gated) Name() string { return "gated" }
func (gated) Kind() string { return result.SourceBinding }
func (g gated) Sample(ctx context.Context) (db.Sample, error) {
	g.first.Do(func() {
		g.entered <- struct{}{}
		<-g.release
	})
	return db.Sample{Stats: []db.Stat{{Name: "ops", Counter: true, Value: 1}}}, nil
}

// Start returns after every source's baseline answered, so that the run it
// precedes is counted whole (a baseline taken while the run went on missed
// its first operations: a Redis cluster's commands came out one short of
// the operations).
func TestStartTakesTheBaselineFirst(t *testing.T) {
	g := gated{entered: make(chan struct{}), release: make(chan struct{}), first: new(sync.Once)}
	r := New(time.Hour, g)
	started := make(chan struct{})
	go func() {
		r.Start(context.Background())
		close(started)
	}()
	<-g.entered
	select {
	case <-started:
		t.Fatal("Start returned before its baseline answered")
	default:
	}
	close(g.release)
	<-started
	r.Stop(context.Background())
}

// instant answers every sample at once.
type instant struct{}

func (instant) Name() string { return "instant" }
func (instant) Kind() string { return result.SourceBinding }
func (instant) Sample(context.Context) (db.Sample, error) {
	return counter(1), nil
}

// A sample that answered is never counted as failed, however the sampling
// goroutine and the recorder are scheduled. The recorder's own goroutine
// is kept from its select by goroutines that keep the cores busy; when the
// sampler cancelled the timeout itself, an answer and the cancellation
// were then ready together and a few in 200,000 samples failed ("no
// answer within 1h0m0s").
func TestAnsweredSampleNeverFailed(t *testing.T) {
	if testing.Short() {
		t.Skip("200,000 samples beside busy goroutines")
	}
	var done atomic.Bool
	defer done.Store(true)
	for range 4 {
		go func() {
			for !done.Load() { // keep a core busy
			}
		}()
	}
	r := New(time.Second, instant{})
	r.Timeout = time.Hour
	for range 200000 {
		r.Sample(context.Background())
	}
	if tr := r.tracks[0]; tr.failed != 0 || tr.samples != 200000 {
		t.Fatalf("%d of %d samples failed: %s", tr.failed, tr.samples, tr.err)
	}
}
