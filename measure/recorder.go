package measure

import (
	"sync"
	"sync/atomic"

	"github.com/servbench/servbench/db"
)

// Recorder belongs to one client thread. Record never blocks and never
// allocates once each (operation, outcome) histogram exists: it enters the
// phaser, writes into the active Set, and exits.
type Recorder struct {
	// KeepRaw asks the recording thread to keep every operation as a
	// Sample too, with RecordRaw (measurementtype=raw). Set before the
	// first Record.
	KeepRaw bool
	ph      *phaser
	active  atomic.Pointer[Set]
	spare   *Set // owned by the reader
	mu      sync.Mutex
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	r := &Recorder{ph: newPhaser(), spare: &Set{}}
	r.active.Store(&Set{})
	return r
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
	record(&s.Service[op][st], serviceNs)
	if responseNs >= 0 {
		record(&s.Response[op][st], responseNs)
	}
	s.Txns[st] += txns
	r.ph.exit(v)
}

// RecordRaw keeps one operation's sample (when KeepRaw is set).
func (r *Recorder) RecordRaw(sm Sample) {
	v := r.ph.enter()
	s := r.active.Load()
	s.Raw = append(s.Raw, sm)
	r.ph.exit(v)
}

// RecordError keeps err's message as the first one of op failing with
// st, unless one is kept already in this interval: only the first failure
// of each kind per interval formats a message.
func (r *Recorder) RecordError(op Op, st db.Status, err error) {
	v := r.ph.enter()
	s := r.active.Load()
	if s.Errors[op][st] == "" {
		s.Errors[op][st] = err.Error()
	}
	r.ph.exit(v)
}

// RecordTxn counts one finished transaction with its outcome.
func (r *Recorder) RecordTxn(st db.Status) { r.RecordTxns(st, 1) }

// RecordTxns counts n finished transactions (a batch) with one outcome.
func (r *Recorder) RecordTxns(st db.Status, n int64) {
	v := r.ph.enter()
	r.active.Load().Txns[st] += n
	r.ph.exit(v)
}

// RecordLag adds how late (ns) an operation started behind its schedule.
func (r *Recorder) RecordLag(lagNs int64) {
	v := r.ph.enter()
	record(&r.active.Load().Lag, lagNs)
	r.ph.exit(v)
}

// DrainInto moves everything recorded since the last drain into dst (merge)
// and starts a fresh interval. Safe to call while the owner records.
func (r *Recorder) DrainInto(dst *Set) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spare.Reset()
	old := r.active.Swap(r.spare)
	r.ph.flip()
	dst.Merge(old)
	r.spare = old
}
