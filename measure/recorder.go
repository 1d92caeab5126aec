package measure

import (
	"sync"
	"sync/atomic"

	"github.com/servbench/servbench/db"
)

// Recorder belongs to one client thread. Record never blocks and never
// allocates once the chunk of each (operation, outcome) histogram that a
// value falls in exists: it enters the phaser, writes into the active
// buffer, and exits. Its histograms are sparse (a few kilobytes each,
// see sparse) and become HdrHistograms when drained, exactly.
type Recorder struct {
	// KeepRaw asks the recording thread to keep every operation as a
	// Sample too, with RecordRaw (measurementtype=raw). Set before the
	// first Record.
	KeepRaw bool
	ph      *phaser
	active  atomic.Pointer[threadSet]
	spare   *threadSet // owned by the reader
	mu      sync.Mutex
}

// threadSet is what one thread recorded in one interval: a Set whose
// histograms are sparse.
type threadSet struct {
	service  [NumOps][db.NumStatus]*sparse
	response [NumOps][db.NumStatus]*sparse
	lag      *sparse
	txns     [db.NumStatus]int64
	raw      []Sample
	errors   [NumOps][db.NumStatus]string
}

func put(sp **sparse, v int64) {
	s := *sp
	if s == nil {
		s = &sparse{}
		*sp = s
	}
	s.record(v)
}

// mergeInto adds t into dst exactly and empties t, keeping what it
// allocated.
func (t *threadSet) mergeInto(dst *Set) {
	for op := range t.service {
		for st := range t.service[op] {
			t.service[op][st].addTo(&dst.Service[op][st])
			t.service[op][st].reset()
			t.response[op][st].addTo(&dst.Response[op][st])
			t.response[op][st].reset()
		}
	}
	t.lag.addTo(&dst.Lag)
	t.lag.reset()
	for i, n := range t.txns {
		dst.Txns[i] += n
	}
	t.txns = [db.NumStatus]int64{}
	dst.Raw = append(dst.Raw, t.raw...)
	t.raw = t.raw[:0]
	for op := range t.errors {
		for st, e := range t.errors[op] {
			if e != "" && dst.Errors[op][st] == "" {
				dst.Errors[op][st] = e
			}
		}
	}
	t.errors = [NumOps][db.NumStatus]string{}
}

// bytes is what t's histograms hold in memory.
func (t *threadSet) bytes() int64 {
	n := t.lag.bytes()
	for op := range t.service {
		for st := range t.service[op] {
			n += t.service[op][st].bytes() + t.response[op][st].bytes()
		}
	}
	return n
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	r := &Recorder{ph: newPhaser(), spare: &threadSet{}}
	r.active.Store(&threadSet{})
	return r
}

// HistogramBytes is what the recorder's histograms hold in memory now,
// both interval buffers; for the reader (tests, the memory check's
// figures), not while the thread records.
func (r *Recorder) HistogramBytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.active.Load().bytes() + r.spare.bytes()
}

// Record adds one operation. responseNs < 0 means no intended start was
// set (no target rate), so only service time is recorded.
func (r *Recorder) Record(op Op, st db.Status, serviceNs, responseNs int64) {
	r.put(op, st, serviceNs, responseNs, 0)
}

// RecordTxnOp is Record and RecordTxn in one step, for an operation that
// is a whole transaction: one pass through the phaser instead of two.
func (r *Recorder) RecordTxnOp(op Op, st db.Status, serviceNs, responseNs int64) {
	r.put(op, st, serviceNs, responseNs, 1)
}

// put records one operation and counts txns transactions with its
// outcome, in one pass through the phaser.
func (r *Recorder) put(op Op, st db.Status, serviceNs, responseNs, txns int64) {
	v := r.ph.enter()
	s := r.active.Load()
	put(&s.service[op][st], serviceNs)
	if responseNs >= 0 {
		put(&s.response[op][st], responseNs)
	}
	s.txns[st] += txns
	r.ph.exit(v)
}

// RecordRaw keeps one operation's sample (when KeepRaw is set).
func (r *Recorder) RecordRaw(sm Sample) {
	v := r.ph.enter()
	s := r.active.Load()
	s.raw = append(s.raw, sm)
	r.ph.exit(v)
}

// RecordError keeps err's message as the first one of op failing with
// st, unless one is kept already in this interval: only the first failure
// of each kind per interval formats a message.
func (r *Recorder) RecordError(op Op, st db.Status, err error) {
	v := r.ph.enter()
	s := r.active.Load()
	if s.errors[op][st] == "" {
		s.errors[op][st] = err.Error()
	}
	r.ph.exit(v)
}

// RecordTxn counts one finished transaction with its outcome.
func (r *Recorder) RecordTxn(st db.Status) { r.RecordTxns(st, 1) }

// RecordTxns counts n finished transactions (a batch) with one outcome.
func (r *Recorder) RecordTxns(st db.Status, n int64) {
	v := r.ph.enter()
	r.active.Load().txns[st] += n
	r.ph.exit(v)
}

// RecordLag adds how late (ns) an operation started behind its schedule.
func (r *Recorder) RecordLag(lagNs int64) {
	v := r.ph.enter()
	put(&r.active.Load().lag, lagNs)
	r.ph.exit(v)
}

// DrainInto moves everything recorded since the last drain into dst (merge)
// and starts a fresh interval. Safe to call while the owner records.
func (r *Recorder) DrainInto(dst *Set) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.active.Swap(r.spare)
	r.ph.flip()
	old.mergeInto(dst)
	r.spare = old
}
