package result

import (
	"bytes"
	"cmp"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// MaxFileBytes is the largest result file read: a day's run with one-second
// intervals writes well under it; anything larger is refused before it is
// read whole.
const MaxFileBytes = 512 << 20

// MaxHistogramCounts bounds the buckets a histogram in a result may
// declare (servbench's own, 1 ns to an hour at three digits, have 33,792):
// a crafted header cannot make a reader allocate gigabytes.
const MaxHistogramCounts = 1 << 17

// ReadFile reads and validates a result document written by WriteJSON. A
// file over MaxFileBytes is refused; one that is not a result (/dev/zero,
// a truncated file) fails at its first wrong byte.
func ReadFile(path string) (*Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("%s: %d bytes, more than a result file's %d MiB", path, st.Size(), MaxFileBytes>>20)
	}
	lr := &io.LimitedReader{R: f, N: MaxFileBytes + 1}
	dec := json.NewDecoder(&shape{r: lr, max: MaxContainers})
	var d Doc
	if err := dec.Decode(&d); err != nil {
		if lr.N <= 0 {
			return nil, fmt.Errorf("%s: more than a result file's %d MiB", path, MaxFileBytes>>20)
		}
		if errors.Is(err, errShape) {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, fmt.Errorf("%s: not a result file: %w", path, err)
	}
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &d, nil
}

// Decode reads and validates a result document from its JSON text.
func Decode(raw []byte) (*Doc, error) {
	if len(raw) > MaxFileBytes {
		return nil, fmt.Errorf("more than a result file's %d MiB", MaxFileBytes>>20)
	}
	if err := (&shape{max: MaxContainers}).scan(raw); err != nil {
		return nil, err
	}
	var d Doc
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("not a result file: %w", err)
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return &d, nil
}

// MaxContainers bounds the objects and lists a result holds in all, each
// list's and map's own bound aside: those multiply (a million intervals
// of a thousand operations each), and an empty object takes a hundred
// bytes and more in memory for its two of text. A day's run at one-second
// intervals holds under a million.
const MaxContainers = 1 << 22

var errShape = fmt.Errorf("more than %d objects and lists: a result's are far fewer", MaxContainers)

// CheckShape fails when the JSON text raw holds more than max objects and
// lists in all, or more than maxMembers names in its objects (0: any;
// both counted outside strings), before a decoder gives memory to them:
// a plan's index.json is bounded so.
func CheckShape(raw []byte, max, maxMembers int) error {
	sh := &shape{max: max, maxMembers: maxMembers}
	if err := sh.scan(raw); err != nil {
		if sh.members > maxMembers && maxMembers > 0 {
			return fmt.Errorf("more than %d names in its objects", maxMembers)
		}
		return fmt.Errorf("more than %d objects and lists", max)
	}
	return nil
}

// shape counts the objects and lists of the JSON text read through it,
// outside strings, and fails the read past max, before the decoder gives
// memory to them.
type shape struct {
	r                io.Reader
	inString, escape bool
	n, max           int
	// members counts the names of objects (each name's colon), bounded by
	// maxMembers when it is not 0: a map of millions of small entries.
	members, maxMembers int
}

func (s *shape) Read(p []byte) (int, error) {
	k, err := s.r.Read(p)
	if serr := s.scan(p[:k]); serr != nil {
		return 0, serr
	}
	return k, err
}

func (s *shape) scan(b []byte) error {
	for _, c := range b {
		switch {
		case s.escape:
			s.escape = false
		case s.inString:
			if c == '\\' {
				s.escape = true
			} else if c == '"' {
				s.inString = false
			}
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			if s.n++; s.n > s.max {
				return errShape
			}
		case c == ':' && s.maxMembers > 0:
			if s.members++; s.members > s.maxMembers {
				return errShape
			}
		}
	}
	return nil
}

// Validate checks what a result document says against what a run can
// write: a known format and version, counts and times that are not
// negative, every operation's outcomes adding up to its count, and each
// outcome's histogram holding as many values as the outcome's count. The
// error names the field.
func (d *Doc) Validate() error {
	if d.Format != Format {
		return fmt.Errorf("not a servbench result (format %q)", cut(d.Format))
	}
	if d.Version < 1 || d.Version > FormatVersion {
		return fmt.Errorf("version %d: this servbench reads result versions 1 to %d", d.Version, FormatVersion)
	}
	for _, c := range []struct {
		name string
		v    int64
	}{{"threads", int64(d.Threads)}, {"clients", int64(d.Clients)}, {"stuck_threads", int64(d.Stuck)},
		{"operations", d.Operations}, {"ok_operations", d.OKOperations}, {"abandoned", d.Abandoned}} {
		if c.v < 0 {
			return fmt.Errorf("%s is %d: a count cannot be negative", c.name, c.v)
		}
	}
	if d.OKOperations > d.Operations {
		return fmt.Errorf("ok_operations %d is more than operations %d", d.OKOperations, d.Operations)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"runtime_ms", d.RuntimeMs}, {"warmup_ms", d.WarmupMs}, {"client_cpu_s", d.ClientCPUS}, {"client_sched_p99_us", d.ClientSchedP99Us},
		{"throughput", d.Throughput}, {"goodput", d.Goodput}, {"target_ops_per_sec", d.Rate}} {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("%s is %v: want a finite number, not negative", c.name, c.v)
		}
	}
	if d.Operations > 0 && len(d.Ops) == 0 {
		return fmt.Errorf("operations is %d but ops lists none", d.Operations)
	}
	first := make(map[string]int, len(d.Ops))
	for i := range d.Ops {
		name := d.Ops[i].Name
		if j, dup := first[name]; dup {
			return fmt.Errorf("ops[%d] %s: listed again (ops[%d]): an operation's totals are one entry", i, cut(name), j)
		}
		first[name] = i
		if err := d.Ops[i].validate(d.Imported != ""); err != nil {
			return fmt.Errorf("ops[%d] %s: %w", i, cut(name), err)
		}
	}
	if err := d.Cleanup.validate(d.Imported != ""); err != nil {
		return fmt.Errorf("cleanup: %w", err)
	}
	if err := d.checkCleanupHistograms(); err != nil {
		return fmt.Errorf("cleanup_histograms: %w", err)
	}
	if s := d.Schedule; s != nil && (s.Late < 0 || s.LateThreshold < 0 || math.IsNaN(s.LateThreshold)) {
		return errors.New("schedule: negative late_operations or late_threshold_us")
	}
	if s := d.Schedule; s != nil {
		if err := s.Lag.validate(d.Imported != ""); err != nil {
			return fmt.Errorf("schedule: lag: %w", err)
		}
	}
	for i, p := range d.Series {
		if err := p.validate(); err != nil {
			return fmt.Errorf("timeseries[%d]: %w", i, err)
		}
	}
	if err := d.checkSeries(); err != nil {
		return err
	}
	for i, c := range d.ClientRuns {
		if c.Operations < 0 || c.Cores < 0 || c.CPUPct < 0 || math.IsNaN(c.CPUPct) {
			return fmt.Errorf("client_runs[%d]: negative operations, cores or cpu_pct", i)
		}
	}
	if d.ServerSide != nil {
		return d.ServerSide.validate()
	}
	return nil
}

// checkCleanupHistograms checks CLEANUP's histograms: outcomes by their
// names, each one decoded, as many values in all as cleanup counts.
func (d *Doc) checkCleanupHistograms() error {
	if len(d.CleanupHistograms) == 0 {
		return nil
	}
	var sum int64
	for s, e := range d.CleanupHistograms {
		if err := checkName("cleanup_histograms", s); err != nil {
			return err
		}
		if e == "" {
			continue // an outcome without values, as an operation's
		}
		h, err := DecodeHistogram(e)
		if err != nil {
			return fmt.Errorf("%s: %w", cut(s), err)
		}
		var ok bool
		if sum, ok = Add(sum, h.TotalCount()); !ok {
			return errors.New("their counts overflow")
		}
	}
	if d.Cleanup == nil || d.Cleanup.Count != sum {
		n := int64(0)
		if d.Cleanup != nil {
			n = d.Cleanup.Count
		}
		return fmt.Errorf("they hold %d values, cleanup counts %d", sum, n)
	}
	return nil
}

func (o *OpResult) validate(imported bool) error {
	if !plain(o.Name) {
		return errors.New("name: control characters in it")
	}
	for field, m := range map[string]map[string]string{"histograms": o.Histograms, "errors": o.Errors, "response_histograms": o.ResponseHistograms} {
		for k := range m {
			if err := checkName(field, k); err != nil {
				return err
			}
		}
	}
	if o.Count < 0 {
		return fmt.Errorf("count is %d: a count cannot be negative", o.Count)
	}
	var sum int64
	for s, n := range o.Outcomes {
		var ok bool
		if err := checkName("outcomes", s); err != nil {
			return err
		}
		if n < 0 {
			return fmt.Errorf("outcomes %s is %d: a count cannot be negative", cut(s), n)
		}
		if sum, ok = Add(sum, n); !ok {
			return errors.New("outcomes: their sum overflows")
		}
	}
	if sum != o.Count {
		return fmt.Errorf("outcomes add up to %d, count is %d", sum, o.Count)
	}
	for _, l := range []struct {
		field string
		l     *Latency
	}{{"latency", o.Latency}, {"latency_failed", o.LatencyFailed}, {"response", o.Response}, {"response_failed", o.ResponseFailed}} {
		if err := l.l.validate(imported); err != nil {
			return fmt.Errorf("%s: %w", l.field, err)
		}
	}
	for s, e := range o.Histograms {
		n, ok := o.Outcomes[s]
		if !ok {
			return fmt.Errorf("histograms %s: no such outcome", cut(s))
		}
		if e == "" {
			continue
		}
		h, err := DecodeHistogram(e)
		if err != nil {
			return fmt.Errorf("histograms %s: %w", cut(s), err)
		}
		if h.TotalCount() != n {
			return fmt.Errorf("histograms %s holds %d values, outcomes %s is %d", cut(s), h.TotalCount(), cut(s), n)
		}
	}
	return nil
}

// validate checks a latency summary (nil: none): counts and times not
// negative and finite, the mean between the minimum and the maximum, and
// the percentiles in order between them (p50 ≤ p95 ≤ p99 ≤ ... ≤ max),
// within rounding: none for servbench's own, all from one histogram; for
// an imported one, YCSB's microsecond and the millisecond its histogram
// measurement type rounds its percentiles down to.
func (l *Latency) validate(imported bool) error {
	if l == nil {
		return nil
	}
	if l.Count < 0 {
		return fmt.Errorf("count is %d: a count cannot be negative", l.Count)
	}
	for _, c := range []struct {
		name string
		v    float64
	}{{"mean_us", l.MeanUs}, {"min_us", l.MinUs}, {"max_us", l.MaxUs}, {"stddev_us", l.StdDevUs}} {
		if c.v < 0 || math.IsNaN(c.v) || math.IsInf(c.v, 0) {
			return fmt.Errorf("%s is %v: want a finite time, not negative", c.name, c.v)
		}
	}
	up, down := 0.001, 0.001 // µs a figure may lie above, or below, where it should
	if imported {
		up, down = 1, 1000
	}
	slack := func(s, v float64) float64 { return s + 1e-6*math.Abs(v) }
	if l.MinUs > l.MaxUs+slack(up, l.MaxUs) {
		return fmt.Errorf("min_us %v is above max_us %v", l.MinUs, l.MaxUs)
	}
	if l.MeanUs < l.MinUs-slack(up, l.MinUs) || l.MeanUs > l.MaxUs+slack(up, l.MaxUs) {
		return fmt.Errorf("mean_us %v lies outside min_us %v and max_us %v", l.MeanUs, l.MinUs, l.MaxUs)
	}
	type pct struct {
		key  string
		p, v float64
	}
	pcts := make([]pct, 0, len(l.Percentiles))
	for k, v := range l.Percentiles {
		p, err := strconv.ParseFloat(k, 64)
		if err != nil || !(p >= 0 && p <= 100) {
			return fmt.Errorf("percentiles_us %s: not a percentile (0 to 100)", cut(k))
		}
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("percentiles_us %s is %v: want a finite time, not negative", k, v)
		}
		pcts = append(pcts, pct{k, p, v})
	}
	slices.SortFunc(pcts, func(a, b pct) int { return cmp.Compare(a.p, b.p) })
	for i, x := range pcts {
		switch {
		case x.v > l.MaxUs+slack(up, l.MaxUs):
			return fmt.Errorf("percentiles_us %s is %v, above max_us %v", x.key, x.v, l.MaxUs)
		case x.v < l.MinUs-slack(down, l.MinUs):
			return fmt.Errorf("percentiles_us %s is %v, below min_us %v", x.key, x.v, l.MinUs)
		case i > 0 && x.v < pcts[i-1].v-slack(down, pcts[i-1].v):
			return fmt.Errorf("percentiles_us %s is %v, below %s's %v: a higher percentile is never less", x.key, x.v, pcts[i-1].key, pcts[i-1].v)
		}
	}
	return nil
}

func (p *Point) validate() error {
	if p.Operations < 0 || p.StartS < 0 || p.EndS < p.StartS || p.Throughput < 0 ||
		math.IsNaN(p.Throughput) || math.IsInf(p.Throughput, 0) || math.IsNaN(p.EndS) || math.IsInf(p.EndS, 0) {
		return fmt.Errorf("operations %d, start_s %v, end_s %v, throughput %v: want counts and times that are not negative, an end after the start", p.Operations, p.StartS, p.EndS, p.Throughput)
	}
	for _, e := range p.Ops {
		name, o := e.Name, e.PointOp
		if err := checkName("ops", name); err != nil {
			return err
		}
		if o.Count < 0 {
			return fmt.Errorf("%s count is %d: a count cannot be negative", cut(name), o.Count)
		}
		for cause, n := range o.Failed {
			if err := checkName(cut(name)+" failed", cause); err != nil {
				return err
			}
			if n < 0 || n > o.Count {
				return fmt.Errorf("%s failed %s is %d of %d", cut(name), cut(cause), n, o.Count)
			}
		}
	}
	return nil
}

// checkSeries checks the time series against the run's totals and its
// window, as servbench writes them: its intervals follow one another
// within the measured run, [0, runtime], none overlapping the one before
// (a sliver at the end merged into the last, a last one shorter marked
// partial); each holds what was measured in it after warmup, so that
// together they hold at most the result's operations, and of each
// operation at most its count (exactly those, for a single run; a merged
// result keeps only the intervals every client measured). A merge counts
// its throughput from the intervals: one of 10^9 operations in a run of
// 2,000, or a series given three times, multiplied it, an end at 10^6 s
// divided it.
func (d *Doc) checkSeries() error {
	if len(d.Series) == 0 {
		return nil
	}
	runtime := d.RuntimeMs / 1000
	// Both come from one clock's nanoseconds; rounding apart, a merge of
	// an earlier servbench's could end its last interval up to an
	// interval (1 s unless set) past the window it counts in, and a run
	// whose threads were left behind (stuck) ends when its stop was asked,
	// its intervals going on through the stop grace: empty, as an
	// operation left behind is abandoned, never counted.
	slack := 1e-6 + 1e-9*runtime
	if d.Clients > 1 || d.Stuck > 0 {
		slack += min(medianWidth(d.Series), 1)
	}
	empty := func(p *Point) bool {
		for _, o := range p.Ops {
			if o.Count != 0 {
				return false
			}
		}
		return p.Operations == 0
	}
	var ops int64
	byOp := map[string]int64{}
	prev := 0.0
	for i, p := range d.Series {
		if p.StartS < prev-1e-6-1e-9*prev {
			return fmt.Errorf("timeseries[%d]: start_s %v is before %v, where the interval before it ends: intervals follow one another", i, p.StartS, prev)
		}
		if p.EndS > runtime+slack && (d.Stuck == 0 || !empty(&p)) {
			return fmt.Errorf("timeseries[%d]: end_s %v is past runtime_ms %v: intervals lie within the run", i, p.EndS, d.RuntimeMs)
		}
		prev = p.EndS
		var ok bool
		if ops, ok = Add(ops, p.Operations); !ok {
			return errors.New("timeseries: the intervals' operations overflow")
		}
		for _, o := range p.Ops {
			if byOp[o.Name], ok = Add(byOp[o.Name], o.Count); !ok {
				return fmt.Errorf("timeseries: the intervals' %s counts overflow", cut(o.Name))
			}
		}
	}
	if ops > d.Operations {
		return fmt.Errorf("timeseries: the intervals hold %d operations, operations is %d: they hold at most the run's", ops, d.Operations)
	}
	counts := make(map[string]int64, len(d.Ops))
	for _, o := range d.Ops {
		counts[o.Name] = o.Count
	}
	names := make([]string, 0, len(byOp))
	for name := range byOp {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if n := byOp[name]; n > counts[name] {
			return fmt.Errorf("timeseries: the intervals hold %d %s operations, ops %s counts %d: they hold at most the run's", n, cut(name), cut(name), counts[name])
		}
	}
	return nil
}

// Add is a + b for counts, false when the sum overflows.
func Add(a, b int64) (int64, bool) {
	s := a + b
	return s, (s >= a) == (b >= 0)
}

// cut keeps a name from a file short in a message, quoted when it is not
// plain text.
func cut(s string) string {
	if len(s) > 40 {
		return fmt.Sprintf("%q…", s[:40])
	}
	if !plain(s) {
		return strconv.Quote(s)
	}
	return s
}

// checkName refuses a name (an operation's, an outcome's) that holds a
// control or Unicode format character, or is not UTF-8: names reach
// terminals, reports and tables, and no run writes such a one.
func checkName(field, s string) error {
	if !plain(s) {
		return fmt.Errorf("%s %s: a name with control characters", field, cut(s))
	}
	return nil
}

// plain reports whether s is UTF-8 without control characters (C0, DEL,
// C1) or Unicode format characters (which hide or reorder text).
func plain(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// checkGeometry refuses an encoded histogram whose header declares more
// than MaxHistogramCounts buckets, reading only its header.
func checkGeometry(s string) error {
	full, err := base64.StdEncoding.DecodeString(s)
	if err != nil || len(full) < 8 {
		return nil
	}
	z, err := zlib.NewReader(bytes.NewReader(full[8:]))
	if err != nil {
		return nil
	}
	defer z.Close()
	var hdr [40]byte
	if _, err := io.ReadFull(z, hdr[:]); err != nil {
		return nil
	}
	digits := int32(binary.BigEndian.Uint32(hdr[12:16]))
	lowest := int64(binary.BigEndian.Uint64(hdr[16:24]))
	highest := int64(binary.BigEndian.Uint64(hdr[24:32]))
	if n := countsLen(lowest, highest, digits); n > MaxHistogramCounts {
		return fmt.Errorf("declares %d buckets (1 to %d at %d digits), more than the %d a result's histogram may have", n, highest, digits, MaxHistogramCounts)
	}
	return nil
}

// countsLen is how many buckets HdrHistogram gives a histogram of the
// geometry (as hdrhistogram-go computes it; -1 when it is no geometry).
func countsLen(lowest, highest int64, digits int32) int64 {
	if digits < 0 || digits > 5 {
		return -1
	}
	if lowest < 1 {
		lowest = 1
	}
	largest := 2 * int64(math.Pow10(int(digits)))
	subBucketCountMag := int64(math.Ceil(math.Log2(float64(largest))))
	subBucketHalfCountMag := max(subBucketCountMag, 1) - 1
	unitMag := int64(math.Floor(math.Log2(float64(lowest))))
	if unitMag+subBucketHalfCountMag+1 > 62 {
		return -1
	}
	subBucketCount := int64(1) << (subBucketHalfCountMag + 1)
	smallestUntrackable := subBucketCount << unitMag
	buckets := int64(1)
	for smallestUntrackable <= highest {
		if smallestUntrackable > math.MaxInt64/2 {
			buckets++
			break
		}
		smallestUntrackable <<= 1
		buckets++
	}
	return (buckets + 1) * (subBucketCount / 2)
}
