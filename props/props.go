// Package props holds YCSB-style properties: key=value pairs read from
// property files (-P) and the command line (-p), each remembering where it
// came from so that a bad value can be reported as "file:line: key: why".
package props

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// Props is an ordered set of properties. Later Set calls override earlier
// ones, which gives YCSB's precedence: files in the order given, then -p.
// Props is not safe for concurrent mutation; read it before the run starts.
//
// Props records every key its readers ask for (Get, String, Int64, ...),
// set or not: after every component has read its configuration, Unread
// names the keys nobody asked for, and Asked the names somebody knows.
type Props struct {
	files []string // the property files loaded, in order
	m     map[string]entry
	mu    sync.Mutex
	asked map[string]bool
}

type entry struct {
	value  string
	source string // "workloads/workloada:12", "-p", "default", ...
}

// New returns an empty set.
func New() *Props { return &Props{m: map[string]entry{}} }

// Of returns the properties of kv, key and value after each other:
// props.Of("recordcount", "1000", "redis.url", "redis://127.0.0.1:6379").
// An odd last key is set empty. Their source in messages is "Go".
func Of(kv ...string) *Props {
	p := New()
	for i := 0; i < len(kv); i += 2 {
		v := ""
		if i+1 < len(kv) {
			v = kv[i+1]
		}
		p.Set(kv[i], v, "Go")
	}
	return p
}

// Set sets key to value, remembering source for error messages.
func (p *Props) Set(key, value, source string) {
	p.m[key] = entry{value: value, source: source}
}

// SetDefault sets key only when it is not set yet.
func (p *Props) SetDefault(key, value, source string) {
	if _, ok := p.m[key]; !ok {
		p.Set(key, value, source)
	}
}

// Delete removes key.
func (p *Props) Delete(key string) { delete(p.m, key) }

// Merge copies every property of q into p, overriding.
func (p *Props) Merge(q *Props) {
	maps.Copy(p.m, q.m)
}

// Clone returns an independent copy.
func (p *Props) Clone() *Props {
	return &Props{m: maps.Clone(p.m), files: slices.Clone(p.files)}
}

// lookup returns key's entry and records that somebody asked for it.
func (p *Props) lookup(key string) (entry, bool) {
	p.mu.Lock()
	if p.asked == nil {
		p.asked = map[string]bool{}
	}
	p.asked[key] = true
	p.mu.Unlock()
	e, ok := p.m[key]
	return e, ok
}

// Unread returns the keys set but never asked for, sorted.
func (p *Props) Unread() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for k := range p.m {
		if !p.asked[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// Asked returns every key somebody asked for, set or not, sorted.
func (p *Props) Asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Sorted(maps.Keys(p.asked))
}

// Get returns the raw value of key.
func (p *Props) Get(key string) (string, bool) {
	e, ok := p.lookup(key)
	return e.value, ok
}

// String returns the value of key or def when unset.
func (p *Props) String(key, def string) string {
	if e, ok := p.lookup(key); ok {
		return e.value
	}
	return def
}

// Source tells where key was set ("" when unset).
func (p *Props) Source(key string) string { return p.m[key].source }

// Files are the property files loaded into p (LoadFile), in order: a
// file whose every key a later one set is still one the run read.
func (p *Props) Files() []string { return slices.Clone(p.files) }

// Each calls f with every key, in order, its value and where it was set,
// without reading them: a key seen so is not asked (Asked).
func (p *Props) Each(f func(key, value, source string)) {
	for _, k := range p.Keys() {
		e := p.m[k]
		f(k, e.value, e.source)
	}
}

// Keys returns every key, sorted.
func (p *Props) Keys() []string {
	return slices.Sorted(maps.Keys(p.m))
}

// Error is a bad property value; it names the property and where it was
// set, so the command line can report it as bad input.
type Error struct{ msg string }

func (e *Error) Error() string { return e.msg }

// Errorf builds an error that names where key was set:
// "workloads/workloada:7: property recordcount: ...".
func (p *Props) Errorf(key, format string, args ...any) error {
	where := p.m[key].source
	msg := fmt.Sprintf(format, args...)
	if where == "" {
		return &Error{fmt.Sprintf("property %s: %s", Name(key), msg)}
	}
	return &Error{fmt.Sprintf("%s: property %s: %s", where, Name(key), msg)}
}

// Name is a property name as a message shows it: quoted when it holds
// anything but printable characters, cut short past 64 bytes.
func Name(key string) string {
	short := Cut(key, 64)
	for _, r := range short {
		if !unicode.IsPrint(r) || r == '"' {
			return strconv.Quote(short)
		}
	}
	if short != key {
		return fmt.Sprintf("%s (%d bytes)", short, len(key))
	}
	return short
}

// Int64 returns key as a whole number, def when unset.
func (p *Props) Int64(key string, def int64) (int64, error) {
	e, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseInt(strings.TrimSpace(e.value), 10, 64)
	if err != nil {
		return 0, p.Errorf(key, "%q is not a whole number", Cut(p.redactValue(key, e.value), 64))
	}
	return v, nil
}

// Int64Min is Int64 with a lower bound.
func (p *Props) Int64Min(key string, def, min int64) (int64, error) {
	v, err := p.Int64(key, def)
	if err == nil && v < min {
		err = p.Errorf(key, "%d is less than %d", v, min)
	}
	return v, err
}

// Int64Range is Int64 within [min, max]: past max, one line naming the
// property and the bound (a size given to a driver: a pool, a count of
// connections, bounded before memory is given to it).
func (p *Props) Int64Range(key string, def, min, max int64) (int64, error) {
	v, err := p.Int64Min(key, def, min)
	if err == nil && v > max {
		err = p.Errorf(key, "%d is more than %d", v, max)
	}
	return v, err
}

// Float returns key as a number, def when unset.
func (p *Props) Float(key string, def float64) (float64, error) {
	e, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(e.value), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, p.Errorf(key, "%q is not a finite number", Cut(p.redactValue(key, e.value), 64))
	}
	return v, nil
}

// FloatRange is Float restricted to [min, max].
func (p *Props) FloatRange(key string, def, min, max float64) (float64, error) {
	v, err := p.Float(key, def)
	if err == nil && (v < min || v > max || v != v) {
		err = p.Errorf(key, "%v is outside %v..%v", v, min, max)
	}
	return v, err
}

// Bool returns key as true or false (any case), def when unset.
func (p *Props) Bool(key string, def bool) (bool, error) {
	e, ok := p.lookup(key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(strings.TrimSpace(e.value)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, p.Errorf(key, "%q is neither true nor false", Cut(p.redactValue(key, e.value), 64))
}

// OneOf returns key's value, which must be one of choices; def when unset.
func (p *Props) OneOf(key, def string, choices ...string) (string, error) {
	v := strings.TrimSpace(p.String(key, def))
	if slices.Contains(choices, v) {
		return v, nil
	}
	return "", p.Errorf(key, "%q is not one of %s", Cut(p.redactValue(key, v), 64), strings.Join(choices, ", "))
}

// Floats returns key as a comma-separated list of numbers.
func (p *Props) Floats(key, def string) ([]float64, error) {
	raw := p.String(key, def)
	var out []float64
	for _, f := range strings.Split(raw, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		v, err := strconv.ParseFloat(f, 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, p.Errorf(key, "%q is not a finite number", Cut(p.redactValue(key, f), 64))
		}
		out = append(out, v)
	}
	return out, nil
}

// Cut shortens a name or value shown in a message to at most n bytes
// (never splitting a character), marking the cut with "…".
func Cut(s string, n int) string {
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}
