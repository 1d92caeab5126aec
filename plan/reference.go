package plan

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// ReferenceFile is where a plan's published figures are kept in its
// results directory.
const ReferenceFile = "reference.csv"

// Reference is one published figure: a system's throughput on a workload
// at a number of client threads (or over a range of them), with its
// latency where given (a mean, or a bound: "below"), and where it was
// published.
type Reference struct {
	System, Workload     string
	ThreadsLo, ThreadsHi int // equal unless the text gives a range ("248-496")
	Throughput           float64
	LatencyMs            float64 // 0: not given
	Latency              string  // "mean", "below" (a bound the latency stayed under), or ""
	Source               string
	Line                 int
}

var referenceHeader = []string{"system", "workload", "threads", "throughput", "latency_ms", "latency", "source"}

// maxReferences bounds a reference file.
const maxReferences = 10_000

// ParseReference reads a CSV of published figures: a header line
// system,workload,threads,throughput,latency_ms,latency,source and a row
// per figure; lines starting with # are comments. An error names the file
// and line.
func ParseReference(raw []byte, file string) ([]Reference, error) {
	var lines [][]byte
	for _, l := range bytes.Split(raw, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] == '#' {
			l = nil // kept as an empty line: line numbers stay the file's
		}
		lines = append(lines, l)
	}
	r := csv.NewReader(bytes.NewReader(bytes.Join(lines, []byte("\n"))))
	r.FieldsPerRecord = -1
	var out []Reference
	header := false
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		line, _ := r.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %s", file, oneLine(err.Error()))
		}
		if !header {
			if strings.Join(rec, ",") != strings.Join(referenceHeader, ",") {
				return nil, fmt.Errorf("%s:%d: want the header %s", file, line, strings.Join(referenceHeader, ","))
			}
			header = true
			continue
		}
		if len(rec) != len(referenceHeader) {
			return nil, fmt.Errorf("%s:%d: %d fields, want %d (%s)", file, line, len(rec), len(referenceHeader), strings.Join(referenceHeader, ","))
		}
		if len(out) >= maxReferences {
			return nil, fmt.Errorf("%s: more than %d figures", file, maxReferences)
		}
		f := Reference{System: rec[0], Workload: rec[1], Latency: rec[5], Source: rec[6], Line: line}
		bad := func(col int, want string) error {
			return fmt.Errorf("%s:%d: %s %q: want %s", file, line, referenceHeader[col], short(rec[col]), want)
		}
		lo, hi, _ := strings.Cut(rec[2], "-")
		if hi == "" {
			hi = lo
		}
		var e1, e2 error
		f.ThreadsLo, e1 = strconv.Atoi(strings.TrimSpace(lo))
		f.ThreadsHi, e2 = strconv.Atoi(strings.TrimSpace(hi))
		if e1 != nil || e2 != nil || f.ThreadsLo < 1 || f.ThreadsHi < f.ThreadsLo {
			return nil, bad(2, "a thread count or a range of them (248-496)")
		}
		if f.Throughput, e1 = strconv.ParseFloat(rec[3], 64); e1 != nil || !(f.Throughput >= 0) || math.IsInf(f.Throughput, 0) {
			return nil, bad(3, "operations per second, 0 or more")
		}
		if rec[4] != "" {
			if f.LatencyMs, e1 = strconv.ParseFloat(rec[4], 64); e1 != nil || !(f.LatencyMs > 0) || math.IsInf(f.LatencyMs, 0) {
				return nil, bad(4, "milliseconds above 0, or nothing")
			}
		}
		if f.Latency != "" && f.Latency != "mean" && f.Latency != "below" {
			return nil, bad(5, "mean, below (a bound it stayed under) or nothing")
		}
		if f.System == "" || f.Workload == "" || f.Source == "" {
			return nil, fmt.Errorf("%s:%d: give system, workload and source", file, line)
		}
		out = append(out, f)
	}
	if !header {
		return nil, fmt.Errorf("%s: no header line (%s)", file, strings.Join(referenceHeader, ","))
	}
	return out, nil
}
