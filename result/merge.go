package result

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
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
//
// Results that did not overlap in time are refused, unless they are the
// clients of one coordinator (each carries its coordinator.id), which
// started them together: a run shorter than the spread of their starts
// (a fraction of a millisecond) is still one run. W is then the phase's
// span, from the first start to the last end, and the throughput every
// client's operations over it.
func Merge(docs []*Doc) (*Doc, error) {
	from, to, common, err := mergeable(docs)
	if err != nil {
		return nil, err
	}
	first := docs[0]
	m := &Doc{
		Format: Format, Version: FormatVersion, Environment: first.Environment,
		Command: first.Command, Binding: first.Binding, Server: first.Server, ServerSettings: first.ServerSettings, Driver: first.Driver, Workload: first.Workload,
		QueryModel: first.QueryModel, Properties: first.Properties, Rate: 0, Seed: first.Seed,
		Start: from, End: to, RuntimeMs: ms(to.Sub(from)), Stop: first.Stop, HistogramUnit: "ns",
		Clients: len(docs),
	}
	ops := newOpMerge()
	var sched scheduleMerge
	var sum counts
	var labels []string
	var cleanupCount int64
	cleanupWhole := true // every client's CLEANUP has its histograms
	for i, d := range docs {
		m.YCSBRuntimeMs = max(m.YCSBRuntimeMs, d.YCSBRuntimeMs) // the clients ran together: the slowest's
		m.addTotals(d, &sum, from, to, common)
		if d.Label != "" && !slices.Contains(labels, d.Label) { // a spread phase's clients share theirs
			labels = append(labels, d.Label)
		}
		if err := ops.add(d, &sum); err != nil {
			return nil, fmt.Errorf("merge: result %d, %w", i+1, err)
		}
		if err := sched.add(d, &sum); err != nil {
			return nil, fmt.Errorf("merge: result %d, schedule: %w", i+1, err)
		}
		switch {
		case d.Cleanup != nil && d.Cleanup.Count > 0 && len(d.CleanupHistograms) == 0:
			cleanupWhole = false // an older result's, or an import's: the sum would be a part shown as the whole
		case d.Cleanup != nil:
			sum.add(&cleanupCount, d.Cleanup.Count)
			hs := maps.Clone(d.CleanupHistograms)
			maps.DeleteFunc(hs, func(_, e string) bool { return e == "" }) // outcomes without values
			if err := ops.addAll(ops.cleanup, hs); err != nil {
				return nil, fmt.Errorf("merge: result %d, cleanup: %w", i+1, err)
			}
		}
	}
	if sum.overflow {
		return nil, errors.New("merge: the results' counts add up to more than a count can hold")
	}
	m.ID = m.clientsID()
	m.Label = strings.Join(labels, "+")
	if m.Operations > 0 {
		m.Goodput = m.Throughput * float64(m.OKOperations) / float64(m.Operations)
	}
	if m.Ops, err = ops.results(); err != nil {
		return nil, fmt.Errorf("merge: %w", err)
	}
	if cleanupWhole {
		if m.Cleanup, m.CleanupHistograms, err = ops.cleanupResult(); err != nil {
			return nil, fmt.Errorf("merge: cleanup: %w", err)
		}
	}
	m.Schedule = sched.result()
	series, err := mergeSeries(docs, from, to)
	if err != nil {
		return nil, err
	}
	m.Series = series
	if m.ServerSide, err = mergeServerSide(docs, m.Operations); err != nil {
		return nil, err
	}
	return m, nil
}

// mergeable checks that docs are the results of one experiment's clients,
// each once, that ran together, and returns the window W: the common
// window (common true), or the span of one coordinator's clients that
// did not overlap (see Merge).
func mergeable(docs []*Doc) (from, to time.Time, common bool, err error) {
	if len(docs) < 2 {
		return from, to, false, errors.New("merge: give two results or more")
	}
	if err := complete(docs); err != nil {
		return from, to, false, err
	}
	first := docs[0]
	for i, d := range docs {
		if d.Format != Format {
			return from, to, false, fmt.Errorf("merge: result %d is not a servbench result", i+1)
		}
		if d.Command != first.Command || d.Binding != first.Binding || d.Workload != first.Workload {
			return from, to, false, fmt.Errorf("merge: result %d is %s %s %s, result 1 is %s %s %s: only runs of one experiment merge",
				i+1, d.Command, d.Binding, d.Workload, first.Command, first.Binding, first.Workload)
		}
		if err := spanAgrees(d); err != nil {
			return from, to, false, fmt.Errorf("merge: result %d: %w", i+1, err)
		}
		if d.Driver != first.Driver {
			return from, to, false, fmt.Errorf("merge: result %d used driver %q, result 1 %q: only runs of one experiment merge", i+1, d.Driver, first.Driver)
		}
		for j, e := range docs[:i] {
			if id := sharedRun(e, d); id != "" {
				return from, to, false, fmt.Errorf("merge: results %d and %d both hold run %s: give each client's result once, and a merged result without its clients", j+1, i+1, id)
			}
			if e.Start.Equal(d.Start) && e.End.Equal(d.End) && e.Seed == d.Seed && e.Operations == d.Operations && e.Label == d.Label {
				return from, to, false, fmt.Errorf("merge: results %d and %d are the same run: give each client's result once", j+1, i+1)
			}
		}
	}
	if from, to, common = CommonWindow(docs); common {
		return from, to, true, nil
	}
	if !oneCoordinator(docs) {
		return from, to, false, errors.New("merge: the runs did not overlap in time; merge only clients that ran together")
	}
	from, to = first.Start, first.End
	for _, d := range docs {
		if d.Start.Before(from) {
			from = d.Start
		}
		if d.End.After(to) {
			to = d.End
		}
	}
	if !to.After(from) {
		return from, to, false, errors.New("merge: the clients measured for no time at all")
	}
	return from, to, false, nil
}

// spanAgrees checks that a result's start and end are its runtime apart
// (within a second and 1%: both are rounded, and a client's are moved by
// its clock's measured offset), as every writer makes them: the window a
// merge counts in comes from them, its throughput from the window. A
// result without them (imported from a text that gave none) has no
// window to disagree.
func spanAgrees(d *Doc) error {
	if d.Start.IsZero() && d.End.IsZero() {
		return nil
	}
	span, runtime := d.End.Sub(d.Start).Seconds(), d.RuntimeMs/1000
	if math.Abs(span-runtime) > 1+0.01*math.Max(span, runtime) {
		return fmt.Errorf("its start and end are %.3f s apart, its runtime_ms says %.3f s: one of them was changed", span, runtime)
	}
	return nil
}

// CommonWindow is the window in which every one of docs was measuring,
// from the latest start to the earliest end; ok is false when there is
// none (a run ended before another started).
func CommonWindow(docs []*Doc) (from, to time.Time, ok bool) {
	for i, d := range docs {
		if i == 0 || d.Start.After(from) {
			from = d.Start
		}
		if i == 0 || d.End.Before(to) {
			to = d.End
		}
	}
	return from, to, to.After(from)
}

// oneCoordinator reports whether docs are all clients of one coordinator,
// which started them together: each carries its coordinator.id, random
// for every spread phase (a start time alone does not tell: a property
// file with a startat in the past starts every run at once).
func oneCoordinator(docs []*Doc) bool {
	id := docs[0].Properties["coordinator.id"]
	for _, d := range docs {
		if id == "" || d.Properties["coordinator.id"] != id {
			return false
		}
	}
	return true
}

// addTotals adds client c's totals to the merged d: threads, rates, counts, CPU, its
// entry in client_runs, its throughput inside the window [from, to] (all
// its operations when the window is not common but the span of all), and
// a stop that was not as planned.
func (d *Doc) addTotals(c *Doc, sum *counts, from, to time.Time, common bool) {
	d.Threads += c.Threads
	d.Rate += c.Rate
	sum.add(&d.Operations, c.Operations)
	sum.add(&d.OKOperations, c.OKOperations)
	d.Stuck += c.Stuck
	sum.add(&d.Abandoned, c.Abandoned)
	d.ClientCPUS += c.ClientCPUS
	d.ClientSchedP99Us = max(d.ClientSchedP99Us, c.ClientSchedP99Us)
	if len(c.ClientRuns) > 0 { // merged already
		d.ClientRuns = append(d.ClientRuns, c.ClientRuns...)
	} else {
		d.ClientRuns = append(d.ClientRuns, c.clientRun())
	}
	if common {
		d.Throughput += windowThroughput(c, from, to)
	} else {
		d.Throughput += float64(c.Operations) / to.Sub(from).Seconds()
	}
	if !c.Stop.Finished() {
		d.Stop = c.Stop
	}
}

// clientsID is merged result d's identity, made from its clients' ("" when
// one of them has none).
func (d *Doc) clientsID() string {
	var ids []string
	for _, c := range d.ClientRuns {
		if c.ID != "" {
			ids = append(ids, c.ID)
		}
	}
	if len(ids) != len(d.ClientRuns) {
		return ""
	}
	return mergedID(ids)
}

// opMerge adds the clients' operations: counts by outcome and histograms,
// service and response time, per operation in the order first met.
type opMerge struct {
	ops               map[string]*OpResult
	order             []string
	service, response map[string]map[string]*hdr.Histogram
	cleanup           map[string]*hdr.Histogram // CLEANUP's, by outcome
	buckets           int64                     // of the histograms kept, in all
}

// MaxMergeBuckets bounds the buckets of the histograms a merge keeps, in
// all (256 MiB): each histogram's own bound multiplied by the operations
// and outcomes a result may name (two 80 KB results of 512 histograms of
// 131,072 buckets each ran merge out of memory). A run's few operations
// and outcomes keep a few hundred thousand.
const MaxMergeBuckets = 1 << 25

func newOpMerge() *opMerge {
	return &opMerge{ops: map[string]*OpResult{}, service: map[string]map[string]*hdr.Histogram{}, response: map[string]map[string]*hdr.Histogram{},
		cleanup: map[string]*hdr.Histogram{}}
}

// cleanupResult is CLEANUP merged: its summary over every outcome, and
// its histograms by outcome (none when no client kept them).
func (o *opMerge) cleanupResult() (*Latency, Bounded[string], error) {
	if len(o.cleanup) == 0 {
		return nil, nil, nil
	}
	if len(o.cleanup) > MaxEntries {
		return nil, nil, fmt.Errorf("more than %d outcomes in all: a result holds at most that many", MaxEntries)
	}
	h, err := mergeOf(o.cleanup, func(string) bool { return true })
	if err != nil {
		return nil, nil, err
	}
	return Summarize(h, DefaultPercentiles), encodeAll(o.cleanup), nil
}

// mergeOf is one histogram of set's outcomes for which keep is true (nil:
// none), set left as it is.
func mergeOf(set map[string]*hdr.Histogram, keep func(outcome string) bool) (*hdr.Histogram, error) {
	var out *hdr.Histogram
	for s, h := range set {
		if !keep(s) {
			continue
		}
		if out == nil {
			out = hdr.Import(h.Export())
		} else if err := addHistogram(&out, h); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bucketsOf is the buckets h's geometry holds (0: nil).
func bucketsOf(h *hdr.Histogram) int64 {
	if h == nil {
		return 0
	}
	return countsLen(h.LowestTrackableValue(), h.HighestTrackableValue(), int32(h.SignificantFigures()))
}

// addHistogram adds h into *dst exactly (a first h is *dst): when h's
// values may fall outside *dst's range, or h is finer, *dst is first
// widened to a geometry that holds both (the lower lowest value, the
// higher highest, the finer precision), so that no value is dropped, as
// HdrHistogram's Merge drops them. Geometries too far apart to join
// within MaxHistogramCounts buckets are refused.
func addHistogram(dst **hdr.Histogram, h *hdr.Histogram) error {
	d := *dst
	if d == nil {
		*dst = h
		return nil
	}
	lo, hi, sig := d.LowestTrackableValue(), d.HighestTrackableValue(), d.SignificantFigures()
	if h.LowestTrackableValue() < lo || h.HighestTrackableValue() > hi || h.SignificantFigures() > sig {
		lo, hi, sig = min(lo, h.LowestTrackableValue()), max(hi, h.HighestTrackableValue()), max(sig, h.SignificantFigures())
		if n := countsLen(lo, hi, int32(sig)); n > MaxHistogramCounts {
			return fmt.Errorf("histograms of geometries too far apart to add (%d buckets, more than %d)", n, MaxHistogramCounts)
		}
		w := hdr.New(lo, hi, int(sig))
		if w.Merge(d) > 0 {
			return errors.New("histogram: values outside the others' range")
		}
		d = w
	}
	if d.Merge(h) > 0 {
		return errors.New("histogram: values outside the others' range")
	}
	*dst = d
	return nil
}

// encodeAll is set's histograms encoded, by outcome.
func encodeAll(set map[string]*hdr.Histogram) Bounded[string] {
	enc := make(Bounded[string], len(set))
	for s, h := range set {
		enc[s] = Encode(h)
	}
	return enc
}

func (o *opMerge) add(d *Doc, sum *counts) error {
	for _, x := range d.Ops {
		r, ok := o.ops[x.Name]
		if !ok {
			r = &OpResult{Name: x.Name, Outcomes: map[string]int64{}, Histograms: map[string]string{}}
			o.ops[x.Name] = r
			o.order = append(o.order, x.Name)
			o.service[x.Name], o.response[x.Name] = map[string]*hdr.Histogram{}, map[string]*hdr.Histogram{}
		}
		sum.add(&r.Count, x.Count)
		for s, n := range x.Outcomes {
			v := r.Outcomes[s]
			sum.add(&v, n)
			r.Outcomes[s] = v
		}
		if err := o.addAll(o.service[x.Name], x.Histograms); err != nil {
			return fmt.Errorf("%s: %w", x.Name, err)
		}
		if err := o.addAll(o.response[x.Name], x.ResponseHistograms); err != nil {
			return fmt.Errorf("%s: %w", x.Name, err)
		}
	}
	return nil
}

// results are the merged operations, every latency recomputed from the
// added histograms, in the reports' order.
func (o *opMerge) results() ([]OpResult, error) {
	var err error
	pick := func(set map[string]*hdr.Histogram, ok bool) *Latency {
		h, perr := mergeOf(set, func(s string) bool { return Succeeded(s) == ok })
		err = cmp.Or(err, perr)
		return Summarize(h, DefaultPercentiles)
	}
	var all []OpResult
	for _, name := range o.order {
		r := o.ops[name]
		if len(r.Outcomes) > MaxEntries {
			return nil, fmt.Errorf("%s: more than %d outcomes in all: a result holds at most that many", cut(name), MaxEntries)
		}
		service, response := o.service[name], o.response[name]
		r.Latency, r.LatencyFailed = pick(service, true), pick(service, false)
		r.Response, r.ResponseFailed = pick(response, true), pick(response, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", cut(name), err)
		}
		for s, h := range service {
			r.Histograms[s] = Encode(h)
		}
		if len(response) > 0 {
			r.ResponseHistograms = encodeAll(response)
		}
		all = append(all, *r)
	}
	sort.SliceStable(all, func(i, j int) bool { return opRank(all[i].Name) < opRank(all[j].Name) })
	return all, nil
}

// scheduleMerge adds the clients' schedule lag and late operations.
type scheduleMerge struct {
	lag       *hdr.Histogram
	late      int64
	threshold float64
	any       bool
}

func (s *scheduleMerge) add(d *Doc, sum *counts) error {
	if d.Schedule == nil || d.Schedule.Histogram == "" {
		return nil
	}
	h, err := DecodeHistogram(d.Schedule.Histogram)
	if err != nil {
		return err
	}
	if err := addHistogram(&s.lag, h); err != nil {
		return err
	}
	sum.add(&s.late, d.Schedule.Late)
	s.threshold, s.any = d.Schedule.LateThreshold, true
	return nil
}

func (s *scheduleMerge) result() *Schedule {
	if !s.any {
		return nil
	}
	return &Schedule{Lag: Summarize(s.lag, DefaultPercentiles), LateThreshold: s.threshold, Late: s.late, Histogram: Encode(s.lag)}
}

// mergeSeries merges the clients' time series by wall clock: the k-th
// interval after from (the latest start) of every client is one interval
// of the merged series, counts and histograms added and latencies
// recomputed. Only intervals that every client measured are kept, and
// only when all the clients have intervals of one length: otherwise there
// is no merged series. (The clients of a spread phase start together and
// share their interval, so theirs line up within the clocks' offsets.)
// An interval is cut at the window's end, to: a client's interval rounded
// to a later one may reach past it.
func mergeSeries(docs []*Doc, from, to time.Time) ([]Point, error) {
	width, ok := sharedWidth(docs)
	if !ok {
		return nil, nil
	}
	at, err := slotsOf(docs, from, width)
	if err != nil {
		return nil, err
	}
	keys := make([]int, 0, len(at))
	for k, a := range at {
		if a.clients == len(docs) {
			keys = append(keys, k)
		}
	}
	sort.Ints(keys)
	span := to.Sub(from).Seconds()
	// An interval's histograms are kept encoded, as read, and added up one
	// slot at a time here, into one histSum: decoded, each takes its
	// buckets' memory (270 KB for 200 bytes of text), and two results of
	// 30,000 intervals each ran merge out of memory; decoded and encoded
	// by hdrhistogram-go, two of 100,000 each allocated 145 GB.
	var hs histSum
	var out []Point
	for _, k := range keys {
		a := at[k]
		if a.p.StartS >= span {
			continue
		}
		if a.p.EndS > span {
			a.p.EndS, a.p.Partial = span, span-a.p.StartS < 0.99*width
		}
		if err := a.serviceTimes(&hs); err != nil {
			return nil, err
		}
		a.hist = nil // its memory goes before the next slot's
		out = append(out, a.p)
	}
	return out, nil
}

// sharedWidth returns the clients' interval: each one's median interval,
// the same within half for all (the clients of one phase share theirs;
// the measured boundaries move with the drains' timing, by tens of
// milliseconds on a busy machine: 80 to 200 ms seen for 100 ms). It is
// not ok when a client has no series, or the intervals differ.
func sharedWidth(docs []*Doc) (width float64, ok bool) {
	for _, d := range docs {
		if len(d.Series) == 0 {
			return 0, false
		}
		w := medianWidth(d.Series)
		if width == 0 {
			width = w
		}
		if w <= 0 || math.Abs(w-width) > width/2 {
			return 0, false
		}
	}
	return width, true
}

// encodedHistogram is one client's histogram of an interval, kept as
// read until its slot's are added up.
type encodedHistogram struct {
	client int
	startS float64
	text   string
}

// seriesSlot is one interval of the merged series as the clients' are
// added to it.
type seriesSlot struct {
	clients int // the clients with an interval here, each once
	last    int // the last client counted, + 1
	p       Point
	hist    map[string][]encodedHistogram
}

// slotsOf adds every client's whole intervals to the slot of the merged
// series each falls in, by wall clock: slot k is the k-th interval of
// width seconds after from.
func slotsOf(docs []*Doc, from time.Time, width float64) (map[int]*seriesSlot, error) {
	at := map[int]*seriesSlot{}
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
				a = &seriesSlot{p: Point{StartS: float64(k) * width, EndS: float64(k+1) * width, Ops: PointOps{}}, hist: map[string][]encodedHistogram{}}
				at[k] = a
			}
			if err := a.add(i, p, &sum); err != nil {
				return nil, err
			}
		}
	}
	if sum.overflow {
		return nil, errors.New("merge: the time series' counts add up to more than a count can hold")
	}
	return at, nil
}

// add adds client i's interval p to the slot: its counts (sum notes an
// overflow) and its histograms, kept encoded. A slot naming more than
// MaxPointOps operations is refused: no reader would take the result.
func (a *seriesSlot) add(i int, p Point, sum *counts) error {
	if a.last != i+1 { // two intervals of one client that round to one slot count it once
		a.clients, a.last = a.clients+1, i+1
	}
	sum.add(&a.p.Operations, p.Operations)
	a.p.Throughput += p.Throughput
	for _, e := range p.Ops {
		name, o := e.Name, e.PointOp
		q, _ := a.p.Ops.Get(name)
		sum.add(&q.Count, o.Count)
		for cause, n := range o.Failed {
			if q.Failed == nil {
				q.Failed = map[string]int64{}
			}
			v := q.Failed[cause]
			sum.add(&v, n)
			q.Failed[cause] = v
		}
		a.p.Ops.Set(name, q)
		if o.Histogram != "" {
			a.hist[name] = append(a.hist[name], encodedHistogram{i, p.StartS, o.Histogram})
		}
	}
	if len(a.p.Ops) > MaxPointOps {
		return fmt.Errorf("merge: the interval at %.1f s names more than %d operations in all: no reader would take the result", a.p.StartS, MaxPointOps)
	}
	return nil
}

// serviceTimes adds up each operation's histograms of the slot in hs and
// sets its service-time figures from the sum.
func (a *seriesSlot) serviceTimes(hs *histSum) error {
	for name, list := range a.hist {
		hs.reset()
		for _, e := range list {
			if err := hs.add(e.text); err != nil {
				return fmt.Errorf("merge: result %d, interval at %.1f s, %s: %w", e.client+1, e.startS, name, err)
			}
		}
		text, err := hs.text()
		if err != nil {
			return fmt.Errorf("merge: interval at %.1f s, %s: %w", a.p.StartS, name, err)
		}
		q, _ := a.p.Ops.Get(name)
		q.SetFigures(hs.h, text)
		a.p.Ops.Set(name, q)
	}
	return nil
}

func (o *opMerge) addAll(dst map[string]*hdr.Histogram, enc map[string]string) error {
	for s, e := range enc {
		h, err := DecodeHistogram(e)
		if err != nil {
			return err
		}
		sum := dst[s]
		before := bucketsOf(sum)
		if err := addHistogram(&sum, h); err != nil {
			return err
		}
		if o.buckets += bucketsOf(sum) - before; o.buckets > MaxMergeBuckets {
			return fmt.Errorf("the histograms to merge hold more than %d buckets in all: a run's are far fewer", MaxMergeBuckets)
		}
		dst[s] = sum
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

// medianWidth is the median width of a time series' intervals, the last
// (which may be shorter) left out when there are others.
func medianWidth(pts []Point) float64 {
	if len(pts) > 1 {
		pts = pts[:len(pts)-1]
	}
	ws := make([]float64, len(pts))
	for i, p := range pts {
		ws[i] = p.EndS - p.StartS
	}
	slices.Sort(ws)
	return ws[len(ws)/2]
}
