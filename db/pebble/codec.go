package pebble

import (
	"encoding/binary"
	"errors"

	"github.com/servbench/servbench/db"
)

// A record is stored as a sequence of fields, each
//
//	uvarint(len(name)) name uvarint(len(value)) value
//
// with no header: compact, and decodable without allocation. A document
// (Record.JSON, values that are JSON texts) starts with one 0 byte, which
// cannot begin a field since field names are never empty.

func appendRecord(dst []byte, r *db.Record) []byte {
	if r.JSON {
		dst = append(dst, 0)
	}
	return appendFields(dst, r)
}

func appendFields(dst []byte, r *db.Record) []byte {
	for _, f := range r.Fields() {
		dst = binary.AppendUvarint(dst, uint64(len(f.Name)))
		dst = append(dst, f.Name...)
		dst = binary.AppendUvarint(dst, uint64(len(f.Value)))
		dst = append(dst, f.Value...)
	}
	return dst
}

var errCorrupt = errors.New("corrupt record encoding")

// isJSON reports whether an encoded record is a document.
func isJSON(b []byte) bool { return len(b) > 0 && b[0] == 0 }

// eachField calls fn for every field of an encoded record.
func eachField(b []byte, fn func(name, value []byte)) error {
	if isJSON(b) {
		b = b[1:]
	}
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return errCorrupt
		}
		name := b[k : k+int(n)]
		b = b[k+int(n):]
		n, k = binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return errCorrupt
		}
		fn(name, b[k:k+int(n)])
		b = b[k+int(n):]
	}
	return nil
}

// decodeInto adds the wanted fields (nil = all) of an encoded record to dst.
func decodeInto(dst *db.Record, b []byte, fields []string) error {
	dst.JSON = isJSON(b)
	return eachField(b, func(name, value []byte) {
		if fields == nil || wanted(fields, name) {
			dst.AddBytes(name, value)
		}
	})
}

func wanted(fields []string, name []byte) bool {
	for _, f := range fields {
		if f == string(name) {
			return true
		}
	}
	return false
}

// mergeRecord returns old with the fields of upd set (added or replaced).
func mergeRecord(dst, old []byte, upd *db.Record) ([]byte, error) {
	if isJSON(old) || upd.JSON {
		dst = append(dst, 0)
	}
	err := eachField(old, func(name, value []byte) {
		if _, replaced := upd.Get(string(name)); replaced {
			return
		}
		dst = binary.AppendUvarint(dst, uint64(len(name)))
		dst = append(dst, name...)
		dst = binary.AppendUvarint(dst, uint64(len(value)))
		dst = append(dst, value...)
	})
	return appendFields(dst, upd), err
}
