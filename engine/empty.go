package engine

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/workload"
)

// emptyWorkers is how many deletes Empty keeps in flight.
const emptyWorkers = 16

// Empty deletes the records the load phase s inserts (insertcount keys
// from insertstart, as YCSB numbers them), and the inserted keys after
// them that the runs on the data set may have left (inserted: the most
// inserts a run attempted, numbered as the workload numbers a run's), and returns how many
// it deleted: for a binding that keeps every table's records in one place
// (db.OneTable), where the next data set's load would meet them (a
// Couchbase insert of a key already there fails). No other key is
// touched: keys past those are another's (a data set of the same store
// this plan did not load). A key that is not there is no error; the first
// other failure ends it, with how many were deleted by then.
func (s *Setup) Empty(ctx context.Context, inserted int64) (int64, error) {
	cfg := s.Workload
	// The load's keys, then the run's inserts after them, numbered as the
	// workload numbers them (workload.Workload.Keynum, one client: a
	// spread run's clients' inserts are the first of those numbers).
	keynum := func(i int64) int64 {
		if i < cfg.InsertCount {
			return cfg.InsertStart + i
		}
		g := i - cfg.InsertCount
		return cfg.RecordCount*(1+g/cfg.InsertCount) + cfg.InsertStart + g%cfg.InsertCount
	}
	var deleted atomic.Int64
	err := s.eachKey(ctx, false, cfg.InsertCount+max(inserted, 0), keynum, func(td db.DB, key string) (bool, error) {
		switch err := td.Delete(ctx, cfg.Table, key); {
		case err == nil:
			deleted.Add(1)
		case db.Classify(err, false) != db.NotFound:
			return true, fmt.Errorf("%s: delete %s: %w", s.Spec.Binding, key, err)
		}
		return false, nil
	})
	return deleted.Load(), err
}

// Holds reports a key of the load's that its table already holds (""
// when none is there): a load that would meet keys not its own (a Redis
// insert replaces one silently). Every key is read, emptyWorkers at once.
func (s *Setup) Holds(ctx context.Context) (string, error) {
	cfg := s.Workload
	var found atomic.Pointer[string]
	// A binding that reads a key it never stored as found (BasicDB) holds
	// nothing it can tell: none is reported.
	never := string(workload.AppendKey(nil, cfg.InsertStart, cfg.ZeroPadding, cfg.OrderedInserts)) + "~servbench-absent"
	err := s.eachKey(ctx, true, 1, func(int64) int64 { return 0 }, func(td db.DB, _ string) (bool, error) {
		if err := td.Read(ctx, cfg.Table, never, nil, new(db.Record)); err == nil {
			found.Store(&never)
		}
		return true, nil
	})
	if err != nil || found.Load() != nil {
		return "", err
	}
	err = s.eachKey(ctx, true, cfg.InsertCount, func(i int64) int64 { return cfg.InsertStart + i }, func(td db.DB, key string) (bool, error) {
		switch err := td.Read(ctx, cfg.Table, key, nil, new(db.Record)); {
		case err == nil:
			found.CompareAndSwap(nil, &key)
			return true, nil
		case db.Classify(err, false) != db.NotFound:
			return true, fmt.Errorf("%s: read %s: %w", s.Spec.Binding, key, err)
		}
		return false, nil
	})
	if k := found.Load(); k != nil && err == nil {
		return *k, nil
	}
	return "", err
}

// eachKey opens the binding for a load (its table made first when
// prepare: a table not there yet holds no key, and the load makes it
// anyway) and calls f with the keys of numbers keynum(0) to
// keynum(end-1), emptyWorkers at once, until f says stop (its error the
// first kept), ctx ends or every key is done.
func (s *Setup) eachKey(ctx context.Context, prepare bool, end int64, keynum func(int64) int64, f func(td db.DB, key string) (stop bool, err error)) error {
	o := s.bindingOptions(false)
	o.Load = true
	d, err := s.Binding.Open(ctx, s.Props, o)
	if err != nil {
		return fmt.Errorf("%s: %w", s.Spec.Binding, err)
	}
	defer d.Close()
	if p, ok := d.(db.Preparer); ok && prepare {
		if err := p.Prepare(ctx, s.Workload.Table, true); err != nil {
			return fmt.Errorf("%s: %w", s.Spec.Binding, err)
		}
	}
	cfg := s.Workload
	var next atomic.Int64
	var once sync.Once
	var first error
	fail := func(err error) {
		if err != nil {
			once.Do(func() { first = err })
		}
		next.Store(end)
	}
	var wg sync.WaitGroup
	for range emptyWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			td, done, err := threadOf(ctx, d)
			if err != nil {
				fail(err)
				return
			}
			defer done()
			var key []byte
			for n := next.Add(1) - 1; n < end && ctx.Err() == nil; n = next.Add(1) - 1 {
				key = workload.AppendKey(key[:0], keynum(n), cfg.ZeroPadding, cfg.OrderedInserts)
				if stop, err := f(td, string(key)); stop {
					fail(err)
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
