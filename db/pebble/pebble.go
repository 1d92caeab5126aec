// Package pebble is the embedded default binding: CockroachDB's Pebble
// LSM store in a local directory. Keys are ordered, so SCAN is a real
// range scan.
package pebble

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"os"
	"sync"
	"sync/atomic"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/vfs"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// Name is the binding's name: engine.Spec{Binding: pebble.Name} runs it (and
// the import that names it registers it).
const Name = "pebble"

func init() { db.Register(Name, binding{}) }

// DataDirProperty makes Pebble a db.Embedded binding: it runs inside the
// client, its store in pebble.dir.
func (binding) DataDirProperty() string { return "pebble.dir" }

type binding struct{}

func (binding) Summary() string {
	return "embedded Pebble store, the default (pebble.dir: temporary unless given; pebble.keep, pebble.sync, pebble.cachesize)"
}

// testFS replaces the file system in tests (nil: the disk).
var testFS vfs.FS

type quiet struct{}

func (quiet) Infof(string, ...any) {}
func (quiet) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pebble: "+format+"\n", args...)
	os.Exit(1)
}

func (binding) Open(_ context.Context, p *props.Props, o db.Options) (db.DB, error) {
	s := &Store{seed: maphash.MakeSeed()}
	var err error
	if s.keep, err = p.Bool("pebble.keep", false); err != nil {
		return nil, err
	}
	syncWrites, err := p.Bool("pebble.sync", false)
	if err != nil {
		return nil, err
	}
	s.wo = pebble.NoSync
	if syncWrites {
		s.wo = pebble.Sync
	}
	cacheSize, err := p.Int64Min("pebble.cachesize", 64<<20, 0)
	if err != nil {
		return nil, err
	}
	dir, given := p.Get("pebble.dir")
	if o.CheckOnly {
		return nil, nil
	}
	if !given || dir == "" {
		if dir, err = os.MkdirTemp("", "servbench-pebble-"); err != nil {
			return nil, fmt.Errorf("pebble: temporary directory: %w", err)
		}
		s.temp = true
	}
	s.dir = dir
	cache := pebble.NewCache(cacheSize)
	defer cache.Unref()
	s.db, err = pebble.Open(dir, &pebble.Options{Cache: cache, Logger: quiet{}, FS: testFS, EventListener: s.stallListener()})
	if err != nil {
		if s.temp {
			os.RemoveAll(dir)
		}
		return nil, fmt.Errorf("pebble: open %s: %w", dir, err)
	}
	return s, nil
}

// Store is an open Pebble database.
type Store struct {
	db   *pebble.DB
	dir  string
	temp bool
	keep bool
	wo   *pebble.WriteOptions
	// stalls counts write stalls and their time (see Sample).
	stalls stallCount

	// Update is read-merge-write; a striped lock keeps two concurrent
	// updates of one key from losing each other's fields. The stripes
	// belong to this binding's concurrency control, not to the harness.
	stripes [256]sync.Mutex
	seed    maphash.Seed
	bufs    sync.Pool

	ix *index // the queried field's index, nil when none is declared

	broken atomic.Pointer[error] // set when a write panicked (see guard)
}

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// Ephemeral reports that the store was created empty for this run (no
// pebble.dir given), so a run phase must load it first.
func (s *Store) Ephemeral() bool { return s.temp }

// ServerVersion names the engine and its module version.
func (s *Store) ServerVersion(context.Context) (string, error) {
	return db.DriverName("Pebble", "github.com/cockroachdb/pebble"), nil
}

type buf struct{ b []byte }

func (s *Store) getBuf() *buf {
	if b, ok := s.bufs.Get().(*buf); ok {
		return b
	}
	return &buf{b: make([]byte, 0, 2048)}
}

// storeKey is table, a zero byte, then key: tables never interleave.
func storeKey(dst []byte, table, key string) []byte {
	dst = append(dst, table...)
	dst = append(dst, 0)
	return append(dst, key...)
}

func (s *Store) Read(_ context.Context, table, key string, fields []string, dst *db.Record) error {
	b := s.getBuf()
	defer s.bufs.Put(b)
	b.b = storeKey(b.b[:0], table, key)
	v, closer, err := s.db.Get(b.b)
	if errors.Is(err, pebble.ErrNotFound) {
		return fmt.Errorf("pebble: read %s: %w", key, db.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("pebble: read %s: %w", key, err)
	}
	defer closer.Close()
	if err := decodeInto(dst, v, fields); err != nil {
		return fmt.Errorf("pebble: read %s: %w", key, err)
	}
	return nil
}

func (s *Store) Scan(_ context.Context, table, start string, count int, fields []string, dst *db.RecordSet) error {
	b := s.getBuf()
	defer s.bufs.Put(b)
	b.b = storeKey(b.b[:0], table, start)
	lower := len(b.b)
	b.b = append(b.b, table...)
	b.b = append(b.b, 1) // every key of table sorts below table+"\x01"
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: b.b[:lower], UpperBound: b.b[lower:]})
	if err != nil {
		return fmt.Errorf("pebble: scan %s: %w", start, err)
	}
	prefix := len(table) + 1
	for ok := it.First(); ok && dst.Len() < count; ok = it.Next() {
		r := dst.Next()
		r.SetKey(it.Key()[prefix:])
		if err := decodeInto(r, it.Value(), fields); err != nil {
			it.Close()
			return fmt.Errorf("pebble: scan %s: %w", start, err)
		}
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("pebble: scan %s: %w", start, err)
	}
	return nil
}

func (s *Store) Insert(_ context.Context, table, key string, values *db.Record) error {
	b := s.getBuf()
	defer s.bufs.Put(b)
	b.b = storeKey(b.b[:0], table, key)
	k := len(b.b)
	b.b = appendRecord(b.b, values)
	if err := s.write(s.indexed(table), b.b[:k], b.b[k:], values, nil, false, key); err != nil {
		return fmt.Errorf("pebble: insert %s: %w", key, err)
	}
	return nil
}

// Update sets the given fields and keeps the others. Updating a missing
// key creates it with those fields (an upsert, as most stores do).
func (s *Store) Update(_ context.Context, table, key string, values *db.Record) error {
	b := s.getBuf()
	defer s.bufs.Put(b)
	b.b = storeKey(b.b[:0], table, key)
	k := len(b.b)
	mu := &s.stripes[maphash.Bytes(s.seed, b.b)%uint64(len(s.stripes))]
	mu.Lock()
	defer mu.Unlock()
	ix := s.indexed(table)
	if ix != nil {
		if _, touched := values.Get(ix.path[0]); !touched {
			ix = nil // the indexed value does not change
		}
	}
	var oldValue []byte
	hadOld := false
	old, closer, err := s.db.Get(b.b[:k])
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		b.b = appendRecord(b.b, values)
	case err != nil:
		return fmt.Errorf("pebble: update %s: %w", key, err)
	default:
		if ix != nil {
			if v, ok := storedValue(ix, old); ok {
				oldValue, hadOld = append([]byte(nil), v...), true
			}
		}
		b.b, err = mergeRecord(b.b, old, values)
		closer.Close()
		if err != nil {
			return fmt.Errorf("pebble: update %s: %w", key, err)
		}
	}
	if err := s.write(ix, b.b[:k], b.b[k:], values, oldValue, hadOld, key); err != nil {
		return fmt.Errorf("pebble: update %s: %w", key, err)
	}
	return nil
}

func (s *Store) Delete(_ context.Context, table, key string) (err error) {
	if err := s.checkBroken(); err != nil {
		return err
	}
	defer s.guard(&err)
	b := s.getBuf()
	defer s.bufs.Put(b)
	b.b = storeKey(b.b[:0], table, key)
	if ix := s.indexed(table); ix != nil {
		if err := s.deleteIndexed(ix, b.b, key); err != nil {
			return fmt.Errorf("pebble: delete %s: %w", key, err)
		}
		return nil
	}
	if err := s.db.Delete(b.b, s.wo); err != nil {
		return fmt.Errorf("pebble: delete %s: %w", key, err)
	}
	return nil
}

// deleteIndexed removes a record and its index key in one batch, under the
// key's stripe lock so a concurrent update cannot re-add a stale entry.
func (s *Store) deleteIndexed(ix *index, k []byte, key string) error {
	mu := &s.stripes[maphash.Bytes(s.seed, k)%uint64(len(s.stripes))]
	mu.Lock()
	defer mu.Unlock()
	batch := s.db.NewBatch()
	defer batch.Close()
	old, closer, err := s.db.Get(k)
	switch {
	case errors.Is(err, pebble.ErrNotFound):
		return nil
	case err != nil:
		return err
	}
	if v, ok := storedValue(ix, old); ok {
		ik := appendIndexPrefix(nil, ix, v)
		if err := batch.Delete(append(ik, key...), nil); err != nil {
			closer.Close()
			return err
		}
	}
	closer.Close()
	if err := batch.Delete(k, nil); err != nil {
		return err
	}
	return batch.Commit(s.wo)
}

// guard turns a panic of Pebble's write path into an error that ends the
// run: Pebble panics when it cannot write its log (a full disk), leaving
// its commit pipeline locked. The store is marked broken, so every later
// write fails at once instead of waiting on that lock.
func (s *Store) guard(err *error) {
	if r := recover(); r != nil {
		e := fmt.Errorf("pebble: %v: %w", r, db.ErrFatal)
		s.broken.CompareAndSwap(nil, &e)
		*err = e
	}
}

// checkBroken returns the error that broke the store, if any.
func (s *Store) checkBroken() error {
	if e := s.broken.Load(); e != nil {
		return *e
	}
	return nil
}

// Close closes the store and removes a temporary directory unless
// pebble.keep is set.
func (s *Store) Close() error {
	var err error
	if broken := s.checkBroken(); broken == nil {
		err = s.db.Close()
	} // a broken store's pipeline is locked: closing it would wait forever
	if s.temp && !s.keep {
		if rerr := os.RemoveAll(s.dir); err == nil {
			err = rerr
		}
	}
	return err
}
