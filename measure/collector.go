package measure

import "sync"

// Collector owns the recorders of a run and turns them into interval
// snapshots and a cumulative total.
type Collector struct {
	mu    sync.Mutex
	recs  []*Recorder
	total Set
	iv    Set
}

// NewRecorder creates and registers a recorder for one thread.
func (c *Collector) NewRecorder() *Recorder {
	r := NewRecorder()
	c.mu.Lock()
	c.recs = append(c.recs, r)
	c.mu.Unlock()
	return r
}

// Tick drains every recorder: the returned Set holds what was recorded
// since the previous Tick, and it is added to the total. The returned Set
// is reused by the next Tick.
func (c *Collector) Tick() *Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.iv.Reset()
	for _, r := range c.recs {
		r.DrainInto(&c.iv)
	}
	c.total.Merge(&c.iv)
	return &c.iv
}

// Total returns the cumulative set as of the last Tick. The caller must
// not modify it.
func (c *Collector) Total() *Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	return &c.total
}
