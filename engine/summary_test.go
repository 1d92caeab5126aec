package engine

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/sink"
)

func TestSummaryWarnings(t *testing.T) {
	// A result with n operations over runtime, lagging by lag each when
	// lag >= 0 (a target rate was set).
	// missing: of the n reads, how many found nothing.
	resWith := func(n, missing int64, runtime time.Duration, target float64, lag time.Duration) *runner.Result {
		r := measure.NewRecorder()
		for i := range n {
			st := db.OK
			if i < missing {
				st = db.NotFound
			}
			r.Record(measure.Read, st, 1000, -1)
			r.RecordTxn(st)
			if lag >= 0 {
				r.RecordLag(int64(lag))
			}
		}
		s := &measure.Set{}
		r.DrainInto(s)
		return &runner.Result{Total: s, Runtime: runtime, Threads: 2, Config: runner.Config{Rate: target}}
	}
	res := func(n int64, runtime time.Duration, target float64, lag time.Duration) *runner.Result {
		return resWith(n, 0, runtime, target, lag)
	}
	// 20,000 reads of 2 ms each over 10 s.
	slow := func() *runner.Result {
		r := measure.NewRecorder()
		for range 20000 {
			r.Record(measure.Read, db.OK, int64(2*time.Millisecond), -1)
			r.RecordTxn(db.OK)
		}
		s := &measure.Set{}
		r.DrainInto(s)
		return &runner.Result{Total: s, Runtime: 10 * time.Second, Threads: 2}
	}
	facts := ranFacts{binding: "redis", workload: "workload A", records: 100000, late: time.Millisecond, cores: 2}
	for _, c := range []struct {
		name  string
		f     func(*ranFacts)
		res   *runner.Result
		warns []string // each expected warning, by a phrase
	}{
		{"a long quiet run", nil, res(20000, 10*time.Second, 0, -1), nil},
		{"short by time", nil, res(20000, 500*time.Millisecond, 0, -1), []string{"a short run (500ms, 20,000 operations)"}},
		{"short by operations", nil, res(1000, 10*time.Second, 0, -1), []string{"a short run"}},
		{"target missed, most late", nil, res(20000, 10*time.Second, 20000, 5*time.Millisecond),
			[]string{"target rate missed: 2,000 ops/s achieved of 20,000 asked (90% short)", "20,000 of 20,000 operations started more than 1ms behind"}},
		{"target met, on time", nil, res(20000, 10*time.Second, 2000, 10*time.Microsecond), nil},
		{"a slow target missed", nil, res(2, 10*time.Second, 0.5, 10*time.Microsecond), []string{"a short run", "target rate missed: 0.2 ops/s achieved of 0.5 asked (60% short)"}},
		{"saturated client", func(f *ranFacts) { f.cpu = 19 * time.Second }, res(20000, 10*time.Second, 0, -1), []string{"the client used 95% of 2 cores"}},
		{"saturated embedded store", func(f *ranFacts) { f.cpu, f.embedded = 19*time.Second, true }, res(20000, 10*time.Second, 0, -1), []string{"runs the embedded store too"}},
		{"stand-in", func(f *ranFacts) { f.server = "FerretDB v1.24.0" }, res(20000, 10*time.Second, 0, -1), []string{"FerretDB v1.24.0 is a stand-in"}},
		{"nothing loaded", nil, resWith(20000, 17400, 10*time.Second, 0, -1), []string{"17,400 of 20,000 reads and updates found no record: was the data loaded?"}},
		{"a few missing", nil, resWith(20000, 100, 10*time.Second, 0, -1), nil},
		{"the client's scheduling in the latencies", func(f *ranFacts) { f.sched.P99, f.cpu = 500*time.Microsecond, 9*time.Second },
			slow(), []string{"this client's goroutines waited up to 500µs (p99) for a core before they ran, against a p99 of 2.001ms for the operations: latencies measured here include that wait, the client's own (45% of 2 cores used)"}},
		{"a short scheduling wait", func(f *ranFacts) { f.sched.P99 = 50 * time.Microsecond }, res(20000, 10*time.Second, 0, -1), nil},
		{"an embedded store's goroutines waiting", func(f *ranFacts) { f.sched.P99, f.embedded = 500*time.Microsecond, true }, slow(), nil},
		{"waits longer than the operations took", func(f *ranFacts) { f.sched.P99 = 500 * time.Microsecond }, res(20000, 10*time.Second, 0, -1), nil},
	} {
		f := facts
		if c.f != nil {
			c.f(&f)
		}
		lines := summarize(f, c.res)
		if !strings.HasPrefix(lines[0], "ran workload A on redis") {
			t.Errorf("%s: first line %q", c.name, lines[0])
		}
		var warns []string
		for _, l := range lines[1:] {
			if strings.HasPrefix(l, "warning: ") {
				warns = append(warns, l)
			}
		}
		if len(warns) != len(c.warns) {
			t.Errorf("%s: warnings %q, want %d", c.name, warns, len(c.warns))
			continue
		}
		for i, w := range c.warns {
			if !strings.Contains(warns[i], w) {
				t.Errorf("%s: warning %q, want it to say %q", c.name, warns[i], w)
			}
		}
	}
}

// The client's scheduling delay is told of when it is a fifth of the
// operations' p99 or more, and at least 100 µs.
func TestSchedAdds(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		sched, ops time.Duration
		want       bool
	}{{ms, 5 * ms, true}, {ms, 6 * ms, false}, {99 * time.Microsecond, 200 * time.Microsecond, false}, {ms, 0, false}, {ms, ms, true},
		{3 * ms, ms, false}} { // waits longer than most operations took are others'

		if got := schedAdds(c.sched, c.ops); got != c.want {
			t.Errorf("schedAdds(%v, %v) = %v", c.sched, c.ops, got)
		}
	}
}

// A failed operation comes with its first error, credentials hidden, and
// the result document keeps it too.
func TestSummaryFirstError(t *testing.T) {
	r := measure.NewRecorder()
	for i := range 3 {
		r.Record(measure.Scan, db.Error, 1000, -1)
		r.RecordError(measure.Scan, db.Error, fmt.Errorf("scan user%d: dial redis://bob:hunter2@127.0.0.1:1: refused", i))
		r.RecordTxn(db.Error)
	}
	s := &measure.Set{}
	r.DrainInto(s)
	lines := summarize(ranFacts{binding: "redis", workload: "workload E"}, &runner.Result{Total: s, Runtime: 10 * time.Second, Threads: 1})
	want := "SCAN ERROR: 3 operations, the first: scan user0: dial redis://bob:REDACTED@127.0.0.1:1: refused"
	if !slices.Contains(lines, want) {
		t.Errorf("summary %q lacks %q", lines, want)
	}
	// A binding's error repeating a property's secret where no rule sees
	// it: the run's redactor knows the value.
	r.Record(measure.Read, db.Error, 1000, -1)
	r.RecordError(measure.Read, db.Error, errors.New(`NOAUTH "hunter3x" rejected`))
	r.RecordTxn(db.Error)
	s = &measure.Set{}
	r.DrainInto(s)
	p := props.New()
	p.Set("redis.password", "hunter3x", "-p")
	red := &props.Redactor{}
	red.Known(p)
	res := &runner.Result{Total: s, Runtime: 10 * time.Second, Threads: 1}
	lines = summarize(ranFacts{binding: "redis", workload: "workload E", redactor: red}, res)
	if !slices.Contains(lines, `READ ERROR: 1 operation, the first: NOAUTH "REDACTED" rejected`) {
		t.Errorf("summary %q shows the secret", lines)
	}
	if d := sink.NewDoc(res, nil, sink.Meta{Redactor: red}, sink.Options{}); d.Ops[0].Errors["ERROR"] != `NOAUTH "REDACTED" rejected` {
		t.Errorf("result: %+v", d.Ops[0].Errors)
	}
}

// The closing lines' server side: a counter that only fell (no point in
// the run) says no data, not 0%; a source of thousands of busy disks gets
// a bounded line and at most maxSaid warnings and one more, its peer's
// control characters escaped.
func TestServerLinesBounded(t *testing.T) {
	ss := &result.ServerSide{Sources: []result.Source{
		{Name: "http://127.0.0.1:9100/metrics", Kind: result.SourcePrometheus, Series: []result.Series{{Name: "cpu_busy_pct", Unit: "%", Counter: true, Points: [][2]float64{}}}},
		{Name: "http://127.0.0.1:9101/metrics", Kind: result.SourcePrometheus},
	}}
	disks := &ss.Sources[1]
	for i := range 3000 {
		disks.Series = append(disks.Series, result.Series{Name: "disk_busy_pct", Node: fmt.Sprintf("sd%d\x1b[2J", i), Unit: "%", Counter: true, Points: [][2]float64{{1, 93}}, Mean: 93})
	}
	lines := ServerLines(ss)
	if len(lines) != 2+maxSaid || !strings.Contains(lines[0], "127.0.0.1:9100: CPU no data;") || strings.Contains(lines[0], "CPU 0%") {
		t.Errorf("%d lines, the first %.200q: want %d, CPU no data", len(lines), lines[0], 2+maxSaid)
	}
	if !strings.Contains(lines[len(lines)-1], fmt.Sprintf("%d more series above 80%% busy", 3000-maxSaid)) || len(lines[0]) > 1000 {
		t.Errorf("last line %q, the first %d bytes", lines[len(lines)-1], len(lines[0]))
	}
	for _, l := range lines {
		if strings.ContainsRune(l, 0x1b) {
			t.Errorf("a control character printed: %q", l)
		}
	}
}

// A server's text in the summary (its version, an operation's first
// error) is printed with its control characters escaped.
func TestSummaryServerTextEscaped(t *testing.T) {
	r := measure.NewRecorder()
	r.Record(measure.Read, db.Error, 1000, -1)
	r.RecordError(measure.Read, db.Error, errors.New("ERR \x1b]0;pwned\x07 bad"))
	r.RecordTxn(db.Error)
	s := &measure.Set{}
	r.DrainInto(s)
	lines := summarize(ranFacts{binding: "redis", server: "Redis 7.2\x1b[31m\u202e", workload: "workload C"}, &runner.Result{Total: s, Runtime: 10 * time.Second, Threads: 1})
	for _, l := range lines {
		if strings.ContainsAny(l, "\x1b\x07\u202e") {
			t.Errorf("a raw control character: %q", l)
		}
	}
	if !strings.Contains(lines[0], `on redis (Redis 7.2\x1b[31m\u202e)`) || !slices.Contains(lines, `READ ERROR: 1 operation, the first: ERR \x1b]0;pwned\x07 bad`) {
		t.Errorf("summary %q", lines)
	}
}
