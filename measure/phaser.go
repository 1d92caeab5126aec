package measure

import (
	"math"
	"runtime"
	"sync/atomic"
)

// phaser is HdrHistogram's WriterReaderPhaser. A writer brackets each
// recording with enter/exit (two atomic adds, no lock, never waits). The
// reader swaps the active buffer, then flips the phase and waits only until
// writers that entered before the flip have exited, after which the old
// buffer is quiescent and can be read safely.
//
// Writers in the even phase count up from 0 and exit into evenEnd; in the
// odd phase they count up from MinInt64 and exit into oddEnd. The sign of
// the value returned by enter therefore says which end counter to bump.
//
// Each thread's phaser is written on every recording, so it fills cache
// lines of its own (two, as adjacent-line prefetchers pair them): sharing
// one with another thread's phaser made every recording of both threads
// fight over it.
type phaser struct {
	start   atomic.Int64
	evenEnd atomic.Int64
	oddEnd  atomic.Int64
	_       [128 - 3*8]byte
}

func newPhaser() *phaser {
	p := &phaser{}
	p.oddEnd.Store(math.MinInt64)
	return p
}

func (p *phaser) enter() int64 { return p.start.Add(1) - 1 }

func (p *phaser) exit(v int64) {
	if v < 0 {
		p.oddEnd.Add(1)
	} else {
		p.evenEnd.Add(1)
	}
}

// flip must be called by one reader at a time, after it has swapped the
// buffer writers use.
func (p *phaser) flip() {
	nextEven := p.start.Load() < 0
	var initial int64
	if nextEven {
		p.evenEnd.Store(0)
	} else {
		initial = math.MinInt64
		p.oddEnd.Store(initial)
	}
	atFlip := p.start.Swap(initial)
	for {
		var caught bool
		if nextEven {
			caught = p.oddEnd.Load() == atFlip
		} else {
			caught = p.evenEnd.Load() == atFlip
		}
		if caught {
			return
		}
		runtime.Gosched()
	}
}
