package sink

import (
	"maps"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/runner"
)

// Interval is YCSB's measurement.interval: which latency the text report's
// operation sections hold.
type Interval string

// measurement.interval values. IntervalDefault is servbench's behaviour
// when the property is not set: service time in the operation sections and,
// when a target rate sets intended starts, response time in [Intended-OP]
// sections.
const (
	IntervalDefault  Interval = ""
	IntervalOp       Interval = "op"       // service time only
	IntervalIntended Interval = "intended" // response time, under the plain names
	IntervalBoth     Interval = "both"     // service time, and response time under Intended-OP
)

// Kind is one of YCSB's measurement types.
type Kind uint8

// Measurement kinds (measurementtype).
const (
	KindHdr        Kind = iota // hdrhistogram: HDR summary and percentiles
	KindHistogram              // histogram: one-millisecond buckets
	KindTimeSeries             // timeseries: average latency per granularity
	KindRaw                    // raw: every operation
)

// Types are the kinds a measurementtype value names, with the section name
// prefixes YCSB gives them when there are two (hdrhistogram+histogram:
// [HdrREAD] and [BucketREAD]).
var measurementTypes = map[string][]Kind{
	"hdrhistogram":           {KindHdr},
	"histogram":              {KindHistogram},
	"hdrhistogram+histogram": {KindHdr, KindHistogram},
	"hdrhistogram+raw":       {KindHdr, KindRaw},
	"timeseries":             {KindTimeSeries},
	"raw":                    {KindRaw},
}

var kindPrefix = [...]string{KindHdr: "Hdr", KindHistogram: "Bucket", KindTimeSeries: "TimeSeries", KindRaw: "Raw"}

// MeasurementTypes returns the kinds of a measurementtype value, and
// whether it is one servbench knows.
func MeasurementTypes(name string) ([]Kind, bool) {
	k, ok := measurementTypes[name]
	return k, ok
}

// MeasurementTypeNames lists the measurementtype values, for messages.
func MeasurementTypeNames() []string { return slices.Sorted(maps.Keys(measurementTypes)) }

// measurement is one section of the text report: the latencies of one
// operation for some of its outcomes, as service or response time.
type measurement struct {
	name     string
	op       measure.Op
	statuses []db.Status
	response bool // response time (intended start to end); service time if the op has none
	empty    bool // YCSB records nothing here (VERIFY under measurement.interval=intended)
	returns  bool // carries the operation's Return= counts
}

// measurements lists the report's sections in order: every operation's
// (OK first, then its failure sections), then the Intended- ones.
func (o *Options) measurements(t *measure.Set) []measurement {
	var out []measurement
	mode := o.Interval
	groups := func(op measure.Op) []measurement {
		var ms []measurement
		for s := db.Status(0); s < db.NumStatus; s++ {
			if s == db.Canceled || (t.Count(op, s) == 0 && s != db.OK) {
				continue
			}
			name := o.sectionName(op, s)
			if i := slices.IndexFunc(ms, func(m measurement) bool { return m.name == name }); i >= 0 {
				ms[i].statuses = append(ms[i].statuses, s)
				continue
			}
			ms = append(ms, measurement{name: name, op: op, statuses: []db.Status{s}})
		}
		if len(ms) > 0 && op != measure.Cleanup {
			ms[0].returns = true
		}
		return ms
	}
	hasResponse := func(op measure.Op) bool {
		return t.Merged(op, true, func(db.Status) bool { return true }) != nil
	}
	for op := measure.Op(0); op < measure.NumOps; op++ {
		if t.OpCount(op) == 0 {
			continue
		}
		for _, m := range groups(op) {
			if mode == IntervalIntended {
				m.response, m.empty = true, op == measure.Verify
			}
			out = append(out, m)
		}
	}
	if mode == IntervalOp || mode == IntervalIntended {
		return out
	}
	for op := measure.Op(0); op < measure.NumOps; op++ {
		if t.OpCount(op) == 0 || op == measure.Verify || (mode == IntervalDefault && !hasResponse(op)) {
			continue
		}
		for _, m := range groups(op) {
			m.name, m.response, m.returns = "Intended-"+m.name, true, false
			out = append(out, m)
		}
	}
	return out
}

// useResponse tells whether m reads response histograms: it asks for
// response time and the operation has some (without a target rate the
// intended start is the actual start, so service time is the same thing).
func (m *measurement) useResponse(t *measure.Set) bool {
	return m.response && t.Merged(m.op, true, func(db.Status) bool { return true }) != nil
}

// histogram merges the measurement's histograms (never nil).
func (m *measurement) histogram(t *measure.Set) *hdr.Histogram {
	h := measure.NewHistogram()
	if m.empty {
		return h
	}
	src := &t.Service[m.op]
	if m.useResponse(t) {
		src = &t.Response[m.op]
	}
	for _, s := range m.statuses {
		if x := src[s]; x != nil {
			h.Merge(x)
		}
	}
	return h
}

// holds reports whether a raw sample belongs to m, and its latency (ns).
func (m *measurement) holds(sm *measure.Sample) (int64, bool) {
	if m.empty || sm.Op != m.op || !slices.Contains(m.statuses, sm.Status) {
		return 0, false
	}
	if m.response && sm.Response >= 0 {
		return sm.Response, true
	}
	return sm.Service, true
}

// Buckets keeps, per interval, each operation's count and latency sum by
// outcome: the averages of YCSB's timeseries measurement type. It is a
// runner.Observer; it keeps nothing unless Enabled.
type Buckets struct {
	Enabled   bool
	intervals []bucketInterval
}

type bucketInterval struct {
	mid time.Duration // the interval's middle, from the start of measurement
	n   [measure.NumOps][db.NumStatus]int64
	sum [2][measure.NumOps][db.NumStatus]float64 // ns; [0] service, [1] response
}

// Interval implements runner.Observer.
func (b *Buckets) Interval(p runner.Progress) {
	if b == nil || !b.Enabled || p.Warmup {
		return
	}
	iv := bucketInterval{mid: (p.Start + p.End) / 2}
	any := false
	for op := range iv.n {
		for s := range iv.n[op] {
			if h := p.Interval.Service[op][s]; h != nil && h.TotalCount() > 0 {
				iv.n[op][s] = h.TotalCount()
				iv.sum[0][op][s] = h.Mean() * float64(h.TotalCount())
				any = true
			}
			if h := p.Interval.Response[op][s]; h != nil && h.TotalCount() > 0 {
				iv.sum[1][op][s] = h.Mean() * float64(h.TotalCount())
			}
		}
	}
	if any {
		b.intervals = append(b.intervals, iv)
	}
}

// series returns m's average latency (µs) per granularity bucket, keyed by
// the bucket's start in ms since measurement started, in order; buckets
// with no operation are left out, as in YCSB.
func (b *Buckets) series(m *measurement, t *measure.Set, granularity time.Duration) (starts []int64, avgs []float64) {
	resp := 0
	if m.useResponse(t) {
		resp = 1
	}
	var n int64
	var sum float64
	cur := int64(-1)
	flush := func() {
		if n > 0 {
			starts, avgs = append(starts, cur), append(avgs, sum/float64(n)/1000)
		}
		n, sum = 0, 0
	}
	for i := range b.intervals {
		iv := &b.intervals[i]
		// By its middle: intervals end within a few ms of multiples of
		// the granularity, on either side.
		at := int64(iv.mid/granularity) * granularity.Milliseconds()
		if at != cur {
			flush()
			cur = at
		}
		if m.empty {
			continue
		}
		for _, s := range m.statuses {
			n += iv.n[m.op][s]
			sum += iv.sum[resp][m.op][s]
		}
	}
	flush()
	return starts, avgs
}
