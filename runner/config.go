// Package runner drives a workload against a binding: one goroutine per
// client thread, each on its own intended-start schedule when a target
// rate is set, with warmup, a run deadline, clean stops on signals, and
// interval snapshots of the measurements.
package runner

import (
	"strconv"
	"strings"
	"time"

	"github.com/servbench/servbench/props"
)

// Config says how to run.
type Config struct {
	// Clock, when set, replaces the real clock for the schedule, the
	// warmup, the time limit and the runtime (tests).
	Clock Clock

	Load    bool    // load phase (inserts) instead of transactions
	Threads int     // client threads (threadcount)
	Rate    float64 // total operations per second; 0 = as fast as possible
	// Poisson spaces each thread's intended starts by exponential gaps of
	// the same mean instead of evenly (arrivals=poisson): arrivals as from
	// many independent users, still each measured from its intended start.
	Poisson bool
	// Stages shape the rate over the run (stages): each moves it linearly
	// from the stage before's rate to its own over its duration, or holds
	// its own (a step); times count from the schedule's start, warmup
	// included. Rate is then their mean, for the record.
	Stages []Stage
	// OpCount is the number of measured operations over all threads
	// (0 = until stopped or MaxExecution, unless None).
	OpCount int64
	// None makes an OpCount of 0 a share of none, not "no limit": a
	// spread phase's client given 0 of a phase's operations (fewer
	// operations than clients) does none and ends at once.
	None         bool
	MaxExecution time.Duration // measured run time limit; 0 = none
	WarmupTime   time.Duration // warmup by time (run phase only)
	WarmupOps    int64         // warmup by operation count (run phase only)
	Interval     time.Duration // time-series and snapshot interval
	SpinSleep    bool          // busy-wait for the schedule instead of sleeping
	Seed         uint64        // random seed; threads derive theirs from it
	StopGrace    time.Duration // how long to wait for threads after a stop
	// BatchSize > 1 makes the load phase insert that many records per call
	// when the binding is a db.BatchInserter (batchsize).
	BatchSize int
	// KeepRaw keeps every measured operation as a sample in the result's
	// Total (measurementtype=raw).
	KeepRaw bool
	// Until stops the run once its figures are sure (a run phase's; nil:
	// none).
	Until *Until
}

// Stage is one part of a shaped load.
type Stage struct {
	Duration time.Duration
	Rate     float64 // operations per second at its end (all threads)
	Step     bool    // the rate is Rate throughout, not a ramp to it
}

// maxStages bounds the stages property.
const maxStages = 10_000

// A target rate (target, a stage's) is 0 or within these, in operations
// per second over all threads: past them a thread's time between
// operations does not fit in nanoseconds (a rate of 1e19 was printed
// negative, one of 1e-300 ran as fast as it could).
const (
	maxRate = 1e12
	minRate = 0.001
)

// parseStages reads stages: SECONDS:RATE[:step],... .
func parseStages(p *props.Props) ([]Stage, error) {
	v := p.String("stages", "")
	if strings.TrimSpace(v) == "" {
		return nil, nil
	}
	parts := strings.Split(v, ",")
	if len(parts) > maxStages {
		return nil, p.Errorf("stages", "%d stages: at most %d", len(parts), maxStages)
	}
	var out []Stage
	for i, part := range parts {
		f := strings.Split(strings.TrimSpace(part), ":")
		bad := func() error {
			return p.Errorf("stages", "stage %d %q: want SECONDS:RATE or SECONDS:RATE:step (60:1000,60:5000:step), RATE 0 or %g to %g", i+1, cut(part), minRate, maxRate)
		}
		if len(f) < 2 || len(f) > 3 || (len(f) == 3 && f[2] != "step") {
			return nil, bad()
		}
		d, err1 := strconv.ParseFloat(f[0], 64)
		r, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil || !(d > 0) || d > 365*86400 || !(r >= 0) || r > maxRate || (r > 0 && r < minRate) {
			return nil, bad()
		}
		out = append(out, Stage{Duration: time.Duration(d * float64(time.Second)), Rate: r, Step: len(f) == 3})
	}
	if total(out) == 0 {
		return nil, p.Errorf("stages", "every stage's rate is 0: nothing would run")
	}
	return out, nil
}

func cut(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// total is the operations the stages ask for over all threads.
func total(st []Stage) float64 {
	var ops, prev float64
	for i, s := range st {
		from := prev
		if s.Step || i == 0 {
			from = s.Rate
		}
		ops += (from + s.Rate) / 2 * s.Duration.Seconds()
		prev = s.Rate
	}
	return ops
}

// span is the stages' whole duration.
func span(st []Stage) time.Duration {
	var d time.Duration
	for _, s := range st {
		d += s.Duration
	}
	return d
}

// ParseConfig reads the runner's properties. load selects the phase; the
// operation count then comes from insertcount/recordcount (see
// workload.Config.InsertCount), which the caller fills in.
func ParseConfig(p *props.Props, load bool) (Config, error) {
	return ParseConfigGiven(p, load, Given{})
}

// Given are typed values that stand for their properties (an
// engine.Spec's fields): each one set (not zero, not nil) is used
// instead of its property, which is then not read.
type Given struct {
	Threads          int            // threadcount (0: not given)
	Rate             *float64       // target (0: none)
	Duration, Warmup *time.Duration // maxexecutiontime, warmuptime (0: none)
	OpCount          *int64         // operationcount (0: no limit)
}

// ParseConfigGiven is ParseConfig with typed values given for some
// properties.
//
// Long: reads the runner's properties one after another, each checked
// where it is read and against those read before it.
func ParseConfigGiven(p *props.Props, load bool, g Given) (Config, error) {
	c := Config{Load: load}
	for key, given := range map[string]bool{"threadcount": g.Threads != 0, "target": g.Rate != nil, "maxexecutiontime": g.Duration != nil,
		"warmuptime": g.Warmup != nil, "operationcount": g.OpCount != nil} {
		if given {
			p.Get(key) // a property the typed value stands for is known, not read
		}
	}
	th, err := int64(g.Threads), error(nil)
	if g.Threads == 0 {
		if th, err = p.Int64Min("threadcount", 1, 1); err != nil {
			return c, err
		}
	}
	if th > 1_000_000 {
		return c, p.Errorf("threadcount", "%d threads is more than a million", th)
	}
	c.Threads = int(th)
	if g.Rate != nil {
		c.Rate = *g.Rate
	} else if c.Rate, err = p.Float("target", 0); err != nil {
		return c, err
	}
	if c.Rate < 0 {
		return c, p.Errorf("target", "must not be negative")
	}
	if c.Rate > maxRate || (c.Rate > 0 && c.Rate < minRate) {
		return c, p.Errorf("target", "%g operations per second: want 0 (none) or %g to %g", c.Rate, minRate, maxRate)
	}
	arrivals, err := p.OneOf("arrivals", "constant", "constant", "poisson")
	if err != nil {
		return c, err
	}
	if c.Stages, err = parseStages(p); err != nil {
		return c, err
	}
	if len(c.Stages) > 0 {
		if c.Rate > 0 {
			return c, p.Errorf("stages", "give target or stages, not both")
		}
		c.Rate = total(c.Stages) / span(c.Stages).Seconds()
	}
	if c.Poisson = arrivals == "poisson"; c.Poisson && c.Rate == 0 {
		return c, p.Errorf("arrivals", "poisson arrivals need a target rate (target, --target)")
	}
	if g.OpCount != nil {
		c.OpCount = *g.OpCount
	} else if c.OpCount, err = p.Int64Min("operationcount", 0, 0); err != nil {
		return c, err
	}
	secs := func(key string, def float64) (time.Duration, error) {
		v, err := p.FloatRange(key, def, 0, 365*86400)
		d := time.Duration(v * float64(time.Second))
		if err == nil && v > 0 && d == 0 { // it would read as none: no limit
			return 0, p.Errorf(key, "%g seconds is less than a nanosecond: give 0 for none, or a nanosecond or more", v)
		}
		return d, err
	}
	if g.Duration != nil {
		c.MaxExecution = *g.Duration
	} else if c.MaxExecution, err = secs("maxexecutiontime", 0); err != nil {
		return c, err
	}
	if g.Warmup != nil {
		c.WarmupTime = *g.Warmup
	} else if c.WarmupTime, err = secs("warmuptime", 0); err != nil {
		return c, err
	}
	if c.WarmupOps, err = p.Int64Min("warmupoperationcount", 0, 0); err != nil {
		return c, err
	}
	if len(c.Stages) > 0 && c.MaxExecution == 0 { // the stages are the run
		if c.MaxExecution = span(c.Stages) - c.WarmupTime; c.MaxExecution <= 0 {
			return c, p.Errorf("warmuptime", "the warmup is as long as the stages or longer: nothing would be measured")
		}
	}
	if c.WarmupTime > 0 && c.WarmupOps > 0 {
		return c, p.Errorf("warmupoperationcount", "give warmuptime or warmupoperationcount, not both")
	}
	if c.Interval, err = secs("timeseries.interval", 1); err != nil {
		return c, err
	}
	if c.Interval < 10*time.Millisecond {
		return c, p.Errorf("timeseries.interval", "must be at least 0.01 seconds")
	}
	if c.SpinSleep, err = p.Bool("spin.sleep", false); err != nil {
		return c, err
	}
	seed, err := p.Int64("randomseed", 0)
	if err != nil {
		return c, err
	}
	c.Seed = uint64(seed)
	if c.StopGrace, err = secs("stopgrace", 5); err != nil {
		return c, err
	}
	bs, err := p.Int64Min("batchsize", 1, 1)
	if err != nil {
		return c, err
	}
	if bs > 100_000 {
		return c, p.Errorf("batchsize", "%d is more than 100000", bs)
	}
	c.BatchSize = int(bs)
	if c.Until, err = readUntil(p, c); err != nil {
		return c, err
	}
	return c, nil
}

// UntilProperties are the properties of Until.
var UntilProperties = []string{"until.throughput", "until.p99", "until.min"}

// readUntil reads until.throughput and until.p99 (percent of the mean;
// 0 or absent: unbounded) and until.min (seconds): nil when neither bound
// is given.
func readUntil(p *props.Props, c Config) (*Until, error) {
	tput, err := p.FloatRange("until.throughput", 0, 0, 100)
	if err != nil {
		return nil, err
	}
	p99, err := p.FloatRange("until.p99", 0, 0, 100)
	if err != nil {
		return nil, err
	}
	if p99 > 0 && p99 < 1 {
		return nil, p.Errorf("until.p99", "%g%% is finer than the 1%% a p99 is judged to: give 1 or more", p99)
	}
	least, err := p.FloatRange("until.min", 0, 0, 365*86400)
	if err != nil {
		return nil, err
	}
	if tput == 0 && p99 == 0 {
		if _, set := p.Get("until.min"); set {
			return nil, p.Errorf("until.min", "belongs to until.throughput or until.p99: give a bound")
		}
		return nil, nil
	}
	key := "until.throughput"
	if tput == 0 {
		key = "until.p99"
	}
	if c.Load {
		return nil, p.Errorf(key, "is a run's: a load ends when its records are in")
	}
	if least > 0 && c.MaxExecution > 0 && time.Duration(least*float64(time.Second)) > c.MaxExecution {
		return nil, p.Errorf("until.min", "%g seconds is longer than maxexecutiontime (%s): the run would end first", least, c.MaxExecution)
	}
	if c.MaxExecution == 0 && c.OpCount == 0 {
		return nil, p.Errorf(key, "give maxexecutiontime (or operationcount): the longest the run may take before its figures are sure")
	}
	return &Until{Throughput: tput / 100, P99: p99 / 100, Min: time.Duration(least * float64(time.Second))}, nil
}
