package measure

import (
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
)

// Histogram geometry: nanoseconds from 1 ns to one hour at three
// significant digits. Longer values are clamped to one hour.
const (
	LowestNs  = 1
	HighestNs = int64(time.Hour)
	SigFigs   = 3
	maxRecord = HighestNs
)

// NewHistogram returns an empty histogram with the standard geometry.
func NewHistogram() *hdr.Histogram { return hdr.New(LowestNs, HighestNs, SigFigs) }

// Set is a complete set of measurements: for every operation and outcome,
// the service-time histogram (actual start to end) and, when a target rate
// sets an intended start, the response-time histogram (intended start to
// end); plus the schedule lag (how late operations started). Histograms
// are created on first use; nil means nothing was recorded.
type Set struct {
	Service  [NumOps][db.NumStatus]*hdr.Histogram
	Response [NumOps][db.NumStatus]*hdr.Histogram
	Lag      *hdr.Histogram
	// Txns counts transactions (one workload operation each: a
	// READ-MODIFY-WRITE is one, although its READ and UPDATE are measured
	// too) by outcome. Throughput is transactions per second, as YCSB's.
	// Txns[db.Canceled] counts the abandoned ones: cut short because the
	// run was stopped (Ctrl-C), never recorded in a histogram and never
	// counted as failed.
	Txns [db.NumStatus]int64
	// Raw holds every recorded operation when the recorder keeps raw
	// samples (measurementtype=raw), in the order each thread recorded them.
	Raw []Sample
	// Errors holds the first error message seen for each operation and
	// failed outcome, so a failure count comes with its reason.
	Errors [NumOps][db.NumStatus]string
}

// Sample is one recorded operation, kept for raw output.
type Sample struct {
	End      int64 // end of the operation, on the Now clock
	Service  int64 // ns
	Response int64 // ns; -1 when no intended start was set
	Op       Op
	Status   db.Status
}

// Merge adds o into s exactly (bucket counts are summed).
func (s *Set) Merge(o *Set) {
	for op := range o.Service {
		for st := range o.Service[op] {
			mergeInto(&s.Service[op][st], o.Service[op][st])
			mergeInto(&s.Response[op][st], o.Response[op][st])
		}
	}
	mergeInto(&s.Lag, o.Lag)
	for i, n := range o.Txns {
		s.Txns[i] += n
	}
	s.Raw = append(s.Raw, o.Raw...)
	for op := range o.Errors {
		for st, e := range o.Errors[op] {
			if e != "" && s.Errors[op][st] == "" {
				s.Errors[op][st] = e
			}
		}
	}
}

func mergeInto(dst **hdr.Histogram, src *hdr.Histogram) {
	if src == nil || src.TotalCount() == 0 {
		return
	}
	if *dst == nil {
		*dst = NewHistogram()
	}
	(*dst).Merge(src)
}

// Reset empties every histogram, keeping them allocated.
func (s *Set) Reset() {
	for op := range s.Service {
		for st := range s.Service[op] {
			if h := s.Service[op][st]; h != nil {
				h.Reset()
			}
			if h := s.Response[op][st]; h != nil {
				h.Reset()
			}
		}
	}
	if s.Lag != nil {
		s.Lag.Reset()
	}
	s.Txns = [db.NumStatus]int64{}
	s.Raw = s.Raw[:0]
	s.Errors = [NumOps][db.NumStatus]string{}
}

// Count returns how many op operations ended with status st.
func (s *Set) Count(op Op, st db.Status) int64 {
	if h := s.Service[op][st]; h != nil {
		return h.TotalCount()
	}
	return 0
}

// OpCount returns how many op operations were recorded, any outcome.
func (s *Set) OpCount(op Op) int64 {
	var n int64
	for st := range s.Service[op] {
		n += s.Count(op, db.Status(st))
	}
	return n
}

// ClientOps returns the number of transactions, all and successful: what
// throughput counts. Abandoned transactions are not among them.
func (s *Set) ClientOps() (all, ok int64) {
	for st, n := range s.Txns {
		if db.Status(st) == db.Canceled {
			continue
		}
		all += n
		if db.Status(st).IsOK() {
			ok += n
		}
	}
	return all, ok
}

// Merged returns one histogram over the statuses for which pick is true,
// from the service (response=false) or response histograms; nil if empty.
func (s *Set) Merged(op Op, response bool, pick func(db.Status) bool) *hdr.Histogram {
	src := &s.Service[op]
	if response {
		src = &s.Response[op]
	}
	var out *hdr.Histogram
	for st, h := range src {
		if h != nil && h.TotalCount() > 0 && pick(db.Status(st)) {
			mergeInto(&out, h)
		}
	}
	return out
}

// Abandoned returns how many transactions were cut short because the run
// was stopped before they finished.
func (s *Set) Abandoned() int64 { return s.Txns[db.Canceled] }
