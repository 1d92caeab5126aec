package result

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// countsLen agrees with hdrhistogram-go's own geometry.
func TestCountsLen(t *testing.T) {
	for _, g := range []struct {
		lo, hi int64
		d      int
	}{{1, 3_600_000_000_000, 3}, {1, 1 << 62, 3}, {1, 1000, 1}, {1000, 1 << 40, 2}, {1, 2, 1}, {7, 1 << 30, 5}, {1, 1 << 20, 4}} {
		want := int64(len(hdr.New(g.lo, g.hi, g.d).Export().Counts))
		if got := countsLen(g.lo, g.hi, int32(g.d)); got != want {
			t.Errorf("%v: %d buckets, hdrhistogram-go makes %d", g, got, want)
		}
	}
}

// wideHistogram is a valid encoded histogram whose header declares the
// widest geometry (1 to 2^63-1 at five digits): decoding it whole would
// allocate gigabytes.
func wideHistogram() string {
	var payload bytes.Buffer
	binary.Write(&payload, binary.BigEndian, []int32{0x1c849303, 1, 0, 5})
	binary.Write(&payload, binary.BigEndian, []int64{1, 1<<63 - 1})
	binary.Write(&payload, binary.BigEndian, 1.0)
	payload.WriteByte(2) // one count of 1, zig-zag
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	w.Write(payload.Bytes())
	w.Close()
	var out bytes.Buffer
	binary.Write(&out, binary.BigEndian, []int32{0x1c849304, int32(z.Len())})
	out.Write(z.Bytes())
	return base64.StdEncoding.EncodeToString(out.Bytes())
}

// A histogram declaring a huge geometry is refused from its header alone;
// servbench's own decode.
func TestHistogramGeometryBounded(t *testing.T) {
	if _, err := DecodeHistogram(wideHistogram()); err == nil || !strings.Contains(err.Error(), "buckets") {
		t.Errorf("a histogram of the widest geometry: %v", err)
	}
	h := hdr.New(1, 3_600_000_000_000, 3)
	h.RecordValue(1500)
	if back, err := DecodeHistogram(Encode(h)); err != nil || back.TotalCount() != 1 {
		t.Errorf("servbench's own histogram: %v", err)
	}
}

var goodDoc = strings.ReplaceAll(`{"format":"servbench-result","version":2,"threads":1,"operations":1,"ok_operations":1,
"ops":[{"name":"READ","count":1,"outcomes":{"OK":1},"histograms":{"OK":"HISTFAAAACF4nJNpmSzMwMDAzAABzFCaEUzOmPTIHsKE8ViYAD5YA4E="}}],
"runtime_ms":1000,"timeseries":[{"start_s":0,"end_s":1,"operations":1,"throughput":1,"ops":{"READ":{"count":1}}}]}`, "HISTFAAAACF4nJNpmSzMwMDAzAABzFCaEUzOmPTIHsKE8ViYAD5YA4E=", oneValue())

// oneValue is a histogram of servbench's geometry holding one value.
func oneValue() string {
	h := hdr.New(1, 3_600_000_000_000, 3)
	h.RecordValue(1500)
	return Encode(h)
}

// Impossible data is refused, naming the field: each case is the good
// document with one thing changed.
func TestValidate(t *testing.T) {
	if _, err := Decode([]byte(goodDoc)); err != nil {
		t.Fatalf("the good document: %v", err)
	}
	for _, c := range []struct{ old, new, want string }{
		{`"version":2`, `"version":999`, "version 999"},
		{`"version":2`, `"version":0`, "version 0"},
		{`"operations":1,`, `"operations":-5,`, "operations is -5"},
		{`"threads":1`, `"threads":-1`, "threads is -1"},
		{`"ok_operations":1`, `"ok_operations":2`, "more than operations"},
		{`"ops":[{"name":"READ","count":1,"outcomes":{"OK":1},"histograms":{"OK":"` + oneValue() + `"}}]`, `"ops":null`, "ops lists none"},
		{`"count":1,"outcomes":{"OK":1}`, `"count":2,"outcomes":{"OK":2}`, "holds 1 values"},
		{`"count":1,"outcomes":{"OK":1}`, `"count":3,"outcomes":{"OK":1}`, "add up to 1, count is 3"},
		{`"outcomes":{"OK":1}`, `"outcomes":{"OK":9223372036854775807,"ERROR":9223372036854775807}`, "overflows"},
		{`"operations":1,"throughput":1`, `"operations":-1000000000000000000,"throughput":1`, "timeseries[0]"},
		{`"end_s":1`, `"end_s":-1`, "timeseries[0]"},
		{`"histograms":{"OK":"` + oneValue() + `"}`, `"histograms":{"OK":"` + wideHistogram() + `"}`, "buckets"},
	} {
		if !strings.Contains(goodDoc, c.old) {
			t.Fatalf("the good document lacks %s", c.old)
		}
		_, err := Decode([]byte(strings.Replace(goodDoc, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.new, err, c.want)
		}
	}
}

// ReadFile bounds what it reads: /dev/zero (a device made here) fails at
// its first byte, a file over MaxFileBytes is refused from its size.
func TestReadFileBounded(t *testing.T) {
	dir := t.TempDir()
	zero := filepath.Join(dir, "zero")
	if err := syscall.Mknod(zero, syscall.S_IFCHR|0o666, (1<<8)|5); err == nil {
		if _, err := ReadFile(zero); err == nil || !strings.Contains(err.Error(), "not a result file") {
			t.Errorf("/dev/zero: %v", err)
		}
	} else {
		t.Logf("mknod (needs root): %v", err)
	}
	big := filepath.Join(dir, "big.json")
	f, _ := os.Create(big)
	f.Truncate(MaxFileBytes + 1) // sparse: no disk used
	f.Close()
	if _, err := ReadFile(big); err == nil || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("a file over the bound: %v", err)
	}
}

// A merged result merged again with one of its clients is refused (its
// operations would count twice); two different runs merge, and their
// merge has an identity made from theirs. Sums that overflow are refused.
func TestMergeCountsEachRunOnce(t *testing.T) {
	run := func(offset time.Duration) *Doc {
		d, err := Decode([]byte(goodDoc))
		if err != nil {
			t.Fatal(err)
		}
		d.ID = NewID()
		d.Start = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC).Add(offset)
		d.End = d.Start.Add(10 * time.Second)
		d.RuntimeMs = 10000
		return d
	}
	a, b, c := run(0), run(time.Millisecond), run(2*time.Millisecond)
	ab, err := Merge([]*Doc{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if ab.ID == "" || ab.ID == a.ID || ab.Operations != 2 {
		t.Errorf("merged: id %q, %d operations", ab.ID, ab.Operations)
	}
	if ba, _ := Merge([]*Doc{b, a}); ba == nil || ba.ID != ab.ID {
		t.Error("the same runs merged in another order have another identity")
	}
	if _, err := Merge([]*Doc{ab, a}); err == nil || !strings.Contains(err.Error(), "both hold run "+a.ID) {
		t.Errorf("a merged result with one of its clients: %v", err)
	}
	if abc, err := Merge([]*Doc{ab, c}); err != nil || abc.Operations != 3 {
		t.Errorf("a merged result with another run: %v", err)
	}
	if err := ab.Validate(); err != nil {
		t.Errorf("a merged result does not validate: %v", err)
	}
	big := run(3 * time.Millisecond)
	big.Operations, big.OKOperations = 1<<63-1, 1<<63-1
	if _, err := Merge([]*Doc{a, big}); err == nil || !strings.Contains(err.Error(), "more than a count can hold") {
		t.Errorf("an overflowing sum: %v", err)
	}
}

// A time series is bounded by its count of intervals, not only by the
// file's size (a point takes about ten times its text in memory): one
// past MaxPoints, or an interval naming more than MaxPointOps
// operations, is refused as it is read; a short one reads back whole.
func TestTimeSeriesBounded(t *testing.T) {
	defer func(b int) { pointsBound = b }(pointsBound)
	pointsBound = 1000 // MaxPoints' million intervals are decoded in seconds: the same code at a thousand
	many := `{"format":"servbench-result","timeseries":[` + strings.Repeat(`{"ops":{"READ":{"count":0}}},`, pointsBound) + `{}]}`
	if _, err := Decode([]byte(many)); err == nil || !strings.Contains(err.Error(), "more than 1000 intervals") {
		t.Errorf("%d intervals: %v", pointsBound+1, err)
	}
	within := `{"format":"servbench-result","version":1,"timeseries":[` + strings.Repeat(`{"ops":{"READ":{"count":0}}},`, pointsBound-1) + `{}]}`
	if d, err := Decode([]byte(within)); err != nil || len(d.Series) != pointsBound {
		t.Errorf("%d intervals: %v", pointsBound, err)
	}
	var ops strings.Builder
	for i := 0; i <= MaxPointOps; i++ {
		fmt.Fprintf(&ops, `"OP%d":{},`, i)
	}
	wide := `{"format":"servbench-result","timeseries":[{"ops":{` + strings.TrimSuffix(ops.String(), ",") + `}}]}`
	if _, err := Decode([]byte(wide)); err == nil || !strings.Contains(err.Error(), "timeseries: 1: more than 1024 entries") {
		t.Errorf("an interval of %d operations: %v", MaxPointOps+1, err)
	}
	var s TimeSeries
	if err := json.Unmarshal([]byte(`[{"start_s":1,"ops":{"READ":{"count":2}}},{"start_s":2}]`), &s); err != nil || len(s) != 2 || readOp(s[0]).Count != 2 || s[1].StartS != 2 {
		t.Errorf("two intervals: %+v, %v", s, err)
	}
	if err := json.Unmarshal([]byte(`null`), &s); err != nil || s != nil {
		t.Errorf("null: %+v, %v", s, err)
	}
}

// An operation's maps and the list of operations are bounded by their
// entries as they are read (36,000,000 zero-count outcomes in a 493 MB
// result ran compare out of memory): one past the bound is refused in
// one line; a result within it reads back whole.
func TestOpsBounded(t *testing.T) {
	var outcomes strings.Builder
	for i := 0; i <= MaxEntries; i++ {
		fmt.Fprintf(&outcomes, `"S%d":0,`, i)
	}
	wide := `{"format":"servbench-result","ops":[{"name":"READ","outcomes":{` + strings.TrimSuffix(outcomes.String(), ",") + `}}]}`
	if _, err := Decode([]byte(wide)); err == nil || !strings.Contains(err.Error(), "more than 256 entries") || strings.Contains(err.Error(), "\n") {
		t.Errorf("an operation of %d outcomes: %v", MaxEntries+1, err)
	}
	failed := `{"format":"servbench-result","timeseries":[{"ops":{"READ":{"failed":{` + strings.TrimSuffix(outcomes.String(), ",") + `}}}}]}`
	if _, err := Decode([]byte(failed)); err == nil || !strings.Contains(err.Error(), "more than 256 entries") {
		t.Errorf("an interval's %d failed outcomes: %v", MaxEntries+1, err)
	}
	many := `{"format":"servbench-result","ops":[` + strings.Repeat(`{"name":"READ"},`, MaxOps) + `{}]}`
	if _, err := Decode([]byte(many)); err == nil || !strings.Contains(err.Error(), "ops: more than 1024 operations") {
		t.Errorf("%d operations: %v", MaxOps+1, err)
	}
	var op OpResult
	if err := json.Unmarshal([]byte(`{"name":"READ","count":3,"outcomes":{"OK":2,"ERROR":1},"errors":{"ERROR":"x"},"histograms":null}`), &op); err != nil ||
		op.Outcomes["OK"] != 2 || op.Outcomes["ERROR"] != 1 || op.Errors["ERROR"] != "x" || op.Histograms != nil {
		t.Errorf("an operation: %+v, %v", op, err)
	}
}

// Every list and map of a result is bounded as it is read, not only by
// the file's size: properties, server settings, clients, stages, the
// server-side sources, their series and points, percentiles.
func TestEveryListBounded(t *testing.T) {
	entries := func(n int, entry func(i int) string) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(entry(i))
		}
		return b.String()
	}
	key := func(i int) string { return fmt.Sprintf(`"k%d":""`, i) }
	empty := func(int) string { return "{}" }
	for name, c := range map[string]struct{ doc, want string }{
		"properties":      {`{"properties":{` + entries(MaxSettings+1, key) + `}}`, "more than 16384 entries"},
		"server_settings": {`{"server_settings":{` + entries(MaxSettings+1, key) + `}}`, "more than 16384 entries"},
		"client_runs":     {`{"client_runs":[` + entries(MaxClientRuns+1, empty) + `]}`, "client_runs: more than 16384 clients"},
		"stages":          {`{"stages":[` + entries(MaxStages+1, empty) + `]}`, "stages: more than 1024 stages"},
		"sources":         {`{"server_side":{"sources":[` + entries(MaxSources+1, empty) + `]}}`, "sources: more than 1024 sources"},
		"series":          {`{"server_side":{"sources":[{"series":[` + entries(MaxSeries+1, empty) + `]}]}}`, "series: more than 4096 series"},
		"points":          {`{"server_side":{"sources":[{"series":[{"points":[` + entries(MaxSamples+1, func(int) string { return "[0,0]" }) + `]}]}]}}`, "points: more than 1048576 points"},
		"percentiles":     {`{"ops":[{"latency":{"percentiles_us":{` + entries(MaxEntries+1, func(i int) string { return fmt.Sprintf(`"%d":1`, i) }) + `}}}]}`, "more than 256 entries"},
	} {
		if _, err := Decode([]byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s past its bound: %v, want %q", name, err, c.want)
		}
	}
}

// The bounds of a result's lists and maps multiply (a million intervals
// of a thousand operations): the objects and lists of the whole are
// bounded too, counted as the text is read, strings aside.
func TestContainersBounded(t *testing.T) {
	ops := "{" + strings.Repeat(`"a":{},`, 1023) + `"b":{}}`
	doc := `{"format":"servbench-result","label":"{[{[","timeseries":[` + strings.Repeat(`{"ops":`+ops+`},`, MaxContainers/1024) + `{}]}`
	if _, err := Decode([]byte(doc)); err == nil || !strings.Contains(err.Error(), "more than 4194304 objects and lists") {
		t.Errorf("Decode: %v", err)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), path+": more than 4194304 objects and lists") {
		t.Errorf("ReadFile: %v", err)
	}
	s := shape{max: MaxContainers}
	if err := s.scan([]byte(`{"a":"{[\"{[","b":[{}]}`)); err != nil || s.n != 3 {
		t.Errorf("a string's brackets counted: %d, %v", s.n, err)
	}
}

// An operation listed twice (its totals counted twice by merge: READ came
// to 2,928 of 4,976 operations) is refused, and so is a name with control
// characters (an operation named READ\x1b[31m, an outcome, an interval's
// operation or cause), each in one line naming the field, the name quoted.
func TestValidateRefusesNamesTwiceOrUnprintable(t *testing.T) {
	op := `{"name":"READ","count":1,"outcomes":{"OK":1},"histograms":{"OK":"` + oneValue() + `"}}`
	for _, c := range []struct{ old, new, want string }{
		{`"ops":[` + op + `]`, `"ops":[` + op + `,` + op + `]`, "ops[1] READ: listed again (ops[0])"},
		{`"name":"READ"`, `"name":"READ\u001b[31m"`, `ops[0] "READ\x1b[31m": name: control characters`},
		{`"name":"READ"`, `"name":"READ\u202e"`, `ops[0] "READ\u202e": name: control characters`},
		{`"outcomes":{"OK":1}`, `"outcomes":{"OK\u0007":1}`, `outcomes "OK\a": a name with control characters`},
		{`"histograms":{"OK"`, `"errors":{"OK\n":"x"},"histograms":{"OK"`, `errors "OK\n": a name with control characters`},
		{`"ops":{"READ":{"count":1}}`, `"ops":{"READ\u009b":{"count":1}}`, `timeseries[0]: ops "READ\u009b": a name with control characters`},
		{`"ops":{"READ":{"count":1}}`, `"ops":{"READ":{"count":1,"failed":{"\u001b[2J":1}}}`, `READ failed "\x1b[2J": a name with control characters`},
	} {
		if !strings.Contains(goodDoc, c.old) {
			t.Fatalf("the good document lacks %s", c.old)
		}
		_, err := Decode([]byte(strings.Replace(goodDoc, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.ContainsAny(err.Error(), "\n\x1b\a\u202e\u009b") {
			t.Errorf("%s: %v, want one plain line with %q", c.new, err, c.want)
		}
	}
}

// An operation's latency summary is checked as its counts are: a negative
// or non-finite time (a mean_us of -3 was read), a mean outside the
// minimum and maximum, a percentile above the maximum (p50 of 10^9 µs
// beside a max_us of 1.19), below the minimum or below a lower
// percentile is refused in one line naming the operation and field;
// servbench's own summaries read, and so does an imported one rounded
// as YCSB rounds (its histogram type's percentiles down to the ms).
func TestValidateLatencies(t *testing.T) {
	h := hdr.New(1, 3_600_000_000_000, 3)
	for v := int64(1000); v < 2_000_000; v = v*11/10 + 7 {
		h.RecordValue(v)
	}
	doc := func(change func(l *Latency)) *Doc {
		d, err := Decode([]byte(goodDoc))
		if err != nil {
			t.Fatal(err)
		}
		l := Summarize(h, DefaultPercentiles)
		change(l)
		d.Ops[0].Latency = l
		return d
	}
	if err := doc(func(*Latency) {}).Validate(); err != nil {
		t.Fatalf("servbench's own summary: %v", err)
	}
	for _, c := range []struct {
		name   string
		change func(l *Latency)
		want   string
	}{
		{"negative mean", func(l *Latency) { l.MeanUs = -3 }, "ops[0] READ: latency: mean_us is -3"},
		{"NaN max", func(l *Latency) { l.MaxUs = math.NaN() }, "latency: max_us is NaN"},
		{"negative count", func(l *Latency) { l.Count = -1 }, "latency: count is -1"},
		{"mean above max", func(l *Latency) { l.MeanUs = l.MaxUs * 2 }, "latency: mean_us"},
		{"min above max", func(l *Latency) { l.MinUs = l.MaxUs + 1 }, "latency: min_us"},
		{"p50 above max", func(l *Latency) { l.Percentiles["50"] = 1e9 }, "latency: percentiles_us 50 is 1e+09, above max_us"},
		{"p99 below p95", func(l *Latency) { l.Percentiles["99"] = l.Percentiles["95"] / 2 }, "latency: percentiles_us 99 is"},
		{"p50 below min", func(l *Latency) { l.Percentiles["50"] = l.MinUs / 2; l.Percentiles["90"] = l.MinUs / 2 }, "below min_us"},
		{"negative percentile", func(l *Latency) { l.Percentiles["50"] = -1 }, "percentiles_us 50 is -1"},
		{"not a percentile", func(l *Latency) { l.Percentiles["101"] = l.MaxUs }, "percentiles_us 101: not a percentile"},
	} {
		err := doc(c.change).Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
	}
	// Read from a file's text too, the other summaries as well.
	bad := strings.Replace(goodDoc, `"outcomes":{"OK":1}`, `"outcomes":{"OK":1},"response":{"count":1,"mean_us":-3,"min_us":1,"max_us":1}`, 1)
	if _, err := Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), "ops[0] READ: response: mean_us is -3") {
		t.Errorf("a negative response mean: %v", err)
	}
	bad = strings.Replace(goodDoc, `"timeseries"`, `"cleanup":{"count":1,"mean_us":1,"min_us":1,"max_us":1.19,"percentiles_us":{"50":1e9}},"timeseries"`, 1)
	if _, err := Decode([]byte(bad)); err == nil || !strings.Contains(err.Error(), "cleanup: percentiles_us 50 is 1e+09, above max_us 1.19") {
		t.Errorf("a cleanup p50 above its max: %v", err)
	}
	// YCSB's histogram measurement type gives its percentiles in whole
	// ms, rounded down: below the minimum, and the maximum's µs above.
	d := doc(func(l *Latency) {
		*l = Latency{Count: 3, MeanUs: 1700, MinUs: 1500, MaxUs: 2100, Percentiles: map[string]float64{"95": 1000, "99": 2000}}
	})
	d.Imported = "YCSB text output run.txt"
	if err := d.Validate(); err != nil {
		t.Errorf("an imported summary rounded as YCSB's: %v", err)
	}
}

// The time series is checked against the run's totals and window: an
// interval of 10^9 operations in a run of one (merge made 4.9e11 ops/s of
// such a one), intervals of an operation past its count, a series given
// three times, an end past the runtime (10^6 s halved a merge's
// throughput), an interval's operation or an outcome named twice: each
// refused in one line naming the field.
func TestValidateTimeSeries(t *testing.T) {
	point := `{"start_s":0,"end_s":1,"operations":1,"throughput":1,"ops":{"READ":{"count":1}}}`
	for _, c := range []struct{ old, new, want string }{
		{`"end_s":1,"operations":1,`, `"end_s":1,"operations":1000000000,`, "timeseries: the intervals hold 1000000000 operations, operations is 1"},
		{`"ops":{"READ":{"count":1}}`, `"ops":{"READ":{"count":5}}`, "timeseries: the intervals hold 5 READ operations, ops READ counts 1"},
		{`"ops":{"READ":{"count":1}}`, `"ops":{"READ":{"count":1},"UPDATE":{"count":1}}`, "the intervals hold 1 UPDATE operations, ops UPDATE counts 0"},
		{point, point + "," + point + "," + point, "timeseries[1]: start_s 0 is before 1"},
		{`"end_s":1`, `"end_s":1e6`, "timeseries[0]: end_s 1e+06 is past runtime_ms 1000"},
		{`"end_s":1`, `"end_s":1.01`, "timeseries[0]: end_s 1.01 is past runtime_ms 1000"},
		{`"ops":{"READ":{"count":1}}`, `"ops":{"READ":{"count":1},"READ":{"count":1}}`, "timeseries: 1: READ: listed twice"},
		{`"outcomes":{"OK":1}`, `"outcomes":{"OK":1,"OK":1}`, "OK: listed twice"},
	} {
		if !strings.Contains(goodDoc, c.old) {
			t.Fatalf("the good document lacks %s", c.old)
		}
		_, err := Decode([]byte(strings.Replace(goodDoc, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.new, err, c.want)
		}
	}
	// Two intervals one after the other, the last partial, end at the
	// runtime within a double's rounding: as a run writes them.
	two := strings.Replace(strings.Replace(goodDoc, point, `{"start_s":0,"end_s":0.7,"operations":1,"throughput":1,"ops":{"READ":{"count":1}}},{"start_s":0.7,"end_s":1.0000000000000002,"partial":true,"operations":0,"throughput":0,"ops":{}}`, 1), `"runtime_ms":1000`, `"runtime_ms":1000`, 1)
	if _, err := Decode([]byte(two)); err != nil {
		t.Errorf("two intervals as a run writes them: %v", err)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	os.WriteFile(path, []byte(strings.Replace(goodDoc, `"end_s":1,"operations":1,`, `"end_s":1,"operations":1000000000,`, 1)), 0o644)
	if _, err := ReadFile(path); err == nil || !strings.HasPrefix(err.Error(), path+": timeseries:") {
		t.Errorf("ReadFile: %v, want the file named", err)
	}
}

// A run whose threads were left behind (stuck) ends when its stop was
// asked, and its intervals go on through the stop grace, empty (an
// operation left behind is abandoned, never counted): they read, as a
// stuck run writes them; an interval past its end holding operations, or
// one of a run without stuck threads, does not.
func TestValidateTimeSeriesOfAStuckRun(t *testing.T) {
	point := `{"start_s":0,"end_s":1,"operations":1,"throughput":1,"ops":{"READ":{"count":1}}}`
	iv := func(s, e float64, n int) string {
		ops := "{}"
		if n > 0 {
			ops = fmt.Sprintf(`{"READ":{"count":%d}}`, n)
		}
		return fmt.Sprintf(`{"start_s":%v,"end_s":%v,"operations":%d,"throughput":0,"ops":%s}`, s, e, n, ops)
	}
	series := func(last int) string {
		return strings.Join([]string{iv(0, 0.5, 1-last), iv(0.5, 1, 0), iv(1, 1.5, 0), iv(1.5, 2, 0), iv(2, 2.5, last)}, ",")
	}
	stuck := strings.Replace(strings.Replace(goodDoc, point, series(0), 1), `"threads":1`, `"threads":1,"stuck_threads":1`, 1)
	if _, err := Decode([]byte(stuck)); err != nil {
		t.Errorf("a stuck run's grace: %v", err)
	}
	if _, err := Decode([]byte(strings.Replace(goodDoc, point, series(0), 1))); err == nil || !strings.Contains(err.Error(), "timeseries[2]: end_s 1.5 is past runtime_ms 1000") {
		t.Errorf("the grace of a run without stuck threads: %v", err)
	}
	full := strings.Replace(strings.Replace(goodDoc, point, series(1), 1), `"threads":1`, `"threads":1,"stuck_threads":1`, 1)
	if _, err := Decode([]byte(full)); err == nil || !strings.Contains(err.Error(), "timeseries[4]: end_s 2.5 is past runtime_ms 1000") {
		t.Errorf("operations past a stuck run's end: %v", err)
	}
}
