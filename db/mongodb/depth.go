package mongodb

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// MaxDepth bounds how deep the documents a server answers with nest
// before servbench decodes them: the driver's decoders and its Extended
// JSON writer recurse once a level (a document nested 5,000,000 deep, 40 MB
// within the message bound, overflowed the goroutine's stack, which ends
// the process whatever its memory). MongoDB itself stores no document
// nested more than 100 deep; 200 leaves room for a reply's own levels.
const MaxDepth = 200

// checkDepth walks doc, a BSON document, level by level with a stack of
// its own, and refuses one nested past MaxDepth or whose lengths do not
// hold together (the decoders would refuse it after their recursion).
func checkDepth(doc []byte) error {
	var ends [MaxDepth + 1]int // each open document's end
	depth := 0
	open := func(at int) (int, error) {
		if at+5 > len(doc) {
			return 0, fmt.Errorf("a document cut short")
		}
		n := int(int32(binary.LittleEndian.Uint32(doc[at:])))
		if n < 5 || at+n > len(doc) || (depth > 0 && at+n > ends[depth-1]) {
			return 0, fmt.Errorf("a document's length (%d) past its bytes", n)
		}
		if depth == MaxDepth {
			return 0, fmt.Errorf("a document nested more than %d deep", MaxDepth)
		}
		ends[depth] = at + n - 1 // its closing zero
		depth++
		return at + 4, nil
	}
	i, err := open(0)
	for err == nil && depth > 0 {
		if i >= ends[depth-1] {
			depth--
			i = ends[depth] + 1
			continue
		}
		t := doc[i]
		i++
		k := i
		for k < ends[depth-1] && doc[k] != 0 {
			k++
		}
		if k >= ends[depth-1] {
			return fmt.Errorf("an element's name past its document")
		}
		i = k + 1
		switch t {
		case 0x03, 0x04: // a document, an array
			i, err = open(i)
		case 0x0F: // code with scope: its length, a string, a document
			if i+8 > ends[depth-1] {
				return fmt.Errorf("an element past its document")
			}
			s := int(int32(binary.LittleEndian.Uint32(doc[i+4:])))
			if s < 1 || i+8+s > ends[depth-1] {
				return fmt.Errorf("an element past its document")
			}
			i, err = open(i + 8 + s)
		default:
			v, ok := bsonValueLen(t, doc[i:ends[depth-1]])
			if !ok {
				return fmt.Errorf("an element of type %#x past its document", t)
			}
			i += v
		}
	}
	return err
}

// bsonValueLen is the length of a value of type t (not a document, an
// array or code with scope) at the start of b.
func bsonValueLen(t byte, b []byte) (int, bool) {
	fixed := -1
	switch t {
	case 0x06, 0x0A, 0xFF, 0x7F: // undefined, null, min and max key
		fixed = 0
	case 0x08: // a boolean
		fixed = 1
	case 0x10: // an int32
		fixed = 4
	case 0x01, 0x09, 0x11, 0x12: // a double, a date, a timestamp, an int64
		fixed = 8
	case 0x07: // an ObjectId
		fixed = 12
	case 0x13: // a decimal128
		fixed = 16
	}
	if fixed >= 0 {
		return fixed, fixed <= len(b)
	}
	str := func(extra int) (int, bool) {
		if len(b) < 4 {
			return 0, false
		}
		n := int(int32(binary.LittleEndian.Uint32(b)))
		return 4 + n + extra, n >= 0 && 4+n+extra <= len(b)
	}
	switch t {
	case 0x02, 0x0D, 0x0E: // a string, JavaScript code, a symbol
		return str(0)
	case 0x05: // binary: its length, a subtype, the bytes
		return str(1)
	case 0x0C: // a DB pointer: a string and an ObjectId
		return str(12)
	case 0x0B: // a regular expression: two C strings
		n := 0
		for c := 0; c < 2; c++ {
			for n < len(b) && b[n] != 0 {
				n++
			}
			if n == len(b) {
				return 0, false
			}
			n++
		}
		return n, true
	}
	return 0, false
}

// decode decodes a command's answer into v once its depth is checked.
func decode(res *mongo.SingleResult, v any) error {
	raw, err := res.Raw()
	if err != nil {
		return err
	}
	if err := checkDepth(raw); err != nil {
		return fmt.Errorf("the server's answer: %w", err)
	}
	return bson.Unmarshal(raw, v)
}

// shallow is err with the details of its write errors (a server's errInfo,
// which mongo.WriteError's Error writes out by recursion, a level at a
// time: 5,000,000 levels overflowed the stack) dropped where they nest past
// MaxDepth or do not hold together, said in their message instead. A write
// error held deeper in err than its top makes a new error of its codes.
func shallow(err error) error {
	switch e := err.(type) {
	case mongo.WriteException:
		e.WriteErrors = shallowWrites(e.WriteErrors)
		return e
	case mongo.BulkWriteException:
		errs := make([]mongo.BulkWriteError, len(e.WriteErrors))
		for i, we := range e.WriteErrors {
			we.WriteError = shallowWrite(we.WriteError)
			errs[i] = we
		}
		e.WriteErrors = errs
		return e
	}
	var we mongo.WriteException
	var bwe mongo.BulkWriteException
	deep := false
	if errors.As(err, &we) {
		deep = slices.ContainsFunc(we.WriteErrors, tooDeep)
	}
	if errors.As(err, &bwe) {
		deep = deep || slices.ContainsFunc(bwe.WriteErrors, func(e mongo.BulkWriteError) bool { return tooDeep(e.WriteError) })
	}
	if deep {
		return fmt.Errorf("the server's write errors, their details nested more than %d deep (not written)", MaxDepth)
	}
	return err
}

func shallowWrites(errs mongo.WriteErrors) mongo.WriteErrors {
	out := make(mongo.WriteErrors, len(errs))
	for i, we := range errs {
		out[i] = shallowWrite(we)
	}
	return out
}

// tooDeep says whether we's details nest past MaxDepth or do not hold
// together.
func tooDeep(we mongo.WriteError) bool { return we.Details != nil && checkDepth(we.Details) != nil }

func shallowWrite(we mongo.WriteError) mongo.WriteError {
	if we.Details == nil {
		return we
	}
	if err := checkDepth(we.Details); err != nil {
		we.Message += fmt.Sprintf(" (its details not written: %v)", err)
		we.Details, we.Raw = nil, nil
	}
	return we
}
