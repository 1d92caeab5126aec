package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
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
	x, err := decodeMap[V](b, MaxEntries)
	*m = x
	return err
}

// MaxSettings bounds a result's properties and server settings: a run's
// are a few hundred.
const MaxSettings = 1 << 14

// Settings are a result's properties or server settings, refused past
// MaxSettings as they are read.
type Settings map[string]string

// UnmarshalJSON reads the entries one at a time.
func (m *Settings) UnmarshalJSON(b []byte) error {
	x, err := decodeMap[string](b, MaxSettings)
	*m = x
	return err
}

// PointOps are an interval's operations by name, kept in the order of
// their names, refused past MaxPointOps. In JSON, an object of them by
// name. A slice, not a map: a map of one operation took 800 bytes an
// interval, and two results of 200,000 intervals merged held 700 MB.
type PointOps []NamedPointOp

// NamedPointOp is an operation of an interval, with its name.
type NamedPointOp struct {
	Name string
	PointOp
}

// Get is the operation named name.
func (m PointOps) Get(name string) (PointOp, bool) {
	if i, ok := m.find(name); ok {
		return m[i].PointOp, true
	}
	return PointOp{}, false
}

// Set makes o the operation named name.
func (m *PointOps) Set(name string, o PointOp) {
	if i, ok := m.find(name); ok {
		(*m)[i].PointOp = o
	} else {
		*m = slices.Insert(*m, i, NamedPointOp{name, o})
	}
}

// find is where name is, or would be, in m.
func (m PointOps) find(name string) (int, bool) {
	return slices.BinarySearchFunc(m, name, func(o NamedPointOp, name string) int { return strings.Compare(o.Name, name) })
}

// MarshalJSON writes the operations as an object, by name.
func (m PointOps) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, o := range m {
		if i > 0 {
			b = append(b, ',')
		}
		k, err := json.Marshal(o.Name)
		if err != nil {
			return nil, err
		}
		v, err := json.Marshal(o.PointOp)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the operations one at a time.
func (m *PointOps) UnmarshalJSON(b []byte) error {
	x, err := decodeMap[PointOp](b, MaxPointOps)
	*m = nil
	for _, k := range slices.Sorted(maps.Keys(x)) {
		*m = append(*m, NamedPointOp{k, x[k]})
	}
	return err
}

// StageOps are a stage's operations, refused past MaxPointOps.
type StageOps map[string]StageOp

// UnmarshalJSON reads the operations one at a time.
func (m *StageOps) UnmarshalJSON(b []byte) error {
	x, err := decodeMap[StageOp](b, MaxPointOps)
	*m = x
	return err
}

// decodeMap reads a JSON object's entries one at a time, refusing the
// one past max before memory is given to it, and a name given twice (an
// outcome's count, an interval's operation: only the last was kept);
// null is a nil map.
func decodeMap[V any](b []byte, max int) (map[string]V, error) {
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	out := map[string]V{}
	for n := 0; dec.More(); n++ {
		if n == max {
			return nil, fmt.Errorf("more than %d entries", max)
		}
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if _, dup := out[k.(string)]; dup {
			return nil, fmt.Errorf("%s: listed twice", cut(k.(string)))
		}
		var v V
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out[k.(string)] = v
	}
	return out, nil
}

// Bounds of a result's lists: a spread phase's clients (a plan's at most
// 10,000), a shaped load's stages, the server-side sources, a source's
// series (the sampler keeps 2,000), a series' points (a day at a tenth of
// a second), the names a source does not answer.
const (
	MaxClientRuns = 1 << 14
	MaxStages     = 1 << 10
	MaxSources    = 1 << 10
	MaxSeries     = 1 << 12
	MaxSamples    = MaxPoints
	MaxNames      = 1 << 10
)

// ClientRunList, StageList, SourceList, SeriesList, SampleList and
// NameList are a result's lists, each refused past its bound as it is read.
type (
	ClientRunList []ClientRun
	StageList     []StageResult
	SourceList    []Source
	SeriesList    []Series
	SampleList    [][2]float64
	NameList      []string
)

func (l *ClientRunList) UnmarshalJSON(b []byte) error {
	x, err := decodeList(b, "client_runs", "clients", MaxClientRuns, func(*ClientRun, int) error { return nil })
	*l = x
	return err
}

func (l *StageList) UnmarshalJSON(b []byte) error {
	x, err := decodeList(b, "stages", "stages", MaxStages, func(*StageResult, int) error { return nil })
	*l = x
	return err
}

func (l *SourceList) UnmarshalJSON(b []byte) error {
	x, err := decodeList(b, "sources", "sources", MaxSources, func(*Source, int) error { return nil })
	*l = x
	return err
}

func (l *SeriesList) UnmarshalJSON(b []byte) error {
	x, err := decodeList(b, "series", "series", MaxSeries, func(*Series, int) error { return nil })
	*l = x
	return err
}

func (l *SampleList) UnmarshalJSON(b []byte) error {
	x, err := decodeList(b, "points", "points", MaxSamples, func(*[2]float64, int) error { return nil })
	*l = x
	return err
}

func (l *NameList) UnmarshalJSON(b []byte) error {
	x, err := decodeList(b, "missing", "names", MaxNames, func(*string, int) error { return nil })
	*l = x
	return err
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
