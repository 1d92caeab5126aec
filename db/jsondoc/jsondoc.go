// Package jsondoc is the JSON the document-store bindings share for
// document records (db.Record's JSON values): assembling a document from
// its top-level fields, and finding a nested value without decoding the
// whole text, which keeps index maintenance on the load path
// allocation-free.
package jsondoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/servbench/servbench/db"
)

// AppendObject appends r as one JSON object {"name": value, ...}. JSON
// values are copied as they are; opaque values become JSON strings.
func AppendObject(dst []byte, r *db.Record) []byte {
	dst = append(dst, '{')
	for i, f := range r.Fields() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendQuote(dst, f.Name)
		dst = append(dst, ':')
		dst = AppendValue(dst, r, f.Value)
	}
	return append(dst, '}')
}

// AppendValue appends one field value of r as JSON: as it is when r
// holds JSON texts, as a JSON string otherwise.
func AppendValue(dst []byte, r *db.Record, v []byte) []byte {
	if r.JSON {
		return append(dst, v...)
	}
	return appendJSONString(dst, v)
}

func appendJSONString(dst, s []byte) []byte {
	plain := true
	for _, c := range s {
		if c < 0x20 || c == '"' || c == '\\' || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	b, _ := json.Marshal(string(s)) // escapes and replaces invalid UTF-8
	return append(dst, b...)
}

// Lookup returns the raw JSON text of the value at path inside the
// JSON object doc (path[0] a member of doc, path[1] a member of that, and
// so on); false when doc is not an object or the path does not exist.
func Lookup(doc []byte, path []string) ([]byte, bool) {
	v := bytes.TrimSpace(doc)
	for _, name := range path {
		var ok bool
		if v, ok = member(v, name); !ok {
			return nil, false
		}
	}
	return v, true
}

// Text returns the text of a JSON string value, unescaped, or the raw
// text of any other value (a number, true, null).
func Text(v []byte) []byte {
	if len(v) < 2 || v[0] != '"' {
		return v
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1]
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return v
	}
	return []byte(s)
}

// FieldValue returns the value of the dotted path in r as text: the field
// path[0] itself for a one-element path, or the value found inside that
// field's JSON for a longer one. JSON strings are unquoted.
func FieldValue(r *db.Record, path []string) ([]byte, bool) {
	v, ok := r.Get(path[0])
	if !ok {
		return nil, false
	}
	if len(path) > 1 {
		if v, ok = Lookup(v, path[1:]); !ok {
			return nil, false
		}
	}
	if r.JSON || len(path) > 1 {
		return Text(v), true
	}
	return v, true
}

// member finds name in the JSON object obj and returns its value's text.
func member(obj []byte, name string) ([]byte, bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return nil, false
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return nil, false
		}
		kEnd := skipValue(obj, i)
		if kEnd < 0 {
			return nil, false
		}
		key := obj[i:kEnd]
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return nil, false
		}
		vStart := skipSpace(obj, i+1)
		vEnd := skipValue(obj, vStart)
		if vEnd < 0 {
			return nil, false
		}
		if keyEquals(key, name) {
			return obj[vStart:vEnd], true
		}
		i = skipSpace(obj, vEnd)
		if i >= len(obj) || obj[i] != ',' {
			return nil, false
		}
		i++
	}
}

func keyEquals(quoted []byte, name string) bool {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1:len(quoted)-1]) == name
	}
	return string(Text(quoted)) == name
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just after the JSON value starting at i, or
// -1 when the text is malformed.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for i++; i < len(b); i++ {
			switch b[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			case '"':
				e := skipValue(b, i)
				if e < 0 {
					return -1
				}
				i = e - 1
			}
		}
		return -1
	}
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
	}
	return i
}

// AddDocument adds the members of the JSON object doc to dst (only
// those wanted returns true for; wanted nil means all). A YCSB record
// stored as a document has only string members: they are added as their
// text, and null members are left out (a field never written). Any other
// document is added as JSON texts, strings quoted, and dst.JSON is set, so
// FieldValue reads both kinds alike.
func AddDocument(dst *db.Record, doc []byte, wanted func(name []byte) bool) error {
	doc = bytes.TrimSpace(doc)
	allStrings := true
	err := eachMember(doc, func(name, v []byte) {
		if v[0] != '"' && !bytes.Equal(v, null) {
			allStrings = false
		}
	})
	if err != nil {
		return err
	}
	dst.JSON = !allStrings
	return eachMember(doc, func(name, v []byte) {
		if wanted != nil && !wanted(name) {
			return
		}
		switch {
		case !allStrings:
			dst.AddBytes(name, v)
		case v[0] == '"':
			dst.AddBytes(name, Text(v))
		}
	})
}

// Only returns the AddDocument filter that keeps the named fields;
// nil (keep all) for fields == nil.
func Only(fields []string) func(name []byte) bool {
	if fields == nil {
		return nil
	}
	return func(name []byte) bool {
		for _, f := range fields {
			if f == string(name) {
				return true
			}
		}
		return false
	}
}

var null = []byte("null")

var errNotObject = errors.New("not a JSON object")

// eachMember calls fn with the unquoted name and the raw value of every
// member of the JSON object obj.
func eachMember(obj []byte, fn func(name, value []byte)) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errNotObject
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for {
		if i >= len(obj) || obj[i] != '"' {
			return errNotObject
		}
		kEnd := skipValue(obj, i)
		if kEnd < 0 {
			return errNotObject
		}
		name := Text(obj[i:kEnd])
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return errNotObject
		}
		vStart := skipSpace(obj, i+1)
		vEnd := skipValue(obj, vStart)
		if vEnd < 0 || vEnd == vStart {
			return errNotObject
		}
		fn(name, obj[vStart:vEnd])
		i = skipSpace(obj, vEnd)
		if i < len(obj) && obj[i] == '}' {
			return nil
		}
		if i >= len(obj) || obj[i] != ',' {
			return errNotObject
		}
		i = skipSpace(obj, i+1)
	}
}
