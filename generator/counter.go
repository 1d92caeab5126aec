package generator

import (
	"math/rand/v2"
	"sync/atomic"
)

// Counter hands out start, start+1, ... to all threads (YCSB's
// CounterGenerator). It is safe for concurrent use.
type Counter struct{ next atomic.Int64 }

// NewCounter returns a counter whose first value is start.
func NewCounter(start int64) *Counter {
	c := &Counter{}
	c.next.Store(start)
	return c
}

// Next returns the next value; r is unused.
func (c *Counter) Next(*rand.Rand) int64 { return c.next.Add(1) - 1 }

// Last returns the last value handed out (start-1 before the first).
func (c *Counter) Last() int64 { return c.next.Load() - 1 }
