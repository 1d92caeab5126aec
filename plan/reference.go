package plan

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ReferenceFile is where a plan's published figures are kept in its
// results directory.
const ReferenceFile = "reference.csv"

// Reference is one published figure: a system's throughput on a workload
// at a number of client threads (or over a range of them), with its
// latency where given (a mean, or a bound: "below", "above"), or a runtime in
// seconds, and where it was published. Nodes and Records, when given,
// narrow the measured cells it is set beside.
type Reference struct {
	System, Workload     string
	ThreadsLo, ThreadsHi int // equal unless the text gives a range ("248-496")
	Throughput           float64
	LatencyMs            float64 // 0: not given
	Latency              string  // "mean", "below" (a bound the latency stayed under), "above" (one it exceeded), or ""
	// RuntimeS, when above 0, makes the figure a runtime: the seconds the
	// workload's runs took, summed over the thread counts of the range and
	// over the record counts (all of them unless Records is given); the
	// workload may be "all" or "all-but-e" (Carvalho et al.'s totals).
	RuntimeS float64
	Nodes    int   // 0: the system's largest deployment
	Records  int64 // 0: any
	// FailedPct is the share of operations that failed, in percent;
	// ReadUnits and WriteUnits the capacity units a second the study
	// says were consumed (DynamoDB's): each a number, a range the text
	// gives ("43-58") or an approximate one ("~50").
	FailedPct, ReadUnits, WriteUnits Range
	Source                           string
	Line                             int
}

// A Range is a published figure given as a number (Lo = Hi), a range
// (Lo < Hi) or approximately (About); zero when not given.
type Range struct {
	Lo, Hi float64
	About  bool
}

// Given reports whether the figure was given.
func (r Range) Given() bool { return r.Hi > 0 || r.Lo > 0 }

func (r Range) String() string {
	if !r.Given() {
		return ""
	}
	s := strconv.FormatFloat(r.Lo, 'f', -1, 64)
	if r.Hi != r.Lo {
		s += "–" + strconv.FormatFloat(r.Hi, 'f', -1, 64)
	}
	if r.About {
		s = "~" + s
	}
	return s
}

// Holds reports whether v is within the range (approximate ones within a
// tenth of their value).
func (r Range) Holds(v float64) bool {
	lo, hi := r.Lo, r.Hi
	if r.About {
		lo, hi = lo*0.9, hi*1.1
	}
	return v >= lo && v <= hi
}

// parseRange reads "25", "43-58" or "~50": non-negative, ascending.
func parseRange(v string) (Range, bool) {
	var r Range
	v, r.About = strings.CutPrefix(strings.TrimSpace(v), "~")
	lo, hi, isRange := strings.Cut(v, "-")
	var e1, e2 error
	r.Lo, e1 = strconv.ParseFloat(strings.TrimSpace(lo), 64)
	r.Hi, e2 = r.Lo, nil
	if isRange {
		r.Hi, e2 = strconv.ParseFloat(strings.TrimSpace(hi), 64)
	}
	ok := e1 == nil && e2 == nil && r.Lo >= 0 && r.Hi >= r.Lo && !math.IsInf(r.Hi, 0) && !math.IsNaN(r.Lo) && !math.IsNaN(r.Hi)
	return r, ok
}

// Runtime workloads: every workload, or every one but E.
const (
	AllWorkloads = "all"
	AllButE      = "all-but-e"
)

// referenceColumns are a reference file's columns: the first seven
// required (throughput or runtime_s given per row), the rest optional.
var referenceColumns = []string{"system", "workload", "threads", "throughput", "latency_ms", "latency", "source", "nodes", "records", "runtime_s", "failed_pct", "read_units", "write_units"}

const requiredColumns = 7

// maxReferences bounds a reference file.
const maxReferences = 10_000

// ParseReference reads a CSV of published figures: a header line naming
// the columns (system,workload,threads,throughput,latency_ms,latency,source
// and, where used, nodes, records, runtime_s, in any order) and a row per
// figure; lines starting with # are comments. An error names the file
// and line.
func ParseReference(raw []byte, file string) ([]Reference, error) {
	r := csv.NewReader(bytes.NewReader(withoutComments(raw)))
	r.FieldsPerRecord = -1
	var out []Reference
	var col map[string]int // column name → index in the file
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil { // before FieldPos, which has no record to place
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, fmt.Errorf("%s:%d: %s", file, pe.Line, oneLine(pe.Err.Error()))
			}
			return nil, fmt.Errorf("%s: %s", file, oneLine(err.Error()))
		}
		line, _ := r.FieldPos(0)
		if col == nil {
			if col, err = referenceHeader(rec); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", file, line, err)
			}
			continue
		}
		if len(rec) != len(col) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d as the header", file, line, len(rec), len(col))
		}
		if len(out) >= maxReferences {
			return nil, fmt.Errorf("%s: more than %d figures", file, maxReferences)
		}
		f, err := referenceRow{file: file, line: line, rec: rec, col: col}.figure()
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	if col == nil {
		return nil, fmt.Errorf("%s: no header line (%s, and where used %s)", file, strings.Join(referenceColumns[:requiredColumns], ","), strings.Join(referenceColumns[requiredColumns:], ", "))
	}
	return out, nil
}

// withoutComments returns raw with its comment lines (# first) made
// empty: line numbers stay the file's.
func withoutComments(raw []byte) []byte {
	var lines [][]byte
	for _, l := range bytes.Split(raw, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] == '#' {
			l = nil // kept as an empty line: line numbers stay the file's
		}
		lines = append(lines, l)
	}
	return bytes.Join(lines, []byte("\n"))
}

// referenceRow is one row of a reference file: its fields (rec), the
// header's column indices (col), and where it is, for errors.
type referenceRow struct {
	file string
	line int
	rec  []string
	col  map[string]int
}

// get returns column name's field, trimmed; "" when the file has no
// such column.
func (r referenceRow) get(name string) string {
	if i, ok := r.col[name]; ok {
		return strings.TrimSpace(r.rec[i])
	}
	return ""
}

// bad is the error of column name's field, which is not what is wanted.
func (r referenceRow) bad(name, want string) error {
	return fmt.Errorf("%s:%d: %s %q: want %s", r.file, r.line, name, short(r.get(name)), want)
}

// figure reads the row's figure, and refuses one without a figure, or
// with fields that cannot go together.
func (r referenceRow) figure() (Reference, error) {
	f := Reference{System: r.get("system"), Workload: r.get("workload"), Latency: r.get("latency"), Source: r.get("source"), Line: r.line}
	lo, hi, _ := strings.Cut(r.get("threads"), "-")
	if hi == "" {
		hi = lo
	}
	var e1, e2 error
	f.ThreadsLo, e1 = strconv.Atoi(strings.TrimSpace(lo))
	f.ThreadsHi, e2 = strconv.Atoi(strings.TrimSpace(hi))
	if e1 != nil || e2 != nil || f.ThreadsLo < 1 || f.ThreadsHi < f.ThreadsLo {
		return f, r.bad("threads", "a thread count or a range of them (248-496)")
	}
	if err := r.numbers(&f); err != nil {
		return f, err
	}
	for _, x := range []struct {
		name string
		dst  *Range
		max  float64
	}{{"failed_pct", &f.FailedPct, 100}, {"read_units", &f.ReadUnits, 1e12}, {"write_units", &f.WriteUnits, 1e12}} {
		if v := r.get(x.name); v != "" {
			rg, ok := parseRange(v)
			if !ok || rg.Hi > x.max {
				return f, r.bad(x.name, fmt.Sprintf("a number, a range (43-58) or an approximate one (~50), from 0 to %g", x.max))
			}
			*x.dst = rg
		}
	}
	file, line := r.file, r.line
	if r.get("throughput") == "" && f.RuntimeS == 0 && f.LatencyMs == 0 && !f.FailedPct.Given() && !f.ReadUnits.Given() && !f.WriteUnits.Given() {
		return f, fmt.Errorf("%s:%d: give a throughput, a runtime_s, a latency_ms, a failed_pct, read_units or write_units", file, line)
	}
	if r.get("throughput") != "" && f.RuntimeS > 0 {
		return f, fmt.Errorf("%s:%d: a figure is a throughput or a runtime, not both", file, line)
	}
	if f.Latency != "" && f.Latency != "mean" && f.Latency != "below" && f.Latency != "above" {
		return f, r.bad("latency", "mean, below (a bound it stayed under), above (a bound it exceeded) or nothing")
	}
	if f.System == "" || f.Workload == "" || f.Source == "" {
		return f, fmt.Errorf("%s:%d: give system, workload and source", file, line)
	}
	if f.RuntimeS == 0 && (f.Workload == AllWorkloads || f.Workload == AllButE) {
		return f, fmt.Errorf("%s:%d: workload %s is for runtimes (runtime_s)", file, line, f.Workload)
	}
	return f, nil
}

// numbers reads the row's numbers into f: throughput, latency_ms,
// runtime_s, nodes and records, each left as it is when not given.
func (r referenceRow) numbers(f *Reference) error {
	number := func(name string, dst *float64, want string, ok func(float64) bool) error {
		v := r.get(name)
		if v == "" {
			return nil
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(x, 0) || math.IsNaN(x) || !ok(x) {
			return r.bad(name, want)
		}
		*dst = x
		return nil
	}
	var nodes, records float64
	for _, e := range []error{
		number("throughput", &f.Throughput, "operations per second, 0 or more", func(x float64) bool { return x >= 0 }),
		number("latency_ms", &f.LatencyMs, "milliseconds above 0, or nothing", func(x float64) bool { return x > 0 }),
		number("runtime_s", &f.RuntimeS, "seconds above 0, or nothing", func(x float64) bool { return x > 0 }),
		number("nodes", &nodes, "a cluster size from 1, or nothing", func(x float64) bool { return x >= 1 && x <= 1e6 && x == math.Trunc(x) }),
		number("records", &records, "a record count from 1, or nothing", func(x float64) bool { return x >= 1 && x <= 1e15 && x == math.Trunc(x) }),
	} {
		if e != nil {
			return e
		}
	}
	f.Nodes, f.Records = int(nodes), int64(records)
	return nil
}

// referenceHeader maps each column of a header line to its index.
func referenceHeader(rec []string) (map[string]int, error) {
	col := map[string]int{}
	for i, name := range rec {
		name = strings.TrimSpace(name)
		if !slices.Contains(referenceColumns, name) {
			return nil, fmt.Errorf("column %q: want the header %s (and where used %s)", short(name), strings.Join(referenceColumns[:requiredColumns], ","), strings.Join(referenceColumns[requiredColumns:], ", "))
		}
		if _, dup := col[name]; dup {
			return nil, fmt.Errorf("column %s twice", name)
		}
		col[name] = i
	}
	for _, name := range referenceColumns[:requiredColumns] {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("no column %s: want the header %s (and where used %s)", name, strings.Join(referenceColumns[:requiredColumns], ","), strings.Join(referenceColumns[requiredColumns:], ", "))
		}
	}
	return col, nil
}
