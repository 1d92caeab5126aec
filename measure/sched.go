package measure

import (
	"runtime/metrics"
	"time"
)

// schedMetric is the Go runtime's histogram of how long goroutines waited
// runnable before they ran: in a client, the time an operation that has
// its answer waits for a core before its end is measured.
const schedMetric = "/sched/latencies:seconds"

// SchedSnapshot reads the runtime's scheduling-latency histogram.
func SchedSnapshot() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: schedMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// SchedDelay is how long the client's goroutines waited to run while a
// phase (or an interval of it) ran: the client's own scheduling, which every latency it measures
// includes.
type SchedDelay struct {
	Count    uint64        // times a goroutine was made to run
	P50, P99 time.Duration // upper bounds of the runtime's buckets
}

// SchedBetween is what happened between two snapshots (nil when the runtime
// does not keep the histogram).
func SchedBetween(before, after *metrics.Float64Histogram) SchedDelay {
	if before == nil || after == nil || len(before.Counts) != len(after.Counts) {
		return SchedDelay{}
	}
	var d SchedDelay
	counts := make([]uint64, len(after.Counts))
	for i := range counts {
		counts[i] = after.Counts[i] - before.Counts[i]
		d.Count += counts[i]
	}
	d.P50 = schedQuantile(after.Buckets, counts, d.Count, 0.50)
	d.P99 = schedQuantile(after.Buckets, counts, d.Count, 0.99)
	return d
}

// schedQuantile is the upper bound of the bucket holding quantile q
// (bucket i spans Buckets[i] to Buckets[i+1] seconds; the last may be
// +Inf, then its lower bound is said).
func schedQuantile(bounds []float64, counts []uint64, total uint64, q float64) time.Duration {
	if total == 0 {
		return 0
	}
	want := uint64(q*float64(total) + 0.5)
	var seen uint64
	for i, n := range counts {
		seen += n
		if seen >= want && n > 0 {
			hi := bounds[i+1]
			if hi > 1e9 { // +Inf
				hi = bounds[i]
			}
			return time.Duration(hi * float64(time.Second))
		}
	}
	return 0
}
