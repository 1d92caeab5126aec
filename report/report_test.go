package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
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

func result() *runner.Result {
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
	}
	r.RecordLag(2_000_000)
	r.RecordLag(10)
	s := &measure.Set{}
	r.DrainInto(s)
	return &runner.Result{Total: s, Runtime: 2 * time.Second, Reason: runner.Completed}
}

func TestTextReportLikeYCSB(t *testing.T) {
	var b bytes.Buffer
	o := Options{Percentiles: []float64{50, 95, 99}, LateThreshold: time.Millisecond}
	o.Tracked[db.Timeout] = true
	if err := WriteText(&b, result(), o); err != nil {
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
	d := NewDoc(result(), nil, Meta{Command: "run"}, Options{LateThreshold: time.Millisecond})
	if d.Operations != 110 || d.OKOperations != 100 || d.Throughput != 55 {
		t.Errorf("operations %d ok %d throughput %v", d.Operations, d.OKOperations, d.Throughput)
	}
	op := d.Ops[0]
	if op.Name != "READ" || op.Outcomes["NOT_FOUND"] != 5 || op.LatencyFailed.Count != 10 {
		t.Fatalf("%+v", op)
	}
	h, err := DecodeHistogram(op.Histograms["OK"])
	if err != nil || h.TotalCount() != 100 || h.Max() < 99_900 {
		t.Errorf("decoded: %v %d", err, h.TotalCount())
	}
	if d.Schedule == nil || d.Schedule.Late != 1 {
		t.Errorf("schedule: %+v", d.Schedule)
	}
}
