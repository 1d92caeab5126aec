package probe

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/result"
)

// track is one source's samples, turned into series as they come: a
// counter's point is its rate since the sample before.
type track struct {
	src       Source
	interval  float64   // seconds
	base      time.Time // the first sample's time: points are timed from it
	series    []series
	index     map[seriesKey]int
	err       string
	failed    int
	samples   int
	missing   []string
	perClient bool
	// out is true while a sample is being taken (see Recorder.sample).
	out atomic.Bool
}

type seriesKey struct{ name, node string }

type series struct {
	result.Series
	prev, prevAt float64 // a counter's last reading
	havePrev     bool
	first        float64 // its first, less what it lost at restarts
	from, fromAt float64 // the reading its last point's rate starts from
	lastAt       float64 // the last point's time
}

// maxError bounds a recorded error's length.
const maxError = 300

func (t *track) add(at time.Time, s db.Sample, err error) {
	if t.base.IsZero() {
		t.base = at
	}
	now := at.Sub(t.base).Seconds()
	t.samples++
	if err != nil {
		t.failed++
		if t.err == "" {
			t.err = oneLine(err)
		}
	}
	t.perClient = t.perClient || s.PerClient
	for _, m := range s.Missing {
		if !slices.Contains(t.missing, m) {
			t.missing = append(t.missing, m)
		}
	}
	for _, st := range s.Stats {
		if math.IsNaN(st.Value) || math.IsInf(st.Value, 0) {
			continue
		}
		k := seriesKey{st.Name, st.Node}
		i, ok := t.index[k]
		if !ok {
			i = len(t.series)
			t.index[k] = i
			unit := st.Unit
			if st.Counter && unit != "%" {
				unit += "/s"
			}
			t.series = append(t.series, series{Series: result.Series{Name: st.Name, Node: st.Node, Unit: unit, Counter: st.Counter, Points: [][2]float64{}}})
		}
		x := &t.series[i]
		// A sample less than half an interval after the one before (the
		// last one, just after a tick) extends the last point instead of
		// making a point of its own over a sliver of time.
		sliver := len(x.Points) > 0 && now-x.lastAt < t.interval/2
		if !st.Counter {
			if sliver {
				x.Points = x.Points[:len(x.Points)-1]
			}
			x.Points = append(x.Points, [2]float64{now, st.Value})
			x.lastAt = now
			continue
		}
		switch {
		case !x.havePrev:
			x.first, x.FromS = st.Value, now
		case st.Value < x.prev: // the counter went back: the server restarted
			x.first += st.Value - x.prev
		case sliver && now > x.fromAt:
			x.Points[len(x.Points)-1] = [2]float64{now, (st.Value - x.from) / (now - x.fromAt)}
			x.lastAt = now
		case now > x.prevAt:
			x.Points = append(x.Points, [2]float64{now, (st.Value - x.prev) / (now - x.prevAt)})
			x.from, x.fromAt, x.lastAt = x.prev, x.prevAt, now
		}
		x.prev, x.prevAt, x.havePrev = st.Value, now, true
	}
}

func (t *track) result(start time.Time, operations int64) result.Source {
	src := result.Source{Name: t.src.Name(), Kind: t.src.Kind(), PerClient: t.perClient, Error: t.err, Failed: t.failed, Missing: t.missing, Series: []result.Series{}}
	shift := t.base.Sub(start).Seconds()
	for _, x := range t.series {
		out := x.Series
		out.Points = make([][2]float64, len(x.Points))
		out.FromS = round(x.FromS + shift)
		for i, p := range x.Points {
			out.Points[i] = [2]float64{round(p[0] + shift), p[1]}
		}
		if x.Counter && x.Unit != "%" { // a busy percentage has no total
			out.Total = x.prev - x.first - x.warmup(-shift, t.interval)
		}
		out.Summarise(operations)
		src.Series = append(src.Series, out)
	}
	return src
}

// oneLine is err's message on one line, at most maxError bytes; a context
// deadline says so in words.
func oneLine(err error) string {
	s := err.Error()
	if errors.Is(err, context.DeadlineExceeded) && !strings.Contains(s, "deadline") {
		s += " (no answer within the sample's time)"
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxError {
		s = s[:maxError] + "…"
	}
	return s
}

// warmup is how much of a counter's growth came before the measured start
// (at time start of the track's clock), from the rates of the points
// before it and the part of the point across it. A start less than half
// an interval after the first reading (no warmup: the runner's launch) is
// no warmup: the growth counts whole.
func (x *series) warmup(start, interval float64) float64 {
	if start-x.FromS < interval/2 {
		return 0
	}
	grown, prev := 0.0, x.FromS
	for _, p := range x.Points {
		if prev >= start {
			break
		}
		grown += p[1] * (min(p[0], start) - prev)
		prev = p[0]
	}
	return max(grown, 0)
}

// round is t to the microsecond.
func round(t float64) float64 { return math.Round(t*1e6) / 1e6 }
