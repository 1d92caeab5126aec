package pebble

import (
	"context"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
)

// Pebble has no secondary indexes, so the binding keeps one: for every
// record of the indexed table, an empty-valued key
//
//	0xff "ix" 0 table 0 field 0 value 0 key
//
// written in the same batch as the record, so the index is never behind
// the data. The 0xff prefix sorts after every record key (table 0 key), so
// scans never meet index keys. A query is a prefix iteration over
// "… value 0": the keys come in key order, the first Offset are skipped.

// index is the field the workload queries (set before any thread starts).
type index struct {
	table string
	field string
	path  []string
}

// Index declares the queried field; from now on writes to table maintain
// its index keys. Records written before the declaration are not indexed.
func (s *Store) Index(_ context.Context, table string, ix db.Index) (string, error) {
	s.ix = &index{table: table, field: ix.Field, path: ix.Path}
	return "emulated index: Pebble has none; servbench writes an index key per record in the same batch", nil
}

func appendIndexPrefix(dst []byte, ix *index, value []byte) []byte {
	dst = append(dst, 0xff, 'i', 'x', 0)
	dst = append(dst, ix.table...)
	dst = append(dst, 0)
	dst = append(dst, ix.field...)
	dst = append(dst, 0)
	dst = append(dst, value...)
	return append(dst, 0)
}

// indexed returns the index of table, or nil.
func (s *Store) indexed(table string) *index {
	if s.ix != nil && s.ix.table == table {
		return s.ix
	}
	return nil
}

// storedValue returns the indexed value of an encoded record.
func storedValue(ix *index, rec []byte) ([]byte, bool) {
	var top []byte
	found := false
	err := eachField(rec, func(name, value []byte) {
		if !found && string(name) == ix.path[0] {
			top, found = value, true
		}
	})
	if err != nil || !found {
		return nil, false
	}
	if len(ix.path) == 1 {
		return jsondoc.Text(top), true
	}
	v, ok := jsondoc.Lookup(top, ix.path[1:])
	if !ok {
		return nil, false
	}
	return jsondoc.Text(v), true
}

// Query pages through the index keys of q.Value.
func (s *Store) Query(_ context.Context, table string, q *db.Query, dst *db.RecordSet) error {
	ix := s.indexed(table)
	if ix == nil || ix.field != q.Field {
		return fmt.Errorf("pebble: query %s: no index on %s (declared: %v)", q.Field, q.Field, s.ix != nil)
	}
	b := s.getBuf()
	defer s.bufs.Put(b)
	b.b = appendIndexPrefix(b.b[:0], ix, []byte(q.Value))
	lower := len(b.b)
	b.b = append(b.b, b.b[:lower]...)
	b.b[len(b.b)-1] = 1 // the prefix with its final 0 raised to 1: the upper bound
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: b.b[:lower], UpperBound: b.b[lower:]})
	if err != nil {
		return fmt.Errorf("pebble: query %s: %w", q.Value, err)
	}
	skipped := 0
	for ok := it.First(); ok && dst.Len() < q.Limit; ok = it.Next() {
		if skipped < q.Offset {
			skipped++
			continue
		}
		r := dst.Next()
		r.SetKey(it.Key()[lower:])
	}
	if err := it.Close(); err != nil {
		return fmt.Errorf("pebble: query %s: %w", q.Value, err)
	}
	if !q.Documents {
		return nil
	}
	for i := 0; i < dst.Len(); i++ {
		r := dst.Row(i)
		b.b = append(append(append(b.b[:0], table...), 0), r.Key...)
		v, closer, err := s.db.Get(b.b)
		if errors.Is(err, pebble.ErrNotFound) {
			continue // deleted since: the row keeps its key only
		}
		if err != nil {
			return fmt.Errorf("pebble: query %s: read %s: %w", q.Value, r.Key, err)
		}
		err = decodeInto(r, v, nil)
		closer.Close()
		if err != nil {
			return fmt.Errorf("pebble: query %s: read %s: %w", q.Value, r.Key, err)
		}
	}
	return nil
}

// write writes the record rec under k: with no index (ix nil) a plain
// Set; otherwise, in one batch, together with its index key, removing the
// index key of the value the record had before (old, when known and
// different).
func (s *Store) write(ix *index, k, rec []byte, values *db.Record, old []byte, hadOld bool, key string) (err error) {
	if err := s.checkBroken(); err != nil {
		return err
	}
	defer s.guard(&err)
	if ix == nil {
		return s.db.Set(k, rec, s.wo)
	}
	b := s.getBuf()
	defer s.bufs.Put(b)
	batch := s.db.NewBatch()
	defer batch.Close()
	if err := batch.Set(k, rec, nil); err != nil {
		return err
	}
	nv, hasNew := jsondoc.FieldValue(values, ix.path)
	if hadOld && (!hasNew || string(old) != string(nv)) {
		b.b = appendIndexPrefix(b.b[:0], ix, old)
		b.b = append(b.b, key...)
		if err := batch.Delete(b.b, nil); err != nil {
			return err
		}
	}
	if hasNew {
		b.b = appendIndexPrefix(b.b[:0], ix, nv)
		b.b = append(b.b, key...)
		if err := batch.Set(b.b, nil, nil); err != nil {
			return err
		}
	}
	return batch.Commit(s.wo)
}
