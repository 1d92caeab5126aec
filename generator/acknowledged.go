package generator

import (
	"errors"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// AckWindow is the number of inserts that may be in flight at once:
// YCSB's AcknowledgedCounterGenerator WINDOW_SIZE, 2^20.
const AckWindow = 1 << 20

// ErrAckWindowFull is returned when more than AckWindow inserts are
// unacknowledged ("Too many unacknowledged insertion keys." in YCSB).
var ErrAckWindowFull = errors.New("too many unacknowledged insertion keys")

// AckCounter hands out insert numbers like Counter but exposes as Last only
// the highest value below which every number has been acknowledged, so
// readers never pick a key whose insert has not finished (YCSB's
// AcknowledgedCounterGenerator). Safe for concurrent use.
type AckCounter struct {
	next   atomic.Int64
	limit  atomic.Int64
	window []atomic.Bool
	mu     sync.Mutex
}

// NewAckCounter returns a counter whose first value is start.
func NewAckCounter(start int64) *AckCounter {
	c := &AckCounter{window: make([]atomic.Bool, AckWindow)}
	c.next.Store(start)
	c.limit.Store(start - 1)
	return c
}

// Next returns the next number to insert; r is unused.
func (c *AckCounter) Next(*rand.Rand) int64 { return c.next.Add(1) - 1 }

// Issued returns the next number Next would return: every number below it
// was handed out.
func (c *AckCounter) Issued() int64 { return c.next.Load() }

// Last returns the highest contiguously acknowledged value.
func (c *AckCounter) Last() int64 { return c.limit.Load() }

// Acknowledge marks v as inserted. The thread that gets the lock advances
// Last across every contiguous acknowledged number; the others leave that
// work to it, as YCSB does with tryLock.
func (c *AckCounter) Acknowledge(v int64) error {
	slot := v & (AckWindow - 1)
	if c.window[slot].Swap(true) {
		return ErrAckWindowFull
	}
	if !c.mu.TryLock() {
		return nil
	}
	defer c.mu.Unlock()
	limit := c.limit.Load()
	beforeFirst := limit
	for index := limit + 1; index != beforeFirst+AckWindow; index++ {
		s := index & (AckWindow - 1)
		if !c.window[s].Load() {
			break
		}
		c.window[s].Store(false)
		limit = index
	}
	c.limit.Store(limit)
	return nil
}
