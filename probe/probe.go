// Package probe samples the system under test while a run measures it: the
// binding's own reading of its server's counters (db.Sampler) and
// Prometheus endpoints (node_exporter on the database hosts, a database's
// exporter), every interval, into a result's server_side section.
//
// Invariants:
//   - Sampling never runs on an operation's path: each source has a
//     goroutine of its own, and a slow or dead source delays only itself
//     (each sample is bounded by Timeout).
//   - A source that fails is recorded with its first error, in one line
//     with credentials redacted, and the count of failed samples; the run
//     goes on and its client-side results stay whole.
//   - Memory grows by one point per series per interval (16 bytes), not
//     with the operations, and is bounded whatever a source serves: at
//     most MaxSeries series a source and 20,000 over all (the rest
//     dropped and said in one line a source), and at most PointBudget
//     points over all of a recorder's series (a long run's points merged
//     in pairs, see series.halve).
package probe

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/result"
)

// Source is one thing a Recorder samples.
type Source interface {
	// Name is the binding's name or the endpoint's URL, credentials
	// redacted; Kind is result.SourceBinding, result.SourcePrometheus or
	// result.SourceClient.
	Name() string
	Kind() string
	Sample(ctx context.Context) (db.Sample, error)
}

// Binding adapts a binding's Sampler to a Source named name.
func Binding(name string, s db.Sampler) Source { return bindingSource{name, s} }

// Client is the bytes binding name's connections sent and received, as
// the client counted them.
func Client(name string, tc db.TrafficCounter) Source { return clientSource{name, tc} }

type clientSource struct {
	name string
	tc   db.TrafficCounter
}

func (c clientSource) Name() string { return c.name }
func (c clientSource) Kind() string { return result.SourceClient }
func (c clientSource) Sample(context.Context) (db.Sample, error) {
	return db.TrafficSample(c.tc), nil
}

type bindingSource struct {
	name string
	s    db.Sampler
}

func (b bindingSource) Name() string { return b.name }
func (b bindingSource) Kind() string { return result.SourceBinding }
func (b bindingSource) Sample(ctx context.Context) (db.Sample, error) {
	return b.s.Sample(ctx)
}

// Recorder samples its sources every Interval between Start and Stop.
type Recorder struct {
	// Interval between samples; Timeout bounds each (default: the
	// interval, at least 1 s and at most 10 s).
	Interval, Timeout time.Duration
	// Now is the clock samples are timed by (time.Now by default).
	Now func() time.Time

	tracks []*track
	cancel context.CancelFunc
	wg     sync.WaitGroup
	// series counts the series of every track: each keeps at most
	// PointBudget/series points (see track.pointCap).
	series atomic.Int64
}

// New returns a recorder of sources every interval.
func New(interval time.Duration, sources ...Source) *Recorder {
	r := &Recorder{Interval: interval}
	limit := min(MaxSeries, maxAllSeries/max(len(sources), 1))
	for _, s := range sources {
		r.tracks = append(r.tracks, &track{src: s, index: map[seriesKey]int{}, interval: interval.Seconds(), busy: make(chan struct{}, 1), all: &r.series, maxSeries: limit})
	}
	return r
}

// Len is the number of sources.
func (r *Recorder) Len() int { return len(r.tracks) }

func (r *Recorder) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

func (r *Recorder) timeout() time.Duration {
	if r.Timeout > 0 {
		return r.Timeout
	}
	return min(max(r.Interval, time.Second), 10*time.Second)
}

// Start takes a first sample of every source (a baseline for counters),
// then samples each every interval in a goroutine of its own until Stop.
func (r *Recorder) Start(ctx context.Context) {
	ctx, r.cancel = context.WithCancel(ctx)
	// The baseline of every source, before Start returns and the run
	// begins: a counter's growth then holds every operation (a baseline
	// taken while the run went on missed the first ones). Each is bounded
	// by the timeout, as every sample.
	var base sync.WaitGroup
	for _, t := range r.tracks {
		base.Add(1)
		go func() {
			defer base.Done()
			r.sample(ctx, t, false)
		}()
	}
	base.Wait()
	if r.Interval <= 0 {
		return
	}
	for _, t := range r.tracks {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			tick := time.NewTicker(r.Interval)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					r.sample(ctx, t, false)
				}
			}
		}()
	}
}

// Stop ends the interval sampling and takes a last sample of every source
// (bounded by ctx and the timeout), so that counters cover the whole run.
// A sample that the stopping cut short is waited for (bounded by ctx)
// before the last is asked: it is not a sample that did not answer.
// It returns how many sources' last sample ctx cut short (a run
// abandoned): each keeps the samples it had, and the cut is not counted
// as a failed sample.
func (r *Recorder) Stop(ctx context.Context) (cut int) {
	if r.cancel != nil {
		r.cancel()
	}
	r.wg.Wait()
	var wg sync.WaitGroup
	var n atomic.Int64
	for _, t := range r.tracks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if r.sample(ctx, t, true) {
				n.Add(1)
			}
		}()
	}
	wg.Wait()
	return int(n.Load())
}

// Sample takes one sample of every source now, in turn (for tests and
// callers that drive the sampling themselves).
func (r *Recorder) Sample(ctx context.Context) {
	for _, t := range r.tracks {
		r.sample(ctx, t, false)
	}
}

// sample takes one sample of t's source, waiting for it no longer than
// the timeout: a source that does not heed its context (an embedded store
// wedged by a failure, a driver's call that cannot be cut) is left
// behind, the sample counted as failed, and not asked again while its
// last sample is still out. A sample cut short by the recorder's stopping
// (or the run's end) is dropped, not counted as failed; the last one
// (last: Stop's) waits for such a sample to end, until parent does.
// It reports whether parent cut the sample short.
func (r *Recorder) sample(parent context.Context, t *track, last bool) (cut bool) {
	if !t.acquire(parent, last) {
		if parent.Err() == nil {
			t.add(r.now(), db.Sample{}, errors.New("its last sample has not answered yet"))
			return false
		}
		return true
	}
	// The context is cancelled here, once an answer came or the time is
	// up, never by the sampling goroutine: that made an answer and its
	// cancellation ready together, and select, choosing at random, then
	// counted an answered sample as failed.
	ctx, cancel := context.WithTimeout(parent, r.timeout())
	defer cancel()
	type answer struct {
		s   db.Sample
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		s, err := t.src.Sample(ctx)
		<-t.busy
		ch <- answer{s, err}
	}()
	var a answer
	select {
	case a = <-ch:
	case <-ctx.Done():
		select {
		case a = <-ch: // answered as the time ran out: it counts
		default:
			if parent.Err() != nil {
				return true
			}
			t.add(r.now(), db.Sample{}, fmt.Errorf("no answer within %s", r.timeout()))
			return false
		}
	}
	if a.err != nil && parent.Err() != nil {
		return true
	}
	t.add(r.now(), a.s, a.err)
	return false
}

// Result is what was sampled, timed from start (the measured run's start)
// and summarised over the measured run with its operations. It may be
// called while the sampling goes on (a live page): what was sampled so far.
func (r *Recorder) Result(start time.Time, operations int64) *result.ServerSide {
	ss := &result.ServerSide{IntervalS: r.Interval.Seconds(), Sources: []result.Source{}}
	for _, t := range r.tracks {
		ss.Sources = append(ss.Sources, t.result(start, operations))
	}
	return ss
}

// Failures says, a line each, which sources failed (how many samples, the
// first error) or do not serve part of what was asked.
func (r *Recorder) Failures() []string {
	var out []string
	for _, t := range r.tracks {
		t.mu.Lock()
		if t.err != "" {
			out = append(out, fmt.Sprintf("%s %s: %d of %d samples failed: %s", t.src.Kind(), t.src.Name(), t.failed, t.samples, t.err))
		}
		if l := t.droppedLine(); l != "" {
			out = append(out, fmt.Sprintf("%s %s %s", t.src.Kind(), t.src.Name(), l))
		}
		if len(t.missing) > 0 {
			out = append(out, fmt.Sprintf("%s %s does not serve %s", t.src.Kind(), t.src.Name(), strings.Join(t.missing, ", ")))
		}
		t.mu.Unlock()
	}
	return out
}
