package result

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// MaxEntries bounds the entries of each map a result holds of one
// operation (outcomes, their histograms and errors, an interval's failed
// counts): a run has a few outcomes, and an entry takes several times its
// text in memory (36,000,000 outcomes in a 493 MB file ran a reader out
// of memory).
const MaxEntries = 1 << 8

// MaxOps bounds the operations a result names.
const MaxOps = MaxPointOps

// Bounded is a map read from a result, refused past MaxEntries entries as
// it is read, before memory is given to more.
type Bounded[V any] map[string]V

// UnmarshalJSON reads the entries one at a time.
func (m *Bounded[V]) UnmarshalJSON(b []byte) error {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		*m = nil
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return fmt.Errorf("not an object")
	}
	out := Bounded[V]{}
	for n := 0; dec.More(); n++ {
		if n == MaxEntries {
			return fmt.Errorf("more than %d entries", MaxEntries)
		}
		k, err := dec.Token()
		if err != nil {
			return err
		}
		var v V
		if err := dec.Decode(&v); err != nil {
			return err
		}
		out[k.(string)] = v
	}
	*m = out
	return nil
}

// Ops are a result's operations, refused past MaxOps as they are read.
type Ops []OpResult

// UnmarshalJSON reads the operations one at a time.
func (o *Ops) UnmarshalJSON(b []byte) error {
	list, err := decodeList(b, "ops", "operations", MaxOps, func(*OpResult, int) error { return nil })
	*o = list
	return err
}

// decodeList reads a JSON list of T one element at a time, refusing the
// one past max before memory is given to it, and each that check refuses
// (n counts from 1); null is a nil list.
func decodeList[T any](b []byte, field, what string, max int, check func(x *T, n int) error) ([]T, error) {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return nil, fmt.Errorf("%s: not a list", field)
	}
	out := []T{}
	for dec.More() {
		if len(out) == max {
			return nil, fmt.Errorf("%s: more than %d %s", field, max, what)
		}
		var x T
		if err := dec.Decode(&x); err != nil {
			return nil, fmt.Errorf("%s: %d: %w", field, len(out)+1, err)
		}
		if err := check(&x, len(out)+1); err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}
