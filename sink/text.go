package sink

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// YCSB's text report: to exportfile, else to standard output.
var textDef = Def{Name: "text", What: "the report", Properties: []string{"exportfile"}, Read: func(p *props.Props) (Output, error) {
	return &textOutput{path: p.String("exportfile", "")}, nil
}}

type textOutput struct{ path string }

func (o *textOutput) Name() string { return "text" }
func (o *textOutput) Where() Where { return Merged }
func (o *textOutput) Files() []File {
	if o.path == "" {
		return nil
	}
	return []File{{What: "exportfile", Path: o.path}}
}
func (o *textOutput) Open(env *Env) (Sink, error) {
	m := env.Measurements
	return openWhole(o.path, env.Stdout, func(w io.Writer, e Ended) error {
		if err := WriteText(w, e, *m); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		return nil
	})
}

// Options are the reporting properties.
type Options struct {
	// Percentiles for the text report (hdrhistogram.percentiles; YCSB's
	// current default is 50,95,99).
	Percentiles []float64
	// EachError puts every failure status in its own section
	// (reportlatencyforeacherror); Tracked does so for the listed ones
	// (latencytrackederrors). Other failures go to "<OP>-FAILED", as in YCSB.
	EachError bool
	Tracked   [db.NumStatus]bool
	// LateThreshold: operations that started later than this behind their
	// intended start count as late (default 1 ms).
	LateThreshold time.Duration

	// Interval is measurement.interval; Kinds the measurementtype (one
	// kind, or two whose sections YCSB prefixes Hdr, Bucket or Raw).
	Interval Interval
	Kinds    []Kind
	// Buckets is histogram.buckets (one millisecond each), BucketLines
	// measurement.histogram.verbose (print every bucket).
	Buckets     int
	BucketLines bool
	// Granularity is timeseries.granularity; TimeSeries holds the interval
	// averages it is drawn from.
	Granularity time.Duration
	TimeSeries  *Buckets
	// RawApart is set when raw data lines go to a file of their own
	// (measurement.raw.output_file, WriteRaw) and not into the report;
	// RawNoSummary is measurement.raw.no_summary.
	RawApart     bool
	RawNoSummary bool
}

// sectionName is YCSB's DBWrapper naming: OK latencies under the plain
// name, failures under NAME-FAILED or NAME-STATUS. VERIFY keeps every
// outcome under its plain name (CoreWorkload measures it directly).
func (o *Options) sectionName(op measure.Op, s db.Status) string {
	switch {
	case s.IsOK() || op == measure.Verify:
		return op.String()
	case o.EachError || o.Tracked[s]:
		return op.String() + "-" + s.String()
	}
	return op.String() + "-FAILED"
}

// WriteText writes YCSB's text report of e: [OVERALL], then a section per
// measurement (see Options.measurements) in the measurement types asked
// for, then servbench's [SCHEDULE] section. Raw data lines, when asked
// for, go first (YCSB prints them while the report is still buffered).
// It reads e's document alone (its histograms, decoded), and e's raw
// samples: a run here and a spread phase's merged result are written the
// same way.
func WriteText(w io.Writer, e Ended, o Options) error {
	d := e.Doc
	t, err := measured(d)
	if err != nil {
		return err
	}
	t.Raw = e.Raw
	bw := bufio.NewWriter(w)
	line := func(metric, name, value string) {
		fmt.Fprintf(bw, "[%s], %s, %s\n", metric, name, value)
	}
	kinds := o.Kinds
	if len(kinds) == 0 {
		kinds = []Kind{KindHdr}
	}
	prefix := func(k Kind) string {
		if len(kinds) == 1 {
			return ""
		}
		return kindPrefix[k]
	}
	ms := o.measurements(t)
	if slices.Contains(kinds, KindRaw) && !o.RawApart {
		for i := range ms {
			writeRawData(bw, prefix(KindRaw)+ms[i].name, &ms[i], t.Raw)
		}
	}

	line("OVERALL", "RunTime(ms)", strconv.FormatInt(fromMs(d.RuntimeMs).Milliseconds(), 10))
	line("OVERALL", "Throughput(ops/sec)", javaDouble(d.Throughput))
	if d.WarmupMs > 0 {
		line("OVERALL", "Warmup(ms)", strconv.FormatInt(fromMs(d.WarmupMs).Milliseconds(), 10))
	}
	if d.Stop != result.Completed {
		line("OVERALL", "Stopped", string(d.Stop))
	}
	if d.Abandoned > 0 {
		line("OVERALL", "Abandoned", strconv.FormatInt(d.Abandoned, 10))
	}
	for i := range ms {
		m := &ms[i]
		for ki, k := range kinds {
			name := prefix(k) + m.name
			returns := m.returns && ki == 0 // YCSB counts outcomes in the first kind only
			switch k {
			case KindHdr:
				writeHdr(line, name, m.histogram(t), o.Percentiles)
			case KindHistogram:
				writeBuckets(line, name, m.histogram(t), o.Buckets, false)
			case KindTimeSeries:
				writeAverages(line, name, m.histogram(t), false)
			case KindRaw:
				writeRawSummary(line, name, m, t.Raw, o.RawNoSummary)
			}
			if returns {
				for s := db.Status(0); s < db.NumStatus; s++ {
					if n := t.Count(m.op, s); n > 0 && s != db.Canceled {
						line(name, "Return="+s.String(), strconv.FormatInt(n, 10))
					}
				}
			}
			switch {
			case k == KindHistogram && o.BucketLines:
				writeBuckets(line, name, m.histogram(t), o.Buckets, true)
			case k == KindTimeSeries && m.empty:
				line(name, "0", "NaN") // YCSB closes its empty first bucket
			case k == KindTimeSeries && o.TimeSeries != nil:
				starts, avgs := o.TimeSeries.series(m, t, o.Granularity)
				for j := range starts {
					line(name, strconv.FormatInt(starts[j], 10), javaDouble(avgs[j]))
				}
			}
		}
	}
	if lag := t.Lag; lag != nil && lag.TotalCount() > 0 {
		line("SCHEDULE", "Operations", strconv.FormatInt(lag.TotalCount(), 10))
		line("SCHEDULE", "AverageLag(us)", javaDouble(lag.Mean()/1000))
		line("SCHEDULE", "MaxLag(us)", strconv.FormatInt(usInt(lag.Max()), 10))
		for _, p := range o.Percentiles {
			line("SCHEDULE", ordinal(p)+"PercentileLag(us)", strconv.FormatInt(usInt(lag.ValueAtPercentile(p)), 10))
		}
		line("SCHEDULE", fmt.Sprintf("LateOperations(>%dus)", o.LateThreshold.Microseconds()), strconv.FormatInt(countAbove(lag, int64(o.LateThreshold)), 10))
	}
	return bw.Flush()
}

// WriteRaw writes the raw data lines of measurementtype raw alone, as YCSB
// writes them to measurement.raw.output_file.
func WriteRaw(w io.Writer, e Ended, o Options) error {
	kinds := o.Kinds
	if !slices.Contains(kinds, KindRaw) {
		return nil
	}
	t, err := measured(e.Doc)
	if err != nil {
		return err
	}
	name := ""
	if len(kinds) > 1 {
		name = kindPrefix[KindRaw]
	}
	bw := bufio.NewWriter(w)
	ms := o.measurements(t)
	for i := range ms {
		writeRawData(bw, name+ms[i].name, &ms[i], e.Raw)
	}
	return bw.Flush()
}

// fromMs is a document's milliseconds as a duration, to the nanosecond
// it was measured in (a run's nanoseconds are far below 2^53).
func fromMs(ms float64) time.Duration {
	return time.Duration(math.Round(ms * float64(time.Millisecond)))
}

// writeHdr writes YCSB's hdrhistogram section. An empty one reads as
// YCSB's does: an average of NaN and HdrHistogram's empty minimum.
func writeHdr(line func(metric, name, value string), name string, h *hdr.Histogram, pcts []float64) {
	n := h.TotalCount()
	line(name, "Operations", strconv.FormatInt(n, 10))
	if n == 0 {
		line(name, "AverageLatency(us)", "NaN")
		line(name, "MinLatency(us)", strconv.FormatInt(math.MaxInt64, 10))
		line(name, "MaxLatency(us)", "0")
		for _, p := range pcts {
			line(name, ordinal(p)+"PercentileLatency(us)", "0")
		}
		return
	}
	line(name, "AverageLatency(us)", javaDouble(h.Mean()/1000))
	line(name, "MinLatency(us)", strconv.FormatInt(usInt(h.Min()), 10))
	line(name, "MaxLatency(us)", strconv.FormatInt(usInt(h.Max()), 10))
	for _, p := range pcts {
		line(name, ordinal(p)+"PercentileLatency(us)", strconv.FormatInt(usInt(h.ValueAtPercentile(p)), 10))
	}
}

// msBuckets counts h's values in one-millisecond buckets 0..n-1, plus the
// overflow, as YCSB's histogram measurement does (from the HDR buckets, so
// a value within HDR's precision of a bucket edge may fall either side).
func msBuckets(h *hdr.Histogram, n int) (counts []int64, over int64) {
	counts = make([]int64, n)
	for _, b := range h.Distribution() {
		if b.Count == 0 {
			continue
		}
		i := (b.From + b.To) / 2 / int64(time.Millisecond)
		if i >= int64(n) {
			over += b.Count
		} else {
			counts[i] += b.Count
		}
	}
	return counts, over
}

// writeBuckets writes YCSB's histogram section (lines false) or its bucket
// lines (measurement.histogram.verbose).
func writeBuckets(line func(metric, name, value string), name string, h *hdr.Histogram, n int, lines bool) {
	counts, over := msBuckets(h, n)
	if lines {
		for i, c := range counts {
			line(name, strconv.Itoa(i), strconv.FormatInt(c, 10))
		}
		line(name, ">"+strconv.Itoa(n), strconv.FormatInt(over, 10))
		return
	}
	ops := h.TotalCount()
	if !writeAverages(line, name, h, true) {
		return
	}
	var seen int64
	done95 := false
	for i, c := range counts {
		seen += c
		f := float64(seen) / float64(ops)
		if !done95 && f >= 0.95 {
			line(name, "95thPercentileLatency(us)", strconv.Itoa(i*1000))
			done95 = true
		}
		if f >= 0.99 {
			line(name, "99thPercentileLatency(us)", strconv.Itoa(i*1000))
			break
		}
	}
}

// writeAverages writes the head of YCSB's histogram (with the variance) and
// timeseries sections: Operations, the average, minimum and maximum. An
// empty one reads as YCSB's: NaN and -1. It reports whether h has values.
func writeAverages(line func(metric, name, value string), name string, h *hdr.Histogram, variance bool) bool {
	n := h.TotalCount()
	line(name, "Operations", strconv.FormatInt(n, 10))
	avg, vr, lo, hi := "NaN", "NaN", "-1", "-1"
	if n > 0 {
		sd := h.StdDev() / 1000
		avg, vr = javaDouble(h.Mean()/1000), javaDouble(sd*sd)
		lo, hi = strconv.FormatInt(usInt(h.Min()), 10), strconv.FormatInt(usInt(h.Max()), 10)
	}
	line(name, "AverageLatency(us)", avg)
	if variance {
		line(name, "LatencyVariance(us)", vr)
	}
	line(name, "MinLatency(us)", lo)
	line(name, "MaxLatency(us)", hi)
	return n > 0
}

// rawValues returns m's raw latencies in whole µs (truncated, as YCSB's
// int µs) with their end times, in the order they ended.
func rawValues(m *measurement, samples []measure.Sample) (ends, us []int64) {
	idx := make([]int, 0, len(samples))
	for i := range samples {
		if _, ok := m.holds(&samples[i]); ok {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(samples[a].End, samples[b].End) })
	for _, i := range idx {
		v, _ := m.holds(&samples[i])
		ends, us = append(ends, samples[i].End), append(us, v/1000)
	}
	return ends, us
}

// writeRawData writes YCSB's raw data lines: a header, then
// "NAME,<epoch ms>,<µs>" per operation.
func writeRawData(w *bufio.Writer, name string, m *measurement, samples []measure.Sample) {
	fmt.Fprintf(w, "%s latency raw data: op, timestamp(ms), latency(us)\n", name)
	ends, us := rawValues(m, samples)
	for i := range ends {
		fmt.Fprintf(w, "%s,%d,%d\n", name, measure.Wall(ends[i]).UnixMilli(), us[i])
	}
}

// writeRawSummary writes YCSB's raw summary: percentiles by sorted index
// (int)(n·q).
func writeRawSummary(line func(metric, name, value string), name string, m *measurement, samples []measure.Sample, noSummary bool) {
	_, us := rawValues(m, samples)
	n := len(us)
	line(name, "Total Operations", strconv.Itoa(n))
	if n == 0 || noSummary {
		return
	}
	line(name, "Below is a summary of latency in microseconds:", "-1")
	var sum int64
	for _, v := range us {
		sum += v
	}
	slices.Sort(us)
	line(name, "Average", javaDouble(float64(sum)/float64(n)))
	line(name, "Min", strconv.FormatInt(us[0], 10))
	line(name, "Max", strconv.FormatInt(us[n-1], 10))
	for _, q := range []struct {
		label string
		f     float64
	}{{"p1", 0.01}, {"p5", 0.05}, {"p50", 0.5}, {"p90", 0.9}, {"p95", 0.95}, {"p99", 0.99}, {"p99.9", 0.999}, {"p99.99", 0.9999}} {
		line(name, q.label, strconv.FormatInt(us[int(float64(n)*q.f)], 10))
	}
}

// countAbove counts recorded values greater than v.
func countAbove(h *hdr.Histogram, v int64) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.From > v {
			n += b.Count
		}
	}
	return n
}

func throughput(ops int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(ops) / d.Seconds()
}

func us(ns int64) float64 { return float64(ns) / 1000 }

// usInt rounds nanoseconds to whole microseconds, as YCSB's integer µs.
func usInt(ns int64) int64 { return (ns + 500) / 1000 }
