package probe

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/result"
)

// cutShort answers its first sample at once; its second, once the
// recorder cancels it and then release is closed (a source that takes a
// moment to see its cancellation); every later one at once.
type cutShort struct {
	entered, release chan struct{}
	n                int
}

func (*cutShort) Name() string { return "cut" }
func (*cutShort) Kind() string { return result.SourceBinding }
func (c *cutShort) Sample(ctx context.Context) (db.Sample, error) {
	c.n++
	if c.n == 2 {
		c.entered <- struct{}{}
		<-ctx.Done()
		<-c.release
		return db.Sample{}, ctx.Err()
	}
	return counter(float64(c.n)), nil
}

// The sample that the run's end cuts short is not a sample that failed to
// answer: the last sample waits for it, and the source is not counted as
// failed ("1 of 5 samples failed: its last sample has not answered yet").
// In a bubble of synctest, its clock fake: the interval's tick comes when
// everything waits, and synctest.Wait holds the test until Stop has done
// all it does before the cut sample returns.
func TestLastSampleAfterCutOne(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		src := &cutShort{entered: make(chan struct{}), release: make(chan struct{})}
		r := New(time.Second, src)
		r.Start(context.Background())
		<-src.entered // the first interval's sample is out
		stopped := make(chan struct{})
		go func() {
			r.Stop(context.Background())
			close(stopped)
		}()
		synctest.Wait()
		close(src.release)
		<-stopped
		if f := r.Failures(); len(f) != 0 || src.n != 3 {
			t.Errorf("%d samples asked, failures %q: want 3 (the last after the cut one) and none failed", src.n, f)
		}
	})
}

// exposition is a page of n disk series, each busy for v seconds, and
// the series named in odd: labels with control characters or too long.
func exposition(n int, v float64, odd ...string) string {
	var b strings.Builder
	b.WriteString("# TYPE node_disk_io_time_seconds_total counter\n")
	for i := range n {
		fmt.Fprintf(&b, "node_disk_io_time_seconds_total{device=\"sd%d\"} %g\n", i, v)
	}
	for _, d := range odd {
		fmt.Fprintf(&b, "node_disk_io_time_seconds_total{device=\"%s\"} %g\n", d, v)
	}
	return b.String()
}

// An endpoint serving 100,000 series (5 MB, under the page's bound) is
// kept to MaxSeries of them, and said in one line with the count dropped,
// not a line a series; labels with control characters or past maxLabel
// bytes are dropped and counted too. The result's server side stays
// small.
func TestSeriesPerSourceBounded(t *testing.T) {
	const n = 100000
	odd := []string{"sd\x1b[2J", strings.Repeat("x", maxLabel+1)}
	scrapes := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		scrapes++
		fmt.Fprint(w, exposition(n, float64(scrapes), odd...))
	}))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/metrics")
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &clock{start}
	r := New(time.Second, NewPrometheus(u, nil))
	r.Now, r.Timeout = c.now, time.Hour
	for i := range 4 {
		c.t = start.Add(time.Duration(i) * time.Second)
		r.Sample(context.Background())
	}
	src := r.Result(start, 1).Sources[0]
	if len(src.Series) != MaxSeries || src.Dropped != n-MaxSeries+len(odd) || src.Error != "" {
		t.Errorf("%d series, %d dropped, error %q: want %d kept and %d dropped", len(src.Series), src.Dropped, src.Error, MaxSeries, n-MaxSeries+len(odd))
	}
	f := r.Failures()
	want := fmt.Sprintf("served series that were not kept: %d over the %d this source may have, %d named with control characters or more than %d bytes (kept %d)", n-MaxSeries, MaxSeries, len(odd), maxLabel, MaxSeries)
	if len(f) != 1 || !strings.HasSuffix(f[0], want) {
		t.Errorf("failure lines %q, want one ending %q", f, want)
	}
	b, err := json.Marshal(src)
	if err != nil || len(b) > 1<<20 {
		t.Errorf("the source's result is %d bytes (%v), want under a MiB", len(b), err)
	}
}

// A long run keeps at most PointBudget points over a recorder's series:
// a series past its share has its points merged in pairs, a counter's
// growth and a gauge's mean kept.
func TestPointsBounded(t *testing.T) {
	const series = 1000
	stats := func(i int) db.Sample {
		var s db.Sample
		for k := range series {
			s.Stats = append(s.Stats, db.Stat{Name: "ops", Node: fmt.Sprint(k), Counter: true, Value: float64(i * 10)})
		}
		s.Stats = append(s.Stats, db.Stat{Name: "keys", Value: 5})
		return s
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := New(time.Second, &script{})
	tr := r.tracks[0]
	samples := 3 * PointBudget / series
	for i := range samples {
		tr.add(start.Add(time.Duration(i)*time.Second), stats(i), nil)
	}
	src := r.Result(start, 1).Sources[0]
	points := 0
	for _, x := range src.Series {
		points += len(x.Points)
	}
	if points > PointBudget || points < PointBudget/4 {
		t.Errorf("%d points kept, want at most %d and not far fewer", points, PointBudget)
	}
	x := src.Get("ops", "7")
	if x.Total != float64((samples-1)*10) || math.Abs(x.Mean-10) > 1e-9 || math.Abs(x.Max-10) > 1e-9 {
		t.Errorf("ops: total %v mean %v max %v, want %d, 10, 10", x.Total, x.Mean, x.Max, (samples-1)*10)
	}
	if last := x.Points[len(x.Points)-1][0]; last != float64(samples-1) {
		t.Errorf("last point at %v, want %d", last, samples-1)
	}
	if g := src.Get("keys", ""); g.Mean != 5 || len(g.Points) > PointBudget/(series+1) {
		t.Errorf("keys: mean %v, %d points", g.Mean, len(g.Points))
	}
}

// scripted samples a source answering samples, one at each of the times
// at from the start of the returned clock's day.
func scripted(at []time.Duration, samples ...db.Sample) (*Recorder, time.Time) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &clock{start}
	r := New(time.Second, &script{samples: samples, errs: make([]error, len(samples))})
	r.Now, r.Timeout = c.now, time.Hour
	for _, d := range at {
		c.t = start.Add(d)
		r.Sample(context.Background())
	}
	return r, start
}

// A counter that only falls has no rate: its series has no point and no
// total, and says so (Sampled), where it was summarised as 0. A reading
// past maxValue makes no point, and what is kept always encodes (a rate
// of two readings of ±1.5e308 was +Inf, which JSON refuses).
func TestFallingAndHugeReadings(t *testing.T) {
	falling := func(v float64) db.Sample {
		return db.Sample{Stats: []db.Stat{{Name: "cpu_busy_pct", Unit: "%", Counter: true, Value: v}, {Name: "huge", Counter: true, Value: -v * 1.5e305}}}
	}
	r, start := scripted([]time.Duration{0, time.Second, 2 * time.Second, 3 * time.Second}, falling(1000), falling(900), falling(800), falling(-1000))
	s := r.Result(start, 100).Sources[0]
	x := s.Get("cpu_busy_pct", "")
	if x == nil || x.Sampled() || len(x.Points) != 0 || x.Total != 0 {
		t.Errorf("a falling counter: %+v, want no point, not sampled", x)
	}
	if _, err := json.Marshal(s); err != nil {
		t.Errorf("the result does not encode: %v", err)
	}
}

// A restart just before a sliver (the last sample, just after a tick)
// makes no negative rate from the reading before the restart.
func TestRestartThenSliver(t *testing.T) {
	r, start := scripted([]time.Duration{0, time.Second, 1100 * time.Millisecond, 1200 * time.Millisecond}, counter(500), counter(1000), counter(10), counter(20))
	pts := r.Result(start, 1).Sources[0].Get("commands", "").Points
	for _, p := range pts {
		if p[1] < 0 {
			t.Errorf("points %v: a negative rate", pts)
		}
	}
}

// Many sources share the bound on all of a recorder's series: with 20
// (the most endpoints a run takes is 100), each keeps at most 1,000.
func TestManySourcesShareTheSeries(t *testing.T) {
	srcs := make([]Source, 20)
	for i := range srcs {
		srcs[i] = &script{}
	}
	r := New(time.Second, srcs...)
	var st db.Sample
	for k := range 1500 {
		st.Stats = append(st.Stats, db.Stat{Name: "ops", Node: fmt.Sprint(k), Value: 1})
	}
	r.tracks[3].add(time.Now(), st, nil)
	if n := len(r.tracks[3].series); n != maxAllSeries/20 {
		t.Errorf("%d series kept of one of 20 sources, want %d", n, maxAllSeries/20)
	}
}
