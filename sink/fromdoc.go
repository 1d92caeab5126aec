package sink

import (
	"fmt"
	"io"
	"slices"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// FromDoc rebuilds, from a result document (a merged one, say), what the
// text report is written from: every operation's histograms by outcome,
// service and response time, the schedule lag, the transactions. What a
// document does not keep is left out: raw samples, CLEANUP, the count of
// each failed transaction's outcome (failed transactions count as ERROR).
func FromDoc(d *result.Doc) (*runner.Result, error) {
	t := &measure.Set{}
	for _, o := range d.Ops {
		op, ok := measure.ParseOp(o.Name)
		if !ok {
			return nil, fmt.Errorf("operation %q: not one servbench measures", o.Name)
		}
		for _, c := range []struct {
			enc map[string]string
			dst *[measure.NumOps][db.NumStatus]*hdr.Histogram
		}{{o.Histograms, &t.Service}, {o.ResponseHistograms, &t.Response}} {
			for name, e := range c.enc {
				s, ok := db.ParseStatus(name)
				if !ok {
					return nil, fmt.Errorf("%s: outcome %q: not one servbench counts", o.Name, name)
				}
				if e == "" {
					continue
				}
				h, err := result.DecodeHistogram(e)
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", o.Name, name, err)
				}
				c.dst[op][s] = h
			}
		}
		for name, msg := range o.Errors {
			if s, ok := db.ParseStatus(name); ok {
				t.Errors[op][s] = msg
			}
		}
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
	return &runner.Result{
		Config: runner.Config{Rate: d.Rate}, Threads: d.Threads, Start: d.Start, End: d.End,
		Runtime: time.Duration(d.RuntimeMs * float64(time.Millisecond)), Warmup: time.Duration(d.WarmupMs * float64(time.Millisecond)),
		Total: t, Reason: d.Stop,
	}, nil
}

// FromMerged is a spread phase's merged result d as its outputs see it:
// the document as it is, and YCSB's text report written from it alone, as
// the phase's measurement properties o ask (what a document does not keep,
// raw samples and CLEANUP, is left out).
func FromMerged(d *result.Doc, o Options) Ended { return merged{d, o} }

type merged struct {
	d *result.Doc
	o Options
}

func (m merged) Doc() *result.Doc    { return m.d }
func (m merged) Raw(io.Writer) error { return nil }
func (m merged) Text(w io.Writer) error {
	res, err := FromDoc(m.d)
	if err != nil {
		return err
	}
	o := m.o
	o.Kinds = slices.DeleteFunc(slices.Clone(o.Kinds), func(k Kind) bool { return k == KindRaw })
	o.TimeSeries = nil
	return WriteText(w, res, o)
}
