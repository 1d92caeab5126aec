package probe

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/result"
)

// track is one source's samples, turned into series as they come: a
// counter's point is its rate since the sample before.
type track struct {
	// mu guards what add changes: a live page reads the series while
	// the sampling goes on (Recorder.Result).
	mu        sync.Mutex
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
	// busy holds a token while a sample is being taken (see
	// Recorder.sample).
	busy chan struct{}
	// all counts the series of the recorder's every track; maxSeries
	// bounds t's own.
	all       *atomic.Int64
	maxSeries int
	// The most series one sample served that were not kept: over
	// maxSeries, or named unreadably (see keep).
	overCap, badName int
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

// Bounds on what a source may make the recorder keep.
const (
	// MaxSeries bounds the series kept of one source: node_exporter's
	// quantities are about a dozen, a Redis cluster's a dozen a shard.
	// A recorder keeps at most maxAllSeries over its sources: with more
	// than ten, each keeps its share.
	MaxSeries    = 2000
	maxAllSeries = 20_000
	// PointBudget bounds the points kept over all of a recorder's series
	// (16 bytes each, about 90 in an indented result): a series keeps at
	// most PointBudget divided by the series there are, and never fewer
	// than minPoints, merging its points in pairs when it has that many.
	PointBudget = 1 << 17
	minPoints   = 8
	// maxLabel bounds a series' name and node (a disk's device, a
	// shard's address).
	maxLabel = 256
	// maxValue bounds a reading: what a counter or a gauge of a server
	// reaches is far below, and sums and rates of readings within it stay
	// finite.
	maxValue = 1e250
)

// maxError bounds a recorded error's length.
const maxError = 300

// acquire marks a sample of t out, at once; with wait (the last sample,
// the recorder stopping), also once the sample still out answers, until
// ctx ends. False: one is still out.
func (t *track) acquire(ctx context.Context, wait bool) bool {
	select {
	case t.busy <- struct{}{}:
		return true
	default:
	}
	if !wait {
		return false
	}
	select {
	case t.busy <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

// keep reports whether a series named name of node may be added: a name,
// both short and without control characters (they are printed), and
// fewer than t.maxSeries series so far.
func (t *track) keep(name, node string) (ok, bad bool) {
	if name == "" || len(name) > maxLabel || len(node) > maxLabel || !printable(name) || !printable(node) {
		return false, true
	}
	return len(t.series) < t.maxSeries, false
}

func printable(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
}

// pointCap is the points a series of t keeps before merging them.
func (t *track) pointCap() int {
	return max(minPoints, int(PointBudget/max(t.all.Load(), 1)))
}

// droppedLine says, for the failures' lines, the series a source served
// that were not kept ("" when none).
func (t *track) droppedLine() string {
	var why []string
	if t.overCap > 0 {
		why = append(why, fmt.Sprintf("%d over the %d this source may have", t.overCap, t.maxSeries))
	}
	if t.badName > 0 {
		why = append(why, fmt.Sprintf("%d named with control characters or more than %d bytes", t.badName, maxLabel))
	}
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf("served series that were not kept: %s (kept %d)", strings.Join(why, ", "), len(t.series))
}

func (t *track) add(at time.Time, s db.Sample, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
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
	overCap, badName := 0, 0
	defer func() { t.overCap, t.badName = max(t.overCap, overCap), max(t.badName, badName) }()
	for _, st := range s.Stats {
		if !(math.Abs(st.Value) <= maxValue) { // NaN and infinities too
			continue
		}
		k := seriesKey{st.Name, st.Node}
		i, ok := t.index[k]
		if !ok {
			if keep, bad := t.keep(st.Name, st.Node); !keep {
				if bad {
					badName++
				} else {
					overCap++
				}
				continue
			}
			t.all.Add(1)
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
			x.bound(t.pointCap())
			x.Points = append(x.Points, [2]float64{now, st.Value})
			x.lastAt = now
			continue
		}
		switch {
		case !x.havePrev:
			x.first, x.FromS = st.Value, now
		case st.Value < x.prev: // the counter went back: the server restarted
			x.first += st.Value - x.prev
			// Its last point's rate ended before the restart: the next
			// reading starts a point of its own.
			x.lastAt = math.Inf(-1)
		case sliver && now > x.fromAt:
			x.Points[len(x.Points)-1] = [2]float64{now, (st.Value - x.from) / (now - x.fromAt)}
			x.lastAt = now
		case now > x.prevAt:
			x.bound(t.pointCap())
			x.Points = append(x.Points, [2]float64{now, (st.Value - x.prev) / (now - x.prevAt)})
			x.from, x.fromAt, x.lastAt = x.prev, x.prevAt, now
		}
		x.prev, x.prevAt, x.havePrev = st.Value, now, true
	}
}

func (t *track) result(start time.Time, operations int64) result.Source {
	t.mu.Lock()
	defer t.mu.Unlock()
	src := result.Source{Name: t.src.Name(), Kind: t.src.Kind(), PerClient: t.perClient, Error: t.err, Failed: t.failed, Missing: t.missing,
		Dropped: t.overCap + t.badName, Series: []result.Series{}}
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

// bound merges x's points in pairs when it has n or more, before a point
// is added: the point added next is the last, which a sliver may extend.
func (x *series) bound(n int) {
	if len(x.Points) >= n {
		x.halve()
	}
}

// halve merges x's points in pairs, the first with the second and so on
// (an odd last one stays), each pair timed at its later point: a
// counter's rate over the two intervals (its growth is kept), a gauge's
// mean of the two readings.
func (x *series) halve() {
	pts, n, prev := x.Points, 0, x.FromS
	for i := 0; i+1 < len(pts); i += 2 {
		a, b := pts[i], pts[i+1]
		v := (a[1] + b[1]) / 2
		if da, db := a[0]-prev, b[0]-a[0]; x.Counter && da > 0 && db > 0 {
			v = (a[1]*da + b[1]*db) / (da + db)
		}
		pts[n], prev = [2]float64{b[0], v}, b[0]
		n++
	}
	if len(pts)%2 == 1 {
		pts[n] = pts[len(pts)-1]
		n++
	}
	x.Points = pts[:n]
}

// oneLine is err's message on one line, at most maxError bytes, its
// control characters escaped (an endpoint's status line is the peer's
// text); a context deadline says so in words.
func oneLine(err error) string {
	s := err.Error()
	if errors.Is(err, context.DeadlineExceeded) && !strings.Contains(s, "deadline") {
		s += " (no answer within the sample's time)"
	}
	s = strings.Join(strings.Fields(s), " ")
	if strings.ContainsFunc(s, unicode.IsControl) || !utf8.ValidString(s) {
		q := strconv.QuoteToGraphic(s)
		s = q[1 : len(q)-1]
	}
	if len(s) > maxError {
		s = strings.ToValidUTF8(s[:maxError], "") + "…"
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
