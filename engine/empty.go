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
// recordcount-1 as YCSB numbers them, and the runs' inserts after them
// that stayed, and returns how many it deleted:
// for a binding that keeps every table's records in one place
// (db.OneTable), where the next data set's load would meet them (a
// Couchbase insert of a key already there fails). The run phases'
// inserts were removed after each run (cleanupinserts). A key that is not
// there is no error; the first other failure ends it, with how many were
// deleted by then.
func (s *Setup) Empty(ctx context.Context) (int64, error) {
	name := s.Spec.Binding
	o := s.bindingOptions(false)
	o.Load = true
	d, err := s.Binding.Open(ctx, s.Props, o)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", name, err)
	}
	defer d.Close()
	cfg := s.Workload
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
			for n := next.Add(1) - 1; n < cfg.RecordCount && ctx.Err() == nil; n = next.Add(1) - 1 {
				key = workload.AppendKey(key[:0], n, cfg.ZeroPadding, cfg.OrderedInserts)
				switch err := td.Delete(ctx, cfg.Table, string(key)); {
				case err == nil:
					deleted.Add(1)
				case db.Classify(err, false) != db.NotFound:
					fail(fmt.Errorf("%s: delete %s: %w", name, key, err))
					next.Store(cfg.RecordCount)
				}
			}
		}()
	}
	wg.Wait()
	// The runs' inserts that stayed (past what cleanupinserts could
	// learn were theirs) follow the loaded keys: deleted until
	// emptyMisses keys in a row are not there.
	if first == nil {
		td, done, err := threadOf(ctx, d)
		if err != nil {
			return deleted.Load(), err
		}
		defer done()
		var key []byte
		// (At most as many again and a million: a binding that says a
		// missing key's delete is done would never miss.)
		for n, misses := cfg.RecordCount, 0; misses < emptyMisses && n < 2*cfg.RecordCount+1<<20 && ctx.Err() == nil; n++ {
			key = workload.AppendKey(key[:0], n, cfg.ZeroPadding, cfg.OrderedInserts)
			switch err := td.Delete(ctx, cfg.Table, string(key)); {
			case err == nil:
				deleted.Add(1)
				misses = 0
			case db.Classify(err, false) == db.NotFound:
				misses++
			default:
				return deleted.Load(), fmt.Errorf("%s: delete %s: %w", name, key, err)
			}
		}
	}
	if first == nil {
		first = ctx.Err()
	}
	return deleted.Load(), first
}

// emptyMisses is how many keys in a row past the loaded ones Empty finds
// missing before it takes the runs' inserts to be gone.
const emptyMisses = 1000
