package sink

import (
	"fmt"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/result"
)

// measured is what YCSB's text report is written from, read from a
// result document: every operation's histograms by outcome, service and
// response time, CLEANUP's, the schedule lag, the transactions counted
// as the document counts them (failed ones as ERROR, abandoned ones
// apart). Raw samples are no document's: the caller adds a run's own.
func measured(d *result.Doc) (*measure.Set, error) {
	t := &measure.Set{}
	for _, o := range d.Ops {
		op, ok := measure.ParseOp(o.Name)
		if !ok {
			return nil, fmt.Errorf("operation %q: not one servbench measures", o.Name)
		}
		if err := decodeInto(&t.Service[op], o.Histograms, o.Name); err != nil {
			return nil, err
		}
		if err := decodeInto(&t.Response[op], o.ResponseHistograms, o.Name); err != nil {
			return nil, err
		}
	}
	if err := decodeInto(&t.Service[measure.Cleanup], d.CleanupHistograms, measure.Cleanup.String()); err != nil {
		return nil, err
	}
	if s := d.Schedule; s != nil && s.Histogram != "" {
		h, err := result.DecodeHistogram(s.Histogram)
		if err != nil {
			return nil, fmt.Errorf("schedule: %w", err)
		}
		t.Lag = h
	}
	t.Txns[db.OK] = d.OKOperations
	t.Txns[db.Error] = d.Operations - d.OKOperations
	t.Txns[db.Canceled] = d.Abandoned
	return t, nil
}

// decodeInto decodes an operation's histograms by outcome into dst.
func decodeInto(dst *[db.NumStatus]*hdr.Histogram, enc map[string]string, op string) error {
	for name, e := range enc {
		s, ok := db.ParseStatus(name)
		if !ok {
			return fmt.Errorf("%s: outcome %q: not one servbench counts", op, name)
		}
		if e == "" {
			continue
		}
		h, err := result.DecodeHistogram(e)
		if err != nil {
			return fmt.Errorf("%s %s: %w", op, name, err)
		}
		dst[s] = h
	}
	return nil
}
