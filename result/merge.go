package result

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Merge combines the results of clients that ran at the same time against
// the same system (several load machines) into one result.
//
// Histograms are added exactly, per operation and outcome, and every
// latency figure is recomputed from the sums. Throughput is summed over
// the common window W = [latest start, earliest end]: client i contributes
// the operations its time series places inside W (an interval straddling
// an edge counts pro rata by its overlap), divided by |W|. A client
// without a time series contributes its whole-run throughput. The merged
// result keeps no time series.
func Merge(docs []*Doc) (*Doc, error) {
	if len(docs) < 2 {
		return nil, errors.New("merge: give two results or more")
	}
	if err := complete(docs); err != nil {
		return nil, err
	}
	first := docs[0]
	from, to := first.Start, first.End
	for i, d := range docs {
		if d.Format != Format {
			return nil, fmt.Errorf("merge: result %d is not a servbench result", i+1)
		}
		if d.Command != first.Command || d.Binding != first.Binding || d.Workload != first.Workload {
			return nil, fmt.Errorf("merge: result %d is %s %s %s, result 1 is %s %s %s: only runs of one experiment merge",
				i+1, d.Command, d.Binding, d.Workload, first.Command, first.Binding, first.Workload)
		}
		if d.Driver != first.Driver {
			return nil, fmt.Errorf("merge: result %d used driver %q, result 1 %q: only runs of one experiment merge", i+1, d.Driver, first.Driver)
		}
		for j, e := range docs[:i] {
			if id := sharedRun(e, d); id != "" {
				return nil, fmt.Errorf("merge: results %d and %d both hold run %s: give each client's result once, and a merged result without its clients", j+1, i+1, id)
			}
			if e.Start.Equal(d.Start) && e.End.Equal(d.End) && e.Seed == d.Seed && e.Operations == d.Operations && e.Label == d.Label {
				return nil, fmt.Errorf("merge: results %d and %d are the same run: give each client's result once", j+1, i+1)
			}
		}
		if d.Start.After(from) {
			from = d.Start
		}
		if d.End.Before(to) {
			to = d.End
		}
	}
	window := to.Sub(from)
	if window <= 0 {
		return nil, errors.New("merge: the runs did not overlap in time; merge only clients that ran together")
	}
	m := &Doc{
		Format: Format, Version: FormatVersion, Environment: first.Environment,
		Command: first.Command, Binding: first.Binding, Server: first.Server, Driver: first.Driver, Workload: first.Workload,
		QueryModel: first.QueryModel, Properties: first.Properties, Rate: 0, Seed: first.Seed,
		Start: from, End: to, RuntimeMs: ms(window), Stop: first.Stop, HistogramUnit: "ns",
		Clients: len(docs),
	}
	var labels []string
	ops := map[string]*OpResult{}
	var order []string
	service := map[string]map[string]*hdr.Histogram{}
	response := map[string]map[string]*hdr.Histogram{}
	var lag *hdr.Histogram
	var late int64
	var sum counts
	for i, d := range docs {
		m.Threads += d.Threads
		m.Rate += d.Rate
		sum.add(&m.Operations, d.Operations)
		sum.add(&m.OKOperations, d.OKOperations)
		m.Stuck += d.Stuck
		sum.add(&m.Abandoned, d.Abandoned)
		m.ClientCPUS += d.ClientCPUS
		if len(d.ClientRuns) > 0 { // merged already
			m.ClientRuns = append(m.ClientRuns, d.ClientRuns...)
		} else {
			m.ClientRuns = append(m.ClientRuns, d.clientRun())
		}
		m.Throughput += windowThroughput(d, from, to)
		if !d.Stop.Finished() {
			m.Stop = d.Stop
		}
		if d.Label != "" && !slices.Contains(labels, d.Label) { // a spread phase's clients share theirs
			labels = append(labels, d.Label)
		}
		for _, o := range d.Ops {
			r, ok := ops[o.Name]
			if !ok {
				r = &OpResult{Name: o.Name, Outcomes: map[string]int64{}, Histograms: map[string]string{}}
				ops[o.Name] = r
				order = append(order, o.Name)
				service[o.Name], response[o.Name] = map[string]*hdr.Histogram{}, map[string]*hdr.Histogram{}
			}
			sum.add(&r.Count, o.Count)
			for s, n := range o.Outcomes {
				v := r.Outcomes[s]
				sum.add(&v, n)
				r.Outcomes[s] = v
			}
			if err := addAll(service[o.Name], o.Histograms); err != nil {
				return nil, fmt.Errorf("merge: result %d, %s: %w", i+1, o.Name, err)
			}
			if err := addAll(response[o.Name], o.ResponseHistograms); err != nil {
				return nil, fmt.Errorf("merge: result %d, %s: %w", i+1, o.Name, err)
			}
		}
		if d.Schedule != nil && d.Schedule.Histogram != "" {
			h, err := DecodeHistogram(d.Schedule.Histogram)
			if err != nil {
				return nil, fmt.Errorf("merge: result %d, schedule: %w", i+1, err)
			}
			if lag == nil {
				lag = h
			} else {
				lag.Merge(h)
			}
			sum.add(&late, d.Schedule.Late)
			m.Schedule = &Schedule{LateThreshold: d.Schedule.LateThreshold}
		}
	}
	if sum.overflow {
		return nil, errors.New("merge: the results' counts add up to more than a count can hold")
	}
	var ids []string
	for _, c := range m.ClientRuns {
		if c.ID != "" {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) == len(m.ClientRuns) {
		m.ID = mergedID(ids)
	}
	m.Label = strings.Join(labels, "+")
	if m.Operations > 0 {
		m.Goodput = m.Throughput * float64(m.OKOperations) / float64(m.Operations)
	}
	for _, name := range order {
		r := ops[name]
		pick := func(set map[string]*hdr.Histogram, ok bool) *hdr.Histogram {
			var out *hdr.Histogram
			for s, h := range set {
				if Succeeded(s) != ok {
					continue
				}
				if out == nil {
					out = hdr.Import(h.Export())
				} else {
					out.Merge(h)
				}
			}
			return out
		}
		r.Latency, r.LatencyFailed = Summarize(pick(service[name], true), DefaultPercentiles), Summarize(pick(service[name], false), DefaultPercentiles)
		r.Response, r.ResponseFailed = Summarize(pick(response[name], true), DefaultPercentiles), Summarize(pick(response[name], false), DefaultPercentiles)
		for s, h := range service[name] {
			r.Histograms[s] = Encode(h)
		}
		for s, h := range response[name] {
			if r.ResponseHistograms == nil {
				r.ResponseHistograms = map[string]string{}
			}
			r.ResponseHistograms[s] = Encode(h)
		}
		m.Ops = append(m.Ops, *r)
	}
	sort.SliceStable(m.Ops, func(i, j int) bool { return opRank(m.Ops[i].Name) < opRank(m.Ops[j].Name) })
	if lag != nil {
		m.Schedule.Lag, m.Schedule.Histogram, m.Schedule.Late = Summarize(lag, DefaultPercentiles), Encode(lag), late
	}
	series, err := mergeSeries(docs, from)
	if err != nil {
		return nil, err
	}
	m.Series = series
	return m, nil
}

// mergeSeries merges the clients' time series by wall clock: the k-th
// interval after from (the latest start) of every client is one interval
// of the merged series, counts and histograms added and latencies
// recomputed. Only intervals that every client measured are kept, and
// only when all the clients have intervals of one length: otherwise there
// is no merged series. (The clients of a spread phase start together and
// share their interval, so theirs line up within the clocks' offsets.)
func mergeSeries(docs []*Doc, from time.Time) ([]Point, error) {
	width := 0.0
	for _, d := range docs {
		if len(d.Series) == 0 {
			return nil, nil
		}
		w := d.Series[0].EndS - d.Series[0].StartS
		if width == 0 {
			width = w
		}
		if w <= 0 || math.Abs(w-width) > width/100 {
			return nil, nil
		}
	}
	type acc struct {
		clients int
		p       Point
		hist    map[string]*hdr.Histogram
	}
	at := map[int]*acc{}
	var sum counts
	for i, d := range docs {
		offset := d.Start.Sub(from).Seconds()
		for _, p := range d.Series {
			if p.Partial {
				continue
			}
			k := int(math.Round((offset + p.StartS) / width))
			if k < 0 {
				continue
			}
			a := at[k]
			if a == nil {
				a = &acc{p: Point{StartS: float64(k) * width, EndS: float64(k+1) * width, Ops: map[string]PointOp{}}, hist: map[string]*hdr.Histogram{}}
				at[k] = a
			}
			a.clients++
			sum.add(&a.p.Operations, p.Operations)
			a.p.Throughput += p.Throughput
			for name, o := range p.Ops {
				q := a.p.Ops[name]
				sum.add(&q.Count, o.Count)
				for cause, n := range o.Failed {
					if q.Failed == nil {
						q.Failed = map[string]int64{}
					}
					v := q.Failed[cause]
					sum.add(&v, n)
					q.Failed[cause] = v
				}
				a.p.Ops[name] = q
				if o.Histogram == "" {
					continue
				}
				h, err := DecodeHistogram(o.Histogram)
				if err != nil {
					return nil, fmt.Errorf("merge: result %d, interval at %.1f s, %s: %w", i+1, p.StartS, name, err)
				}
				if old := a.hist[name]; old != nil {
					old.Merge(h)
				} else {
					a.hist[name] = h
				}
			}
		}
	}
	if sum.overflow {
		return nil, errors.New("merge: the time series' counts add up to more than a count can hold")
	}
	keys := make([]int, 0, len(at))
	for k, a := range at {
		if a.clients == len(docs) {
			keys = append(keys, k)
		}
	}
	sort.Ints(keys)
	var out []Point
	for _, k := range keys {
		a := at[k]
		for name, h := range a.hist {
			q := a.p.Ops[name]
			q.SetServiceTime(h)
			a.p.Ops[name] = q
		}
		out = append(out, a.p)
	}
	return out, nil
}

func addAll(dst map[string]*hdr.Histogram, enc map[string]string) error {
	for s, e := range enc {
		h, err := DecodeHistogram(e)
		if err != nil {
			return err
		}
		if old, ok := dst[s]; ok {
			old.Merge(h)
		} else {
			dst[s] = h
		}
	}
	return nil
}

// windowThroughput is a client's operations inside [from, to] per second.
func windowThroughput(d *Doc, from, to time.Time) float64 {
	if len(d.Series) == 0 {
		return d.Throughput
	}
	var ops float64
	for _, p := range d.Series {
		ps := d.Start.Add(time.Duration(p.StartS * float64(time.Second)))
		pe := d.Start.Add(time.Duration(p.EndS * float64(time.Second)))
		lo, hi := ps, pe
		if from.After(lo) {
			lo = from
		}
		if to.Before(hi) {
			hi = to
		}
		if hi.After(lo) && pe.After(ps) {
			ops += float64(p.Operations) * float64(hi.Sub(lo)) / float64(pe.Sub(ps))
		}
	}
	return ops / to.Sub(from).Seconds()
}

// opRank orders operations as the reports do.
func opRank(name string) int {
	for i, n := range []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "DELETE", "QUERY", "VERIFY", "BATCH-INSERT", "CLEANUP"} {
		if n == name {
			return i
		}
	}
	return 100
}

// complete checks that the results of a spread phase (each with the
// properties clients and clientindex) are all of its clients, each once:
// a partial merge is never presented as the whole.
func complete(docs []*Doc) error {
	n := docs[0].Properties["clients"]
	seen := map[string]int{}
	spread := false
	for i, d := range docs {
		idx, ok := d.Properties["clientindex"]
		spread = spread || ok
		if d.Properties["clients"] != n || ok != spread {
			return fmt.Errorf("merge: result %d is not a client of the same spread phase as result 1 (clients %q, clientindex %q)", i+1, d.Properties["clients"], idx)
		}
		if j, dup := seen[idx]; dup && ok {
			return fmt.Errorf("merge: results %d and %d are both client %s", j+1, i+1, idx)
		}
		seen[idx] = i
	}
	if !spread {
		return nil
	}
	count, err := strconv.Atoi(n)
	if err != nil || count < 1 {
		return fmt.Errorf("merge: result 1 has clients=%q", n)
	}
	var missing []string
	for i := 0; i < count; i++ {
		if _, ok := seen[strconv.Itoa(i)]; !ok {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	if len(missing) > 0 || len(docs) != count {
		return fmt.Errorf("merge: %d of %d clients: client %s missing", len(docs), count, strings.Join(missing, ", "))
	}
	return nil
}

// counts adds counts, remembering whether any sum overflowed.
type counts struct{ overflow bool }

func (c *counts) add(dst *int64, n int64) {
	v, ok := Add(*dst, n)
	c.overflow = c.overflow || !ok
	*dst = v
}

// runIDs are the runs a result holds: its clients' when merged, else its
// own (none when it has no identity).
func runIDs(d *Doc) []string {
	var ids []string
	if len(d.ClientRuns) > 0 {
		for _, c := range d.ClientRuns {
			if c.ID != "" {
				ids = append(ids, c.ID)
			}
		}
		return ids
	}
	if d.ID != "" {
		ids = append(ids, d.ID)
	}
	return ids
}

// sharedRun is a run both a and b hold, "" when none.
func sharedRun(a, b *Doc) string {
	for _, x := range runIDs(a) {
		if slices.Contains(runIDs(b), x) {
			return x
		}
	}
	return ""
}
