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
//
// A text that cannot be one run's whole output is refused, naming its
// file and line: [OVERALL] twice (runs or a load and a run concatenated),
// a figure given twice, a section cut short (no count, mean, minimum,
// maximum, a percentile the other sections have, or Return= lines that do
// not add up to its operations), or operations that do not add up to the
// throughput over the run time (an operation's sections cut off).
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
	"unicode/utf8"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// Bounds on what one text may make the reader hold, past which it is
// refused: a line; distinct operation names (YCSB measures about ten,
// each with a raw histogram of about 230 KB when raw lines name it);
// percentiles and Return= outcomes in one section; properties.
const (
	maxLine        = 1 << 20
	MaxOps         = 32
	MaxPercentiles = 64
	MaxOutcomes    = 32
	MaxProps       = 1024
	maxPropBytes   = 1 << 20
)

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
	// Java prints an integer percentile with its ordinal (99th), any
	// other as a double (99.9PercentileLatency(us)).
	percentileRE = regexp.MustCompile(`^(\d+(?:\.\d+)?)(?:st|nd|rd|th)?PercentileLatency\((us|ms)\)$`)
	rawPRE       = regexp.MustCompile(`^p(\d+(?:\.\d+)?)$`)
	propertyRE   = regexp.MustCompile(`^"([^"]*)"="(.*)"$`)
	versionRE    = regexp.MustCompile(`^YCSB Client (\S+)`)
)

// rawPercentiles are the percentiles of a raw summary, all printed when
// one is.
var rawPercentiles = []string{"1", "5", "50", "90", "95", "99", "99.9", "99.99"}

// dbOps are the operations YCSB's DBWrapper (and servbench) count by
// outcome: their sections always carry Return= lines.
var dbOps = map[string]bool{"READ": true, "UPDATE": true, "INSERT": true, "SCAN": true, "DELETE": true, "QUERY": true, "BATCH-INSERT": true}

// notOps are YCSB's (and servbench's) sections that measure something
// other than an operation: the status thread's JVM figures (-s with
// measurement.trackjvm), a scan's latency per record, the schedule's lag.
var notOps = map[string]bool{
	"THREAD_COUNT": true, "SYS_LOAD_AVG": true, "GCS": true, "GCS_TIME": true, "USED_MEM_MB": true,
	"MAX_MEM_USED": true, "MIN_MEM_USED": true, "MAX_THREADS": true, "MIN_THREADS": true,
	"MAX_SYS_LOAD_AVG": true, "MIN_SYS_LOAD_AVG": true, "SCAN-LATENCY-PER-RECORD": true, "SCHEDULE": true,
}

// key is one section of an operation: its kind in a combined measurement
// type ("", or Hdr, Bucket, Raw), whether it is the latency from the
// intended start (Intended-READ), and the failures it measures apart
// ("" for the successful ones, FAILED, or a status: READ-NOT_FOUND).
type key struct {
	kind     string
	intended bool
	status   string
}

// op is one operation's sections as read, in the order they came.
type op struct {
	name  string
	line  int // where it first appeared
	sects map[key]*figures
	keys  []key
	raw   *hdr.Histogram // from raw lines
}

// Flags of the figures a section gave.
const (
	haveMean = 1 << iota
	haveMin
	haveMax
	haveVar
	haveSummary // a raw summary's "Below is a summary" line
)

type figures struct {
	name       string // the section as printed
	line       int    // its first line
	countBy    string // Operations, or Total Operations (raw); "" none yet
	count      int64  // the successful ones (YCSB measures failures apart)
	outcomes   map[string]int64
	returnLine int
	have       int
	mean       float64
	min, max   float64
	variance   float64
	pcts       map[string]float64 // NaN kept here, left out of the result
	pctMS      bool               // the histogram type's percentiles in ms (YCSB before 0.2)
	// rows: the section has histogram buckets or time series points.
	// YCSB's timeseries type counts its Operations without a lock, so
	// threads lose increments of it (1,550 for 1,551 Return=OK); its
	// Return= lines, counted atomically, are the count then.
	rows bool
}

// kindOrder is which section's figures come first: HdrHistogram's, a
// single type's, then the others'.
var kindOrder = []string{"Hdr", "", "Bucket", "Raw"}

type reader struct {
	name        string
	n           int // the line being read
	ops         map[string]*op
	order       []string
	runtimeMs   float64
	runLine     int
	throughput  float64
	thrLine     int
	overall     map[string]int // [OVERALL] metrics read -> line
	props       map[string]string
	nprops      int // properties read, the command line's -p included
	propBytes   int
	cmdline     string
	cmdLine     int
	version     string
	versionLine int
	first, end  int64 // raw lines' timestamps, ms
	hash        []byte
}

// Read reads YCSB's output from r; name is the file's name, for errors and
// the result's label. Lines that are not YCSB's (a binding's own output,
// its properties' block) are skipped; a line of a measurement that cannot
// be read, and a text that cannot be one run's whole output, fail with a
// line's number.
func Read(r io.Reader, name string) (*result.Doc, error) {
	rd := &reader{name: name, ops: map[string]*op{}, props: map[string]string{}, overall: map[string]int{}}
	h := sha256.New()
	sc := bufio.NewScanner(io.TeeReader(r, h))
	sc.Buffer(make([]byte, 64<<10), maxLine)
	for sc.Scan() {
		rd.n++
		l := sc.Text()
		if rd.n == 1 {
			l = strings.TrimPrefix(l, "\uFEFF") // a byte order mark an editor added
		}
		if err := rd.line(strings.TrimSpace(l)); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, rd.n, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d KiB: not YCSB's output", name, rd.n+1, maxLine>>10)
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if rd.runLine == 0 {
		return nil, fmt.Errorf("%s: no [OVERALL], RunTime(ms) line: not the output of YCSB's client", name)
	}
	if rd.thrLine == 0 {
		return nil, fmt.Errorf("%s:%d: no [OVERALL], Throughput(ops/sec) after the run time: a cut output", name, rd.runLine)
	}
	rd.hash = h.Sum(nil)
	return rd.doc()
}

func (rd *reader) line(l string) error {
	kept := strings.HasPrefix(l, "Command line:") || strings.HasPrefix(l, "YCSB Client ") || strings.HasPrefix(l, `"`) || strings.HasPrefix(l, "[")
	if kept && strings.ContainsFunc(l, control) { // what is kept reaches terminals and results (a BasicDB's -p basicdb.verbose values, ignored, may hold any byte)
		return fmt.Errorf("a control character (%q): not YCSB's output", props.Cut(l, 60))
	}
	switch {
	case l == "":
		return nil
	case strings.HasPrefix(l, "Command line:"):
		if rd.cmdLine != 0 {
			return fmt.Errorf("a second command line (the first at line %d): several runs in one file; import each run's output apart", rd.cmdLine)
		}
		rd.cmdline, rd.cmdLine = strings.TrimSpace(strings.TrimPrefix(l, "Command line:")), rd.n
		return rd.countProps(strings.Count(rd.cmdline, "="), len(rd.cmdline))
	case strings.HasPrefix(l, "YCSB Client "):
		if m := versionRE.FindStringSubmatch(l); m != nil {
			if rd.versionLine != 0 {
				return fmt.Errorf("a second version line (the first at line %d): several runs in one file; import each run's output apart", rd.versionLine)
			}
			rd.version, rd.versionLine = m[1], rd.n
		}
		return nil
	case strings.HasPrefix(l, `"`):
		if m := propertyRE.FindStringSubmatch(l); m != nil {
			if _, have := rd.props[m[1]]; !have {
				if err := rd.countProps(1, len(m[1])+len(m[2])); err != nil {
					return err
				}
			}
			rd.props[m[1]] = m[2] // BasicDB prints them once per thread
		}
		return nil
	case !strings.HasPrefix(l, "["):
		if name, ts, us, ok := rawLine(l); ok {
			return rd.rawLine(name, ts, us)
		}
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
	if strings.HasPrefix(section, "TOTAL_GC") {
		return nil
	}
	v, err := strconv.ParseFloat(value, 64)
	if err != nil || math.IsInf(v, 0) {
		return fmt.Errorf("[%s], %s: %q is not a number", cutText(section), cutText(metric), cutText(value))
	}
	if section == "OVERALL" {
		return rd.overallLine(metric, v)
	}
	if !printable(section) {
		return fmt.Errorf("[%s]: an empty name or control characters: not YCSB's output", cutText(section))
	}
	if notOps[section] {
		return nil
	}
	return rd.measure(section, metric, v)
}

// maxRunMs is the longest run time read, in ms: what a time.Duration
// holds (292 years).
const maxRunMs = float64(math.MaxInt64 / int64(time.Millisecond))

// maxRawMs is the latest raw line's timestamp read, in ms since 1970: the
// end of year 9999, the last a result's JSON time can hold.
const maxRawMs = 253402300799999

// printable tells whether a name from the text is one: not empty, no
// control characters (which would reach a terminal through report).
func printable(s string) bool {
	return s != "" && !strings.ContainsFunc(s, control)
}

// control tells a control character other than a tab: C0, DEL, C1.
func control(r rune) bool { return r != '\t' && (r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0)) }

// countProps adds n properties of size bytes to those read.
func (rd *reader) countProps(n, size int) error {
	rd.nprops += n
	rd.propBytes += size
	if rd.nprops > MaxProps || rd.propBytes > maxPropBytes {
		return fmt.Errorf("more than %d properties or %d KiB of them: not YCSB's output", MaxProps, maxPropBytes>>10)
	}
	return nil
}

// overallLine reads an [OVERALL] figure: the run time and throughput once
// each (a second one is a second run's).
func (rd *reader) overallLine(metric string, v float64) error {
	switch metric {
	case "RunTime(ms)", "Throughput(ops/sec)", "Warmup(ms)", "Abandoned":
	default:
		return nil
	}
	if first, dup := rd.overall[metric]; dup {
		return fmt.Errorf("a second [OVERALL], %s (the first at line %d): several runs in one file; import each run's output apart", metric, first)
	}
	rd.overall[metric] = rd.n
	switch metric {
	case "RunTime(ms)":
		if v < 0 || math.IsNaN(v) || v > maxRunMs {
			return fmt.Errorf("[OVERALL], RunTime(ms): %v is not a run time", v)
		}
		rd.runtimeMs, rd.runLine = v, rd.n
	case "Throughput(ops/sec)":
		if v < 0 {
			return fmt.Errorf("[OVERALL], Throughput(ops/sec): %v is negative", v)
		}
		if math.IsNaN(v) { // YCSB's 0 operations in 0 ms
			v = 0
		}
		rd.throughput, rd.thrLine = v, rd.n
	}
	return nil
}

// splitSection parses a section's name: HdrIntended-READ-FAILED is the
// operation READ, kind Hdr, intended, FAILED.
func splitSection(s string) (string, key) {
	var k key
	for _, p := range []string{"Hdr", "Bucket", "Raw"} {
		if rest, ok := strings.CutPrefix(s, p); ok && rest != "" && (rest[0] >= 'A' && rest[0] <= 'Z') {
			k.kind, s = p, rest
			break
		}
	}
	if rest, ok := strings.CutPrefix(s, "Intended-"); ok && rest != "" {
		k.intended, s = true, rest
	}
	if i := strings.LastIndexByte(s, '-'); i > 0 {
		if st := s[i+1:]; st == "FAILED" || failures[st] {
			k.status, s = st, s[:i]
		}
	}
	return s, k
}

// failures are the failed outcomes of YCSB's Status and servbench's own,
// which reportlatencyforeacherror measures in a section of their own
// (READ-NOT_FOUND). A binding's own status is recognised after the text
// is read, by its operation's Return= lines (adopt).
var failures = map[string]bool{
	"ERROR": true, "NOT_FOUND": true, "NOT_IMPLEMENTED": true, "UNEXPECTED_STATE": true, "BAD_REQUEST": true,
	"FORBIDDEN": true, "SERVICE_UNAVAILABLE": true, "TIMEOUT": true, "THROTTLED": true, "CANCELED": true,
}

// measure records one metric of an operation's section: READ, HdrREAD,
// BucketREAD, RawREAD, READ-FAILED, Intended-READ.
func (rd *reader) measure(section, metric string, v float64) error {
	if _, err := strconv.ParseFloat(metric, 64); err == nil || strings.HasPrefix(metric, ">") {
		// A histogram bucket or a time series point: no counts to go
		// with it.
		name, k := splitSection(section)
		if o := rd.ops[name]; o != nil && o.sects[k] != nil {
			o.sects[k].rows = true
		}
		return nil
	}
	name, k := splitSection(section)
	o, err := rd.op(name)
	if err != nil {
		return err
	}
	f := o.sects[k]
	if f == nil {
		f = &figures{name: section, line: rd.n, pcts: map[string]float64{}}
		o.sects[k] = f
		o.keys = append(o.keys, k)
	}
	if counted, err := f.countLine(section, metric, v, rd.n); counted || err != nil {
		return err
	}
	flag, pct, v, ok := f.latencyOf(metric, v)
	if !ok {
		return nil // a figure servbench does not read
	}
	if flag&f.have != 0 {
		return f.twice(section, metric)
	}
	if _, have := f.pcts[pct]; pct != "" && have {
		return f.twice(section, metric)
	}
	// YCSB prints -1 as the minimum and maximum of a histogram without
	// values; they are left out with the section's other latencies.
	if v < 0 && (f.countBy == "" || f.count > 0) {
		return fmt.Errorf("[%s], %s: %v is negative: a latency cannot be", cutText(section), cutText(metric), v)
	}
	if pct == "" {
		return f.latency(section, flag, v)
	}
	return f.percentile(section, pct, v)
}

// twice is the error of a metric read a second time in one section.
func (f *figures) twice(section, metric string) error {
	return fmt.Errorf("[%s], %s a second time in the section begun at line %d: several runs in one file; import each run's output apart", cutText(section), cutText(metric), f.line)
}

// asCount returns v as a count, or an error when it cannot be one.
func asCount(section, metric string, v float64) (int64, error) {
	if v < 0 || v != math.Trunc(v) || v > math.MaxInt64/2 {
		return 0, fmt.Errorf("[%s], %s: %v is not a count", cutText(section), cutText(metric), v)
	}
	return int64(v), nil
}

// countLine records a metric that counts (Return=, Operations, Total
// Operations) or opens a raw summary, read at line n. It reports whether
// metric was one of them.
func (f *figures) countLine(section, metric string, v float64, n int) (bool, error) {
	switch {
	case strings.HasPrefix(metric, "Return="):
		s := strings.TrimPrefix(metric, "Return=")
		if !printable(s) {
			return true, fmt.Errorf("[%s], %s: an empty outcome or control characters: not YCSB's output", cutText(section), cutText(metric))
		}
		if _, have := f.outcomes[s]; have {
			return true, f.twice(section, metric)
		}
		if len(f.outcomes) >= MaxOutcomes {
			return true, fmt.Errorf("[%s]: more than %d Return= outcomes: not YCSB's output", cutText(section), MaxOutcomes)
		}
		c, err := asCount(section, metric, v)
		if err != nil {
			return true, err
		}
		if f.outcomes == nil {
			f.outcomes = map[string]int64{}
			f.returnLine = n
		}
		f.outcomes[s] = c
		return true, nil
	case metric == "Operations" || metric == "Total Operations":
		if f.countBy != "" {
			return true, f.twice(section, metric)
		}
		c, err := asCount(section, metric, v)
		if err != nil {
			return true, err
		}
		f.count, f.countBy = c, metric
		return true, nil
	case metric == "Below is a summary of latency in microseconds:":
		if f.have&haveSummary != 0 {
			return true, f.twice(section, metric)
		}
		f.have |= haveSummary
		return true, nil
	}
	return false, nil
}

// latencyOf returns which latency metric is: a flag (haveMean, haveMin,
// haveMax, haveVar), or a percentile's name; and v in µs (a histogram
// type's percentiles in ms noted in f). ok is false for a figure
// servbench does not read.
func (f *figures) latencyOf(metric string, v float64) (flag int, pct string, us float64, ok bool) {
	switch metric {
	case "AverageLatency(us)", "Average":
		flag = haveMean
	case "MinLatency(us)", "Min":
		flag = haveMin
	case "MaxLatency(us)", "Max":
		flag = haveMax
	case "LatencyVariance(us)":
		flag = haveVar
	default:
		if m := percentileRE.FindStringSubmatch(metric); m != nil {
			pct = m[1]
			if m[2] == "ms" {
				f.pctMS = true
				v *= 1000
			}
		} else if m := rawPRE.FindStringSubmatch(metric); m != nil {
			pct = m[1]
		} else {
			return 0, "", v, false
		}
	}
	return flag, pct, v, true
}

// latency records the mean, minimum, maximum or variance (flag) v, and
// refuses what one run cannot print: a minimum above the maximum, a mean
// outside them, a percentile above the maximum.
func (f *figures) latency(section string, flag int, v float64) error {
	f.have |= flag
	switch flag {
	case haveMean:
		f.mean = v
	case haveMin:
		f.min = v
	case haveMax:
		f.max = v
	case haveVar:
		f.variance = v
	}
	// A section that measured nothing prints the empty histogram's
	// minimum (the largest value) above its maximum (0).
	if both := haveMin | haveMax; flag&both != 0 && f.have&both == both && f.count > 0 && f.min > f.max {
		return fmt.Errorf("[%s]: a minimum latency (%v) above the maximum (%v): not one run's output", cutText(section), f.min, f.max)
	}
	// The mean of what was measured lies between its least and its
	// most, within the microsecond YCSB truncates them to (a mean of
	// 0.04 beside a maximum of 0) and a double's rounding.
	if all := haveMean | haveMin | haveMax; flag&all != 0 && f.have&all == all && f.count > 0 && f.min <= f.max {
		if slack := 1 + 1e-9*math.Abs(f.max); f.mean < f.min-slack || f.mean > f.max+slack {
			return fmt.Errorf("[%s]: an average latency (%v) outside the minimum and maximum (%v, %v): not one run's output", cutText(section), f.mean, f.min, f.max)
		}
	}
	if flag == haveMax && f.count > 0 {
		for _, p := range f.pctKeys() {
			if err := f.pctAboveMax(section, p, f.pcts[p]); err != nil {
				return err
			}
		}
	}
	return nil
}

// percentile records percentile pct's latency v, refusing more than
// MaxPercentiles and, when the section measured anything, one above the
// maximum or out of order.
func (f *figures) percentile(section, pct string, v float64) error {
	if len(f.pcts) >= MaxPercentiles {
		return fmt.Errorf("[%s]: more than %d percentiles: not YCSB's output", cutText(section), MaxPercentiles)
	}
	if f.countBy == "" || f.count > 0 {
		if err := f.pctAboveMax(section, pct, v); err != nil {
			return err
		}
		if err := f.pctInOrder(section, pct, v); err != nil {
			return err
		}
	}
	f.pcts[pct] = v
	return nil
}

// pctAboveMax refuses a percentile above the section's maximum, once
// both are read: the maximum is the largest latency measured (a
// histogram type's percentiles are rounded down to the ms, HdrHistogram's
// are its values' as the maximum is), within YCSB's µs.
func (f *figures) pctAboveMax(section, pct string, v float64) error {
	if f.have&haveMax != 0 && v > f.max+1+1e-9*math.Abs(f.max) {
		return fmt.Errorf("[%s]: the %s percentile latency (%v) above the maximum (%v): not one run's output", cutText(section), ordinal(pct), v, f.max)
	}
	return nil
}

// pctInOrder refuses a percentile below a lower one of the section, or
// above a higher one (p50 ≤ p95 ≤ p99 ≤ ...), within YCSB's µs.
func (f *figures) pctInOrder(section, pct string, v float64) error {
	p, _ := strconv.ParseFloat(pct, 64)
	for _, k := range f.pctKeys() {
		q, _ := strconv.ParseFloat(k, 64)
		w := f.pcts[k]
		slack := 1 + 1e-9*math.Abs(w)
		switch {
		case q < p && v < w-slack:
			return fmt.Errorf("[%s]: the %s percentile latency (%v) below the %s's (%v): not one run's output", cutText(section), ordinal(pct), v, ordinal(k), w)
		case q > p && v > w+slack:
			return fmt.Errorf("[%s]: the %s percentile latency (%v) above the %s's (%v): not one run's output", cutText(section), ordinal(pct), v, ordinal(k), w)
		}
	}
	return nil
}

// pctKeys are the section's percentiles read so far, in order of their
// names (an error names the same one each time).
func (f *figures) pctKeys() []string {
	keys := make([]string, 0, len(f.pcts))
	for k := range f.pcts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ordinal names a percentile as YCSB does: 95th, 99.9th, 1st.
func ordinal(pct string) string {
	switch {
	case strings.HasSuffix(pct, "1") && !strings.HasSuffix(pct, "11"):
		return pct + "st"
	case strings.HasSuffix(pct, "2") && !strings.HasSuffix(pct, "12"):
		return pct + "nd"
	case strings.HasSuffix(pct, "3") && !strings.HasSuffix(pct, "13"):
		return pct + "rd"
	}
	return pct + "th"
}

// op returns the operation of that name, refusing one past MaxOps.
func (rd *reader) op(name string) (*op, error) {
	o := rd.ops[name]
	if o == nil {
		if len(rd.ops) >= MaxOps {
			return nil, fmt.Errorf("more than %d operation names (the next: %s): YCSB measures about ten (READ, UPDATE, INSERT, SCAN, ...); not one run's output", MaxOps, cutText(name))
		}
		o = &op{name: name, line: rd.n, sects: map[key]*figures{}}
		rd.ops[name] = o
		rd.order = append(rd.order, name)
	}
	return o, nil
}

// rawLine splits a raw measurement's line, OP,epoch ms,µs (RawOP in
// hdrhistogram+raw), without a regular expression: a raw output has a line
// per operation.
func rawLine(l string) (name, ts, us string, ok bool) {
	name, rest, ok1 := strings.Cut(l, ",")
	ts, us, ok2 := strings.Cut(rest, ",")
	if !ok1 || !ok2 || name == "" || name[0] < 'A' || name[0] > 'Z' || !number(ts) || !number(us) {
		return "", "", "", false
	}
	for _, c := range strings.TrimPrefix(name, "Raw") {
		if (c < 'A' || c > 'Z') && c != '-' && c != '_' {
			return "", "", "", false
		}
	}
	return name, ts, us, true
}

// number tells whether s is an optionally negative run of digits.
func number(s string) bool {
	s = strings.TrimPrefix(s, "-")
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// rawLine records one operation of a raw measurement. Only the successful
// ones become a histogram (a failure's raw line names its section,
// READ-FAILED).
func (rd *reader) rawLine(name, tsText, usText string) error {
	line := cutText(name + "," + tsText + "," + usText)
	ts, err1 := strconv.ParseInt(tsText, 10, 64)
	us, err2 := strconv.ParseInt(usText, 10, 64)
	if err1 != nil || err2 != nil || us > math.MaxInt64/1000 || ts < 0 || ts > maxRawMs {
		return fmt.Errorf("raw line %s: want OP,TIMESTAMP(ms),LATENCY(us)", line)
	}
	if us < 0 {
		return fmt.Errorf("raw line %s: a negative latency", line)
	}
	opName, k := splitSection(name)
	o, err := rd.op(opName)
	if err != nil {
		return err
	}
	if k.status != "" || k.intended {
		return nil
	}
	if o.raw == nil {
		o.raw = hdr.New(1, 3_600_000_000_000, 3)
	}
	if err := o.raw.RecordValue(max(us*1000, 1)); err != nil {
		return fmt.Errorf("raw line %s: latency out of range", line)
	}
	if rd.first == 0 || ts < rd.first {
		rd.first = ts
	}
	rd.end = max(rd.end, ts)
	return nil
}

// errAt is an error at a line of the file.
func (rd *reader) errAt(line int, format string, a ...any) error {
	return fmt.Errorf("%s:%d: %s", rd.name, line, fmt.Sprintf(format, a...))
}

// adopt moves the sections of an operation named OP-STATUS, where STATUS
// is an outcome OP counts (a binding's own status, measured apart with
// reportlatencyforeacherror), to OP.
func (rd *reader) adopt() {
	for _, name := range rd.order {
		o := rd.ops[name]
		i := strings.LastIndexByte(name, '-')
		if i <= 0 {
			continue
		}
		parent := rd.ops[name[:i]]
		if parent == nil || parent == o || !parent.counts(name[i+1:]) {
			continue
		}
		for _, k := range o.keys {
			nk := key{kind: k.kind, intended: k.intended, status: name[i+1:]}
			if k.status != "" || parent.sects[nk] != nil {
				continue
			}
			parent.sects[nk] = o.sects[k]
			parent.keys = append(parent.keys, nk)
		}
		delete(rd.ops, name)
	}
	kept := rd.order[:0]
	for _, name := range rd.order {
		if rd.ops[name] != nil {
			kept = append(kept, name)
		}
	}
	rd.order = kept
}

// counts tells whether one of o's sections counts the outcome s.
func (o *op) counts(s string) bool {
	for _, f := range o.sects {
		if _, ok := f.outcomes[s]; ok && !result.Succeeded(s) {
			return true
		}
	}
	return false
}

// check refuses what cannot be one run's whole output; every error names a
// line.
func (rd *reader) check() error {
	for _, name := range rd.order {
		if err := rd.checkOp(name, rd.ops[name]); err != nil {
			return err
		}
	}
	if err := rd.checkSections(); err != nil {
		return err
	}
	if err := rd.checkPercentiles(); err != nil {
		return err
	}
	return nil
}

// checkOp refuses an operation's section without its count, mean,
// minimum or maximum; Return= lines that do not add up to the operations
// its sections measured; a DB operation without Return= lines; raw lines
// or intended latencies that do not count as many operations as their
// summary.
func (rd *reader) checkOp(name string, o *op) error {
	returns := false
	for _, k := range o.keys {
		f := o.sects[k]
		if m := f.missing(); m != "" {
			return rd.errAt(f.line, "[%s]: no %s line: a cut output", cutText(f.name), m)
		}
		if k.intended {
			if plain := o.sects[key{kind: k.kind, status: k.status}]; plain != nil && plain.count != f.count {
				return rd.errAt(f.line, "[%s]: %d operations, [%s] %d: a cut or mixed output", cutText(f.name), f.count, cutText(plain.name), plain.count)
			}
			continue
		}
		if o.raw != nil && f.countBy == "Total Operations" && k.status == "" && f.count != o.raw.TotalCount() {
			return rd.errAt(f.line, "[%s]: %d operations, but %d raw lines of %s: a cut or mixed output", cutText(f.name), f.count, o.raw.TotalCount(), cutText(name))
		}
		if f.outcomes == nil || k.status != "" {
			continue
		}
		returns = true
		var sum, want int64 = 0, f.count // failures are measured apart
		ok1, ok2 := true, true
		for _, n := range f.outcomes {
			if sum, ok1 = result.Add(sum, n); !ok1 {
				break
			}
		}
		for _, fk := range o.keys {
			if fk.kind == k.kind && !fk.intended && fk.status != "" && ok2 {
				want, ok2 = result.Add(want, o.sects[fk].count)
			}
		}
		if !ok1 || !ok2 {
			return rd.errAt(f.returnLine, "[%s]: its counts add up to more than a count can hold", cutText(f.name))
		}
		if f.rows && sum > want { // increments the timeseries type lost
			f.count += sum - want
			want = sum
		}
		if sum != want {
			return rd.errAt(f.returnLine, "[%s]: its Return= lines count %d operations, its sections %d: a cut or mixed output", cutText(f.name), sum, want)
		}
	}
	if dbOps[name] && !returns {
		return rd.errAt(o.line, "[%s]: no Return= lines: a cut output", cutText(name))
	}
	return nil
}

// checkSections refuses a text without the sections YCSB prints for every
// run: each thread's CLEANUP (since its outcomes have had names, not
// numbers), and with intended latencies (-target, measurement.interval)
// every operation's.
func (rd *reader) checkSections() error {
	named, intended := false, false
	for _, o := range rd.ops {
		for _, k := range o.keys {
			intended = intended || k.intended
			for s := range o.sects[k].outcomes {
				named = named || strings.Trim(s, "-0123456789") != ""
			}
		}
	}
	if named && rd.ops["CLEANUP"] == nil {
		return rd.errAt(rd.n, "no [CLEANUP] section, which YCSB prints after every run: a cut output")
	}
	for _, name := range rd.order {
		o := rd.ops[name]
		if !intended || name == "CLEANUP" || name == "VERIFY" {
			continue
		}
		plain, resp := 0, false
		for _, k := range o.keys {
			resp = resp || k.intended
			if !k.intended && k.status == "" && plain == 0 {
				plain = o.sects[k].line
			}
		}
		if plain != 0 && !resp {
			return rd.errAt(plain, "[%s]: no Intended-%s section, which the other operations have: a cut output", cutText(name), cutText(name))
		}
	}
	return nil
}

// checkPercentiles refuses an hdrhistogram section without a percentile
// the others have: YCSB prints hdrhistogram.percentiles in each.
func (rd *reader) checkPercentiles() error {
	pcts := map[string]int{} // percentile -> a line of a section that has it
	for _, name := range rd.order {
		for _, f := range rd.ops[name].sects {
			if f.hdrLike() {
				for p := range f.pcts {
					if line, ok := pcts[p]; !ok || f.line < line {
						pcts[p] = f.line
					}
				}
			}
		}
	}
	names := make([]string, 0, len(pcts))
	for p := range pcts {
		names = append(names, p)
	}
	sort.Strings(names)
	for _, name := range rd.order {
		o := rd.ops[name]
		for _, k := range o.keys {
			f := o.sects[k]
			if !f.hdrLike() {
				continue
			}
			for _, p := range names {
				if _, ok := f.pcts[p]; !ok {
					return rd.errAt(f.line, "[%s]: no percentile %s, which the section at line %d has: a cut output", cutText(f.name), p, pcts[p])
				}
			}
		}
	}
	return nil
}

// hdrLike tells whether f is an hdrhistogram section (or a timeseries
// one): those of a text all print the same percentiles.
func (f *figures) hdrLike() bool {
	return f.countBy == "Operations" && f.have&haveVar == 0 && !f.pctMS
}

// missing names a line YCSB prints in every section of f's type that f
// lacks: its count; the mean, minimum and maximum; a raw summary's
// percentiles.
func (f *figures) missing() string {
	if f.countBy == "" {
		return "Operations"
	}
	names := [3]string{"AverageLatency(us)", "MinLatency(us)", "MaxLatency(us)"}
	if f.countBy != "Operations" { // raw
		if f.have&haveSummary == 0 {
			return "" // measurement.raw.no_summary
		}
		names = [3]string{"Average", "Min", "Max"}
	}
	for i, flag := range []int{haveMean, haveMin, haveMax} {
		if f.have&flag == 0 {
			return names[i]
		}
	}
	if f.countBy != "Operations" {
		for _, p := range rawPercentiles {
			if _, ok := f.pcts[p]; !ok {
				return "p" + p
			}
		}
	}
	return ""
}

// doc is the result document of the text read, checked.
func (rd *reader) doc() (*result.Doc, error) {
	rd.adopt()
	if err := rd.check(); err != nil {
		return nil, err
	}
	d := &result.Doc{Format: result.Format, Version: result.FormatVersion, HistogramUnit: "ns", Stop: result.Completed,
		Command: "run", Properties: map[string]string{}, Ops: []result.OpResult{}, Series: []result.Point{}}
	d.ID = hex.EncodeToString(rd.hash[:16]) // the same text, the same identity: never merged twice
	for k, v := range rd.props {
		d.Properties[k] = v // hidden below, by value
	}
	commandLine(d, rd.cmdline)
	// Credentials hidden as a run's are: every secret any property or
	// the command line holds, wherever a value repeats it.
	var known props.Redactor
	known.Hidden(rd.cmdline)
	d.Properties = known.Map(d.Properties)
	rd.describe(d)
	if err := rd.operations(d); err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %v", rd.name, err)
	}
	return d, nil
}

// ycsbSecrets are properties of YCSB's own bindings that hold a
// credential under a name no general rule reads as one: Azure Cosmos DB's
// account key (azurecosmos.primaryKey: a "primary key" is a record's key
// elsewhere, dynamodb.primaryKey). They are declared as a binding's
// secrets are (props.DeclareSecrets), for the imports of YCSB's runs.
var ycsbSecrets = map[string]bool{"azurecosmos.primarykey": true}

// ycsbUserPass are properties of YCSB's bindings that hold USER:PASSWORD
// (Elasticsearch's es.setting.xpack.security.user, passed through by its
// binding): the password is the secret.
var ycsbUserPass = map[string]bool{"es.setting.xpack.security.user": true}

func init() {
	props.DeclareSecrets(func(key, value string) []string {
		k := strings.ToLower(key)
		if ycsbSecrets[k] {
			return []string{value}
		}
		if _, pw, ok := strings.Cut(value, ":"); ok && ycsbUserPass[k] && pw != "" {
			return []string{pw}
		}
		return nil
	})
}

// commandLine reads YCSB's command line into d: -load, and what -db, -P,
// -threads, -target and -p give.
func commandLine(d *result.Doc, cmdline string) {
	args := strings.Fields(cmdline)
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
					d.Properties[k] = v
				}
			}
			i++
		}
	}
}

// describe names d's run from its properties (secrets hidden) and
// [OVERALL]: its command, binding, driver, workload, threads, rate, run
// time, start and end, and label.
func (rd *reader) describe(d *result.Doc) {
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
}

// operations puts the operations' results in d, sorted by name, and
// counts the run's operations, those that succeeded and its goodput,
// checked against [OVERALL]. The run's operations are YCSB's
// transactions: those of the DB operations (any with Return= lines),
// less the READ-MODIFY-WRITEs their READs and UPDATEs count a second
// time.
func (rd *reader) operations(d *result.Doc) error {
	var txns, failed, rmw, batches int64
	for _, name := range rd.order {
		o := rd.ops[name]
		r, err := o.result()
		if err != nil {
			return rd.errAt(o.line, "[%s]: %v", cutText(name), err)
		}
		switch {
		case name == "CLEANUP":
			d.Cleanup = r.Latency
			continue
		case name == "READ-MODIFY-WRITE":
			rmw = r.Count
		case name == "BATCH-INSERT": // servbench's: one call, batchsize transactions
			batches = r.Count
		case name != "VERIFY" && o.returns():
			var ok bool
			if txns, ok = result.Add(txns, r.Count); !ok {
				return rd.errAt(o.line, "[%s]: the operations add up to more than a count can hold", cutText(name))
			}
			for s, n := range r.Outcomes {
				if !result.Succeeded(s) {
					failed, _ = result.Add(failed, n)
				}
			}
		}
		d.Ops = append(d.Ops, r)
	}
	txns = max(txns-rmw, 0)
	all, ok := result.Add(txns, batches)
	if !ok {
		return rd.errAt(rd.thrLine, "the operations add up to more than a count can hold")
	}
	if err := rd.consistent(all, failed, batches > 0); err != nil {
		return err
	}
	if len(d.Ops) == 0 && d.Cleanup == nil { // YCSB prints every thread's [CLEANUP] at least
		return rd.errAt(rd.thrLine, "no operation's section after [OVERALL]: a cut output")
	}
	d.Operations, d.OKOperations = all, max(txns-failed, 0)+batches
	sort.SliceStable(d.Ops, func(i, j int) bool { return d.Ops[i].Name < d.Ops[j].Name })
	if d.Operations > 0 {
		d.Goodput = d.Throughput * float64(d.OKOperations) / float64(d.Operations)
	}
	return nil
}

// consistent checks the operations counted against [OVERALL]: YCSB's
// throughput is its transactions over the run time in whole ms (servbench's
// over the exact run time, which the whole ms truncate), so they are
// throughput × RunTime to throughput × (RunTime+1 ms). Failed operations
// may count more (a load's retried inserts: each is measured, the record
// counted once). With batches (servbench's BATCH-INSERT, a call of many
// records) only an upper bound holds.
func (rd *reader) consistent(ops, failed int64, batches bool) error {
	lo := rd.throughput * rd.runtimeMs / 1000
	hi := rd.throughput * (rd.runtimeMs + 1) / 1000
	n := float64(ops)
	slack := 0.5 + 1e-9*max(n, hi)
	if n > hi+float64(failed)+slack || (!batches && n < lo-slack) || (rd.throughput > 0 && ops == 0) {
		return rd.errAt(rd.thrLine, "the operations add up to %d, but [OVERALL] says %.6g ops/s over %v ms, %.0f operations: sections cut off or mixed from several runs", ops, rd.throughput, rd.runtimeMs, lo)
	}
	return nil
}

// returns tells whether o's sections count its outcomes.
func (o *op) returns() bool {
	for _, f := range o.sects {
		if f.outcomes != nil {
			return true
		}
	}
	return false
}

// result is the operation as servbench's result has it: its count is
// every outcome's (YCSB's Operations count the successful ones only); its
// figures the first section's of kindOrder, with the percentiles and
// variance only the others have.
func (o *op) result() (result.OpResult, error) {
	r := result.OpResult{Name: o.name, Histograms: map[string]string{}}
	var first *figures
	for _, k := range kindOrder {
		if f := o.sects[key{kind: k}]; f != nil {
			if first == nil {
				first = f
			}
			if r.Outcomes == nil && f.outcomes != nil {
				r.Outcomes = maps(f.outcomes)
			}
		}
	}
	if r.Outcomes == nil { // no Return= lines: the operations counted are all there is
		r.Outcomes = map[string]int64{}
		switch {
		case first != nil:
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
	r.Latency = o.latency(key{})
	r.LatencyFailed = o.latency(key{status: "FAILED"})
	r.Response = o.latency(key{intended: true})
	r.ResponseFailed = o.latency(key{intended: true, status: "FAILED"})
	if o.raw != nil && o.raw.TotalCount() == r.Count && r.Count == r.Outcomes["OK"] {
		r.Histograms["OK"] = result.Encode(o.raw)
	}
	return r, nil
}

func maps(m map[string]int64) map[string]int64 {
	c := make(map[string]int64, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// latency is the summary of o's sections of one kind (of every measurement
// type, the first in kindOrder first); nil when they measured nothing.
// What YCSB prints as NaN (a mean of nothing) is left out: a section
// whose mean, minimum or maximum is not a number gives only its
// percentiles.
func (o *op) latency(k key) *result.Latency {
	var l *result.Latency
	for _, kind := range kindOrder {
		k.kind = kind
		f := o.sects[k]
		if f == nil || f.count == 0 {
			continue
		}
		if l == nil && f.have&(haveMean|haveMin|haveMax) == haveMean|haveMin|haveMax &&
			!math.IsNaN(f.mean) && !math.IsNaN(f.min) && !math.IsNaN(f.max) {
			l = &result.Latency{Count: f.count, MeanUs: f.mean, MinUs: f.min, MaxUs: f.max, Percentiles: map[string]float64{}}
		}
	}
	if l == nil {
		return nil
	}
	for _, kind := range kindOrder {
		k.kind = kind
		f := o.sects[k]
		if f == nil || f.count == 0 {
			continue
		}
		for p, v := range f.pcts {
			if _, have := l.Percentiles[p]; !have && !math.IsNaN(v) {
				l.Percentiles[p] = v
			}
		}
		if l.StdDevUs == 0 && f.variance > 0 {
			l.StdDevUs = math.Sqrt(f.variance)
		}
	}
	return l
}

// cutText keeps a name from the text short in a message, its control
// characters escaped.
func cutText(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	if !printable(s) || !utf8.ValidString(s) {
		q := strconv.Quote(s)
		return q[1 : len(q)-1]
	}
	return s
}
