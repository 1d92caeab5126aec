package runner

import (
	"time"

	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/result"
)

// Result is everything a run measured.
type Result struct {
	Config       Config
	Threads      int       // threads actually used (YCSB clamps to the op count)
	Start        time.Time // when measurement started (after warmup)
	End          time.Time
	Runtime      time.Duration // measured window
	Warmup       time.Duration // how long warmup took
	Total        *measure.Set
	Reason       result.Stop
	Err          error // set when Reason is Failed or LoadFailures
	StuckThreads int   // threads still inside the binding when the run ended
	// Settled is how the run's figures stood against Config.Until when
	// it ended (nil without until).
	Settled *Settled
}

// Abandoned is the number of transactions the run stopped before they
// finished: cut short by Ctrl-C, or still inside the binding when the stop
// grace ran out. They are neither successes nor failures.
func (r *Result) Abandoned() int64 { return r.Total.Abandoned() + int64(r.StuckThreads) }
