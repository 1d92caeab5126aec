package db

import "errors"

// Field is one named value of a record.
type Field struct {
	Name  string
	Value []byte
}

// Record is a key and a list of fields, reused from operation to operation
// by one client thread so that steady-state operations allocate nothing:
// Reset keeps the buffers, and Add copies into them. A binding must not keep
// a Record, a key, or a Value after the call returns.
type Record struct {
	Key []byte // set by Scan and Query results; empty otherwise
	// JSON marks values that are JSON texts, the top-level fields of a
	// document ("France" quoted, objects, arrays, numbers): document stores
	// write them as nested values. Otherwise values are opaque bytes.
	JSON   bool
	fields []Field
	n      int
}

// Reset empties the record and keeps its buffers.
func (r *Record) Reset() {
	r.Key = r.Key[:0]
	r.n = 0
	r.JSON = false
}

// Len returns the number of fields.
func (r *Record) Len() int { return r.n }

// Fields returns the fields; the slice is valid until the next Reset.
func (r *Record) Fields() []Field { return r.fields[:r.n] }

// Slot returns the next field for the caller to fill in place (its Value
// truncated to length 0, keeping capacity).
func (r *Record) Slot() *Field {
	if r.n == len(r.fields) {
		r.fields = append(r.fields, Field{})
	}
	f := &r.fields[r.n]
	r.n++
	f.Value = f.Value[:0]
	return f
}

// Add appends a field, copying value. name is kept as is.
func (r *Record) Add(name string, value []byte) {
	f := r.Slot()
	f.Name = name
	f.Value = append(f.Value, value...)
}

// AddBytes appends a field whose name is given as bytes. When the slot
// already holds that name (the usual case when a thread reads records of
// one schema over and over) the name string is reused, not allocated.
func (r *Record) AddBytes(name, value []byte) {
	f := r.Slot()
	if f.Name != string(name) { // compiler does not allocate for this comparison
		f.Name = string(name)
	}
	f.Value = append(f.Value, value...)
}

// Get returns the value of the named field.
func (r *Record) Get(name string) ([]byte, bool) {
	for i := 0; i < r.n; i++ {
		if r.fields[i].Name == name {
			return r.fields[i].Value, true
		}
	}
	return nil, false
}

// SetKey copies key into the record.
func (r *Record) SetKey(key []byte) { r.Key = append(r.Key[:0], key...) }

// RecordSet holds the rows of a scan or a query, reused like Record.
//
// A set given a limit (Limit: the rows the operation asked for) holds no
// more rows than that: Next past it gives one spare record, overwritten by
// the next call, and Over reports it. A server that answers more rows than
// it was asked for (one that ignores LIMIT, or pages without end) so fails
// its operation (ErrPastLimit) instead of taking memory row by row, whatever
// the binding's loop; a binding stops reading its answer once Over says so.
type RecordSet struct {
	rows  []Record
	n     int
	max   int // 0: no bound
	over  bool
	spare Record
}

// ErrPastLimit is the error of an operation whose server answered more
// rows than it asked for (RecordSet.Over): an ERROR.
var ErrPastLimit = errors.New("the server answered more rows than were asked for")

// Reset empties the set and keeps its buffers and its limit.
func (s *RecordSet) Reset() { s.n, s.over = 0, false }

// Limit bounds the rows the set holds to n (0: no bound).
func (s *RecordSet) Limit(n int) { s.max = max(n, 0) }

// Over reports whether Next was called past the limit since Reset.
func (s *RecordSet) Over() bool { return s.over }

// Next returns an empty record appended to the set; past the set's limit,
// the spare record (see RecordSet).
func (s *RecordSet) Next() *Record {
	if s.max > 0 && s.n >= s.max {
		s.over = true
		s.spare.Reset()
		return &s.spare
	}
	if s.n == len(s.rows) {
		s.rows = append(s.rows, Record{})
	}
	r := &s.rows[s.n]
	s.n++
	r.Reset()
	return r
}

// Len returns the number of rows.
func (s *RecordSet) Len() int { return s.n }

// Row returns row i.
func (s *RecordSet) Row(i int) *Record { return &s.rows[i] }
