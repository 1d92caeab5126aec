package runner

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/stats"
)

// Until stops a run once it is sure of its figures (until.throughput,
// until.p99, until.min): the 95% confidence intervals of its throughput
// and of each operation's p99, from batch means of its measured intervals
// (stats.BatchMeans: successive intervals are not independent), each
// within its bound of its mean, after at least Min of measuring. The
// run's time limit (maxexecutiontime) is its longest.
type Until struct {
	// Throughput and P99 are the bounds, fractions of the mean (0.02:
	// ±2%); 0 leaves a figure unbounded.
	Throughput, P99 float64
	// Min is the least measured time before the run may stop.
	Min time.Duration
}

// Settled is how a run's figures stood when it was judged: the batches
// of intervals and each bounded figure's interval, a fraction of its mean.
type Settled struct {
	Met     bool
	Batches int
	// Throughput is its 95% interval's half-width over its mean; P99 each
	// operation's p99's.
	Throughput float64
	P99        map[string]float64
}

// String says it in one line: "throughput ±1.2%, READ p99 ±3.4% over 12
// batches".
func (s Settled) String() string {
	pct := func(r float64) string {
		if math.IsInf(r, 0) || math.IsNaN(r) || s.Batches < stats.MinBatches {
			return " (too few batches yet)"
		}
		return fmt.Sprintf(" ±%.2g%%", 100*r)
	}
	parts := []string{"throughput" + pct(s.Throughput)}
	names := make([]string, 0, len(s.P99))
	for n := range s.P99 {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		parts = append(parts, n+" p99"+pct(s.P99[n]))
	}
	return fmt.Sprintf("%s over %d batches of intervals", strings.Join(parts, ", "), s.Batches)
}

// maxUntilBatches is how many batches a run keeps before it merges them
// in pairs (batch doubling: its memory is bounded whatever its length).
const maxUntilBatches = 2 * stats.MaxBatches

// untilBatch is a batch of consecutive measured intervals: their client
// operations, their time and each operation's successful service times.
type untilBatch struct {
	ops   int64
	dur   time.Duration
	hists [measure.NumOps]*hdr.Histogram
}

// settler judges a run by its intervals as they end (its Interval is
// called from the run's watching goroutine only).
type settler struct {
	until   Until
	size    int // intervals a batch holds: 2 at first (newSettler)
	batches []untilBatch
	open    untilBatch
	filled  int
	last    Settled
	// settled: the run was told to stop on last; what ends after the
	// stop (the operations in flight) changes it no more.
	settled bool
}

// newSettler judges a run by until, in batches of two intervals at first
// (batches of one would be the intervals themselves, as stats.BatchMeans
// says).
func newSettler(until Until) *settler { return &settler{until: until, size: 2} }

// final is the judgement the run ends with: the one it stopped on, or the
// batches' at its end.
func (s *settler) final() Settled {
	if s.settled {
		return s.last
	}
	return s.judge()
}

// add takes a measured interval; it reports whether the run may stop.
func (s *settler) add(p Progress) bool {
	if s.settled || p.Warmup || p.Final || p.End <= p.Start {
		return false
	}
	all, _ := p.Interval.ClientOps()
	s.open.ops += all
	s.open.dur += p.End - p.Start
	for op := range measure.NumOps {
		if !op.IsWorkload() {
			continue
		}
		if h := p.Interval.Merged(op, false, db.Status.IsOK); h != nil {
			if s.open.hists[op] == nil {
				s.open.hists[op] = newBatchHistogram()
			}
			s.open.hists[op].Merge(h)
		}
	}
	if s.filled++; s.filled < s.size {
		return false
	}
	s.batches = append(s.batches, s.open)
	s.open, s.filled = untilBatch{}, 0
	if len(s.batches) == maxUntilBatches { // twice as long batches, half as many
		for i := range maxUntilBatches / 2 {
			a, b := s.batches[2*i], s.batches[2*i+1]
			a.ops += b.ops
			a.dur += b.dur
			for op, h := range b.hists {
				if h == nil {
					continue
				}
				if a.hists[op] == nil {
					a.hists[op] = h
				} else {
					a.hists[op].Merge(h)
				}
			}
			s.batches[i] = a
		}
		s.batches = s.batches[:maxUntilBatches/2]
		s.size *= 2
	}
	s.last = s.judge()
	s.settled = s.last.Met && p.End >= s.until.Min
	return s.settled
}

// judge is how the batches stand against the bounds.
func (s *settler) judge() Settled {
	out := Settled{Batches: len(s.batches), P99: map[string]float64{}}
	if len(s.batches) < stats.MinBatches {
		return out
	}
	tput := make([]float64, len(s.batches))
	for i, b := range s.batches {
		tput[i] = float64(b.ops) / b.dur.Seconds()
	}
	met, judged := true, false // judged: some operation's p99 was
	st := stats.Summarize(tput)
	out.Throughput = relative(st)
	if s.until.Throughput > 0 && !(out.Throughput <= s.until.Throughput) {
		met = false
	}
	for op := range measure.NumOps {
		var p99 []float64
		for _, b := range s.batches {
			if h := b.hists[op]; h != nil && h.TotalCount() > 0 {
				p99 = append(p99, float64(h.ValueAtPercentile(99)))
			}
		}
		if len(p99) == 0 {
			continue
		}
		r := math.Inf(1)
		if len(p99) >= stats.MinBatches {
			r = relative(stats.Summarize(p99))
		}
		out.P99[op.String()] = r
		judged = true
		if s.until.P99 > 0 && !(r <= s.until.P99) {
			met = false
		}
	}
	if s.until.P99 > 0 && !judged { // no operation succeeded: nothing is sure
		met = false
	}
	out.Met = met
	return out
}

// newBatchHistogram is a batch's histogram of service times: from a
// nanosecond to an hour at two significant figures (a p99 to 1%: until.p99
// is 1% at least), a fraction of the memory of the run's own: a run keeps
// up to maxUntilBatches of them an operation.
func newBatchHistogram() *hdr.Histogram { return hdr.New(1, int64(time.Hour), 2) }

// relative is a summary's interval over its mean (+Inf at a mean of 0).
func relative(s stats.Stat) float64 {
	if s.Mean == 0 {
		return math.Inf(1)
	}
	return s.CI / math.Abs(s.Mean)
}
