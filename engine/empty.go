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

// Empty deletes the records the load phase s inserts, keys 0 to
// recordcount-1 as YCSB numbers them, and the inserted keys after them
// that the runs on the data set may have left (inserted: the most
// inserts a run attempted, its keys recordcount on), and returns how many
// it deleted: for a binding that keeps every table's records in one place
// (db.OneTable), where the next data set's load would meet them (a
// Couchbase insert of a key already there fails). No other key is
// touched: keys past those are another's (a data set of the same store
// this plan did not load). A key that is not there is no error; the first
// other failure ends it, with how many were deleted by then.
func (s *Setup) Empty(ctx context.Context, inserted int64) (int64, error) {
	name := s.Spec.Binding
	o := s.bindingOptions(false)
	o.Load = true
	d, err := s.Binding.Open(ctx, s.Props, o)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	defer d.Close()
	cfg := s.Workload
	end := cfg.RecordCount + max(inserted, 0)
	var next, deleted atomic.Int64
	var once sync.Once
	var first error
	fail := func(err error) { once.Do(func() { first = err }) }
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
				key = workload.AppendKey(key[:0], n, cfg.ZeroPadding, cfg.OrderedInserts)
				switch err := td.Delete(ctx, cfg.Table, string(key)); {
				case err == nil:
					deleted.Add(1)
				case db.Classify(err, false) != db.NotFound:
					fail(fmt.Errorf("%s: delete %s: %w", name, key, err))
					next.Store(end)
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return deleted.Load(), first
}
