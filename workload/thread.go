package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unsafe"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
	"github.com/servbench/servbench/generator"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/workload/customer"
)

// Thread is one client thread's view of the workload: its random source,
// its generators and the buffers it reuses, so that an operation allocates
// nothing. It is not safe for concurrent use.
type Thread struct {
	w            *Workload
	fatal        error // a db.ErrFatal failure: the run cannot go on
	rnd          *rand.Rand
	vals         valueSource // the bytes of random values
	keyChooser   generator.Generator
	fieldChooser generator.Generator
	fieldLen     generator.Generator

	// Customer documents and queries.
	cust         *customer.Generator
	updChooser   generator.Generator
	qLen, qOff   generator.Generator
	valueChooser generator.Generator
	query        db.Query

	db        db.DB
	querier   db.Querier
	pipeliner db.Pipeliner
	rec       *measure.Recorder

	// Intended is the intended start (measure.Now clock) of the current
	// operation, or -1 when no target rate is set. The runner sets it.
	Intended int64
	// Measuring is false during warmup: operations run but are not recorded.
	Measuring bool
	// txn is set while a transaction of one operation runs: recording the
	// operation counts the transaction too.
	txn bool

	keyBuf    []byte
	batchKeys [][]byte // one buffer per key of a batch
	batchVals []db.Record
	keyStrs   []string
	valPtrs   []*db.Record
	values    db.Record
	result    db.Record
	rows      db.RecordSet
	verifyBuf []byte
	readBack  db.Record
	window    []windowSlot // an explicit pipelining window's operations
	pipeOps   []db.PipelineOp

	// Every operation writes the fields above; threads run on different
	// cores, so the next allocation must not share their cache lines.
	_ [128]byte
}

// Bind attaches the thread to its binding and recorder.
func (t *Thread) Bind(d db.DB, rec *measure.Recorder) {
	t.db, t.rec, t.Intended = d, rec, -1
	t.querier, _ = d.(db.Querier)
	t.pipeliner, _ = d.(db.Pipeliner)
}

// Recorder returns the thread's recorder.
func (t *Thread) Recorder() *measure.Recorder { return t.rec }

// Rand returns the thread's random source.
func (t *Thread) Rand() *rand.Rand { return t.rnd }

// key builds the key for a YCSB keynum into the thread's buffer and
// returns it as a string that shares the buffer: valid until the next key
// is built, which is all a binding may assume (see package db).
func (t *Thread) key(keynum int64) string { return t.keyIn(&t.keyBuf, keynum) }

// keyIn is key built into *buf (a batch's or a window's keys each have
// their own).
func (t *Thread) keyIn(buf *[]byte, keynum int64) string {
	*buf = AppendKey((*buf)[:0], keynum, t.w.Cfg.ZeroPadding, t.w.Cfg.OrderedInserts)
	return unsafe.String(unsafe.SliceData(*buf), len(*buf))
}

// measure records one database call that started at st. A call cut short
// because the run was stopped (CANCELED) is not recorded: its transaction
// is counted as abandoned, never as failed.
func (t *Thread) measure(ctx context.Context, op measure.Op, err error, st int64) db.Status {
	return t.measureAt(ctx, op, err, st, measure.Now())
}

// measureAt is measure for a call that ended at en.
func (t *Thread) measureAt(ctx context.Context, op measure.Op, err error, st, en int64) db.Status {
	s := db.OK
	if err != nil {
		if s = db.Classify(err, runEnded(ctx)); s == db.Canceled {
			return s
		}
		if t.Measuring {
			t.rec.RecordError(op, s, err)
		}
		if errors.Is(err, db.ErrFatal) && t.fatal == nil {
			t.fatal = err
		}
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
	resp := int64(-1)
	if t.Intended >= 0 {
		resp = en - t.Intended
	}
	t.record(op, s, st, en, resp)
}

// record records one operation with its response time (-1: none).
func (t *Thread) record(op measure.Op, s db.Status, st, en, resp int64) {
	if !t.Measuring || s == db.Canceled {
		return
	}
	if t.txn {
		t.rec.RecordTxnOp(op, s, en-st, resp)
		t.txn = false
	} else {
		t.rec.Record(op, s, en-st, resp)
	}
	if t.rec.KeepRaw {
		t.rec.RecordRaw(measure.Sample{End: en, Service: en - st, Response: resp, Op: op, Status: s})
	}
}

// Cleanup ends the thread as YCSB's DBWrapper.cleanup does, measured as
// CLEANUP: it closes the thread's own DB when the binding keeps per-thread
// state (own is true), and otherwise has nothing to release. It is
// recorded with no intended start, as YCSB's CLEANUP outside a schedule.
func (t *Thread) Cleanup(own bool) error {
	st := measure.Now()
	var err error
	if own {
		err = t.db.Close()
	}
	s := db.OK
	if err != nil {
		s = db.Classify(err, false)
	}
	t.Measuring = true
	t.record(measure.Cleanup, s, st, measure.Now(), -1)
	return err
}

// buildValues fills dst with every field of record keynum (load, insert,
// writeallfields updates): YCSB's fields, or the record's customer
// document.
func (t *Thread) buildValues(dst *db.Record, key string, keynum int64) *db.Record {
	if t.cust != nil {
		t.cust.Document(dst, keynum)
		return dst
	}
	dst.Reset()
	for _, name := range t.w.fieldNames {
		t.fillField(dst.Slot(), key, name)
	}
	return dst
}

// buildSingleValue fills dst with one random field.
func (t *Thread) buildSingleValue(dst *db.Record, key string) *db.Record {
	dst.Reset()
	t.fillField(dst.Slot(), key, t.w.fieldNames[t.fieldChooser.Next(t.rnd)])
	return dst
}

func (t *Thread) fillField(f *db.Field, key, name string) {
	f.Name = name
	n := int(t.fieldLen.Next(t.rnd))
	if t.w.Cfg.DataIntegrity {
		f.Value = AppendDeterministicValue(f.Value, key, name, n)
	} else {
		f.Value = appendRandomValue(f.Value, n, &t.vals)
	}
}

// updateValues fills dst for an update of record keynum: every field
// (writeallfields) or one. A customer document gets new values of its
// updatable fields (not doc_id nor address).
func (t *Thread) updateValues(dst *db.Record, key string, keynum int64) *db.Record {
	if t.cust != nil {
		fields := t.w.updAll
		if !t.w.Cfg.WriteAllFields {
			fields = t.w.updSingles[t.updChooser.Next(t.rnd)]
		}
		t.cust.Update(dst, fields, t.rnd.Uint64())
		return dst
	}
	if t.w.Cfg.WriteAllFields {
		return t.buildValues(dst, key, keynum)
	}
	return t.buildSingleValue(dst, key)
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
	values := t.buildValues(&t.values, key, keynum)
	for attempt := int64(0); ; attempt++ {
		st := measure.Now()
		err := t.db.Insert(ctx, cfg.Table, key, values)
		s := t.measure(ctx, measure.Insert, err, st)
		if s.IsOK() {
			t.countTxn(s)
			return nil
		}
		if attempt >= cfg.InsertRetries || ctx.Err() != nil || t.fatal != nil {
			t.countTxn(s)
			if t.fatal != nil {
				return t.fatal
			}
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
		keynum := t.w.keySeq.Next(nil)
		key := t.keyIn(&t.batchKeys[i], keynum)
		t.keyStrs = append(t.keyStrs, key)
		t.valPtrs = append(t.valPtrs, t.buildValues(&t.batchVals[i], key, keynum))
	}
	keys, vals := t.keyStrs, t.valPtrs
	for attempt := int64(0); ; attempt++ {
		st := measure.Now()
		err := bi.BatchInsert(ctx, cfg.Table, keys, vals)
		s := t.measure(ctx, measure.BatchInsert, err, st)
		if failed := notWritten(err, s, len(keys)); failed != nil {
			// The records the batch wrote are done: only the others
			// failed, and only they go again.
			if t.Measuring {
				t.rec.RecordTxns(db.OK, int64(len(keys)-len(failed)))
			}
			for i, j := range failed {
				keys[i], vals[i] = keys[j], vals[j]
			}
			keys, vals = keys[:len(failed)], vals[:len(failed)]
		}
		if s.IsOK() || attempt >= cfg.InsertRetries || ctx.Err() != nil {
			if t.Measuring {
				t.rec.RecordTxns(s, int64(len(keys)))
			}
			if s.IsOK() || cfg.KeepGoing || s == db.Canceled {
				return nil
			}
			return fmt.Errorf("batch insert of %d from %s: %w", len(keys), keys[0], err)
		}
		if !t.backoff(ctx) {
			return nil
		}
	}
}

// notWritten are the indices of the records a batch of n that failed with
// err (status s) did not write, when its binding says which (a
// *db.BatchError naming at least one, each below n and greater than the
// one before); nil otherwise: none, or all of them.
func notWritten(err error, s db.Status, n int) []int {
	var be *db.BatchError
	if err == nil || s == db.Canceled || !errors.As(err, &be) || len(be.Failed) == 0 {
		return nil
	}
	for i, j := range be.Failed {
		if j < 0 || j >= n || (i > 0 && j <= be.Failed[i-1]) {
			return nil
		}
	}
	return be.Failed
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

// nextKey draws an existing key and returns it with its keynum.
func (t *Thread) nextKey() (string, int64) {
	k := t.w.keynum(t.nextLogical())
	return t.key(k), k
}

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
	return t.transaction(ctx, measure.Op(t.w.ops.Next(t.rnd)))
}

func (t *Thread) transaction(ctx context.Context, op measure.Op) error {
	var s db.Status
	var err error
	// A transaction of one operation is counted when that operation is
	// recorded; READ-MODIFY-WRITE (three measurements, the outcome of the
	// first failure), a cancelled operation and warmup are counted here.
	t.txn = op != measure.ReadModifyWrite
	switch op {
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
	case measure.Query:
		s = t.doQuery(ctx)
	}
	if t.txn || op == measure.ReadModifyWrite {
		t.countTxn(s)
	}
	t.txn = false
	if t.fatal != nil {
		return t.fatal
	}
	return err
}

func (t *Thread) doRead(ctx context.Context) db.Status {
	key, keynum := t.nextKey()
	fields := t.readFields(true)
	t.result.Reset()
	st := measure.Now()
	err := t.db.Read(ctx, t.w.Cfg.Table, key, fields, &t.result)
	s := t.measure(ctx, measure.Read, err, st)
	if t.w.Cfg.DataIntegrity && s != db.Canceled {
		t.verify(key, keynum, &t.result)
	}
	return s
}

func (t *Thread) doUpdate(ctx context.Context) db.Status {
	key, keynum := t.nextKey()
	values := t.updateValues(&t.values, key, keynum)
	st := measure.Now()
	err := t.db.Update(ctx, t.w.Cfg.Table, key, values)
	return t.measure(ctx, measure.Update, err, st)
}

func (t *Thread) doInsert(ctx context.Context) (db.Status, error) {
	logical := t.w.txInsert.Next(nil)
	keynum := t.w.keynum(logical)
	key := t.key(keynum)
	values := t.buildValues(&t.values, key, keynum)
	st := measure.Now()
	err := t.db.Insert(ctx, t.w.Cfg.Table, key, values)
	s := t.measure(ctx, measure.Insert, err, st)
	if err := t.w.txInsert.Acknowledge(logical); err != nil {
		return s, fmt.Errorf("run-phase insert: %w (more than %d inserts in flight)", err, generator.AckWindow)
	}
	return s, nil
}

func (t *Thread) doScan(ctx context.Context) db.Status {
	key, _ := t.nextKey()
	n := int(t.w.scanLen.Next(t.rnd))
	fields := t.readFields(false)
	t.rows.Reset()
	t.rows.Limit(n)
	st := measure.Now()
	err := t.db.Scan(ctx, t.w.Cfg.Table, key, n, fields, &t.rows)
	if err == nil && t.rows.Over() {
		err = pastLimit("scan", key, n)
	}
	return t.measure(ctx, measure.Scan, err, st)
}

func (t *Thread) doDelete(ctx context.Context) db.Status {
	key, _ := t.nextKey()
	st := measure.Now()
	err := t.db.Delete(ctx, t.w.Cfg.Table, key)
	return t.measure(ctx, measure.Delete, err, st)
}

// pastLimit is the error of a scan or query whose server answered more
// than the n rows it was asked for (db.RecordSet.Over).
func pastLimit(op, key string, n int) error {
	return fmt.Errorf("%s %s: %w (%d)", op, key, db.ErrPastLimit, n)
}

// doReadModifyWrite reads a record and writes it back, measuring the READ
// and the UPDATE as such and the pair as READ-MODIFY-WRITE, all against the
// same intended start, as YCSB does. Its outcome is the first failure.
func (t *Thread) doReadModifyWrite(ctx context.Context) db.Status {
	cfg := t.w.Cfg
	key, keynum := t.nextKey()
	var fields []string
	if !cfg.ReadAllFields {
		fields = t.w.singleFields[t.fieldChooser.Next(t.rnd)]
	}
	values := t.updateValues(&t.values, key, keynum)
	t.result.Reset()
	st := measure.Now()
	err := t.db.Read(ctx, cfg.Table, key, fields, &t.result)
	s := t.measure(ctx, measure.Read, err, st)
	ust := measure.Now()
	err = t.db.Update(ctx, cfg.Table, key, values)
	us := t.measure(ctx, measure.Update, err, ust)
	en := measure.Now()
	if cfg.DataIntegrity && s != db.Canceled {
		t.verify(key, keynum, &t.result)
	}
	if s.IsOK() {
		s = us
	}
	t.recordAt(measure.ReadModifyWrite, s, st, en)
	return s
}

// verify checks every field read against its deterministic value and
// records the check as VERIFY: OK, UNEXPECTED_STATE when a value differs,
// ERROR when nothing was read (YCSB's verifyRow). A customer document is
// checked by its identity: doc_id and address.country, which updates
// never change, must be record keynum's.
func (t *Thread) verify(key string, keynum int64, r *db.Record) {
	st := measure.Now()
	s := db.OK
	switch {
	case r.Len() == 0:
		s = db.Error
	case t.cust != nil:
		s = t.checkDocument(keynum, r)
	default:
		size := int(t.w.Cfg.FieldLength)
		for _, f := range r.Fields() {
			t.verifyBuf = AppendDeterministicValue(t.verifyBuf[:0], key, f.Name, size)
			if string(t.verifyBuf) != string(f.Value) {
				s = db.UnexpectedState
				break
			}
		}
	}
	t.record(measure.Verify, s, st, measure.Now(), -1) // YCSB measures VERIFY's service time only
}

var countryPath = strings.Split(customer.FilterField, ".")

// checkDocument checks the identity of customer document keynum: its
// doc_id and address.country, when read.
func (t *Thread) checkDocument(keynum int64, r *db.Record) db.Status {
	if v, ok := r.Get("doc_id"); ok {
		t.verifyBuf = strconv.AppendInt(t.verifyBuf[:0], keynum, 10)
		if string(jsondoc.Text(v)) != string(t.verifyBuf) {
			return db.UnexpectedState
		}
	}
	if _, ok := r.Get(countryPath[0]); ok {
		if v, ok := jsondoc.FieldValue(r, countryPath); !ok || string(v) != customer.Country(keynum) {
			return db.UnexpectedState
		}
	}
	return db.OK
}

// doQuery runs one query: a value drawn uniformly from the list, OFFSET and
// LIMIT from their generators (the Altoros fork's doTransactionQuery1).
func (t *Thread) doQuery(ctx context.Context) db.Status {
	q := &t.query
	vi := int(t.valueChooser.Next(t.rnd))
	q.Value = t.w.Cfg.QueryValues[vi]
	q.Offset = int(t.qOff.Next(t.rnd))
	q.Limit = int(t.qLen.Next(t.rnd))
	t.rows.Reset()
	t.rows.Limit(q.Limit)
	st := measure.Now()
	err := t.querier.Query(ctx, t.w.Cfg.Table, q, &t.rows)
	if err == nil && t.rows.Over() {
		err = pastLimit("query", q.Value, q.Limit)
	}
	s := t.measure(ctx, measure.Query, err, st)
	if t.w.Cfg.DataIntegrity && s.IsOK() {
		st := measure.Now()
		t.record(measure.Verify, t.checkQuery(ctx, vi), st, measure.Now(), -1)
	}
	return s
}

// checkQuery verifies the result of the last query: at most LIMIT rows; as
// many as the loaded data guarantees (a value that n loaded documents have
// yields min(LIMIT, n − OFFSET) rows at least: run-phase inserts can only
// add matches); and the rows match. With documents in the result every row
// is checked; with ids only, one row drawn at random is read back. A
// matching row has the filtered value and, for customer documents, the
// doc_id whose key it was returned under.
func (t *Thread) checkQuery(ctx context.Context, vi int) db.Status {
	q := &t.query
	n := t.rows.Len()
	if n > q.Limit {
		return db.UnexpectedState
	}
	if c := t.w.valueCount; c != nil && c[vi] >= 0 {
		if int64(n) < min(int64(q.Limit), max(0, c[vi]-int64(q.Offset))) {
			return db.UnexpectedState
		}
	}
	if n == 0 {
		return db.OK
	}
	if q.Documents {
		for i := 0; i < n; i++ {
			if s := t.checkMatch(t.rows.Row(i)); s != db.OK {
				return s
			}
		}
		return db.OK
	}
	row := t.rows.Row(t.rnd.IntN(n))
	key := unsafe.String(unsafe.SliceData(row.Key), len(row.Key))
	t.readBack.Reset()
	if err := t.db.Read(ctx, t.w.Cfg.Table, key, t.w.verifyFields, &t.readBack); err != nil {
		switch db.Classify(err, runEnded(ctx)) {
		case db.Canceled:
			return db.Canceled
		case db.NotFound:
			return db.UnexpectedState // an id that does not exist
		}
		if t.Measuring {
			t.rec.RecordError(measure.Verify, db.Error, err)
		}
		return db.Error
	}
	t.readBack.SetKey(row.Key)
	return t.checkMatch(&t.readBack)
}

// checkMatch checks one row of a query result (its Key set).
func (t *Thread) checkMatch(r *db.Record) db.Status {
	q := &t.query
	if v, ok := jsondoc.FieldValue(r, q.Path); !ok || string(v) != q.Value {
		return db.UnexpectedState
	}
	if t.cust == nil {
		return db.OK
	}
	v, ok := r.Get("doc_id")
	if !ok {
		return db.UnexpectedState
	}
	n, err := strconv.ParseInt(string(jsondoc.Text(v)), 10, 64)
	if err != nil {
		return db.UnexpectedState
	}
	c := t.w.Cfg
	t.verifyBuf = AppendKey(t.verifyBuf[:0], n, c.ZeroPadding, c.OrderedInserts)
	if string(t.verifyBuf) != string(r.Key) {
		return db.UnexpectedState
	}
	return db.OK
}

// windowSlot holds one operation of a pipelining window.
type windowSlot struct {
	key            []byte
	keynum         int64
	values, result db.Record
}

// Window performs n run-phase transactions drawn from the mix, handing the
// reads and updates among them to the binding's Pipeliner together (an
// explicit pipelining window): each is measured from the exchange's start
// to its end, as redis-benchmark -P measures its requests, and from the
// window's intended start with a target rate. Any other operation
// (insert, scan, read-modify-write, delete, query) first sends the
// operations drawn before it, then runs alone. It returns an error only
// when the run cannot go on.
func (t *Thread) Window(ctx context.Context, n int) error {
	if len(t.window) < n {
		t.window = make([]windowSlot, n)
		t.pipeOps = make([]db.PipelineOp, n)
	}
	k := 0
	for i := 0; i < n; i++ {
		op := measure.Op(t.w.ops.Next(t.rnd))
		if op != measure.Read && op != measure.Update {
			t.send(ctx, k)
			k = 0
			if err := t.transaction(ctx, op); err != nil {
				return err
			}
			continue
		}
		w := &t.window[k]
		w.keynum = t.w.keynum(t.nextLogical())
		key := t.keyIn(&w.key, w.keynum)
		po := &t.pipeOps[k]
		*po = db.PipelineOp{Key: key}
		if op == measure.Read {
			po.Fields = t.readFields(true)
			w.result.Reset()
			po.Result = &w.result
		} else {
			po.Values = t.updateValues(&w.values, key, w.keynum)
		}
		k++
	}
	t.send(ctx, k)
	return t.fatal
}

// send hands the window's first k operations to the binding and records
// each with the exchange's times.
func (t *Thread) send(ctx context.Context, k int) {
	if k == 0 {
		return
	}
	ops := t.pipeOps[:k]
	st := measure.Now()
	t.pipeliner.Pipeline(ctx, t.w.Cfg.Table, ops)
	en := measure.Now()
	for i := range ops {
		op := measure.Update
		if ops[i].Values == nil {
			op = measure.Read
		}
		t.txn = true
		s := t.measureAt(ctx, op, ops[i].Err, st, en)
		if t.txn { // not recorded (cancelled, or warmup): count it here
			t.countTxn(s)
		}
		t.txn = false
		if op == measure.Read && t.w.Cfg.DataIntegrity && s != db.Canceled {
			t.verify(ops[i].Key, t.window[i].keynum, ops[i].Result)
		}
	}
}
