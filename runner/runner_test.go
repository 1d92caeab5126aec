package runner

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
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workload"
	"github.com/servbench/servbench/workloads"
)

// store is a controllable in-process store for exercising the runner: it
// counts calls, can stall one call, can block until the run's context ends,
// or can hang ignoring the context (a broken binding).
type store struct {
	calls   atomic.Int64
	stallAt int64         // the stallAt-th call (1-based) sleeps stall
	stall   time.Duration //
	block   bool          // every call waits for ctx.Done()
	slow    time.Duration // every call takes this long (or until ctx.Done())
	onCall  func(n int64) // called at the start of the n-th call
	hang    chan struct{} // every call waits for this, ignoring ctx
	fail    error         // every insert fails with this

	clock  Clock // when set, starts are read from it
	mu     sync.Mutex
	starts []int64
	keys   map[string]bool
}

func (s *store) op(ctx context.Context) error {
	n := s.calls.Add(1)
	s.mu.Lock()
	now := measure.Now()
	if s.clock != nil {
		now = s.clock.Now()
	}
	s.starts = append(s.starts, now)
	s.mu.Unlock()
	if s.onCall != nil {
		s.onCall(n)
	}
	if n == s.stallAt {
		time.Sleep(s.stall)
	}
	if s.slow > 0 {
		select {
		case <-time.After(s.slow):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if s.block {
		<-ctx.Done()
		return ctx.Err()
	}
	if s.hang != nil {
		<-s.hang
	}
	return nil
}

func (s *store) Read(ctx context.Context, _, _ string, _ []string, _ *db.Record) error {
	return s.op(ctx)
}
func (s *store) Scan(ctx context.Context, _, _ string, _ int, _ []string, _ *db.RecordSet) error {
	return s.op(ctx)
}
func (s *store) Update(ctx context.Context, _, _ string, _ *db.Record) error { return s.op(ctx) }
func (s *store) Insert(ctx context.Context, _, key string, _ *db.Record) error {
	s.mu.Lock()
	if s.keys == nil {
		s.keys = map[string]bool{}
	}
	s.keys[strings.Clone(key)] = true // keys are only valid during the call
	s.mu.Unlock()
	if s.fail != nil {
		return s.fail
	}
	return s.op(ctx)
}
func (s *store) BatchInsert(ctx context.Context, _ string, keys []string, _ []*db.Record) error {
	s.mu.Lock()
	if s.keys == nil {
		s.keys = map[string]bool{}
	}
	for _, k := range keys {
		s.keys[strings.Clone(k)] = true
	}
	s.mu.Unlock()
	return s.op(ctx)
}

func (s *store) Delete(ctx context.Context, _, _ string) error { return s.op(ctx) }
func (s *store) Close() error                                  { return nil }

func setup(t *testing.T, load bool, kv ...string) (Config, *workload.Workload) {
	t.Helper()
	p := props.New()
	if err := workloads.Load(p, "c"); err != nil {
		t.Fatal(err)
	}
	p.Set("timeseries.interval", "0.05", "test")
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test")
	}
	w, err := workload.New(p, !load)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(p, load)
	if err != nil {
		t.Fatal(err)
	}
	return cfg, w
}

func runWith(t *testing.T, ctx context.Context, s db.DB, load bool, obs Observer, kv ...string) *Result {
	t.Helper()
	cfg, w := setup(t, load, kv...)
	res, err := Run(ctx, cfg, w, s, obs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ops(res *Result) int64 { all, _ := res.Total.ClientOps(); return all }

// fakeClock is a Clock whose time moves only when a thread sleeps: to the
// latest time any thread slept until. Operations take no time on it.
type fakeClock struct{ now atomic.Int64 }

func (c *fakeClock) Now() int64 { return c.now.Load() }
func (c *fakeClock) SleepUntil(ctx context.Context, until int64) bool {
	if ctx.Err() != nil {
		return false
	}
	storeMax(&c.now, until)
	return true
}

func TestSlot(t *testing.T) {
	for _, c := range []struct {
		start, tick int64
		threads, id int
		k, want     int64
	}{
		{0, 100, 1, 0, 0, 0},
		{0, 100, 1, 0, 3, 300},
		{1000, 100, 4, 1, 0, 1025}, // staggered a quarter tick
		{1000, 100, 4, 3, 2, 1275}, // 1000 + 75 + 200
		{0, 7, 2, 1, 1, 10},        // 3 (rounded down) + 7
		{5, 1_000_000, 3, 2, 0, 666_671},
	} {
		if got := slot(c.start, c.tick, c.threads, c.id, c.k); got != c.want {
			t.Errorf("slot(%d, %d, %d, %d, %d) = %d, want %d", c.start, c.tick, c.threads, c.id, c.k, got, c.want)
		}
	}
	// Over all threads the arrivals are evenly spaced: 8 threads at tick
	// 800 give one arrival every 100.
	var all []int64
	for id := range 8 {
		for k := range int64(3) {
			all = append(all, slot(0, 800, 8, id, k))
		}
	}
	slices.Sort(all)
	for i, v := range all {
		if v != int64(i)*100 {
			t.Fatalf("arrival %d at %d, want %d", i, v, i*100)
		}
	}
}

// One thread at 200 ops/s on an injected clock: every operation starts
// exactly at its slot, 5 ms apart, and none is late.
func TestIntendedStartSchedule(t *testing.T) {
	clock := &fakeClock{}
	s := &store{clock: clock}
	cfg, w := setup(t, false, "threadcount", "1", "target", "200", "operationcount", "60")
	cfg.Clock = clock
	res, err := Run(context.Background(), cfg, w, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.starts) != 60 {
		t.Fatalf("%d calls", len(s.starts))
	}
	for k, st := range s.starts {
		if d := time.Duration(st - s.starts[0]); d != time.Duration(k)*5*time.Millisecond {
			t.Errorf("operation %d started %v after the first, want %v", k, d, time.Duration(k)*5*time.Millisecond)
		}
	}
	if lag := res.Total.Lag; lag == nil || lag.TotalCount() != 60 || lag.Max() != 0 {
		t.Errorf("schedule lag %v, want 60 operations on time", lag)
	}
	if res.Runtime != 59*5*time.Millisecond {
		t.Errorf("runtime %v, want the schedule's 295ms", res.Runtime)
	}
}

// At a target rate the run takes the schedule's time: 4000 operations at
// 4000 ops/s over 2 threads, on an injected clock.
func TestTargetRate(t *testing.T) {
	clock := &fakeClock{}
	cfg, w := setup(t, false, "threadcount", "2", "target", "4000", "operationcount", "4000")
	cfg.Clock = clock
	res, err := Run(context.Background(), cfg, w, &store{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The last of 2000 slots per thread is 1999 ticks (0.5 ms) after the
	// first, plus thread 1's quarter-millisecond stagger.
	if want := 1999*500*time.Microsecond + 250*time.Microsecond; ops(res) != 4000 || res.Runtime != want {
		t.Errorf("%d ops in %v, want 4000 in %v", ops(res), res.Runtime, want)
	}
	if res.Total.Lag == nil || res.Total.Lag.TotalCount() != 4000 {
		t.Error("schedule lag not recorded for every operation")
	}
}

func TestWarmupOperationsExcluded(t *testing.T) {
	s := &store{}
	res := runWith(t, context.Background(), s, false, nil, "threadcount", "2", "operationcount", "1000", "warmupoperationcount", "300")
	if ops(res) != 1000 {
		t.Errorf("measured %d operations, want exactly 1000", ops(res))
	}
	if s.calls.Load() != 1300 {
		t.Errorf("store saw %d calls, want 1300 (300 warmup + 1000)", s.calls.Load())
	}
}

// Warmup by time is throttled like the run, and excluded: at 1000 ops/s on
// an injected clock, 0.3 s of warmup and 0.5 s measured are 300 and 500
// operations, and no operation starts at or after the end.
func TestWarmupTimeThrottledAndExcluded(t *testing.T) {
	clock := &fakeClock{}
	s := &store{}
	cfg, w := setup(t, false, "threadcount", "1", "target", "1000", "warmuptime", "0.3", "maxexecutiontime", "0.5")
	cfg.Clock = clock
	res, err := Run(context.Background(), cfg, w, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != result.TimeLimit {
		t.Errorf("reason %s", res.Reason)
	}
	if n, c := ops(res), s.calls.Load(); n != 500 || c != 800 {
		t.Errorf("measured %d operations of %d calls, want 500 of 800", n, c)
	}
	if res.Warmup != 300*time.Millisecond || res.Runtime != 500*time.Millisecond {
		t.Errorf("warmup %v, runtime %v; want 300ms and 500ms", res.Warmup, res.Runtime)
	}
}

// TestTimeLimitLetsOperationsInFlightFinish: the time limit stops threads
// from starting operations; those in flight finish and count as usual, so
// the end of a run never shows up as failed operations.
func TestTimeLimitLetsOperationsInFlightFinish(t *testing.T) {
	t.Parallel()
	s := &store{slow: 20 * time.Millisecond}
	res := runWith(t, context.Background(), s, false, nil,
		"threadcount", "3", "maxexecutiontime", "0.1", "stopgrace", "60")
	if res.Reason != result.TimeLimit || res.StuckThreads != 0 || res.Abandoned() != 0 {
		t.Fatalf("reason %s, stuck %d, abandoned %d", res.Reason, res.StuckThreads, res.Abandoned())
	}
	all, ok := res.Total.ClientOps()
	if all != ok {
		t.Errorf("%d of %d operations failed; none should", all-ok, all)
	}
	if calls := s.calls.Load(); calls != all {
		t.Errorf("the store saw %d calls but %d were counted: operations in flight at the end were lost", calls, all)
	}
}

// TestTimeLimitEndsRunWithHungBinding: threads stuck inside a binding that
// ignores its context are left behind after the stop grace; their
// operations are abandoned (not failed), and the measured time ends at the
// time limit, not when the grace ran out.
func TestTimeLimitEndsRunWithHungBinding(t *testing.T) {
	t.Parallel()
	hang := make(chan struct{})
	defer close(hang)
	res := runWith(t, context.Background(), &store{hang: hang}, false, nil,
		"threadcount", "2", "maxexecutiontime", "0.2", "stopgrace", "0.2")
	if res.Reason != result.TimeLimit || res.StuckThreads != 2 || res.Abandoned() != 2 {
		t.Errorf("reason %s, stuck %d, abandoned %d; want maxexecutiontime, 2 and 2", res.Reason, res.StuckThreads, res.Abandoned())
	}
	if res.Runtime != 200*time.Millisecond {
		t.Errorf("runtime %v, want exactly the 0.2 s limit (the grace is not measured time)", res.Runtime)
	}
	if all, _ := res.Total.ClientOps(); all != 0 {
		t.Errorf("%d operations counted; the two hung ones are abandoned", all)
	}
}

// TestInterruptAbandonsOperationsInFlight: Ctrl-C cancels the operations in
// flight; they are abandoned, never failed.
func TestInterruptAbandonsOperationsInFlight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &store{block: true, onCall: func(n int64) {
		if n == 2 { // both threads are inside the store
			cancel()
		}
	}}
	res := runWith(t, ctx, s, false, nil, "threadcount", "2", "operationcount", "0")
	if res.Reason != result.Interrupted {
		t.Errorf("reason %s", res.Reason)
	}
	if got := res.Abandoned(); got != 2 {
		t.Errorf("abandoned %d, want the 2 operations in flight", got)
	}
	if all, _ := res.Total.ClientOps(); all != 0 || res.Total.OpCount(measure.Read) != 0 {
		t.Errorf("%d transactions, %d reads recorded; the cancelled ones must not count", all, res.Total.OpCount(measure.Read))
	}
}

// Ctrl-C keeps what was measured: stopped by the call at 200 ms on an
// injected clock at 2000 ops/s, the run keeps the 400 operations before it
// and that call, which finished, and starts none after.
func TestInterruptKeepsResults(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := &fakeClock{}
	var begin atomic.Int64
	s := &store{onCall: func(n int64) {
		if n == 1 {
			begin.Store(clock.Now())
		}
		if clock.Now()-begin.Load() >= int64(200*time.Millisecond) {
			cancel()
		}
	}}
	cfg, w := setup(t, false, "threadcount", "1", "operationcount", "0", "target", "2000")
	cfg.Clock = clock
	res, err := Run(ctx, cfg, w, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != result.Interrupted {
		t.Errorf("reason %s", res.Reason)
	}
	if n := ops(res); n != 401 || s.calls.Load() != 401 || res.Abandoned() != 0 {
		t.Errorf("%d operations recorded, %d abandoned, %d calls; want 401, 0 and 401", n, res.Abandoned(), s.calls.Load())
	}
}

// TestCoordinatedOmission: at 1000 ops/s on one thread, the store stalls
// once for 1 s. The ~1000 operations scheduled during the stall start late,
// by 1 s down to 0, so response time (from the intended start) must show
// the stall in its tail while service time must not.
func TestCoordinatedOmission(t *testing.T) {
	t.Parallel()
	res := runWith(t, context.Background(), &store{stallAt: 500, stall: time.Second}, false, nil,
		"threadcount", "1", "target", "1000", "operationcount", "3000")
	svc := res.Total.Merged(measure.Read, false, func(db.Status) bool { return true })
	rsp := res.Total.Merged(measure.Read, true, func(db.Status) bool { return true })
	if svc.TotalCount() != 3000 || rsp.TotalCount() != 3000 {
		t.Fatalf("counts %d %d", svc.TotalCount(), rsp.TotalCount())
	}
	// Service time: one slow operation, invisible at p99.9.
	if p := time.Duration(svc.ValueAtPercentile(99.9)); p > 20*time.Millisecond {
		t.Errorf("service p99.9 = %v: the stall leaked into service time", p)
	}
	if m := time.Duration(svc.Max()); m < time.Second {
		t.Errorf("service max %v, the stalled call took 1 s", m)
	}
	// Response time: the schedule implies p99.9 ≈ 1 s - 3 ms and about half
	// of the ~1000 delayed operations above 500 ms.
	if p := time.Duration(rsp.ValueAtPercentile(99.9)); p < 950*time.Millisecond || p > 1100*time.Millisecond {
		t.Errorf("response p99.9 = %v, want about 1 s", p)
	}
	var over int64
	for _, b := range rsp.Distribution() {
		if b.From >= int64(500*time.Millisecond) {
			over += b.Count
		}
	}
	if over < 420 || over > 580 {
		t.Errorf("%d responses over 500 ms, the schedule implies about 500", over)
	}
	if p := time.Duration(rsp.ValueAtPercentile(50)); p > 5*time.Millisecond {
		t.Errorf("response p50 = %v: most operations were on time", p)
	}
}

func TestThreadsClampedToOperations(t *testing.T) {
	res := runWith(t, context.Background(), &store{}, false, nil, "threadcount", "8", "operationcount", "3")
	if res.Threads != 3 || ops(res) != 3 {
		t.Errorf("threads %d ops %d, want 3 and 3", res.Threads, ops(res))
	}
}

func TestLoadInsertsEveryKeyOnce(t *testing.T) {
	s := &store{}
	res := runWith(t, context.Background(), s, true, nil, "threadcount", "3", "recordcount", "1000")
	if ops(res) != 1000 || len(s.keys) != 1000 || res.Reason != result.Completed {
		t.Errorf("%d inserts, %d distinct keys, %s", ops(res), len(s.keys), res.Reason)
	}
	if !s.keys[workload.KeyName(999, 1, false)] || s.keys[workload.KeyName(1000, 1, false)] {
		t.Error("load did not insert exactly keys 0..999")
	}
}

func TestLoadFailureStopsThreads(t *testing.T) {
	s := &store{fail: errors.New("disk full")}
	res := runWith(t, context.Background(), s, true, nil, "threadcount", "2", "recordcount", "100")
	if res.Reason != result.LoadFailures || res.Err == nil {
		t.Fatalf("reason %s err %v", res.Reason, res.Err)
	}
	if n := res.Total.Count(measure.Insert, db.Error); n != 2 {
		t.Errorf("%d failed inserts recorded, want 2 (each thread stops on its first)", n)
	}
	// With keep-going, every insert is attempted.
	res = runWith(t, context.Background(), &store{fail: errors.New("disk full")}, true, nil, "threadcount", "2",
		"recordcount", "100", "core_workload_insertion_keep_going_on_error", "true")
	if res.Total.Count(measure.Insert, db.Error) != 100 || res.Reason != result.Completed {
		t.Errorf("keep going: %d errors, %s", res.Total.Count(measure.Insert, db.Error), res.Reason)
	}
	// A store that cannot go on (db.ErrFatal) ends the run, failed, keep
	// going or not.
	fatal := fmt.Errorf("pebble: no space left on device: %w", db.ErrFatal)
	res = runWith(t, context.Background(), &store{fail: fatal}, true, nil, "threadcount", "2",
		"recordcount", "100", "core_workload_insertion_keep_going_on_error", "true")
	if res.Reason != result.Failed || !errors.Is(res.Err, db.ErrFatal) || res.Total.Count(measure.Insert, db.Error) > 2 {
		t.Errorf("a fatal failure: %s, %v, %d failed inserts", res.Reason, res.Err, res.Total.Count(measure.Insert, db.Error))
	}
}

type intervals struct {
	n     int64
	ends  []time.Duration
	final int
	told  chan struct{} // if set, gets a value (if empty) for each interval told
}

func (iv *intervals) Interval(p Progress) {
	if !p.Warmup {
		a, _ := p.Interval.ClientOps()
		iv.n += a
	}
	iv.ends = append(iv.ends, p.End)
	if p.Final {
		iv.final++
	}
	select {
	case iv.told <- struct{}{}:
	default:
	}
}

func TestIntervalsAddUpToTotal(t *testing.T) {
	t.Parallel()
	iv := &intervals{}
	res := runWith(t, context.Background(), &store{}, false, iv, "threadcount", "2", "target", "2000", "operationcount", "600")
	if iv.n != ops(res) || iv.n != 600 {
		t.Errorf("intervals sum to %d, total %d, want 600", iv.n, ops(res))
	}
	if len(iv.ends) < 4 || iv.final != 1 {
		t.Errorf("%d intervals, %d final", len(iv.ends), iv.final)
	}
	for i := 1; i < len(iv.ends); i++ {
		if iv.ends[i] < iv.ends[i-1] {
			t.Errorf("interval ends go backwards: %v", iv.ends)
		}
	}
}

func TestBatchedLoad(t *testing.T) {
	s := &store{}
	res := runWith(t, context.Background(), s, true, nil, "threadcount", "3", "recordcount", "1000", "batchsize", "64")
	if ops(res) != 1000 || len(s.keys) != 1000 {
		t.Errorf("%d records counted, %d distinct keys stored; want 1000", ops(res), len(s.keys))
	}
	// 334, 333, 333 records per thread in batches of 64: 6 calls each.
	if n := res.Total.OpCount(measure.BatchInsert); n != 18 || s.calls.Load() != 18 {
		t.Errorf("%d batch calls measured, %d made; want 18", n, s.calls.Load())
	}
}

func TestTimeLimitAfterOperationWarmup(t *testing.T) {
	t.Parallel()
	s := &store{}
	res := runWith(t, context.Background(), s, false, nil, "threadcount", "2", "target", "2000",
		"warmupoperationcount", "400", "maxexecutiontime", "0.3")
	if res.Reason != result.TimeLimit {
		t.Errorf("reason %s", res.Reason)
	}
	// 0.2 s of warmup at 2000/s, then 0.3 s measured.
	if n := ops(res); n < 540 || n > 660 {
		t.Errorf("measured %d operations in 0.3 s at 2000/s", n)
	}
}

// Interrupted while the server hangs: the measured time ends when the stop
// was asked, not when the thread got out of its call 3 s later.
func TestInterruptEndsTheMeasuredTime(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := &watchedClock{read: make(chan struct{})}
	s := &store{onCall: func(n int64) {
		if n == 50 {
			clock.watch.Store(true)
			cancel()
			<-clock.read                          // the runner has taken note of the stop
			clock.now.Add(int64(3 * time.Second)) // and the call hangs 3 s
		}
	}}
	cfg, w := setup(t, false, "threadcount", "1", "operationcount", "0", "target", "2000")
	cfg.Clock, cfg.Interval = clock, time.Hour
	res, err := Run(ctx, cfg, w, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The 50th call started at slot 49 (0.5 ms apart); the stop was asked then.
	if want := 49 * 500 * time.Microsecond; res.Reason != result.Interrupted || res.Runtime != want {
		t.Errorf("%s after %v, want interrupted after %v", res.Reason, res.Runtime, want)
	}
}

// Interrupted while a call hangs and intervals go on ticking: no interval
// ends past the measured time (a result whose intervals did was refused
// by the coordinator it was sent to).
func TestInterruptedIntervalsLieWithinTheRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	clock := &watchedClock{read: make(chan struct{})}
	obs := &intervals{told: make(chan struct{}, 1)}
	s := &store{onCall: func(n int64) {
		if n == 50 {
			clock.watch.Store(true)
			cancel()
			<-clock.read // the runner has taken note of the stop
			clock.now.Add(int64(3 * time.Second))
			// The call hangs until an interval is told after the stop,
			// or a while: either way none may end past the stop.
			select {
			case <-obs.told: // one told before the stop
			default:
			}
			select {
			case <-obs.told:
			case <-time.After(time.Second):
			}
		}
	}}
	cfg, w := setup(t, false, "threadcount", "1", "operationcount", "0", "target", "2000")
	cfg.Clock, cfg.Interval = clock, time.Millisecond
	res, err := Run(ctx, cfg, w, s, obs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != result.Interrupted || res.Runtime > 49*500*time.Microsecond {
		t.Errorf("%s after %v, want interrupted after at most 24.5ms", res.Reason, res.Runtime)
	}
	for _, end := range obs.ends {
		if end > res.Runtime {
			t.Errorf("an interval ends at %v, past the runtime %v: %v", end, res.Runtime, obs.ends)
		}
	}
	if obs.n != ops(res) {
		t.Errorf("the intervals hold %d operations, the run %d", obs.n, ops(res))
	}
}

// watchedClock is a fakeClock that, once watched, closes read at the
// first reading: a test knows the runner has read the time.
type watchedClock struct {
	fakeClock
	watch atomic.Bool
	read  chan struct{}
	once  sync.Once
}

func (c *watchedClock) Now() int64 {
	now := c.fakeClock.Now() // read before the watcher may move the clock on
	if c.watch.Load() {
		c.once.Do(func() { close(c.read) })
	}
	return now
}

// A second signal (abandon) ends the wait for a thread stuck in a call
// that ignores its context at once, not after the stop grace (an hour
// here): the thread's operation is abandoned and the results returned.
func TestAbandonEndsTheGrace(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	abandon := make(chan struct{})
	release := make(chan struct{})
	defer close(release)
	clock := &fakeClock{}
	s := &store{onCall: func(n int64) {
		if n == 50 {
			cancel()
			close(abandon)
			<-release // hangs, whatever the context says
		}
	}}
	cfg, w := setup(t, false, "threadcount", "1", "operationcount", "0", "target", "2000")
	cfg.Clock, cfg.StopGrace = clock, time.Hour
	res, err := Run(WithAbandon(ctx, abandon), cfg, w, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Reason != result.Interrupted || res.StuckThreads != 1 || ops(res) != 49 || res.Runtime != 49*500*time.Microsecond {
		t.Errorf("%s, %d stuck, %d operations in %v; want interrupted, 1, 49 in 24.5ms", res.Reason, res.StuckThreads, ops(res), res.Runtime)
	}
}

// ksExponential is the Kolmogorov–Smirnov distance between the gaps and
// the exponential distribution of the given mean.
func ksExponential(gaps []float64, mean float64) float64 {
	slices.Sort(gaps)
	d, n := 0.0, float64(len(gaps))
	for i, g := range gaps {
		f := 1 - math.Exp(-g/mean)
		d = max(d, math.Abs(f-float64(i)/n), math.Abs(f-float64(i+1)/n))
	}
	return d
}

// arrivals=poisson: the intended starts are spaced by exponential gaps of
// the rate's mean, by the Kolmogorov–Smirnov distance (below its critical
// value at α = 0.001, where evenly spaced starts are far above it): one
// thread's, read on a made clock through the runner, and four threads'
// schedules merged (a superposition of Poisson streams is one).
func TestPoissonArrivals(t *testing.T) {
	const n = 20000
	mean := float64(time.Millisecond) // 1000 ops/s over all threads
	check := func(what string, starts []int64) {
		t.Helper()
		slices.Sort(starts)
		gaps := make([]float64, 0, len(starts)-1)
		var sum float64
		for i := 1; i < len(starts); i++ {
			gaps = append(gaps, float64(starts[i]-starts[i-1]))
			sum += gaps[i-1]
		}
		if critical, d := 1.95/math.Sqrt(float64(len(gaps))), ksExponential(gaps, mean); d > critical {
			t.Errorf("%s: KS distance %.4f from exponential gaps, above %.4f", what, d, critical)
		}
		if got := sum / float64(len(gaps)); math.Abs(got-mean)/mean > 0.03 {
			t.Errorf("%s: mean gap %v, want %v within 3%%", what, time.Duration(got), time.Duration(mean))
		}
	}
	clock := &fakeClock{}
	s := &store{clock: clock}
	cfg, w := setup(t, false, "threadcount", "1", "target", "1000", "operationcount", strconv.Itoa(n), "arrivals", "poisson", "randomseed", "7")
	cfg.Clock = clock
	if _, err := Run(context.Background(), cfg, w, s, nil); err != nil {
		t.Fatal(err)
	}
	check("one thread through the runner", slices.Clone(s.starts))

	cfg.Threads = 4
	tick := int64(4 * time.Millisecond)
	var merged []int64
	for id := range 4 {
		sc := newSchedule(cfg, tick, 4, id)
		at := sc.first(0)
		for range n / 4 {
			merged = append(merged, at)
			at = sc.after(at, 1)
		}
	}
	check("four threads' schedules merged", merged)

	even := make([]float64, n)
	for i := range even {
		even[i] = mean
	}
	if d := ksExponential(even, mean); d < 0.5 {
		t.Errorf("constant gaps pass as exponential (KS %.3f)", d)
	}
}

// arrivals=poisson without a target rate is refused, naming the property.
func TestPoissonNeedsARate(t *testing.T) {
	p := props.New()
	p.Set("arrivals", "poisson", "test")
	if _, err := ParseConfig(p, false); err == nil || !strings.Contains(err.Error(), "arrivals") {
		t.Errorf("arrivals=poisson without target: %v", err)
	}
	p.Set("arrivals", "bursty", "test")
	p.Set("target", "10", "test")
	if _, err := ParseConfig(p, false); err == nil || !strings.Contains(err.Error(), "arrivals") {
		t.Errorf("arrivals=bursty: %v", err)
	}
}

// countIn is how many of starts (ns from the schedule's start) fall in
// [from, to) seconds.
func countIn(starts []int64, from, to float64) int {
	n := 0
	for _, s := range starts {
		if x := float64(s) / 1e9; x >= from && x < to {
			n++
		}
	}
	return n
}

// stages=2:1000,2:3000,1:0:step,1:500:step asks 2,000 operations in its
// first two seconds, a ramp from 1,000 to 3,000 ops/s (1,500 and 2,500 in
// its halves), nothing for a second, then 500: one thread through the
// runner on a made clock, and four threads' schedules merged, start each
// operation so; the run lasts the stages' six seconds.
func TestStages(t *testing.T) {
	const stages = "2:1000,2:3000,1:0:step,1:500:step"
	want := []struct {
		from, to float64
		n        int
	}{{0, 2, 2000}, {2, 3, 1500}, {3, 4, 2500}, {4, 5, 0}, {5, 6, 500}}
	check := func(what string, starts []int64, slack int) {
		t.Helper()
		for _, w := range want {
			if got := countIn(starts, w.from, w.to); got < w.n-slack || got > w.n+slack {
				t.Errorf("%s: %d starts in [%v s, %v s), want %d ± %d", what, got, w.from, w.to, w.n, slack)
			}
		}
	}
	clock := &fakeClock{}
	s := &store{clock: clock}
	cfg, w := setup(t, false, "threadcount", "1", "stages", stages, "operationcount", "0")
	cfg.Clock = clock
	res, err := Run(context.Background(), cfg, w, s, nil)
	if err != nil {
		t.Fatal(err)
	}
	rel := make([]int64, len(s.starts))
	for i, st := range s.starts {
		rel[i] = st - s.starts[0]
	}
	check("one thread through the runner", rel, 1)
	if res.Runtime != 6*time.Second || cfg.Rate != 6500.0/6 {
		t.Errorf("runtime %v, mean rate %v: want the stages' 6 s and their mean, 6,500 operations over 6 s", res.Runtime, cfg.Rate)
	}
	cfg.Threads = 4
	var merged []int64
	for id := range 4 {
		sc := newSchedule(cfg, 0, 4, id)
		for at := sc.first(0); at < 6e9; at = sc.after(at, 1) {
			merged = append(merged, at)
		}
	}
	check("four threads' schedules", merged, 4)
	// Poisson arrivals follow the stages too, within four standard
	// deviations of each count.
	cfg.Poisson = true
	merged = merged[:0]
	for id := range 4 {
		sc := newSchedule(cfg, 1, 4, id)
		for at := sc.first(0); at < 6e9; at = sc.after(at, 1) {
			merged = append(merged, at)
		}
	}
	for _, w := range want {
		if got, sd := countIn(merged, w.from, w.to), math.Sqrt(float64(w.n)); math.Abs(float64(got-w.n)) > 4*sd+1 {
			t.Errorf("poisson: %d starts in [%v s, %v s), want %d ± %.0f", got, w.from, w.to, w.n, 4*sd)
		}
	}
}

// Stages that cannot be run are refused, naming the stage.
func TestStagesRefused(t *testing.T) {
	for _, c := range []struct{ v, want string }{
		{"60", `stage 1 "60": want SECONDS:RATE`},
		{"60:100,x:5", `stage 2 "x:5"`},
		{"60:100:ramp", `stage 1 "60:100:ramp"`},
		{"0:100", `stage 1 "0:100"`},
		{"10:-5", `stage 1 "10:-5"`},
		{"10:0,5:0:step", "every stage's rate is 0"},
	} {
		p := props.New()
		p.Set("stages", c.v, "test")
		if _, err := ParseConfig(p, false); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("stages=%s: %v, want %q", c.v, err, c.want)
		}
	}
	p := props.New()
	p.Set("stages", "10:100", "test")
	p.Set("target", "100", "test")
	if _, err := ParseConfig(p, false); err == nil || !strings.Contains(err.Error(), "give target or stages") {
		t.Errorf("stages and target: %v", err)
	}
	p = props.New()
	p.Set("stages", "10:100", "test")
	p.Set("warmuptime", "10", "test")
	if _, err := ParseConfig(p, false); err == nil || !strings.Contains(err.Error(), "nothing would be measured") {
		t.Errorf("a warmup as long as the stages: %v", err)
	}
}

// A run stopped before its schedule's origin (a spread client told to
// stop as its common start came) measured nothing: its warmup and
// runtime are zero, never negative (its result was refused by the
// coordinator, and with it what the other clients measured).
func TestStoppedBeforeItsStart(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg, w := setup(t, false, "threadcount", "2", "operationcount", "0", "warmuptime", "1")
	res, err := Run(ctx, cfg, w, &store{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Warmup < 0 || res.Runtime < 0 || res.End.Before(res.Start) {
		t.Errorf("warmup %s, runtime %s, start %s, end %s: want none negative", res.Warmup, res.Runtime, res.Start, res.End)
	}
}
