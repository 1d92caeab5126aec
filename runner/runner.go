package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workload"
)

// Progress is what an Observer is told at the end of each interval.
type Progress struct {
	// Start and End bound the interval, measured from the start of the
	// measured run (negative during warmup). Elapsed equals End.
	Start, End time.Duration
	Elapsed    time.Duration
	Now        time.Time     // wall-clock time at the end of the interval
	Warmup     bool          // the interval ended before measurement started
	Final      bool          // the last interval of the run
	Interval   *measure.Set  // recorded in this interval; valid during the call
	Total      *measure.Set  // recorded so far
	Expected   int64         // operations the run will do (0 = unknown)
	Limit      time.Duration // maxexecutiontime (0 = none)
}

// Observer follows a run interval by interval (status lines, progress
// bars, the time series). It is called from one goroutine.
type Observer interface {
	Interval(p Progress)
}

// Observers calls each observer in turn.
type Observers []Observer

// Interval implements Observer.
func (os Observers) Interval(p Progress) {
	for _, o := range os {
		if o != nil {
			o.Interval(p)
		}
	}
}

var (
	errTimeLimit = errors.New("maxexecutiontime reached")
	errSettled   = errors.New("the figures' intervals met the until bounds")
	errAbandoned = errors.New("operations abandoned after the stop grace")
)

// startLead is how far ahead of the threads' launch the schedule starts.
const startLead = time.Millisecond

// Run executes the phase cfg describes and returns what it measured. It
// always returns a Result, also when stopped by ctx (Ctrl-C), by the time
// limit, or by failures; Result.Reason says which.
func Run(ctx context.Context, cfg Config, w *workload.Workload, d db.DB, obs Observer) (*Result, error) {
	r, total := newRun(cfg, w)
	ts, dbs, err := r.bind(ctx, w, d)
	if err != nil {
		return nil, err
	}
	// Threads start behind a barrier and the schedule's origin lies a
	// little ahead, so no thread is late for its first operation merely
	// because goroutines take time to start.
	start := r.now() + int64(startLead)
	r.warmLeft.Store(r.cfg.WarmupOps)
	// Two contexts: opCtx is what operations get, cancelled by the caller
	// (Ctrl-C), by a failure that ends the run, or once the stop grace has
	// run out; stopCtx also ends at the time limit, and only stops threads
	// from starting operations, so the operation a thread has in flight at
	// the deadline finishes and is counted like any other.
	opCtx, opCancel := context.WithCancelCause(ctx)
	defer opCancel(nil)
	stopCtx, stopCancel := context.WithCancelCause(opCtx)
	defer stopCancel(nil)
	r.scheduleStop(start, stopCancel)
	th := r.startThreads(stopCtx, opCtx, opCancel, ts, dbs, d, total, start)
	end := r.watch(ctx, stopCtx, opCancel, stopCancel, th, obs, total, start)
	return r.result(ctx, stopCtx, th, start, end), nil
}

// newRun makes a run of cfg: its seed, its threads (never more than
// operations, as YCSB) and the tick of a target rate; total is the
// operations to do (0: until stopped).
func newRun(cfg Config, w *workload.Workload) (r *run, total int64) {
	if cfg.Seed == 0 {
		cfg.Seed = rand.Uint64() | 1
	}
	total = cfg.OpCount
	if cfg.Load {
		total = w.Cfg.InsertCount
		cfg.WarmupOps, cfg.WarmupTime = 0, 0
	}
	threads := cfg.Threads
	if total > 0 && int64(threads) > total {
		threads = int(total) // as YCSB: never more threads than operations
	}
	r = &run{cfg: cfg, threads: threads, clock: cfg.Clock}
	if cfg.Until != nil && !cfg.Load {
		r.settle = newSettler(*cfg.Until)
	}
	if cfg.Rate > 0 {
		// Each thread runs target/threads operations per second, one
		// every threads/target seconds.
		r.tick = max(int64(float64(time.Second)*float64(threads)/cfg.Rate), 1)
	}
	return r, total
}

// bind makes each thread's state before the clock starts: its workload
// thread, its binding (db.ThreadIniter) and recorder; and notes the
// binding's batches and pipelining windows.
func (r *run) bind(ctx context.Context, w *workload.Workload, d db.DB) ([]*workload.Thread, []db.DB, error) {
	ts := make([]*workload.Thread, r.threads)
	dbs := make([]db.DB, r.threads)
	for i := range ts {
		ts[i] = w.NewThread(i, r.cfg.Seed)
		dbs[i] = d
		if ti, ok := d.(db.ThreadIniter); ok {
			td, err := ti.InitThread(ctx, i, r.threads)
			if err != nil {
				return nil, nil, fmt.Errorf("thread %d: init: %w", i, err)
			}
			dbs[i] = td
		}
		rec := r.col.NewRecorder()
		rec.KeepRaw = r.cfg.KeepRaw
		ts[i].Bind(dbs[i], rec)
	}
	if bi, ok := d.(db.BatchInserter); ok && r.cfg.Load && r.cfg.BatchSize > 1 {
		r.batch = bi
	}
	if p, ok := d.(db.Pipeliner); ok && !r.cfg.Load && p.Window() > 1 {
		r.window = p.Window()
	}
	return ts, dbs, nil
}

// scheduleStop sets when warmup ends and when the time limit stops the
// run: from start by warmuptime, or, for an operation-count warmup, from
// the moment its last warmup operation starts.
func (r *run) scheduleStop(start int64, stopCancel context.CancelCauseFunc) {
	cfg := r.cfg
	stopAt := func(at int64) {
		r.deadline.Store(at)
		time.AfterFunc(time.Duration(at-r.now()), func() { stopCancel(errTimeLimit) })
	}
	if cfg.WarmupOps > 0 {
		r.warmupEnd.Store(math.MaxInt64)
		r.onWarmupEnd = func(at int64) {
			if cfg.MaxExecution > 0 {
				stopAt(at + int64(cfg.MaxExecution))
			}
		}
		return
	}
	r.warmupEnd.Store(start + int64(cfg.WarmupTime))
	if cfg.MaxExecution > 0 {
		stopAt(start + int64(cfg.WarmupTime) + int64(cfg.MaxExecution))
	}
}

// threads are a run's running threads and how they ended.
type threads struct {
	allDone  chan struct{}
	stuck    int // threads still inside the binding when the run ended
	loadErrs atomic.Int64
	firstErr atomic.Pointer[error] // a stuck thread may set it after Run returns
	lastExit atomic.Int64          // when the last thread that finished did
}

// startThreads starts every thread behind one barrier, each with its
// share of the total operations; a thread's failure ends the run (opCancel)
// except a failed insert of the load phase, which stops that thread only,
// as YCSB.
func (r *run) startThreads(stopCtx, opCtx context.Context, opCancel context.CancelCauseFunc, ts []*workload.Thread, dbs []db.DB, d db.DB, total, start int64) *threads {
	th := &threads{allDone: make(chan struct{})}
	perThread := func(id int) int64 { // -1: no limit
		switch {
		case total == 0 && r.cfg.None:
			return 0
		case total == 0:
			return -1
		}
		n := total / int64(r.threads)
		if int64(id) < total%int64(r.threads) {
			n++
		}
		return n
	}
	var wg sync.WaitGroup
	begin := make(chan struct{})
	for i := range ts {
		wg.Add(1)
		go func(id int) {
			defer wg.Done()
			<-begin
			err := r.loop(stopCtx, opCtx, ts[id], id, perThread(id), start)
			_ = ts[id].Cleanup(dbs[id] != d) // measured as CLEANUP; a failed close is counted there
			storeMax(&th.lastExit, r.now())
			if err == nil {
				return
			}
			th.firstErr.CompareAndSwap(nil, &err)
			if r.cfg.Load && !errors.Is(err, db.ErrFatal) {
				th.loadErrs.Add(1) // YCSB: a loading thread stops on a failed insert
				return
			}
			opCancel(err) // the run cannot go on
		}(i)
	}
	close(begin)
	go func() { wg.Wait(); close(th.allDone) }()
	return th
}

// watch drains the measurements at every interval for obs until the
// threads are done, or, once the run is stopping, the stop grace ran out
// or the caller stopped waiting (a second Ctrl-C): the threads still
// inside the binding are then stuck, and their operations cancelled. It
// returns the end of the measured time: when the threads were done, or
// when the stop was asked (interrupted), or the later of that and the
// last thread's exit (stuck).
func (r *run) watch(ctx, stopCtx context.Context, opCancel, stopCancel context.CancelCauseFunc, th *threads, obs Observer, total, start int64) (end int64) {
	tick := time.NewTicker(r.cfg.Interval)
	defer tick.Stop()
	lastTick := start
	emit := func(now int64, final bool) {
		iv := r.col.Tick()
		ms := r.measureStart()
		p := Progress{
			Start: time.Duration(max(lastTick, ms) - ms), End: time.Duration(now - ms),
			Elapsed: time.Duration(now - ms), Now: measure.Wall(now), Warmup: now <= ms, Final: final, Interval: iv,
			Total: r.col.Total(), Expected: total, Limit: r.cfg.MaxExecution,
		}
		if obs != nil {
			obs.Interval(p)
		}
		if r.settle != nil && r.settle.add(p) && stopCtx.Err() == nil {
			stopCancel(errSettled)
		}
		lastTick = now
	}
	var graceC <-chan time.Time
	stuck := false
	stopped := int64(0) // when the stop was asked; 0 while running
	stopC := stopCtx.Done()
	var abandonC <-chan struct{} // listened to once the run is stopping
loop:
	for {
		select {
		case <-th.allDone:
			break loop
		case <-tick.C:
			if ctx.Err() != nil {
				// Interrupted: the measured time ends at the stop, so no
				// interval may end past it; what still finishes goes to
				// the last interval.
				continue
			}
			emit(r.now(), false)
		case <-stopC:
			stopC = nil // a closed channel would be chosen again and again
			stopped = r.now()
			if dl := r.deadline.Load(); dl > 0 && errors.Is(context.Cause(stopCtx), errTimeLimit) {
				stopped = min(stopped, dl)
			}
			graceC = time.After(r.cfg.StopGrace)
			abandonC = abandonOf(ctx)
		case <-graceC:
			stuck = true
			break loop
		case <-abandonC: // the caller will not wait (a second Ctrl-C): end the grace now
			stuck = true
			break loop
		}
	}
	if stuck {
		// Threads still inside the binding are left behind; their
		// operations are abandoned, and cancelled so they end.
		th.stuck = int(r.inFlight.Load())
		opCancel(errAbandoned)
	}
	end = r.now()
	switch {
	case ctx.Err() != nil && stopped > 0:
		// Interrupted: the measured time ends when the stop was asked, not
		// when the threads got out of a hung server's calls; nor before
		// an interval already told (one that ended past the time limit
		// before the interrupt came), so every interval lies within it.
		end = max(stopped, lastTick)
	case stuck:
		// The measured time ends when the stop was asked or when the last
		// thread that finished did, not when the grace ran out.
		end = max(stopped, th.lastExit.Load())
	}
	emit(end, true)
	return end
}

// result is what the run measured, from start (warmup included) to end,
// and why it ended.
func (r *run) result(ctx, stopCtx context.Context, th *threads, start, end int64) *Result {
	res := &Result{Config: r.cfg, Threads: r.threads, StuckThreads: th.stuck}
	end = max(end, start) // stopped before the schedule's origin: nothing ran
	ms := max(r.measureStart(), start)
	if ms > end {
		ms = end // stopped during warmup
	}
	res.Start, res.End = measure.Wall(ms), measure.Wall(end)
	res.Runtime = time.Duration(end - ms)
	res.Warmup = time.Duration(ms - start)
	res.Total = r.col.Total()
	if r.settle != nil {
		st := r.settle.final()
		res.Settled = &st
	}
	cause := context.Cause(stopCtx)
	switch {
	case ctx.Err() != nil:
		res.Reason = result.Interrupted
	case errors.Is(cause, errSettled):
		res.Reason = result.Settled
	case errors.Is(cause, errTimeLimit), r.deadline.Load() > 0 && end >= r.deadline.Load():
		res.Reason = result.TimeLimit
	case cause != nil && !errors.Is(cause, context.Canceled) && !errors.Is(cause, errAbandoned):
		res.Reason, res.Err = result.Failed, cause
	case th.loadErrs.Load() > 0:
		res.Reason = result.LoadFailures
		res.Err = fmt.Errorf("%d of %d loading threads stopped on a failed insert; first: %w", th.loadErrs.Load(), r.threads, *th.firstErr.Load())
	default:
		res.Reason = result.Completed
	}
	return res
}

type abandonKey struct{}

// WithAbandon returns a context whose run, once the context is done (the
// first Ctrl-C), stops waiting for threads still inside the binding as soon
// as abandon is closed (a second Ctrl-C) instead of after the stop grace:
// their operations are abandoned and the results so far returned.
func WithAbandon(ctx context.Context, abandon <-chan struct{}) context.Context {
	return context.WithValue(ctx, abandonKey{}, abandon)
}

// AbandonOf is the channel given to WithAbandon (nil when none): closed
// on a second Ctrl-C, when whatever still waits must stop waiting.
func AbandonOf(ctx context.Context) <-chan struct{} { return abandonOf(ctx) }

func abandonOf(ctx context.Context) <-chan struct{} {
	c, _ := ctx.Value(abandonKey{}).(<-chan struct{})
	return c
}

// storeMax raises a to v if v is larger.
func storeMax(a *atomic.Int64, v int64) {
	for last := a.Load(); v > last && !a.CompareAndSwap(last, v); last = a.Load() {
	}
}

// Clock is the time the runner schedules by: Now on the measure.Now
// scale (nanoseconds), and SleepUntil, which returns false when ctx ended
// first. Tests inject one so that schedules are checked exactly, without
// the wall clock; a nil Clock is measure.Now with real sleeps.
type Clock interface {
	Now() int64
	SleepUntil(ctx context.Context, until int64) bool
}

type run struct {
	cfg     Config
	threads int
	settle  *settler         // Config.Until's judge; nil without it
	batch   db.BatchInserter // load in batches of cfg.BatchSize; nil = one by one
	window  int              // run-phase operations per pipelining window (db.Pipeliner); 0 = none
	// deadline (measure.Now clock) when maxexecutiontime is known up front;
	// checked directly because the context's timer may fire late on a
	// saturated machine, and a fast-failing binding would otherwise start
	// many operations past the end.
	deadline atomic.Int64
	tick     int64 // ns between one thread's intended starts; 0 = unthrottled
	col      measure.Collector
	clock    Clock // nil: measure.Now and real sleeps

	warmupEnd   atomic.Int64 // ops intended (or started) at or after this are measured
	warmLeft    atomic.Int64 // warmup operations still to do (op-count warmup)
	onWarmupEnd func(at int64)
	inFlight    atomic.Int64 // threads inside loop
}

func (r *run) measureStart() int64 { return min(r.warmupEnd.Load(), r.now()) }

// now reads the run's clock: measure.Now unless a Clock was injected.
func (r *run) now() int64 {
	if r.clock != nil {
		return r.clock.Now()
	}
	return measure.Now()
}

// measuring decides whether an operation whose reference time (intended
// start with a target rate, actual start otherwise) is ref belongs to the
// measured run.
func (r *run) measuring(ref int64) bool {
	if r.cfg.WarmupOps <= 0 {
		return ref >= r.warmupEnd.Load()
	}
	// Warmup by operation count is decided by the count alone, never by
	// the clock: the first WarmupOps operations asked about are warmup,
	// every later one is measured (a thread asks until it is measured), so
	// warmup is exactly WarmupOps operations however the threads
	// interleave. The operation that takes the count to zero marks the
	// start of measurement for the time series and the time limit.
	left := r.warmLeft.Add(-1)
	if left == 0 {
		now := r.now()
		r.warmupEnd.Store(now)
		if r.onWarmupEnd != nil {
			r.onWarmupEnd(now)
		}
	}
	return left < 0
}

// loop is one client thread. Operation k of the thread is intended to start
// at start + (id/threads + k)·tick: the threads are staggered evenly over
// one tick so the aggregate arrivals are evenly spaced, and a thread that
// falls behind does not sleep until it is back on schedule, so lateness is
// charged to response time instead of being hidden (no coordinated
// omission).
// ops is the thread's share of the operations (-1: no limit). stop ends
// the thread's schedule (the time limit, Ctrl-C); ctx is what
// operations get.
func (r *run) loop(stop, ctx context.Context, t *workload.Thread, id int, ops, start int64) error {
	r.inFlight.Add(1)
	defer r.inFlight.Add(-1)
	var timer *time.Timer
	sched := newSchedule(r.cfg, r.tick, r.threads, id)
	next := sched.first(start)
	rec := t.Recorder()
	if !r.sleepUntil(stop, &timer, start) {
		return nil
	}
	for done := int64(0); ops < 0 || done < ops; {
		// stop.Err is one atomic load; the deadline is also checked
		// directly, so no operation starts after the run's end even when
		// the timer that ends stop fires late on a saturated machine.
		// ctx is checked too: a cancelled parent reaches stop, its child,
		// only after a moment, during which every operation would return
		// at once, cancelled, and be counted abandoned.
		dl := r.deadline.Load()
		if stop.Err() != nil || ctx.Err() != nil || (dl > 0 && r.now() >= dl) {
			return nil
		}
		if r.tick > 0 {
			if dl > 0 && next >= dl {
				// The next slot is past the end: wait for the end, start
				// nothing more.
				r.sleepUntil(stop, &timer, dl)
				return nil
			}
			if !r.sleepUntil(stop, &timer, next) {
				return nil
			}
			t.Intended = next
		}
		if !t.Measuring {
			// Once measured, a thread stays measured: warmup ends once.
			// An unpaced thread reads the clock for this only until then.
			ref := next
			if r.tick == 0 {
				ref = r.now()
			}
			t.Measuring = r.measuring(ref)
		}
		if t.Measuring && r.tick > 0 {
			rec.RecordLag(r.now() - next)
		}
		var err error
		n, slots := int64(1), int64(1)
		switch {
		case r.window > 1 && t.Measuring:
			// Warmup runs one operation at a time, so that an operation
			// count ends it exactly; a window takes as many slots of the
			// schedule as it has operations.
			n = int64(r.window)
			if ops >= 0 {
				n = min(n, ops-done)
			}
			slots = n
			err = t.Window(ctx, int(n))
		case r.batch != nil:
			n = int64(r.cfg.BatchSize)
			if ops >= 0 {
				n = min(n, ops-done)
			}
			err = t.InsertBatch(ctx, r.batch, int(n))
		case r.cfg.Load:
			err = t.Insert(ctx)
		default:
			err = t.Transaction(ctx)
		}
		if err != nil {
			return err
		}
		if t.Measuring {
			done += n
		}
		next = sched.after(next, slots)
	}
	return nil
}

// schedule is one thread's intended starts: evenly spaced, one every
// tick, the threads staggered over one tick (see slot); or with Poisson
// arrivals (arrivals=poisson), spaced by exponential gaps of mean tick
// drawn from the thread's own generator, seeded from the run's seed. With
// stages, the tick follows the rate they ask at each start.
type schedule struct {
	tick     int64
	threads  int
	id       int
	arrivals *rand.Rand // nil: evenly spaced
	stages   []Stage
	start    int64
}

func newSchedule(cfg Config, tick int64, threads, id int) schedule {
	s := schedule{tick: tick, threads: threads, id: id, stages: cfg.Stages}
	if cfg.Poisson && tick > 0 {
		s.arrivals = rand.New(rand.NewPCG(cfg.Seed, uint64(id)+1))
	}
	return s
}

// first is the intended start of the thread's first operation.
func (s *schedule) first(start int64) int64 {
	s.start = start
	switch {
	case s.arrivals != nil:
		return start + s.gap(start, 1)
	case s.stages != nil:
		return start + int64(s.id)*s.tickAt(start)/int64(s.threads)
	}
	return slot(start, s.tick, s.threads, s.id, 0)
}

// after is the intended start of the operation slots after the one
// intended at prev.
func (s *schedule) after(prev, slots int64) int64 {
	switch {
	case s.arrivals != nil:
		return prev + s.gap(prev, slots)
	case s.stages != nil:
		for range slots {
			prev += s.tickAt(prev)
		}
		return prev
	}
	return prev + s.tick*slots
}

// gap is the sum of n exponential gaps of mean tick; with stages, of n
// exponential amounts of the work one tick holds, in the stages' time.
func (s *schedule) gap(at, n int64) int64 {
	var g float64
	for range n {
		g += s.arrivals.ExpFloat64()
	}
	if s.stages != nil {
		return advance(s.stages, time.Duration(at-s.start), g*float64(s.threads)) - (at - s.start)
	}
	return int64(g * float64(s.tick))
}

// tickAt is one thread's time from a start at time at to its next: the
// tick, or with stages the time in which they ask one operation of each
// thread.
func (s *schedule) tickAt(at int64) int64 {
	if s.stages == nil {
		return s.tick
	}
	t := time.Duration(at - s.start)
	return max(advance(s.stages, t, float64(s.threads))-int64(t), 1)
}

// advance is the time (ns from the schedule's start) by which the stages,
// from t on, have asked for ops more operations: the rate is linear within
// each stage, so each stage's part is a quadratic solved exactly. Past the
// last stage its rate goes on; if that is 0, never (the run's end comes
// first).
func advance(st []Stage, t time.Duration, ops float64) int64 {
	var begin time.Duration
	prev := 0.0
	for i, s := range st {
		end := begin + s.Duration
		if t < end {
			from := prev
			if s.Step || i == 0 {
				from = s.Rate
			}
			slope := (s.Rate - from) / s.Duration.Seconds() // per second, per second
			x := max(t, begin)
			r := from + slope*(x-begin).Seconds()
			left := (end - x).Seconds()
			if here := r*left + slope/2*left*left; here < ops {
				ops -= here
			} else {
				var d float64
				if math.Abs(slope) < 1e-12 {
					d = ops / r
				} else {
					d = (-r + math.Sqrt(max(r*r+2*slope*ops, 0))) / slope
				}
				return int64(x) + int64(d*float64(time.Second))
			}
		}
		begin, prev = end, s.Rate
	}
	if prev <= 0 {
		return math.MaxInt64 / 2
	}
	return int64(max(t, begin)) + int64(ops/prev*float64(time.Second))
}

// slot is the intended start of operation k of thread id of threads when
// the schedule starts at start and each thread starts one operation every
// tick: the threads are staggered evenly over one tick, so the aggregate
// arrivals are evenly spaced. It is the whole schedule; loop walks it.
func slot(start, tick int64, threads, id int, k int64) int64 {
	return start + int64(id)*tick/int64(threads) + k*tick
}

// sleepUntil waits for the monotonic time until, returning false if the
// run stopped meanwhile. Long waits use a reusable timer (interruptible, no
// allocation) for all but the last coarseSlack, which is slept with
// fineSleep so operations start within tens of µs of their schedule.
func (r *run) sleepUntil(ctx context.Context, timer **time.Timer, until int64) bool {
	if r.clock != nil {
		return r.clock.SleepUntil(ctx, until)
	}
	d := time.Duration(until - measure.Now())
	if d <= 0 {
		return true
	}
	if r.cfg.SpinSleep {
		for measure.Now() < until {
			if ctx.Err() != nil {
				return false
			}
		}
		return true
	}
	if d > coarseSlack {
		if *timer == nil {
			*timer = time.NewTimer(d - coarseSlack)
		} else {
			(*timer).Reset(d - coarseSlack)
		}
		select {
		case <-(*timer).C:
		case <-ctx.Done():
			(*timer).Stop()
			return false
		}
	}
	if d := time.Duration(until - measure.Now()); d > 0 {
		fineSleep(d)
	}
	return true
}

// coarseSlack is how much of a wait is left to fineSleep: more than the
// timers' granularity.
const coarseSlack = 2 * time.Millisecond
