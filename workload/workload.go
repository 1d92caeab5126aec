// Package workload is YCSB's CoreWorkload: which keys, which fields, which
// values and which operations, drawn exactly as YCSB draws them, plus the
// documented departures (per-client run-phase insert ranges, DELETE).
package workload

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/generator"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workload/customer"
)

// Workload holds what all client threads share: configuration, the
// load-phase key sequence, the run-phase insert counter and the zipfian
// state that is expensive to build. Per-thread state lives in Thread.
type Workload struct {
	Cfg *Config

	fieldNames   []string
	singleFields [][]string // singleFields[i] = fieldNames[i:i+1], no allocation per read

	ops    *generator.Discrete // draws an Op
	keySeq *generator.Counter  // load phase: next keynum to insert

	// Run phase: inserts are numbered in the client's logical key space
	// (see keynum), acknowledged so readers only see finished inserts.
	txInsert      *generator.AckCounter
	keyChooser    generator.Generator // shared, stateless choosers
	latestZipf    *generator.Zipfian  // cloned per thread for "latest"
	exp           generator.Exponential
	fieldLenProto generator.Generator
	scanLen       generator.Generator

	// Customer documents: the updatable fields, each alone and all.
	updSingles [][]int
	updAll     []int
	// Queries: LIMIT and OFFSET generators (cloned per thread when
	// zipfian) and, for verification, the number of loaded documents
	// having each of Cfg.QueryValues (-1 when not known).
	qLenProto, qOffProto generator.Generator
	valueCount           []int64
	verifyFields         []string
}

// New builds the workload from properties (for the run phase when run is
// true; the load phase needs fewer generators).
func New(p *props.Props, run bool) (*Workload, error) {
	return NewContext(context.Background(), p, run)
}

// NewContext is New that stops, returning ctx's error, when ctx ends
// during the set-up that takes long on large data sets (the latest
// distribution's ζ over every record, the query values' counts).
func NewContext(ctx context.Context, p *props.Props, run bool) (*Workload, error) {
	cfg, err := ParseConfig(p)
	if err != nil {
		return nil, err
	}
	return Build(ctx, cfg, run)
}

// Build builds the workload's generators from a configuration read
// before (ParseConfig), which it does not change; it stops as NewContext
// does.
func Build(ctx context.Context, cfg *Config, run bool) (*Workload, error) {
	p := cfg.p
	if p == nil {
		p = props.New()
	}
	var err error
	w := &Workload{Cfg: cfg}
	if cfg.Document == "customer" {
		w.fieldNames = customer.New(cfg.NoteLength).Fields()
		for _, i := range customer.Updatable {
			if i < len(w.fieldNames) {
				w.updAll = append(w.updAll, i)
			}
		}
		for i := range w.updAll {
			w.updSingles = append(w.updSingles, w.updAll[i:i+1])
		}
		w.verifyFields = []string{"doc_id", "address"}
	} else {
		for i := 0; i < cfg.FieldCount; i++ {
			w.fieldNames = append(w.fieldNames, fmt.Sprintf("%s%d", cfg.FieldNamePrefix, i))
		}
	}
	for i := range w.fieldNames {
		w.singleFields = append(w.singleFields, w.fieldNames[i:i+1])
	}
	if w.fieldLenProto, err = cfg.FieldLengthGenerator(); err != nil {
		return nil, err
	}
	if h, ok := w.fieldLenProto.(*generator.Histogram); ok && h.Max() > MaxRecordBytes/int64(cfg.FieldCount) {
		return nil, p.Errorf("fieldlengthhistogram", "%s: its longest field (%d bytes) makes a record of %d fields more than %s", cfg.FieldLengthHistFile, h.Max(), cfg.FieldCount, format.Bytes(MaxRecordBytes))
	}
	w.keySeq = generator.NewCounter(cfg.InsertStart)
	ops, weights := []int64{}, []float64{}
	for _, o := range []struct {
		op measure.Op
		w  float64
	}{
		{measure.Read, cfg.Read}, {measure.Update, cfg.Update}, {measure.Insert, cfg.Insert},
		{measure.Scan, cfg.Scan}, {measure.ReadModifyWrite, cfg.ReadModifyWrite}, {measure.Delete, cfg.Delete},
		{measure.Query, cfg.Query},
	} {
		ops = append(ops, int64(o.op))
		weights = append(weights, o.w)
	}
	if w.ops, err = generator.NewDiscrete(ops, weights); err != nil {
		return nil, fmt.Errorf("operation proportions: %v", err)
	}
	if !run {
		return w, nil
	}

	// The client's keys are logical numbers 0..InsertCount-1 (see keynum);
	// run-phase inserts continue from InsertCount.
	n := cfg.InsertCount
	w.txInsert = generator.NewAckCounter(n)
	switch cfg.RequestDist {
	case "uniform":
		w.keyChooser = generator.Uniform{Lo: 0, Hi: n - 1}
	case "sequential":
		w.keyChooser = generator.NewSequential(0, n-1)
	case "hotspot":
		w.keyChooser = generator.NewHotspot(0, n-1, cfg.HotsetFraction, cfg.HotopnFraction)
	case "exponential":
		w.exp = generator.NewExponential(cfg.ExpPercentile, float64(n)*cfg.ExpFrac)
	case "latest":
		if w.latestZipf, err = generator.NewSkewedLatestZipfianContext(ctx, w.txInsert.Last()); err != nil {
			return nil, err
		}
	case "zipfian":
		// YCSB sizes the zipfian for the keys expected to be inserted
		// during the run, with a fudge factor of 2; the upper bound is
		// inclusive.
		// In float: an operation count near int64's end would overflow.
		expectedNew := float64(cfg.OperationCount) * cfg.Insert * 2.0
		w.keyChooser = generator.NewScrambledZipfian(0, n+int64(min(expectedNew, max(0, float64(math.MaxInt64/2-n)))))
	}
	if cfg.Query > 0 {
		w.qLenProto = queryGenerator(cfg.QueryLengthDist, cfg.MaxQueryLength)
		w.qOffProto = queryGenerator(cfg.QueryOffsetDist, cfg.MaxQueryOffset)
		if cfg.DataIntegrity {
			if w.valueCount, err = w.countValues(ctx); err != nil {
				return nil, err
			}
		}
	}
	if cfg.ScanLengthDist == "zipfian" {
		w.scanLen = generator.NewZipfian(cfg.MinScanLength, cfg.MaxScanLength, generator.ZipfianConstant)
	} else {
		w.scanLen = generator.Uniform{Lo: cfg.MinScanLength, Hi: cfg.MaxScanLength}
	}
	return w, nil
}

// countValues counts, for each query value, the documents of this
// client's loaded slice that have it: computable for customer documents
// filtered on address.country, whose country is a function of the record
// number. Other values are unknown (-1).
func (w *Workload) countValues(ctx context.Context) ([]int64, error) {
	c := w.Cfg
	counts := make([]int64, len(c.QueryValues))
	for i := range counts {
		counts[i] = -1
	}
	if c.Document != "customer" || c.QueryField != customer.FilterField || c.Delete > 0 {
		return counts, nil // deletes make any count an overestimate
	}
	var per [64]int64
	for k := c.InsertStart; k < c.InsertStart+c.InsertCount; k++ {
		if (k-c.InsertStart)&(1<<20-1) == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		per[customer.CountryIndex(k)]++
	}
	for i, v := range c.QueryValues {
		counts[i] = 0
		if j := slices.Index(customer.Countries, v); j >= 0 {
			counts[i] = per[j]
		}
	}
	return counts, nil
}

// RecordBytes is the most a record's values hold: every field at its
// longest, or a customer document with its longest notes.
func (w *Workload) RecordBytes() int64 {
	c := w.Cfg
	if c.Document == "customer" {
		return int64(c.NoteLength)*3/2 + 2<<10 // notes up to 3/2 of their mean, the rest about 1.5 KB
	}
	most := c.FieldLength
	if h, ok := w.fieldLenProto.(*generator.Histogram); ok {
		most = h.Max()
	}
	return most * int64(c.FieldCount)
}

// ThreadBytes is the memory a client thread's records may take: the one
// it writes and the one it reads, a batch of batch records, and in a run
// phase (run) the rows of its longest scan or query when the mix has them.
func (w *Workload) ThreadBytes(batch int, run bool) int64 {
	c := w.Cfg
	rows := int64(2 + batch)
	if run && c.Scan > 0 {
		rows += c.MaxScanLength
	}
	if run && c.Query > 0 {
		rows += c.MaxQueryLength
	}
	return rows * w.RecordBytes()
}

// FieldNames returns the field names (field0..fieldN-1).
func (w *Workload) FieldNames() []string { return w.fieldNames }

// LoadKeySeq returns the load-phase key sequence (shared by all threads).
func (w *Workload) LoadKeySeq() *generator.Counter { return w.keySeq }

// keynum maps a logical key number of this client to YCSB's key number.
//
// Logical numbers below InsertCount are the loaded keys,
// InsertStart+i. Beyond them, run-phase inserts fill copies of the
// slice [InsertStart, InsertStart+InsertCount) shifted by whole
// multiples of RecordCount, the g-th insert of the phase at
//
//	g  →  RecordCount·(1 + g div InsertCount) + InsertStart + g mod InsertCount
//
// where client Client of Clients takes g = Client, Client+Clients,
// Client+2·Clients, ... (its j-th insert is g = j·Clients + Client).
// Clients of one phase, and clients that split the key space with
// insertstart/insertcount, therefore never insert the same key (YCSB
// issue #985). For a single client owning the whole space (InsertStart =
// 0, InsertCount = RecordCount) the mapping is the identity, i.e. exactly
// YCSB's keys.
func (w *Workload) keynum(i int64) int64 {
	c := w.Cfg
	if i < c.InsertCount {
		return c.InsertStart + i
	}
	g := i - c.InsertCount
	if c.Clients > 1 {
		g = g*int64(c.Clients) + int64(c.Client)
	}
	return c.RecordCount*(1+g/c.InsertCount) + c.InsertStart + g%c.InsertCount
}

// RunInserts is how many insert keys the run phase handed out so far
// (inserted, failed or cut short): its inserts 0..RunInserts()-1.
func (w *Workload) RunInserts() int64 {
	if w.txInsert == nil {
		return 0
	}
	return w.txInsert.Issued() - w.Cfg.InsertCount
}

// RunInsertKey is the key of the run phase's insert n (0: its first).
func (w *Workload) RunInsertKey(n int64) string {
	return string(AppendKey(nil, w.keynum(w.Cfg.InsertCount+n), w.Cfg.ZeroPadding, w.Cfg.OrderedInserts))
}

// Keynum is keynum, exported for tests and tools.
func (w *Workload) Keynum(logical int64) int64 { return w.keynum(logical) }

// NewThread returns the per-thread state of client thread id, drawing from
// a random source seeded by (seed, id).
func (w *Workload) NewThread(id int, seed uint64) *Thread {
	t := &Thread{
		w:   w,
		rnd: rand.New(rand.NewPCG(seed, uint64(id)+0x9E3779B97F4A7C15)),
	}
	t.vals = valueSource{t.rnd.Uint64()}
	t.fieldLen = cloneGen(w.fieldLenProto)
	t.keyChooser = w.keyChooser
	if w.latestZipf != nil {
		t.keyChooser = generator.NewSkewedLatest(w.txInsert, w.latestZipf.Clone())
	}
	t.fieldChooser = generator.Uniform{Lo: 0, Hi: int64(len(w.fieldNames) - 1)}
	if w.Cfg.Document == "customer" {
		t.cust = customer.New(w.Cfg.NoteLength)
		t.updChooser = generator.Uniform{Lo: 0, Hi: int64(len(w.updSingles) - 1)}
	}
	if w.qLenProto != nil {
		t.qLen, t.qOff = cloneGen(w.qLenProto), cloneGen(w.qOffProto)
		t.valueChooser = generator.Uniform{Lo: 0, Hi: int64(len(w.Cfg.QueryValues) - 1)}
		t.query = *db.NewQuery(w.Cfg.QueryField)
		t.query.Documents = w.Cfg.QueryDocuments
	}
	return t
}

// cloneGen gives a thread its own copy of a generator that keeps state.
func cloneGen(g generator.Generator) generator.Generator {
	if z, ok := g.(*generator.Zipfian); ok {
		return z.Clone()
	}
	return g
}
