package measure

import (
	"runtime"
	"testing"
)

// The runtime's scheduling-latency histogram is read between two
// snapshots: goroutines that waited while the phase ran show.
func TestSchedDelay(t *testing.T) {
	before := SchedSnapshot()
	if before == nil {
		t.Skip("this Go runtime keeps no " + schedMetric)
	}
	done := make(chan struct{})
	for range 4 * runtime.GOMAXPROCS(0) {
		go func() { // busy goroutines: each waits for a core in turn
			for {
				select {
				case <-done:
					return
				default:
					runtime.Gosched()
				}
			}
		}()
	}
	for range 100 {
		runtime.Gosched()
	}
	close(done)
	d := SchedBetween(before, SchedSnapshot())
	if d.Count == 0 || d.P99 <= 0 || d.P50 > d.P99 {
		t.Errorf("scheduling delay %+v: want goroutines counted, a p99, p50 <= p99", d)
	}
	if (SchedBetween(nil, before) != SchedDelay{}) {
		t.Error("a missing snapshot gave a delay")
	}
}
