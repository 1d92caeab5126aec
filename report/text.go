package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/runner"
)

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
}

// DefaultPercentiles are those the JSON result and time series carry.
var DefaultPercentiles = []float64{50, 90, 95, 99, 99.9, 99.99}

// sectionName is YCSB's DBWrapper naming: OK latencies under the plain
// name, failures under NAME-FAILED or NAME-STATUS.
func (o *Options) sectionName(op measure.Op, s db.Status) string {
	switch {
	case s.IsOK():
		return op.String()
	case o.EachError || o.Tracked[s]:
		return op.String() + "-" + s.String()
	}
	return op.String() + "-FAILED"
}

// WriteText writes YCSB's text report: [OVERALL], then per operation
// Operations, AverageLatency(us), MinLatency(us), MaxLatency(us), the
// percentiles and Return= counts; then the failed-latency sections; then,
// with a target rate, the [Intended-...] sections of response time; then
// servbench's [SCHEDULE] section.
func WriteText(w io.Writer, res *runner.Result, o Options) error {
	bw := bufio.NewWriter(w)
	line := func(metric, name, value string) {
		fmt.Fprintf(bw, "[%s], %s, %s\n", metric, name, value)
	}
	all, _ := res.Total.ClientOps()
	line("OVERALL", "RunTime(ms)", strconv.FormatInt(res.Runtime.Milliseconds(), 10))
	line("OVERALL", "Throughput(ops/sec)", javaDouble(throughput(all, res.Runtime)))
	if res.Warmup > 0 {
		line("OVERALL", "Warmup(ms)", strconv.FormatInt(res.Warmup.Milliseconds(), 10))
	}
	if res.Reason != runner.Completed {
		line("OVERALL", "Stopped", string(res.Reason))
	}
	for _, response := range []bool{false, true} {
		for op := measure.Op(0); op < measure.NumOps; op++ {
			if res.Total.OpCount(op) == 0 {
				continue
			}
			if response && res.Total.Merged(op, true, func(db.Status) bool { return true }) == nil {
				continue
			}
			prefix := ""
			if response {
				prefix = "Intended-"
			}
			// Group the statuses into sections, OK's first.
			var names []string
			groups := map[string]*hdr.Histogram{}
			for s := db.Status(0); s < db.NumStatus; s++ {
				if res.Total.Count(op, s) == 0 && !(s == db.OK) {
					continue
				}
				name := o.sectionName(op, s)
				if _, seen := groups[name]; !seen {
					names = append(names, name)
					groups[name] = measure.NewHistogram()
				}
				src := res.Total.Service[op][s]
				if response {
					src = res.Total.Response[op][s]
				}
				if src != nil {
					groups[name].Merge(src)
				}
			}
			for i, name := range names {
				writeSection(line, prefix+name, groups[name], o.Percentiles)
				if i == 0 && !response {
					for s := db.Status(0); s < db.NumStatus; s++ {
						if n := res.Total.Count(op, s); n > 0 {
							line(op.String(), "Return="+s.String(), strconv.FormatInt(n, 10))
						}
					}
				}
			}
		}
	}
	if lag := res.Total.Lag; lag != nil && lag.TotalCount() > 0 {
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

func writeSection(line func(metric, name, value string), name string, h *hdr.Histogram, pcts []float64) {
	n := h.TotalCount()
	line(name, "Operations", strconv.FormatInt(n, 10))
	mean := 0.0
	if n > 0 {
		mean = h.Mean() / 1000
	}
	line(name, "AverageLatency(us)", javaDouble(mean))
	line(name, "MinLatency(us)", strconv.FormatInt(usInt(h.Min()), 10))
	line(name, "MaxLatency(us)", strconv.FormatInt(usInt(h.Max()), 10))
	for _, p := range pcts {
		line(name, ordinal(p)+"PercentileLatency(us)", strconv.FormatInt(usInt(h.ValueAtPercentile(p)), 10))
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
