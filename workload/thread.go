package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
	"unsafe"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/generator"
	"github.com/servbench/servbench/measure"
)

// Thread is one client thread's view of the workload: its random source,
// its generators and the buffers it reuses, so that an operation allocates
// nothing. It is not safe for concurrent use.
type Thread struct {
	w            *Workload
	rnd          *rand.Rand
	keyChooser   generator.Generator
	fieldChooser generator.Generator
	fieldLen     generator.Generator

	db  db.DB
	rec *measure.Recorder

	// Intended is the intended start (measure.Now clock) of the current
	// operation, or -1 when no target rate is set. The runner sets it.
	Intended int64
	// Measuring is false during warmup: operations run but are not recorded.
	Measuring bool

	keyBuf    []byte
	batchKeys [][]byte // one buffer per key of a batch
	batchVals []db.Record
	keyStrs   []string
	valPtrs   []*db.Record
	values    db.Record
	result    db.Record
	rows      db.RecordSet
	verifyBuf []byte
}

// Bind attaches the thread to its binding and recorder.
func (t *Thread) Bind(d db.DB, rec *measure.Recorder) {
	t.db, t.rec, t.Intended = d, rec, -1
}

// Recorder returns the thread's recorder.
func (t *Thread) Recorder() *measure.Recorder { return t.rec }

// Rand returns the thread's random source.
func (t *Thread) Rand() *rand.Rand { return t.rnd }

// key builds the key for a YCSB keynum into the thread's buffer and
// returns it as a string that shares the buffer: valid until the next key
// is built, which is all a binding may assume (see package db).
func (t *Thread) key(keynum int64) string {
	t.keyBuf = AppendKey(t.keyBuf[:0], keynum, t.w.Cfg.ZeroPadding, t.w.Cfg.OrderedInserts)
	return unsafe.String(unsafe.SliceData(t.keyBuf), len(t.keyBuf))
}

// measure records one database call that started at st.
func (t *Thread) measure(ctx context.Context, op measure.Op, err error, st int64) db.Status {
	en := measure.Now()
	s := db.OK
	if err != nil {
		s = db.Classify(err, runEnded(ctx))
	}
	t.recordAt(op, s, st, en)
	return s
}

// countTxn counts one finished transaction.
func (t *Thread) countTxn(s db.Status) {
	if t.Measuring {
		t.rec.RecordTxn(s)
	}
}

// runEnded reports whether the run's context is done or its deadline has
// passed: a client that sets socket deadlines from the context sees them
// expire a moment before the context's own timer marks it done.
func runEnded(ctx context.Context) bool {
	if ctx.Err() != nil {
		return true
	}
	d, ok := ctx.Deadline()
	return ok && !time.Now().Before(d)
}

func (t *Thread) recordAt(op measure.Op, s db.Status, st, en int64) {
	if !t.Measuring {
		return
	}
	resp := int64(-1)
	if t.Intended >= 0 {
		resp = en - t.Intended
	}
	t.rec.Record(op, s, en-st, resp)
}

// buildValues fills t.values with every field (load, insert,
// writeallfields updates).
func (t *Thread) buildValues(key string) *db.Record {
	t.values.Reset()
	for _, name := range t.w.fieldNames {
		t.fillField(t.values.Slot(), key, name)
	}
	return &t.values
}

// buildSingleValue fills t.values with one random field.
func (t *Thread) buildSingleValue(key string) *db.Record {
	t.values.Reset()
	t.fillField(t.values.Slot(), key, t.w.fieldNames[t.fieldChooser.Next(t.rnd)])
	return &t.values
}

func (t *Thread) fillField(f *db.Field, key, name string) {
	f.Name = name
	n := int(t.fieldLen.Next(t.rnd))
	if t.w.Cfg.DataIntegrity {
		f.Value = AppendDeterministicValue(f.Value, key, name, n)
	} else {
		f.Value = appendRandomValue(f.Value, n, t.rnd)
	}
}

func (t *Thread) updateValues(key string) *db.Record {
	if t.w.Cfg.WriteAllFields {
		return t.buildValues(key)
	}
	return t.buildSingleValue(key)
}

// Insert performs one load-phase insert of the next key of the shared key
// sequence, retrying as core_workload_insertion_retry_limit says. It
// returns an error when the insert finally failed and the thread should
// stop (YCSB stops a loading thread on a failed insert unless
// core_workload_insertion_keep_going_on_error is set).
func (t *Thread) Insert(ctx context.Context) error {
	cfg := t.w.Cfg
	keynum := t.w.keySeq.Next(nil)
	key := t.key(keynum)
	values := t.buildValues(key)
	for attempt := int64(0); ; attempt++ {
		st := measure.Now()
		err := t.db.Insert(ctx, cfg.Table, key, values)
		s := t.measure(ctx, measure.Insert, err, st)
		if s.IsOK() {
			t.countTxn(s)
			return nil
		}
		if attempt >= cfg.InsertRetries || ctx.Err() != nil {
			t.countTxn(s)
			if cfg.KeepGoing || s == db.Canceled {
				return nil
			}
			return fmt.Errorf("insert %s: %w", key, err)
		}
		if !t.backoff(ctx) {
			t.countTxn(db.Canceled)
			return nil
		}
	}
}

// backoff waits before an insert retry with YCSB's jittered interval,
// core_workload_insertion_retry_interval × [0.8, 1.2); false when the run
// stopped meanwhile.
func (t *Thread) backoff(ctx context.Context) bool {
	wait := time.Duration(t.w.Cfg.InsertRetryWait * (0.8 + 0.4*t.rnd.Float64()) * float64(time.Second))
	select {
	case <-time.After(wait):
		return true
	case <-ctx.Done():
		return false
	}
}

// InsertBatch inserts the next n keys of the load sequence in one call to
// bi, measured as one BATCH-INSERT and counted as n transactions. Retries
// and stopping follow Insert.
func (t *Thread) InsertBatch(ctx context.Context, bi db.BatchInserter, n int) error {
	cfg := t.w.Cfg
	for len(t.batchKeys) < n {
		t.batchKeys = append(t.batchKeys, nil)
		t.batchVals = append(t.batchVals, db.Record{})
	}
	t.keyStrs, t.valPtrs = t.keyStrs[:0], t.valPtrs[:0]
	for i := 0; i < n; i++ {
		t.batchKeys[i] = AppendKey(t.batchKeys[i][:0], t.w.keySeq.Next(nil), cfg.ZeroPadding, cfg.OrderedInserts)
		key := unsafe.String(unsafe.SliceData(t.batchKeys[i]), len(t.batchKeys[i]))
		v := &t.batchVals[i]
		v.Reset()
		for _, name := range t.w.fieldNames {
			t.fillField(v.Slot(), key, name)
		}
		t.keyStrs = append(t.keyStrs, key)
		t.valPtrs = append(t.valPtrs, v)
	}
	for attempt := int64(0); ; attempt++ {
		st := measure.Now()
		err := bi.BatchInsert(ctx, cfg.Table, t.keyStrs, t.valPtrs)
		s := t.measure(ctx, measure.BatchInsert, err, st)
		if s.IsOK() || attempt >= cfg.InsertRetries || ctx.Err() != nil {
			if t.Measuring {
				t.rec.RecordTxns(s, int64(n))
			}
			if s.IsOK() || cfg.KeepGoing || s == db.Canceled {
				return nil
			}
			return fmt.Errorf("batch insert of %d from %s: %w", n, t.keyStrs[0], err)
		}
		if !t.backoff(ctx) {
			return nil
		}
	}
}

// nextLogical draws the logical number of an existing key (YCSB's
// nextKeynum): never beyond the last acknowledged insert.
func (t *Thread) nextLogical() int64 {
	last := t.w.txInsert.Last()
	if t.keyChooser == nil { // exponential, counted back from the newest key
		for {
			k := last - t.w.exp.Next(t.rnd)
			if k >= 0 {
				return k
			}
		}
	}
	for {
		k := t.keyChooser.Next(t.rnd)
		if k <= last {
			return k
		}
	}
}

func (t *Thread) nextKey() string { return t.key(t.w.keynum(t.nextLogical())) }

// readFields returns the field list for a read: nil (all) unless
// readallfields is off (one random field) or the names are needed.
func (t *Thread) readFields(forRead bool) []string {
	cfg := t.w.Cfg
	if !cfg.ReadAllFields {
		return t.w.singleFields[t.fieldChooser.Next(t.rnd)]
	}
	if forRead && (cfg.DataIntegrity || cfg.ReadAllFieldsByName) {
		return t.w.fieldNames
	}
	return nil
}

// Transaction performs one run-phase operation drawn from the mix. It
// returns an error only when the run cannot go on.
func (t *Thread) Transaction(ctx context.Context) error {
	var s db.Status
	var err error
	switch measure.Op(t.w.ops.Next(t.rnd)) {
	case measure.Read:
		s = t.doRead(ctx)
	case measure.Update:
		s = t.doUpdate(ctx)
	case measure.Insert:
		s, err = t.doInsert(ctx)
	case measure.Scan:
		s = t.doScan(ctx)
	case measure.ReadModifyWrite:
		s = t.doReadModifyWrite(ctx)
	case measure.Delete:
		s = t.doDelete(ctx)
	}
	t.countTxn(s)
	return err
}

func (t *Thread) doRead(ctx context.Context) db.Status {
	key := t.nextKey()
	fields := t.readFields(true)
	t.result.Reset()
	st := measure.Now()
	err := t.db.Read(ctx, t.w.Cfg.Table, key, fields, &t.result)
	s := t.measure(ctx, measure.Read, err, st)
	if t.w.Cfg.DataIntegrity && s != db.Canceled {
		t.verify(key, &t.result)
	}
	return s
}

func (t *Thread) doUpdate(ctx context.Context) db.Status {
	key := t.nextKey()
	values := t.updateValues(key)
	st := measure.Now()
	err := t.db.Update(ctx, t.w.Cfg.Table, key, values)
	return t.measure(ctx, measure.Update, err, st)
}

func (t *Thread) doInsert(ctx context.Context) (db.Status, error) {
	logical := t.w.txInsert.Next(nil)
	key := t.key(t.w.keynum(logical))
	values := t.buildValues(key)
	st := measure.Now()
	err := t.db.Insert(ctx, t.w.Cfg.Table, key, values)
	s := t.measure(ctx, measure.Insert, err, st)
	if err := t.w.txInsert.Acknowledge(logical); err != nil {
		return s, fmt.Errorf("run-phase insert: %w (more than %d inserts in flight)", err, generator.AckWindow)
	}
	return s, nil
}

func (t *Thread) doScan(ctx context.Context) db.Status {
	key := t.nextKey()
	n := int(t.w.scanLen.Next(t.rnd))
	fields := t.readFields(false)
	t.rows.Reset()
	st := measure.Now()
	err := t.db.Scan(ctx, t.w.Cfg.Table, key, n, fields, &t.rows)
	return t.measure(ctx, measure.Scan, err, st)
}

func (t *Thread) doDelete(ctx context.Context) db.Status {
	key := t.nextKey()
	st := measure.Now()
	err := t.db.Delete(ctx, t.w.Cfg.Table, key)
	return t.measure(ctx, measure.Delete, err, st)
}

// doReadModifyWrite reads a record and writes it back, measuring the READ
// and the UPDATE as such and the pair as READ-MODIFY-WRITE, all against the
// same intended start, as YCSB does. Its outcome is the first failure.
func (t *Thread) doReadModifyWrite(ctx context.Context) db.Status {
	cfg := t.w.Cfg
	key := t.nextKey()
	var fields []string
	if !cfg.ReadAllFields {
		fields = t.w.singleFields[t.fieldChooser.Next(t.rnd)]
	}
	values := t.updateValues(key)
	t.result.Reset()
	st := measure.Now()
	err := t.db.Read(ctx, cfg.Table, key, fields, &t.result)
	s := t.measure(ctx, measure.Read, err, st)
	ust := measure.Now()
	err = t.db.Update(ctx, cfg.Table, key, values)
	us := t.measure(ctx, measure.Update, err, ust)
	en := measure.Now()
	if cfg.DataIntegrity && s != db.Canceled {
		t.verify(key, &t.result)
	}
	if s.IsOK() {
		s = us
	}
	t.recordAt(measure.ReadModifyWrite, s, st, en)
	return s
}

// verify checks every field read against its deterministic value and
// records the check as VERIFY: OK, UNEXPECTED_STATE when a value differs,
// ERROR when nothing was read (YCSB's verifyRow).
func (t *Thread) verify(key string, r *db.Record) {
	st := measure.Now()
	s := db.OK
	if r.Len() == 0 {
		s = db.Error
	} else {
		size := int(t.w.Cfg.FieldLength)
		for _, f := range r.Fields() {
			t.verifyBuf = AppendDeterministicValue(t.verifyBuf[:0], key, f.Name, size)
			if string(t.verifyBuf) != string(f.Value) {
				s = db.UnexpectedState
				break
			}
		}
	}
	t.recordAt(measure.Verify, s, st, measure.Now())
}
