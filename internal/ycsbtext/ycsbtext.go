// Package ycsbtext reads the text YCSB's client prints at the end of a run
// (and, when captured with it, its standard error's command line and
// version) into servbench's result document, so that runs made with YCSB
// itself and results others published enter servbench's report and compare.
//
// Every measurement type YCSB prints is read: hdrhistogram (the default),
// histogram, timeseries, raw, and hdrhistogram+histogram and
// hdrhistogram+raw. The summary figures (operations, outcomes, mean, min,
// max, variance, percentiles, run time and throughput) become the result's;
// raw lines (every operation's latency) become exact histograms of the
// operations that all succeeded. What the text does not carry is left out,
// never made up: histogram buckets and time series of mean latency (YCSB
// prints no counts beside them), the client's environment, and its wall
// clock unless raw lines give it.
package ycsbtext

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// maxLine bounds one line of the text.
const maxLine = 1 << 20

// bindings maps YCSB's binding classes to servbench's binding names.
var bindings = map[string]string{
	"site.ycsb.BasicDB":                               "basic",
	"site.ycsb.db.RedisClient":                        "redis",
	"site.ycsb.db.MongoDbClient":                      "mongodb",
	"site.ycsb.db.AsyncMongoDbClient":                 "mongodb",
	"site.ycsb.db.CassandraCQLClient":                 "cassandra",
	"site.ycsb.db.JdbcDBClient":                       "jdbc",
	"site.ycsb.db.DynamoDBClient":                     "dynamodb",
	"site.ycsb.db.couchbase2.Couchbase2Client":        "couchbase",
	"site.ycsb.db.couchbase3.Couchbase3Client":        "couchbase",
	"site.ycsb.db.CouchbaseClient":                    "couchbase",
	"site.ycsb.db.rocksdb.RocksDBClient":              "rocksdb",
	"site.ycsb.db.elasticsearch5.ElasticsearchClient": "elasticsearch",
}

// Binding is servbench's name for a YCSB binding class ("redis" for
// site.ycsb.db.RedisClient), or the class itself.
func Binding(class string) string {
	if b, ok := bindings[class]; ok {
		return b
	}
	return class
}

// Source is where a result was imported from, in its Imported field with
// the file's name.
const Source = "YCSB text output"

var (
	percentileRE = regexp.MustCompile(`^(\d+(?:\.\d+)?)(?:st|nd|rd|th)PercentileLatency\((us|ms)\)$`)
	rawPRE       = regexp.MustCompile(`^p(\d+(?:\.\d+)?)$`)
	propertyRE   = regexp.MustCompile(`^"([^"]*)"="(.*)"$`)
	versionRE    = regexp.MustCompile(`^YCSB Client (\S+)`)
	rawLineRE    = regexp.MustCompile(`^(?:Raw)?([A-Z][A-Z-]*),(\d+),(\d+)$`) // RawREAD in hdrhistogram+raw
)

// op is one operation's figures as read, by the section they came from:
// "" (a single type), or Hdr, Bucket and Raw of a combined type.
type op struct {
	name   string
	kinds  map[string]*figures
	failed *result.Latency // the NAME-FAILED section's
	raw    *hdr.Histogram  // from raw lines
}

type figures struct {
	count    int64 // Operations: the successful ones (YCSB measures failures apart)
	haveCnt  bool
	outcomes map[string]int64
	lat      result.Latency
	haveLat  bool
	variance float64
}

// kindOrder is which section's figures come first: HdrHistogram's, a
// single type's, then the others'.
var kindOrder = []string{"Hdr", "", "Bucket", "Raw"}

type reader struct {
	name       string
	ops        map[string]*op
	order      []string
	runtimeMs  float64
	throughput float64
	haveRun    bool
	props      map[string]string
	cmdline    string
	version    string
	first, end int64 // raw lines' timestamps, ms
	hash       []byte
}

// Read reads YCSB's output from r; name is the file's name, for errors and
// the result's label. Lines that are not YCSB's (a binding's own output,
// its properties' block) are skipped; a line of a measurement that cannot
// be read fails with its number.
func Read(r io.Reader, name string) (*result.Doc, error) {
	rd := &reader{name: name, ops: map[string]*op{}, props: map[string]string{}}
	h := sha256.New()
	sc := bufio.NewScanner(io.TeeReader(r, h))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		if err := rd.line(strings.TrimSpace(sc.Text())); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d KiB: not YCSB's output", name, n+1, maxLine>>10)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if !rd.haveRun {
		return nil, fmt.Errorf("%s: no [OVERALL], RunTime(ms) line: not the output of YCSB's client", name)
	}
	rd.hash = h.Sum(nil)
	return rd.doc()
}

func (rd *reader) line(l string) error {
	switch {
	case l == "":
		return nil
	case strings.HasPrefix(l, "Command line:"):
		rd.cmdline = strings.TrimSpace(strings.TrimPrefix(l, "Command line:"))
		return nil
	case versionRE.MatchString(l):
		rd.version = versionRE.FindStringSubmatch(l)[1]
		return nil
	case propertyRE.MatchString(l):
		m := propertyRE.FindStringSubmatch(l)
		rd.props[m[1]] = m[2]
		return nil
	case rawLineRE.MatchString(l):
		return rd.rawLine(rawLineRE.FindStringSubmatch(l))
	case !strings.HasPrefix(l, "["):
		return nil
	}
	end := strings.Index(l, "], ")
	if end < 0 {
		return nil
	}
	section := l[1:end]
	metric, value, ok := strings.Cut(l[end+3:], ", ")
	if !ok {
		return fmt.Errorf("[%s]: want \"[SECTION], METRIC, VALUE\"", cutText(section))
	}
	metric, value = strings.TrimSpace(metric), strings.TrimSpace(value)
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsInf(v, 0) {
		if value == "NaN" || strings.HasPrefix(section, "TOTAL_GC") {
			return nil
		}
		return fmt.Errorf("[%s], %s: %q is not a number", cutText(section), cutText(metric), cutText(value))
	}
	switch {
	case section == "OVERALL":
		switch metric {
		case "RunTime(ms)":
			rd.runtimeMs, rd.haveRun = v, true
		case "Throughput(ops/sec)":
			rd.throughput = v
		}
		return nil
	case strings.HasPrefix(section, "TOTAL_GC"):
		return nil
	}
	return rd.measure(section, metric, v)
}

// measure records one metric of an operation's section: READ, HdrREAD,
// BucketREAD, RawREAD, READ-FAILED.
func (rd *reader) measure(section, metric string, v float64) error {
	kind := ""
	for _, k := range []string{"Hdr", "Bucket", "Raw"} {
		if rest, ok := strings.CutPrefix(section, k); ok && rest != "" && rest == strings.ToUpper(rest) {
			kind, section = k, rest
		}
	}
	o := rd.op(strings.TrimSuffix(section, "-FAILED"))
	if strings.HasSuffix(section, "-FAILED") {
		if o.failed == nil {
			o.failed = &result.Latency{Percentiles: map[string]float64{}}
		}
		setLatency(o.failed, metric, v)
		return nil
	}
	f := o.kinds[kind]
	if f == nil {
		f = &figures{lat: result.Latency{Percentiles: map[string]float64{}}}
		o.kinds[kind] = f
	}
	count := func() (int64, error) {
		if v < 0 || v != math.Trunc(v) || v > math.MaxInt64/2 {
			return 0, fmt.Errorf("[%s], %s: %v is not a count", section, metric, v)
		}
		return int64(v), nil
	}
	switch {
	case strings.HasPrefix(metric, "Return="):
		n, err := count()
		if f.outcomes == nil {
			f.outcomes = map[string]int64{}
		}
		f.outcomes[strings.TrimPrefix(metric, "Return=")] = n
		return err
	case metric == "Operations" || metric == "Total Operations":
		n, err := count()
		f.count, f.haveCnt = n, true
		return err
	case metric == "LatencyVariance(us)":
		f.variance = v
		return nil
	}
	if _, err := strconv.ParseFloat(metric, 64); err == nil || strings.HasPrefix(metric, ">") {
		return nil // a histogram bucket or a time series point: no counts to go with it
	}
	if setLatency(&f.lat, metric, v) {
		f.haveLat = true
	}
	return nil
}

// setLatency sets the figure metric names in l: mean, min, max (µs), a
// percentile (µs, or ms as YCSB's histogram type prints them); false for
// any other metric.
func setLatency(l *result.Latency, metric string, v float64) bool {
	switch metric {
	case "AverageLatency(us)", "Average":
		l.MeanUs = v
	case "MinLatency(us)", "Min":
		l.MinUs = v
	case "MaxLatency(us)", "Max":
		l.MaxUs = v
	default:
		if m := percentileRE.FindStringSubmatch(metric); m != nil {
			if m[2] == "ms" {
				v *= 1000
			}
			l.Percentiles[m[1]] = v
		} else if m := rawPRE.FindStringSubmatch(metric); m != nil {
			l.Percentiles[m[1]] = v
		} else {
			return false
		}
	}
	return true
}

func (rd *reader) op(name string) *op {
	o := rd.ops[name]
	if o == nil {
		o = &op{name: name, kinds: map[string]*figures{}}
		rd.ops[name] = o
		rd.order = append(rd.order, name)
	}
	return o
}

// rawLine records one operation of a raw measurement: OP,epoch ms,µs.
func (rd *reader) rawLine(m []string) error {
	ts, err1 := strconv.ParseInt(m[2], 10, 64)
	us, err2 := strconv.ParseInt(m[3], 10, 64)
	if err1 != nil || err2 != nil || us > math.MaxInt64/1000 {
		return fmt.Errorf("raw line %s: want OP,TIMESTAMP(ms),LATENCY(us)", cutText(strings.Join(m[1:], ",")))
	}
	o := rd.op(m[1])
	if o.raw == nil {
		o.raw = hdr.New(1, 3_600_000_000_000, 3)
	}
	if err := o.raw.RecordValue(max(us*1000, 1)); err != nil {
		return fmt.Errorf("raw line %s: latency out of range", cutText(strings.Join(m[1:], ",")))
	}
	if rd.first == 0 || ts < rd.first {
		rd.first = ts
	}
	rd.end = max(rd.end, ts)
	return nil
}

func (rd *reader) doc() (*result.Doc, error) {
	d := &result.Doc{Format: result.Format, Version: result.FormatVersion, HistogramUnit: "ns", Stop: result.Completed,
		Command: "run", Properties: map[string]string{}, Ops: []result.OpResult{}, Series: []result.Point{}}
	d.ID = hex.EncodeToString(rd.hash[:16]) // the same text, the same identity: never merged twice
	for k, v := range rd.props {
		d.Properties[k] = props.RedactValue(k, v)
	}
	args := strings.Fields(rd.cmdline)
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-load":
			d.Command = "load"
		case (a == "-db" || a == "-P" || a == "-threads" || a == "-target" || a == "-p" || a == "-s" || a == "-l") && i+1 < len(args):
			switch a {
			case "-db":
				d.Properties["db"] = args[i+1]
			case "-P":
				d.Workload = filepath.Base(args[i+1])
			case "-threads":
				d.Properties["threadcount"] = args[i+1]
			case "-target":
				d.Properties["target"] = args[i+1]
			case "-p":
				if k, v, ok := strings.Cut(args[i+1], "="); ok {
					d.Properties[k] = props.RedactValue(k, v)
				}
			}
			i++
		}
	}
	if rd.props["dotransactions"] == "false" {
		d.Command = "load"
	}
	class := d.Properties["db"]
	d.Binding = Binding(class)
	if d.Binding == "" {
		d.Binding = "ycsb"
	}
	d.Driver = strings.TrimSpace("YCSB " + rd.version + " " + class)
	if w := strings.TrimPrefix(d.Workload, "workload"); len(w) == 1 && w >= "a" && w <= "f" {
		d.Workload = "workload " + w // as servbench names YCSB's own files
	}
	d.Threads, _ = strconv.Atoi(d.Properties["threadcount"])
	d.Rate, _ = strconv.ParseFloat(d.Properties["target"], 64)
	d.RuntimeMs, d.Throughput = rd.runtimeMs, rd.throughput
	if rd.first > 0 {
		d.Start = time.UnixMilli(rd.first).UTC()
		d.End = d.Start.Add(time.Duration(rd.runtimeMs * float64(time.Millisecond)))
	}
	d.Imported = Source + " " + filepath.Base(rd.name)
	d.Label = "YCSB " + d.Binding // runs of one configuration are one cell's repetitions
	for _, name := range rd.order {
		o := rd.ops[name]
		if name == "CLEANUP" {
			if r, err := o.result(); err == nil && r.Latency != nil {
				d.Cleanup = r.Latency
			}
			continue
		}
		r, err := o.result()
		if err != nil {
			return nil, fmt.Errorf("%s: [%s]: %v", rd.name, name, err)
		}
		d.Ops = append(d.Ops, r)
		d.Operations += r.Count
		for s, n := range r.Outcomes {
			if result.Succeeded(s) {
				d.OKOperations += n
			}
		}
	}
	sort.SliceStable(d.Ops, func(i, j int) bool { return d.Ops[i].Name < d.Ops[j].Name })
	if d.Operations > 0 {
		d.Goodput = d.Throughput * float64(d.OKOperations) / float64(d.Operations)
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", rd.name, err)
	}
	return d, nil
}

// result is the operation as servbench's result has it: its count is
// every outcome's (YCSB's Operations count the successful ones only); its
// figures the first section's of kindOrder, with the percentiles and
// variance only the others have.
func (o *op) result() (result.OpResult, error) {
	r := result.OpResult{Name: o.name, Histograms: map[string]string{}}
	var first *figures
	var lat result.Latency
	variance := 0.0
	for _, k := range kindOrder {
		f := o.kinds[k]
		if f == nil {
			continue
		}
		if first == nil {
			first = f
			lat = f.lat
			lat.Percentiles = map[string]float64{}
		}
		for p, v := range f.lat.Percentiles {
			if _, have := lat.Percentiles[p]; !have {
				lat.Percentiles[p] = v
			}
		}
		if variance == 0 {
			variance = f.variance
		}
		if r.Outcomes == nil && f.outcomes != nil {
			r.Outcomes = f.outcomes
		}
	}
	if r.Outcomes == nil { // no Return= lines: the operations counted are all there is
		r.Outcomes = map[string]int64{}
		switch {
		case first != nil && first.haveCnt:
			r.Outcomes["OK"] = first.count
		case o.raw != nil:
			r.Outcomes["OK"] = o.raw.TotalCount()
		}
	}
	for _, n := range r.Outcomes {
		var ok bool
		if r.Count, ok = result.Add(r.Count, n); !ok {
			return r, errors.New("its outcomes add up to more than a count can hold")
		}
	}
	if first != nil && first.haveLat {
		lat.Count = first.count
		if variance > 0 {
			lat.StdDevUs = math.Sqrt(variance)
		}
		r.Latency = &lat
	}
	r.LatencyFailed = o.failed
	if o.raw != nil && o.raw.TotalCount() == r.Count && r.Count == r.Outcomes["OK"] {
		r.Histograms["OK"] = result.Encode(o.raw)
	}
	return r, nil
}

func cutText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
