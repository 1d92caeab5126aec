package sink

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/runner"
)

// Status lines (status, -s; every status.interval) and the progress line
// on standard error. Each client of a spread phase has its own (the
// coordinator turns a client's lines off and prints the merged ones).
var statusDef = Def{Name: "status", What: "the status lines", Properties: []string{"status", "status.interval"}, Read: func(p *props.Props) (Output, error) {
	var o StatusOutput
	var err error
	if o.Lines, err = p.Bool("status", false); err != nil {
		return nil, err
	}
	every, err := p.FloatRange("status.interval", 10, 0.001, 365*86400)
	if err != nil {
		return nil, err
	}
	o.Every = time.Duration(every * float64(time.Second))
	return &o, nil
}}

// StatusOutput prints a status line every Every when Lines is set, and a
// progress line when standard error is a terminal.
type StatusOutput struct {
	Lines bool
	Every time.Duration
}

func (o *StatusOutput) Name() string  { return "status" }
func (o *StatusOutput) Where() Where  { return EachClient }
func (o *StatusOutput) Files() []File { return nil }
func (o *StatusOutput) Open(env *Env) (Sink, error) {
	s := &Status{W: env.Stderr, Every: o.Every, Label: env.Label, Lines: o.Lines, Bar: env.Bar}
	if s.W == nil {
		s.W = io.Discard
	}
	if env.Measurements != nil && env.Measurements.TimeSeries != nil {
		s.Also = env.Stdout // YCSB's timeseries type prints status lines on standard output too
	}
	return s, nil
}

// End implements Sink.
func (s *Status) End(Ended) error { return nil }

// Close implements Sink.
func (s *Status) Close(bool) error { return nil }

// Status prints the live view of a run to W (standard error): YCSB's
// status line every Every when Lines is set (-s), and, when Bar is set (W
// is a terminal), a progress line redrawn in place every interval.
type Status struct {
	W     io.Writer
	Every time.Duration
	Label string
	Lines bool
	Bar   bool
	Now   func() time.Time // wall clock for the status line; time.Now if nil
	// Also receives the status lines too when set (YCSB prints them on
	// standard output as well with measurementtype=timeseries).
	Also io.Writer

	acc      measure.Set
	accStart time.Duration
	lastOps  int64
	barShown bool
}

// Interval implements runner.Observer.
func (s *Status) Interval(p runner.Progress) {
	if p.Warmup {
		if s.Bar {
			s.drawBar(fmt.Sprintf("warming up %s", p.Elapsed.Abs().Truncate(time.Second)))
		}
		return
	}
	s.acc.Merge(p.Interval)
	// Intervals end within a few ms of whole multiples of the interval;
	// the slack keeps a line from slipping to the next interval.
	if s.Lines && (p.End-s.accStart >= s.Every-s.Every/20 || p.Final) {
		s.clearBar()
		l := s.statusLine(p)
		fmt.Fprintln(s.W, l)
		if s.Also != nil {
			fmt.Fprintln(s.Also, l)
		}
		s.acc.Reset()
		s.accStart = p.End
	}
	if s.Bar {
		if p.Final {
			s.clearBar()
		} else {
			s.drawBar(s.barLine(p))
		}
	}
}

// statusLine formats YCSB's StatusThread line:
// "<label><date> <sec> sec: <n> operations; <r> current ops/sec; est completion in <t>[OP: Count=...] ".
func (s *Status) statusLine(p runner.Progress) string {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	t := now()
	var b strings.Builder
	b.WriteString(s.Label)
	b.WriteString(t.Format("2006-01-02 15:04:05"))
	fmt.Fprintf(&b, ":%03d %d sec: ", t.Nanosecond()/1e6, int64(p.End.Round(time.Second)/time.Second))
	total, _ := p.Total.ClientOps()
	fmt.Fprintf(&b, "%d operations; ", total)
	span := (p.End - s.accStart).Seconds()
	cur := 0.0
	if span > 0 {
		cur = float64(total-s.lastOps) / span
	}
	s.lastOps = total
	if total != 0 {
		b.WriteString(twoDecimals(cur) + " current ops/sec; ")
	}
	if rem, ok := remaining(p, total, cur); ok {
		b.WriteString("est completion in " + formatRemaining(rem))
	}
	for op := measure.Op(0); op < measure.NumOps; op++ {
		if h := s.acc.Merged(op, false, isOK); h != nil {
			b.WriteString(intervalSummary(op.String(), h))
		}
		if h := s.acc.Merged(op, false, isFailed); h != nil {
			b.WriteString(intervalSummary(op.String()+"-FAILED", h))
		}
	}
	return b.String()
}

// remaining estimates the seconds left from the operations still to do and
// from the time limit, whichever ends first.
func remaining(p runner.Progress, done int64, rate float64) (time.Duration, bool) {
	est, ok := time.Duration(0), false
	if p.Expected > 0 && rate > 0 && p.Expected > done {
		est, ok = time.Duration(float64(p.Expected-done)/rate*float64(time.Second)), true
	}
	if p.Limit > 0 {
		if left := p.Limit - p.Elapsed; !ok || left < est {
			est, ok = max(left, 0), true
		}
	}
	return est, ok
}

// formatRemaining is YCSB's RemainingFormatter: days, hours and minutes
// while above a minute, seconds below (with the plural fixed).
func formatRemaining(d time.Duration) string {
	sec := int64(d.Round(time.Second) / time.Second)
	var b strings.Builder
	unit := func(n int64, one, many string) {
		if n > 0 {
			b.WriteString(strconv.FormatInt(n, 10))
			if n == 1 {
				b.WriteString(" " + one + " ")
			} else {
				b.WriteString(" " + many + " ")
			}
		}
	}
	days := sec / 86400
	unit(days, "day", "days")
	sec -= days * 86400
	unit(sec/3600, "hour", "hours")
	sec %= 3600
	if days < 1 {
		unit(sec/60, "minute", "minutes")
		sec %= 60
	}
	if b.Len() == 0 {
		if sec == 1 {
			b.WriteString("1 second ")
		} else {
			b.WriteString(strconv.FormatInt(sec, 10) + " seconds ")
		}
	}
	return b.String()
}

// intervalSummary is OneMeasurementHdrHistogram.getSummary (µs).
func intervalSummary(name string, h *hdr.Histogram) string {
	return fmt.Sprintf("[%s: Count=%d, Max=%d, Min=%d, Avg=%s, 50=%d, 90=%d, 99=%d, 99.9=%d, 99.99=%d] ",
		name, h.TotalCount(), usInt(h.Max()), usInt(h.Min()), twoDecimals(h.Mean()/1000),
		usInt(h.ValueAtPercentile(50)), usInt(h.ValueAtPercentile(90)), usInt(h.ValueAtPercentile(99)),
		usInt(h.ValueAtPercentile(99.9)), usInt(h.ValueAtPercentile(99.99)))
}

// barLine is the terminal progress line: a bar when the end is known,
// then the interval's throughput, p99 over all operations, failures.
func (s *Status) barLine(p runner.Progress) string {
	total, ok := p.Total.ClientOps()
	frac := -1.0
	if p.Expected > 0 {
		frac = float64(total) / float64(p.Expected)
	}
	if p.Limit > 0 {
		frac = max(frac, float64(p.Elapsed)/float64(p.Limit))
	}
	var b strings.Builder
	if frac >= 0 {
		frac = min(frac, 1)
		const width = 24
		n := int(frac * width)
		fmt.Fprintf(&b, "[%s%s] %3.0f%%  ", strings.Repeat("=", n), strings.Repeat(" ", width-n), frac*100)
	}
	iv, _ := p.Interval.ClientOps()
	rate := 0.0
	if d := (p.End - p.Start).Seconds(); d > 0 {
		rate = float64(iv) / d
	}
	fmt.Fprintf(&b, "%s ops/s", format.Thousands(int64(rate)))
	var all *hdr.Histogram
	for op := measure.Op(0); op < measure.NumOps; op++ {
		if !op.IsClientOp() {
			continue
		}
		if h := p.Interval.Merged(op, false, func(db.Status) bool { return true }); h != nil {
			if all == nil {
				all = measure.NewHistogram()
			}
			all.Merge(h)
		}
	}
	if all != nil {
		fmt.Fprintf(&b, "  p99 %s", time.Duration(all.ValueAtPercentile(99)).Round(time.Microsecond))
	}
	if failed := total - ok; failed > 0 {
		fmt.Fprintf(&b, "  failed %s", format.Thousands(failed))
	}
	fmt.Fprintf(&b, "  %s", p.Elapsed.Round(time.Second))
	return b.String()
}

func (s *Status) drawBar(line string) {
	fmt.Fprintf(s.W, "\r\033[K%s", line)
	s.barShown = true
}

func (s *Status) clearBar() {
	if s.barShown {
		fmt.Fprint(s.W, "\r\033[K")
		s.barShown = false
	}
}
