package workload

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/generator"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workload/customer"
)

// Config is CoreWorkload's configuration, read and checked once.
type Config struct {
	p *props.Props // what it was read from, for the errors Build finds

	Table          string
	RecordCount    int64
	OperationCount int64
	InsertStart    int64
	InsertCount    int64
	// Clients and Client place a run phase's inserts when the phase is
	// spread over Clients clients and this is client Client (0-based):
	// run-phase inserts take every Clients-th key after the loaded ones,
	// from the Client-th, so no two clients insert one key (keynum).
	// Zero Clients is one client.
	Clients, Client int

	FieldCount          int
	FieldNamePrefix     string
	FieldLength         int64
	MinFieldLength      int64
	FieldLengthDist     string
	FieldLengthHistFile string

	ReadAllFields       bool
	ReadAllFieldsByName bool
	WriteAllFields      bool
	DataIntegrity       bool

	// Proportions in YCSB's chooser order, then DELETE and QUERY.
	Read, Update, Insert, Scan, ReadModifyWrite, Delete, Query float64

	// Document is "fields" (YCSB's field0..fieldN records) or "customer"
	// (the Pagination workload's customer documents, see package customer).
	Document   string
	NoteLength int // customer.notelength

	// The query (the Altoros fork's query 1): QueryField = one of
	// QueryValues, OFFSET and LIMIT drawn from their distributions.
	QueryField      string
	QueryValues     []string
	MaxQueryLength  int64
	MaxQueryOffset  int64
	QueryLengthDist string
	QueryOffsetDist string
	QueryDocuments  bool
	CreateIndexes   bool

	RequestDist     string
	ZeroPadding     int
	OrderedInserts  bool
	MinScanLength   int64
	MaxScanLength   int64
	ScanLengthDist  string
	HotsetFraction  float64
	HotopnFraction  float64
	ExpPercentile   float64
	ExpFrac         float64
	InsertRetries   int64
	InsertRetryWait float64 // seconds
	KeepGoing       bool
}

// Bounds on the sizes a workload's properties give, checked before any
// memory is given to them: no real benchmark comes near them (YCSB's
// record is 10 fields of 100 bytes; studies use records of up to about a
// KB), and what a client thread holds stays bounded (see ThreadBytes).
const (
	MaxFieldCount  = 10_000
	MaxRecordBytes = 16 << 20 // a record's values: fieldcount × fieldlength
	// MaxScanLength bounds maxscanlength and maxquerylength: the records
	// one scan or query returns.
	MaxScanLength = 1_000_000
	// MaxRecords bounds recordcount and operationcount: keys and counts
	// beyond a thousand million million (the studies load at most 2×10⁸
	// records) would overflow as inserts add to them.
	MaxRecords = 1_000_000_000_000_000
)

// workloadClasses are the values of "workload" that mean CoreWorkload.
var workloadClasses = []string{
	"site.ycsb.workloads.CoreWorkload", "com.yahoo.ycsb.workloads.CoreWorkload", "core",
	// The Altoros fork's CoreWorkload with queries.
	"com.yahoo.ycsb.workloads.CoreWorkloadExtension", "site.ycsb.workloads.CoreWorkloadExtension",
}

// CheckClass refuses a workload class other than CoreWorkload in one line,
// before any of its own properties is taken for a misspelling.
func CheckClass(p *props.Props) error {
	w, ok := p.Get("workload")
	if !ok || slices.Contains(workloadClasses, strings.TrimSpace(w)) {
		return nil
	}
	class := strings.TrimSpace(w)
	short := class[strings.LastIndex(class, ".")+1:]
	if slices.Contains([]string{"TimeSeriesWorkload", "ConstantOccupancyWorkload", "RestWorkload"}, short) {
		return p.Errorf("workload", "YCSB's %s is not implemented in servbench, which runs CoreWorkload (built in: a-h, pagination)", short)
	}
	return p.Errorf("workload", "%q is not a workload servbench has (use %s)", class, workloadClasses[0])
}

// Given are typed values that stand for their properties (an
// engine.Spec's fields, a spread client's share): each one set is used
// instead of its property, which is then not read.
type Given struct {
	Records, Operations *int64 // recordcount, operationcount
}

// ParseConfig reads CoreWorkload's properties with YCSB's defaults.
func ParseConfig(p *props.Props) (*Config, error) { return ParseConfigGiven(p, Given{}) }

// ParseConfigGiven is ParseConfig with typed values given for some
// properties.
//
// Long: reads CoreWorkload's properties one after another, each checked
// where it is read and against those read before it.
func ParseConfigGiven(p *props.Props, g Given) (*Config, error) {
	c := &Config{p: p}
	var err error
	if err := CheckClass(p); err != nil {
		return nil, err
	}
	c.Table = p.String("table", "usertable")
	if c.Table == "" {
		return nil, p.Errorf("table", "must not be empty")
	}
	if c.RecordCount, err = givenRange(p, g.Records, "recordcount", 0, 0, MaxRecords, "records"); err != nil {
		return nil, err
	}
	if c.RecordCount == 0 {
		// YCSB's CoreWorkload reads an unset or zero recordcount as
		// Integer.MAX_VALUE.
		c.RecordCount = math.MaxInt32
	}
	if c.OperationCount, err = givenRange(p, g.Operations, "operationcount", 0, 0, MaxRecords, "operations"); err != nil {
		return nil, err
	}
	if c.InsertStart, err = intRange(p, "insertstart", 0, 0, c.RecordCount, "records (recordcount)"); err != nil {
		return nil, err
	}
	if c.InsertCount, err = p.Int64Min("insertcount", c.RecordCount-c.InsertStart, 1); err != nil {
		return nil, err
	}
	if c.InsertStart+c.InsertCount > c.RecordCount {
		key := "insertcount"
		if _, set := p.Get(key); !set {
			key = "insertstart"
		}
		return nil, p.Errorf(key, "insertstart (%d) + insertcount (%d) exceeds recordcount (%d)", c.InsertStart, c.InsertCount, c.RecordCount)
	}
	fc, err := intRange(p, "fieldcount", 10, 1, MaxFieldCount, "fields")
	if err != nil {
		return nil, err
	}
	c.FieldCount = int(fc)
	c.FieldNamePrefix = p.String("fieldnameprefix", "field")
	if len(c.FieldNamePrefix) > 1024 {
		return nil, p.Errorf("fieldnameprefix", "%d bytes: at most 1024", len(c.FieldNamePrefix))
	}
	if c.FieldLength, err = intRange(p, "fieldlength", 100, 1, MaxRecordBytes, "bytes"); err != nil {
		return nil, err
	}
	if c.MinFieldLength, err = intRange(p, "minfieldlength", 1, 1, MaxRecordBytes, "bytes"); err != nil {
		return nil, err
	}
	if c.FieldLengthDist, err = p.OneOf("fieldlengthdistribution", "constant", "constant", "uniform", "zipfian", "histogram"); err != nil {
		return nil, err
	}
	if c.FieldLengthDist != "constant" && c.FieldLengthDist != "histogram" && c.MinFieldLength > c.FieldLength {
		return nil, p.Errorf("minfieldlength", "%d exceeds fieldlength %d", c.MinFieldLength, c.FieldLength)
	}
	if c.FieldLengthDist != "histogram" && c.FieldLength*fc > MaxRecordBytes {
		key := "fieldlength"
		if _, set := p.Get(key); !set {
			key = "fieldcount"
		}
		return nil, p.Errorf(key, "a record of %d fields of %d bytes is %s: at most %s", fc, c.FieldLength, format.Bytes(c.FieldLength*fc), format.Bytes(MaxRecordBytes))
	}
	c.FieldLengthHistFile = p.String("fieldlengthhistogram", "hist.txt")
	for _, b := range []struct {
		key string
		def bool
		dst *bool
	}{
		{"readallfields", true, &c.ReadAllFields},
		{"readallfieldsbyname", false, &c.ReadAllFieldsByName},
		{"writeallfields", false, &c.WriteAllFields},
		{"dataintegrity", false, &c.DataIntegrity},
		{"core_workload_insertion_keep_going_on_error", false, &c.KeepGoing},
	} {
		if *b.dst, err = p.Bool(b.key, b.def); err != nil {
			return nil, err
		}
	}
	if c.DataIntegrity && c.FieldLengthDist != "constant" {
		return nil, p.Errorf("dataintegrity", "needs fieldlengthdistribution=constant (it is %s)", c.FieldLengthDist)
	}
	if err := c.parseProportions(p); err != nil {
		return nil, err
	}
	if err := c.parseQuery(p); err != nil {
		return nil, err
	}
	if c.RequestDist, err = p.OneOf("requestdistribution", "uniform", "uniform", "zipfian", "latest", "hotspot", "sequential", "exponential"); err != nil {
		return nil, err
	}
	zp, err := p.Int64Min("zeropadding", 1, 1)
	if err != nil {
		return nil, err
	}
	if zp > 64 {
		return nil, p.Errorf("zeropadding", "%d is more than 64 digits", zp)
	}
	c.ZeroPadding = int(zp)
	// YCSB: only the exact string "hashed" means hashed.
	c.OrderedInserts = p.String("insertorder", "hashed") != "hashed"
	if c.MinScanLength, err = intRange(p, "minscanlength", 1, 1, MaxScanLength, "records"); err != nil {
		return nil, err
	}
	if c.MaxScanLength, err = intRange(p, "maxscanlength", 1000, c.MinScanLength, MaxScanLength, "records"); err != nil {
		return nil, err
	}
	if c.ScanLengthDist, err = p.OneOf("scanlengthdistribution", "uniform", "uniform", "zipfian"); err != nil {
		return nil, err
	}
	if c.HotsetFraction, err = p.FloatRange("hotspotdatafraction", 0.2, 0, 1); err != nil {
		return nil, err
	}
	if c.HotopnFraction, err = p.FloatRange("hotspotopnfraction", 0.8, 0, 1); err != nil {
		return nil, err
	}
	if c.ExpPercentile, err = p.FloatRange("exponential.percentile", 95, 0, 100); err != nil {
		return nil, err
	}
	if c.ExpPercentile == 0 || c.ExpPercentile == 100 {
		return nil, p.Errorf("exponential.percentile", "must be strictly between 0 and 100")
	}
	if c.ExpFrac, err = p.Float("exponential.frac", 0.8571428571); err != nil {
		return nil, err
	}
	if c.ExpFrac <= 0 || c.ExpFrac > 1 && c.RequestDist == "exponential" {
		// Past 1, most draws fall beyond the records and are drawn
		// again: 1e300 never drew one.
		return nil, p.Errorf("exponential.frac", "%g: want a fraction of the records, above 0 and at most 1", c.ExpFrac)
	}
	// A draw beyond the records is drawn again: at least one in a hundred
	// must fall within them (exponential.percentile=1e-300 never drew one).
	if within := -math.Expm1(math.Log1p(-c.ExpPercentile/100) / c.ExpFrac); within < 0.01 && c.RequestDist == "exponential" {
		return nil, p.Errorf("exponential.percentile", "%g with exponential.frac %g draws %.2g%% of keys within the records: want at least 1%% (the others are drawn again)", c.ExpPercentile, c.ExpFrac, 100*within)
	}
	if c.InsertRetries, err = p.Int64Min("core_workload_insertion_retry_limit", 0, 0); err != nil {
		return nil, err
	}
	if c.InsertRetryWait, err = p.FloatRange("core_workload_insertion_retry_interval", 3, 0, 86400); err != nil {
		return nil, err
	}
	return c, nil
}

// intRange is p.Int64Min with an upper bound too, in unit.
// givenRange is intRange for a value that may be given typed (v not nil).
func givenRange(p *props.Props, v *int64, key string, def, lo, hi int64, unit string) (int64, error) {
	if v == nil {
		return intRange(p, key, def, lo, hi, unit)
	}
	p.Get(key) // a property the typed value stands for is known, not read
	switch {
	case *v < lo:
		return 0, p.Errorf(key, "%d is less than %d", *v, lo)
	case *v > hi:
		return 0, p.Errorf(key, "%d is more than %d %s", *v, hi, unit)
	}
	return *v, nil
}

func intRange(p *props.Props, key string, def, lo, hi int64, unit string) (int64, error) {
	v, err := p.Int64Min(key, def, lo)
	if err == nil && v > hi {
		err = p.Errorf(key, "%d is more than %d %s", v, hi, unit)
	}
	return v, err
}

func (c *Config) parseProportions(p *props.Props) error {
	list := []struct {
		key string
		def float64
		dst *float64
	}{
		{"readproportion", 0.95, &c.Read},
		{"updateproportion", 0.05, &c.Update},
		{"insertproportion", 0, &c.Insert},
		{"scanproportion", 0, &c.Scan},
		{"readmodifywriteproportion", 0, &c.ReadModifyWrite},
		{"deleteproportion", 0, &c.Delete},
		{"query1proportion", 0, &c.Query},
	}
	var sum float64
	var parts []string
	for _, x := range list {
		v, err := p.FloatRange(x.key, x.def, 0, 1)
		if err != nil {
			return err
		}
		*x.dst = v
		sum += v
		if v > 0 {
			src := p.Source(x.key)
			if src == "" {
				src = "default"
			}
			parts = append(parts, fmt.Sprintf("%s=%g (%s)", x.key, v, src))
		}
	}
	if math.Abs(sum-1) > 1e-6 {
		return fmt.Errorf("operation proportions add up to %g, not 1: %s", sum, strings.Join(parts, ", "))
	}
	return nil
}

// FieldLengthGenerator builds the generator fieldlengthdistribution names.
func (c *Config) FieldLengthGenerator() (generator.Generator, error) {
	switch c.FieldLengthDist {
	case "uniform":
		return generator.Uniform{Lo: c.MinFieldLength, Hi: c.FieldLength}, nil
	case "zipfian":
		return generator.NewZipfian(c.MinFieldLength, c.FieldLength, generator.ZipfianConstant), nil
	case "histogram":
		return generator.LoadHistogram(c.FieldLengthHistFile)
	}
	return generator.Constant(c.FieldLength), nil
}

// parseQuery reads the document model and the query properties, with the
// Altoros fork's names and defaults (maxquerylength 1000, maxqueryoffset
// 20, both uniform from 1).
func (c *Config) parseQuery(p *props.Props) error {
	var err error
	if c.Document, err = p.OneOf("document", "fields", "fields", "customer"); err != nil {
		return err
	}
	nl, err := p.Int64Min("customer.notelength", customer.DefaultNotesLength, 0)
	if err != nil {
		return err
	}
	if nl > 1<<20 {
		return p.Errorf("customer.notelength", "%d is more than 1 MiB", nl)
	}
	c.NoteLength = int(nl)
	if q2, err := p.FloatRange("query2proportion", 0, 0, 1); err != nil {
		return err
	} else if q2 > 0 {
		return p.Errorf("query2proportion", "the join query (query 2) is not supported; set it to 0")
	}
	c.QueryField = strings.TrimSpace(p.String("query1filterfield", ""))
	if c.QueryField == "" && c.Document == "customer" {
		c.QueryField = customer.FilterField
	}
	if c.Query > 0 && c.QueryField == "" {
		return p.Errorf("query1proportion", "is %g but query1filterfield is not set", c.Query)
	}
	if c.QueryField != "" && slices.Contains(strings.Split(c.QueryField, "."), "") {
		return p.Errorf("query1filterfield", "%q is not a dotted field path", c.QueryField)
	}
	if v, ok := p.Get("query1filtervalues"); ok {
		for _, x := range strings.Split(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				c.QueryValues = append(c.QueryValues, x)
			}
		}
		if len(c.QueryValues) == 0 {
			return p.Errorf("query1filtervalues", "lists no value")
		}
	} else if c.Document == "customer" && c.QueryField == customer.FilterField {
		c.QueryValues = customer.Countries
	} else if c.Query > 0 {
		return p.Errorf("query1proportion", "is %g but query1filtervalues is not set", c.Query)
	}
	if c.MaxQueryLength, err = intRange(p, "maxquerylength", 1000, 1, MaxScanLength, "records"); err != nil {
		return err
	}
	if c.MaxQueryOffset, err = p.Int64Min("maxqueryoffset", 20, 1); err != nil {
		return err
	}
	if c.QueryLengthDist, err = p.OneOf("querylengthdistribution", "uniform", "uniform", "zipfian"); err != nil {
		return err
	}
	if c.QueryOffsetDist, err = p.OneOf("queryoffsetdistribution", "uniform", "uniform", "zipfian"); err != nil {
		return err
	}
	if c.QueryDocuments, err = p.Bool("querydocuments", false); err != nil {
		return err
	}
	if c.CreateIndexes, err = p.Bool("createindexes", false); err != nil {
		return err
	}
	return nil
}

// queryGenerator returns the generator of a query's LIMIT or OFFSET: 1..max,
// uniform or zipfian.
func queryGenerator(dist string, max int64) generator.Generator {
	if dist == "zipfian" {
		return generator.NewZipfian(1, max, generator.ZipfianConstant)
	}
	return generator.Uniform{Lo: 1, Hi: max}
}

// Schema is the records' fields as this workload writes them, for the
// binding (db.Options.Schema).
func (c *Config) Schema() db.Schema {
	if c.Document == "customer" {
		return db.Schema{Fields: customer.New(c.NoteLength).Fields(), Documents: true}
	}
	f := make([]string, c.FieldCount)
	for i := range f {
		f[i] = c.FieldNamePrefix + strconv.Itoa(i)
	}
	return db.Schema{Fields: f}
}

// AnswerElements is the most elements a structured answer to one
// operation holds (db.Options.AnswerElements): for each record of the
// longest scan or query (one otherwise), a name and a value a field and a
// few for the record (a customer document counted at 64 fields).
func (c *Config) AnswerElements(run bool) int64 {
	fields := int64(c.FieldCount)
	if c.Document == "customer" {
		fields = 64
	}
	rows := int64(1)
	if run && c.Scan > 0 {
		rows = max(rows, c.MaxScanLength)
	}
	if run && c.Query > 0 {
		rows = max(rows, c.MaxQueryLength)
	}
	return rows * (2*fields + 4)
}

// AnswerBytes is the most an answer to one operation can hold when its
// records are written as JSON (db.Options.AnswerBytes): the longest scan's
// or query's records in a run phase (one record otherwise), each value's
// bytes six times over (the longest escape of a printable byte, \u003c),
// 64 bytes a field and 1 KiB a record for names, keys and framing. A
// histogram's fields are taken at the longest a record may be.
func (c *Config) AnswerBytes(run bool) int64 {
	record := c.FieldLength * int64(c.FieldCount)
	fields := int64(c.FieldCount)
	switch {
	case c.Document == "customer":
		record, fields = int64(c.NoteLength)*3/2+2<<10, 64
	case c.FieldLengthDist == "histogram":
		record = MaxRecordBytes
	}
	rows := int64(1)
	if run && c.Scan > 0 {
		rows = max(rows, c.MaxScanLength)
	}
	if run && c.Query > 0 {
		rows = max(rows, c.MaxQueryLength)
	}
	return rows * (6*record + 64*fields + 1<<10)
}
