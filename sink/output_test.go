package sink

import (
	"bytes"
	"fmt"
	"github.com/servbench/servbench/props"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

func TestJavaDouble(t *testing.T) {
	for f, want := range map[float64]string{
		0: "0.0", 1: "1.0", 98.91196834817013: "98.91196834817013", 0.001: "0.001",
		0.0001: "1.0E-4", 1e7: "1.0E7", 12345678.9: "1.23456789E7", -2.5: "-2.5", 1234567: "1234567.0",
	} {
		if got := javaDouble(f); got != want {
			t.Errorf("javaDouble(%v) = %s, want %s", f, got, want)
		}
	}
}

func TestOrdinal(t *testing.T) {
	for p, want := range map[float64]string{1: "1st", 2: "2nd", 3: "3rd", 11: "11th", 12: "12th", 13: "13th",
		21: "21st", 50: "50th", 95: "95th", 99: "99th", 99.9: "99.9", 99.99: "99.99", 100: "100th"} {
		if got := ordinal(p); got != want {
			t.Errorf("ordinal(%v) = %s, want %s", p, got, want)
		}
	}
	if twoDecimals(2000.755) != "2000.76" || twoDecimals(3) != "3" {
		t.Errorf("twoDecimals: %s %s", twoDecimals(2000.755), twoDecimals(3))
	}
	if got := formatRemaining(3*time.Hour + 2*time.Minute + 5*time.Second); got != "3 hours 2 minutes " {
		t.Errorf("remaining %q", got)
	}
	if got := formatRemaining(9 * time.Second); got != "9 seconds " {
		t.Errorf("remaining %q", got)
	}
}

func runResult() *runner.Result {
	r := measure.NewRecorder()
	for i := int64(1); i <= 100; i++ {
		r.Record(measure.Read, db.OK, i*1000, i*3000)
		r.RecordTxn(db.OK)
	}
	for i := int64(1); i <= 5; i++ {
		r.Record(measure.Read, db.NotFound, 50_000, 60_000)
		r.Record(measure.Read, db.Timeout, 70_000, 80_000)
		r.RecordTxn(db.NotFound)
		r.RecordTxn(db.Timeout)
		r.RecordError(measure.Read, db.Timeout, fmt.Errorf("read user%d: i/o timeout on postgres://u:hunter2@127.0.0.1", i))
	}
	r.RecordLag(2_000_000)
	r.RecordLag(10)
	s := &measure.Set{}
	r.DrainInto(s)
	return &runner.Result{Total: s, Runtime: 2 * time.Second, Reason: result.Completed}
}

func TestTextReportLikeYCSB(t *testing.T) {
	var b bytes.Buffer
	o := Options{Percentiles: []float64{50, 95, 99}, LateThreshold: time.Millisecond}
	o.Tracked[db.Timeout] = true
	if err := WriteText(&b, endedOf(runResult(), o), o); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, line := range []string{
		"[OVERALL], RunTime(ms), 2000\n",
		"[OVERALL], Throughput(ops/sec), 55.0\n",
		"[READ], Operations, 100\n",
		"[READ], AverageLatency(us), 50.5",
		"[READ], MinLatency(us), 1\n",
		"[READ], MaxLatency(us), 100\n",
		"[READ], 50thPercentileLatency(us), 50\n",
		"[READ], 99thPercentileLatency(us), 99\n",
		"[READ], Return=OK, 100\n",
		"[READ], Return=NOT_FOUND, 5\n",
		"[READ], Return=TIMEOUT, 5\n",
		"[READ-FAILED], Operations, 5\n",  // NOT_FOUND: untracked
		"[READ-TIMEOUT], Operations, 5\n", // tracked by latencytrackederrors
		"[Intended-READ], Operations, 100\n",
		"[Intended-READ], MaxLatency(us), 300\n",
		"[SCHEDULE], LateOperations(>1000us), 1\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("missing %q in\n%s", line, text)
		}
	}
	if strings.Index(text, "[READ], Return=OK") > strings.Index(text, "[READ-FAILED]") {
		t.Error("Return= lines must follow the [READ] section")
	}
}

func TestDocHistogramsRoundTrip(t *testing.T) {
	d := NewDoc(runResult(), nil, Meta{Command: "run"}, Options{LateThreshold: time.Millisecond})
	if d.Operations != 110 || d.OKOperations != 100 || d.Throughput != 55 {
		t.Errorf("operations %d ok %d throughput %v", d.Operations, d.OKOperations, d.Throughput)
	}
	op := d.Ops[0]
	if op.Name != "READ" || op.Outcomes["NOT_FOUND"] != 5 || op.LatencyFailed.Count != 10 {
		t.Fatalf("%+v", op)
	}
	h, err := result.DecodeHistogram(op.Histograms["OK"])
	if err != nil || h.TotalCount() != 100 || h.Max() < 99_900 {
		t.Errorf("decoded: %v %d", err, h.TotalCount())
	}
	if got, want := op.Errors["TIMEOUT"], "read user1: i/o timeout on postgres://u:REDACTED@127.0.0.1"; got != want || len(op.Errors) != 1 {
		t.Errorf("first errors %q, want TIMEOUT: %q", op.Errors, want)
	}
	if d.Schedule == nil || d.Schedule.Late != 1 {
		t.Errorf("schedule: %+v", d.Schedule)
	}
}

func TestVerifyCountedAsYCSBDoes(t *testing.T) {
	r := measure.NewRecorder()
	for i := 0; i < 7; i++ {
		r.Record(measure.Verify, db.OK, 1000, -1)
	}
	for i := 0; i < 3; i++ {
		r.Record(measure.Verify, db.UnexpectedState, 1000, -1)
	}
	r.Record(measure.Verify, db.Error, 1000, -1)
	s := &measure.Set{}
	r.DrainInto(s)
	var b bytes.Buffer
	if err := WriteText(&b, endedOf(&runner.Result{Total: s, Runtime: time.Second, Reason: result.Completed}, Options{Percentiles: []float64{99}}), Options{Percentiles: []float64{99}}); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, line := range []string{"[VERIFY], Operations, 11\n", "[VERIFY], Return=OK, 7\n", "[VERIFY], Return=UNEXPECTED_STATE, 3\n", "[VERIFY], Return=ERROR, 1\n"} {
		if !strings.Contains(text, line) {
			t.Errorf("missing %q in\n%s", line, text)
		}
	}
	if strings.Contains(text, "VERIFY-") {
		t.Errorf("a VERIFY failure section, which YCSB has not:\n%s", text)
	}
}

func TestHistogramTypeBuckets(t *testing.T) {
	// 0.5 ms ×90, 1.5 ms ×6, 2.5 ms ×3, 7 ms ×1 with 5 buckets: 95% is
	// reached in bucket 1, 99% in bucket 2, the 7 ms one overflows.
	r := measure.NewRecorder()
	for _, c := range []struct{ ns, n int64 }{{500_000, 90}, {1_500_000, 6}, {2_500_000, 3}, {7_000_000, 1}} {
		for range c.n {
			r.Record(measure.Read, db.OK, c.ns, -1)
		}
	}
	s := &measure.Set{}
	r.DrainInto(s)
	var b bytes.Buffer
	o := Options{Kinds: []Kind{KindHistogram}, Buckets: 5, BucketLines: true}
	if err := WriteText(&b, endedOf(&runner.Result{Total: s, Runtime: time.Second, Reason: result.Completed}, o), o); err != nil {
		t.Fatal(err)
	}
	want := "[READ], Operations, 100\n[READ], AverageLatency(us), 685.0" // 685 µs within HDR precision
	if !strings.Contains(b.String(), want) {
		t.Errorf("want %q in\n%s", want, b.String())
	}
	for _, line := range []string{"[READ], 95thPercentileLatency(us), 1000\n", "[READ], 99thPercentileLatency(us), 2000\n",
		"[READ], 0, 90\n", "[READ], 1, 6\n", "[READ], 2, 3\n", "[READ], 3, 0\n", "[READ], 4, 0\n", "[READ], >5, 1\n", "[READ], LatencyVariance(us), "} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("missing %q in\n%s", line, b.String())
		}
	}
}

// TestHistogramsReadableByHdrHistogram: the JSON's histograms decode with
// the library's own Decode, as any HdrHistogram tool reads them, and the
// interval log reads back with its log reader.
func TestHistogramsReadableByHdrHistogram(t *testing.T) {
	d := NewDoc(runResult(), nil, Meta{Command: "run"}, Options{LateThreshold: time.Millisecond})
	h, err := hdr.Decode([]byte(d.Ops[0].Histograms["OK"]))
	if err != nil || h.TotalCount() != 100 {
		t.Fatalf("hdr.Decode of the JSON's histogram: %v", err)
	}

	prefix := filepath.Join(t.TempDir(), "run-")
	o := &Options{}
	lg := &Hlog{Prefix: prefix, Ext: ".hlog", Options: o}
	wall := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for i := range 3 {
		r := measure.NewRecorder()
		for j := int64(1); j <= int64(10*(i+1)); j++ {
			r.Record(measure.Read, db.OK, j*1000, -1)
		}
		r.Record(measure.Read, db.NotFound, 5000, -1)
		s := &measure.Set{}
		r.DrainInto(s)
		end := time.Duration(i+1) * time.Second
		lg.Interval(runner.Progress{Start: end - time.Second, End: end, Now: wall.Add(end), Interval: s})
	}
	if err := lg.Close(true); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(prefix + "READ.hlog")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rd := hdr.NewHistogramLogReader(f)
	var counts []int64
	for {
		h, err := rd.NextIntervalHistogram()
		if err != nil {
			t.Fatal(err)
		}
		if h == nil {
			break
		}
		counts = append(counts, h.TotalCount())
	}
	if !slices.Equal(counts, []int64{10, 20, 30}) {
		t.Errorf("intervals read back with counts %v, want [10 20 30]", counts)
	}
	if _, err := os.Stat(prefix + "READ-FAILED.hlog"); err != nil {
		t.Errorf("no log of the failed reads: %v", err)
	}
}

func TestSeriesLastInterval(t *testing.T) {
	set := func(n int) *measure.Set {
		r := measure.NewRecorder()
		for range n {
			r.Record(measure.Read, db.OK, 1000, -1)
			r.RecordTxn(db.OK)
		}
		s := &measure.Set{}
		r.DrainInto(s)
		return s
	}
	iv := func(s *Series, from, to time.Duration, n int, final bool) {
		s.Interval(runner.Progress{Start: from, End: to, Interval: set(n), Final: final})
	}
	// A 3 ms sliver at the end is merged into the interval before it.
	s := &Series{}
	iv(s, 0, time.Second, 1000, false)
	iv(s, time.Second, 2*time.Second, 1000, false)
	iv(s, 2*time.Second, 2003*time.Millisecond, 4, true)
	if len(s.Points) != 2 {
		t.Fatalf("%d points, want 2 (the sliver merged)", len(s.Points))
	}
	last := s.Points[1]
	if last.Operations != 1004 || last.EndS != 2.003 || last.Partial || func() int64 { o, _ := last.Ops.Get("READ"); return o.Count }() != 1004 {
		t.Errorf("merged last point %+v", last)
	}
	if want := 1004 / 1.003; math.Abs(last.Throughput-want) > 1e-6 {
		t.Errorf("throughput %v, want %v over the real length", last.Throughput, want)
	}
	// A longer last interval stays, marked partial, with its rate over
	// its own length.
	s = &Series{}
	iv(s, 0, time.Second, 1000, false)
	iv(s, time.Second, 1700*time.Millisecond, 700, true)
	if len(s.Points) != 2 || !s.Points[1].Partial || math.Abs(s.Points[1].Throughput-1000) > 1e-6 {
		t.Errorf("points %+v", s.Points)
	}
}

// A refusal names the property that asks for an output, or, for an
// output registered without properties, its name (it panicked).
func TestAsking(t *testing.T) {
	Register(Def{Name: "test-asking", Read: func(*props.Props) (Output, error) { return nil, nil }})
	if got := Asking(askingOutput{}); got != "test-asking" {
		t.Errorf("an output without properties: %q", got)
	}
	if got := Asking(&MetricsOutput{}); got != "metrics.addr" {
		t.Errorf("metrics: %q", got)
	}
}

type askingOutput struct{}

func (askingOutput) Name() string            { return "test-asking" }
func (askingOutput) Files() []File           { return nil }
func (askingOutput) Where() Where            { return OneProcess }
func (askingOutput) Open(*Env) (Sink, error) { return nil, nil }

// endedOf is res as the outputs see it: its document, its raw samples.
func endedOf(res *runner.Result, o Options) Ended {
	return Ended{Doc: NewDoc(res, nil, Meta{}, o), Raw: res.Total.Raw}
}

// YCSB's text report is written from the result document alone: the
// report of a run's document read back from its file (as a spread
// phase's merged result is) is the same bytes as the run's own, CLEANUP,
// the intended sections and the schedule included; only raw samples
// come from the run.
func TestTextFromTheDocumentAlone(t *testing.T) {
	res := runResult()
	r := measure.NewRecorder()
	r.Record(measure.Cleanup, db.OK, 3000, -1)
	r.Record(measure.Cleanup, db.OK, 5000, -1)
	r.DrainInto(res.Total)
	res.Warmup, res.Reason = 1500*time.Millisecond, result.TimeLimit
	o := Options{Percentiles: []float64{50, 99}, LateThreshold: time.Millisecond, Interval: IntervalBoth}
	e := endedOf(res, o)
	var run, back bytes.Buffer
	if err := WriteText(&run, e, o); err != nil {
		t.Fatal(err)
	}
	e.Doc.Format, e.Doc.Version = result.Format, result.FormatVersion
	var js bytes.Buffer
	if err := result.WriteJSON(&js, e.Doc); err != nil {
		t.Fatal(err)
	}
	d, err := result.Decode(js.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteText(&back, Ended{Doc: d}, o); err != nil {
		t.Fatal(err)
	}
	if run.String() != back.String() {
		t.Errorf("the report of the document read back differs:\n%s\nfrom the run's:\n%s", back.String(), run.String())
	}
	for _, line := range []string{"[CLEANUP], Operations, 2\n", "[OVERALL], Warmup(ms), 1500\n", "[OVERALL], Stopped, maxexecutiontime\n", "[Intended-READ], Operations, 100\n", "[SCHEDULE], Operations, 2\n"} {
		if !strings.Contains(back.String(), line) {
			t.Errorf("missing %q in\n%s", line, back.String())
		}
	}
}
