package ycsbtext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/servbench/servbench/result"
)

// A run's text as YCSB 0.17.0 prints it with its standard error (2>&1):
// the command line, the version, failures measured apart (READ-FAILED),
// outcomes, a password among the properties.
const sample = `Command line: -t -db site.ycsb.db.RedisClient -P workloads/workloada -p redis.host=db1 -p redis.password=hunter2 -threads 8 -target 1000
YCSB Client 0.17.0

Loading workload...
Starting test.
[OVERALL], RunTime(ms), 10000
[OVERALL], Throughput(ops/sec), 999.5
[TOTAL_GCs], Count, 3
[READ], Operations, 4990
[READ], AverageLatency(us), 250.5
[READ], MinLatency(us), 100
[READ], MaxLatency(us), 9000
[READ], 95thPercentileLatency(us), 400
[READ], 99thPercentileLatency(us), 800
[READ], Return=OK, 4990
[READ], Return=NOT_FOUND, 5
[READ-FAILED], Operations, 5
[READ-FAILED], AverageLatency(us), 120
[READ-FAILED], MinLatency(us), 110
[READ-FAILED], MaxLatency(us), 130
[READ-FAILED], 95thPercentileLatency(us), 130
[READ-FAILED], 99thPercentileLatency(us), 130
[CLEANUP], Operations, 8
[CLEANUP], AverageLatency(us), 3
[CLEANUP], MinLatency(us), 1
[CLEANUP], MaxLatency(us), 9
[CLEANUP], 95thPercentileLatency(us), 9
[CLEANUP], 99thPercentileLatency(us), 9
[UPDATE], Operations, 5000
[UPDATE], AverageLatency(us), 300
[UPDATE], MinLatency(us), 120
[UPDATE], MaxLatency(us), 9500
[UPDATE], 95thPercentileLatency(us), 500
[UPDATE], 99thPercentileLatency(us), 900
[UPDATE], Return=OK, 5000
`

func TestRead(t *testing.T) {
	d, err := Read(strings.NewReader(sample), "redis-a.txt")
	if err != nil {
		t.Fatal(err)
	}
	if d.Command != "run" || d.Binding != "redis" || d.Workload != "workload a" || d.Threads != 8 || d.Rate != 1000 ||
		d.Driver != "YCSB 0.17.0 site.ycsb.db.RedisClient" || d.RuntimeMs != 10000 || d.Throughput != 999.5 {
		t.Errorf("doc %s %s %q %d threads rate %v %q %v ms %v ops/s", d.Command, d.Binding, d.Workload, d.Threads, d.Rate, d.Driver, d.RuntimeMs, d.Throughput)
	}
	if d.Properties["redis.password"] != "REDACTED" || d.Properties["redis.host"] != "db1" {
		t.Errorf("properties %v", d.Properties)
	}
	if d.Operations != 9995 || d.OKOperations != 9990 || len(d.Ops) != 2 {
		t.Fatalf("%d operations, %d ok, %d ops", d.Operations, d.OKOperations, len(d.Ops))
	}
	r := d.Ops[0]
	if r.Name != "READ" || r.Count != 4995 || r.Outcomes["NOT_FOUND"] != 5 || r.Latency.Count != 4990 || r.Latency.MeanUs != 250.5 ||
		r.Latency.Percentiles["99"] != 800 || r.LatencyFailed == nil || r.LatencyFailed.MeanUs != 120 {
		t.Errorf("READ %+v latency %+v failed %+v", r, r.Latency, r.LatencyFailed)
	}
	if d.Cleanup == nil || d.Cleanup.Count != 8 {
		t.Errorf("cleanup %+v", d.Cleanup)
	}
	again, _ := Read(strings.NewReader(sample), "other-name.txt")
	if again.ID != d.ID {
		t.Error("the same text imported twice has two identities: merging could count it twice")
	}
	// YCSB's histogram type before 0.2 printed its percentiles in ms.
	old := "[OVERALL], RunTime(ms), 1000\n[OVERALL], Throughput(ops/sec), 10.0\n[UPDATE], Operations, 10\n[UPDATE], AverageLatency(us), 300\n" +
		"[UPDATE], MinLatency(us), 200\n[UPDATE], MaxLatency(us), 1200\n[UPDATE], 95thPercentileLatency(ms), 1\n[UPDATE], Return=0, 10\n"
	if d, err := Read(strings.NewReader(old), "old.txt"); err != nil || d.Ops[0].Latency.Percentiles["95"] != 1000 {
		t.Errorf("UPDATE p95 in ms: %v, want 1000 µs", err)
	}
	// A binding's own status measured apart (reportlatencyforeacherror)
	// is its operation's, not an operation.
	sect := func(name string, n int) string {
		return fmt.Sprintf("[%s], Operations, %d\n[%[1]s], AverageLatency(us), 5\n[%[1]s], MinLatency(us), 1\n[%[1]s], MaxLatency(us), 9\n", name, n)
	}
	own := "[OVERALL], RunTime(ms), 1000\n[OVERALL], Throughput(ops/sec), 10.0\n" + sect("READ", 8) + "[READ], Return=OK, 8\n[READ], Return=LOCKED, 2\n" +
		sect("READ-LOCKED", 2) + sect("CLEANUP", 1)
	if d, err := Read(strings.NewReader(own), "own.txt"); err != nil || len(d.Ops) != 1 || d.Ops[0].Count != 10 || d.OKOperations != 8 {
		t.Errorf("a binding's status measured apart: %v", err)
	}
}

// genuine are the outputs in testdata with the operations each ran:
// YCSB's (0.18.0-SNAPSHOT, BasicDB, every measurement type and interval,
// -s with its JVM figures, data integrity, percentiles that are not whole)
// and servbench's own (failures, each measured apart, raw lines, the
// schedule's lag).
var genuine = map[string]int64{
	"ycsb-run-a.txt": 40, "ycsb-load-a.txt": 20, "ycsb-run-f.txt": 40, "ycsb-run-d.txt": 40,
	"ycsb-run-a-histogram.txt": 40, "ycsb-run-a-histogram-verbose.txt": 40, "ycsb-run-a-timeseries.txt": 40,
	"ycsb-run-a-raw.txt": 40, "ycsb-load-a-raw.txt": 20, "ycsb-run-f-hdr+raw.txt": 40, "ycsb-run-a-hdr+histogram.txt": 40,
	"ycsb-run-a-intended.txt": 40, "ycsb-run-a-status.txt": 40, "ycsb-run-a-verify.txt": 40, "ycsb-run-a-percentiles.txt": 40,
	"ycsb-run-a-basicdb-verbose.txt": 6,
	"servbench-run-a-target.txt":     40, "servbench-read-not-found.txt": 40, "servbench-each-error-raw.txt": 40,
	"servbench-run-f-verify-histogram.txt": 40, "servbench-load-timeseries.txt": 20,
}

func readGenuine(t *testing.T) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for name := range genuine {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		texts[name] = string(b)
	}
	return texts
}

// Every genuine output imports, with its run's operations, and writes as
// JSON (YCSB's NaN left out).
func TestReadGenuine(t *testing.T) {
	for name, text := range readGenuine(t) {
		d, err := Read(strings.NewReader(text), name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if d.Operations != genuine[name] {
			t.Errorf("%s: %d operations, want %d", name, d.Operations, genuine[name])
		}
		for _, o := range d.Ops {
			if o.Name == "CLEANUP" || strings.HasPrefix(o.Name, "Intended-") || notOps[o.Name] {
				t.Errorf("%s: %s is not an operation", name, o.Name)
			}
		}
		if _, err := json.Marshal(d); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	d, _ := Read(strings.NewReader(readGenuine(t)["ycsb-run-a-percentiles.txt"]), "p.txt")
	if p := d.Ops[0].Latency.Percentiles; len(p) != 4 || !has(p, "99.9") || !has(p, "99.99") {
		t.Errorf("percentiles %v, want 50, 90, 99.9, 99.99", p)
	}
	d, _ = Read(strings.NewReader(readGenuine(t)["ycsb-run-a-intended.txt"]), "i.txt")
	if d.Ops[0].Response == nil || d.Ops[0].Response.Count != d.Ops[0].Latency.Count {
		t.Errorf("intended latency %+v: want the response time of %d operations", d.Ops[0].Response, d.Ops[0].Latency.Count)
	}
}

func has(m map[string]float64, k string) bool {
	_, ok := m[k]
	return ok
}

// same tells whether two results count the same operations and outcomes.
func same(a, b *result.Doc) bool {
	if a.Operations != b.Operations || a.OKOperations != b.OKOperations || len(a.Ops) != len(b.Ops) {
		return false
	}
	for i := range a.Ops {
		if a.Ops[i].Name != b.Ops[i].Name || a.Ops[i].Count != b.Ops[i].Count || fmt.Sprint(a.Ops[i].Outcomes) != fmt.Sprint(b.Ops[i].Outcomes) {
			return false
		}
	}
	return true
}

// An output cut anywhere (at a line's end or in its middle) is refused,
// or loses nothing of the operations: only what follows them (CLEANUP's
// figures, a time series, histogram buckets).
func TestReadCut(t *testing.T) {
	for name, text := range readGenuine(t) {
		full, _ := Read(strings.NewReader(text), name)
		for i := range len(text) {
			if i > 0 && text[i-1] != '\n' && text[i] != '\n' && (i < 2 || text[i-2] != '\n') {
				continue // cut at each line's end, and one byte into the next
			}
			d, err := Read(strings.NewReader(text[:i]), name)
			if err == nil && !same(d, full) {
				t.Errorf("%s cut at byte %d (line %d): imported %d operations %v; want refused", name, i, strings.Count(text[:i], "\n")+1, d.Operations, d.Ops)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("%s cut at byte %d: %q is not one line", name, i, err)
			}
		}
	}
}

// A line given twice is refused, or changes nothing (a line that is not a
// figure: a property BasicDB prints per thread, a GC figure).
func TestReadDuplicatedLine(t *testing.T) {
	for name, text := range readGenuine(t) {
		full, _ := Read(strings.NewReader(text), name)
		lines := strings.SplitAfter(text, "\n")
		for i := range lines {
			twice := strings.Join(lines[:i+1], "") + lines[i] + strings.Join(lines[i+1:], "")
			if d, err := Read(strings.NewReader(twice), name); err == nil && !same(d, full) {
				t.Errorf("%s with line %d twice (%q): imported %d operations; want refused", name, i+1, lines[i], d.Operations)
			}
		}
	}
}

// Two outputs in one file (a load and a run, two runs appended, with or
// without the command lines standard error adds) are refused.
func TestReadConcatenated(t *testing.T) {
	texts := readGenuine(t)
	strip := func(s string) string {
		var kept []string
		for _, l := range strings.SplitAfter(s, "\n") {
			if !strings.HasPrefix(l, "Command line:") && !strings.HasPrefix(l, "YCSB Client") {
				kept = append(kept, l)
			}
		}
		return strings.Join(kept, "")
	}
	for _, pair := range [][2]string{
		{"ycsb-load-a.txt", "ycsb-run-a.txt"}, {"ycsb-run-a.txt", "ycsb-run-a.txt"}, {"ycsb-run-a.txt", "ycsb-run-d.txt"},
		{"ycsb-run-a-raw.txt", "ycsb-run-a-raw.txt"}, {"servbench-run-a-target.txt", "servbench-read-not-found.txt"},
	} {
		for _, s := range []string{texts[pair[0]] + texts[pair[1]], strip(texts[pair[0]]) + strip(texts[pair[1]])} {
			_, err := Read(strings.NewReader(s), "both.txt")
			if err == nil || !strings.Contains(err.Error(), "several runs in one file") {
				t.Errorf("%s then %s: %v, want refused as several runs", pair[0], pair[1], err)
			}
		}
	}
}

// Each way the texts were accepted: a truncated output, one whose
// UPDATE sections were cut off, a section cut short, Return= lines that
// do not add up, raw lines missing.
func TestReadInconsistent(t *testing.T) {
	run := readGenuine(t)["ycsb-run-a.txt"]
	var noUpdate []string
	for _, l := range strings.SplitAfter(run, "\n") {
		if !strings.HasPrefix(l, "[UPDATE]") {
			noUpdate = append(noUpdate, l)
		}
	}
	overall := "[OVERALL], RunTime(ms), 1000\n[OVERALL], Throughput(ops/sec), 10.0\n"
	hdrRead := "[READ], Operations, 10\n[READ], AverageLatency(us), 5\n[READ], MinLatency(us), 1\n[READ], MaxLatency(us), 9\n[READ], 99thPercentileLatency(us), 9\n"
	for _, c := range []struct{ in, want string }{
		{run[:strings.Index(run, "[TOTAL_GCS")], "f.txt:8: the operations add up to 0, but [OVERALL] says 3076.92 ops/s over 13 ms, 40 operations"},
		{strings.Join(noUpdate, ""), "f.txt:8: the operations add up to"},
		{overall, "f.txt:2: the operations add up to 0"},
		{"[OVERALL], RunTime(ms), 1000\n", "f.txt:1: no [OVERALL], Throughput(ops/sec)"},
		{overall + "[READ], Operations, 10\n[READ], AverageLatency(us), 5\n[READ], Return=OK, 10\n", "f.txt:3: [READ]: no MinLatency(us) line: a cut output"},
		{overall + hdrRead, "f.txt:3: [READ]: no Return= lines"},
		{overall + hdrRead + "[READ], Return=OK, 9\n", "f.txt:8: [READ]: its Return= lines count 9 operations, its sections 10"},
		{overall + hdrRead + "[READ], Return=OK, 10\n[READ], Return=ERROR, 1\n", "f.txt:8: [READ]: its Return= lines count 11 operations, its sections 10"},
		{overall + hdrRead + "[READ], Return=OK, 10\n[CLEANUP], Operations, 1\n[CLEANUP], AverageLatency(us), 5\n[CLEANUP], MinLatency(us), 1\n[CLEANUP], MaxLatency(us), 9\n",
			"f.txt:9: [CLEANUP]: no percentile 99, which the section at line 3 has: a cut output"},
		{overall + hdrRead + "[READ], Return=OK, 10\n" + strings.ReplaceAll(hdrRead, "READ", "Intended-READ")[:40], "[Intended-READ]: no AverageLatency(us) line"},
		{overall + hdrRead + "[READ], Return=OK, 10\n" + strings.ReplaceAll(strings.ReplaceAll(hdrRead, "READ", "Intended-READ"), "Operations, 10", "Operations, 9"),
			"f.txt:9: [Intended-READ]: 9 operations, [READ] 10"},
		{overall + "READ,1000,5\n[READ], Total Operations, 2\n[READ], Return=OK, 2\n", "f.txt:4: [READ]: 2 operations, but 1 raw lines of READ"},
		{overall + hdrRead + "[READ], Return=OK, 10\n[READ], 99thPercentileLatency(us), 9\n", "f.txt:9: [READ], 99thPercentileLatency(us) a second time"},
		{"Command line: -t\nCommand line: -t\n", "f.txt:2: a second command line (the first at line 1)"},
	} {
		_, err := Read(strings.NewReader(c.in), "f.txt")
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.60q: %v, want one line with %q", c.in, err, c.want)
		}
	}
}

// NaN, which YCSB prints for a figure of nothing measured, is left out and
// the rest kept; a negative latency is refused, but for YCSB's -1 in a
// section that measured nothing.
func TestReadNaNAndNegative(t *testing.T) {
	run := readGenuine(t)["ycsb-run-a.txt"]
	nan := strings.Replace(run, "[READ], 95thPercentileLatency(us), 1", "[READ], 95thPercentileLatency(us), NaN", 1)
	d, err := Read(strings.NewReader(nan), "nan.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := json.Marshal(d); err != nil {
		t.Fatalf("a NaN percentile: %v", err)
	}
	if p := d.Ops[0].Latency.Percentiles; len(p) != 2 || p["99"] != 211 {
		t.Errorf("percentiles %v: want 50 and 99 kept, 95 (NaN) left out", p)
	}
	neg := strings.Replace(run, "[UPDATE], MaxLatency(us), 1", "[UPDATE], MaxLatency(us), -1", 1)
	if _, err := Read(strings.NewReader(neg), "neg.txt"); err == nil || !strings.Contains(err.Error(), "neg.txt:36: [UPDATE], MaxLatency(us): -1 is negative") {
		t.Errorf("a negative latency: %v", err)
	}
	raw := "[OVERALL], RunTime(ms), 1000\n[OVERALL], Throughput(ops/sec), 1.0\nREAD,1000,-5\n"
	if _, err := Read(strings.NewReader(raw), "raw.txt"); err == nil || !strings.Contains(err.Error(), "raw.txt:3: raw line READ,1000,-5: a negative latency") {
		t.Errorf("a negative raw latency: %v", err)
	}
	empty := "[OVERALL], RunTime(ms), 1000\n[OVERALL], Throughput(ops/sec), 0.0\n[INSERT], Operations, 0\n[INSERT], AverageLatency(us), NaN\n" +
		"[INSERT], LatencyVariance(us), NaN\n[INSERT], MinLatency(us), -1\n[INSERT], MaxLatency(us), -1\n[INSERT], Return=OK, 0\n" +
		"[CLEANUP], Operations, 0\n[CLEANUP], AverageLatency(us), NaN\n[CLEANUP], LatencyVariance(us), NaN\n[CLEANUP], MinLatency(us), -1\n[CLEANUP], MaxLatency(us), -1\n"
	if d, err := Read(strings.NewReader(empty), "empty.txt"); err != nil || d.Ops[0].Latency != nil {
		t.Errorf("a histogram of nothing: %v", err)
	}
}

// What the text makes the reader hold is bounded: operation names (a raw
// line's each took a 230 KB histogram), percentiles and outcomes in a
// section, properties. Past a bound it is refused with its line.
func TestReadBounds(t *testing.T) {
	head := "[OVERALL], RunTime(ms), 10\n[OVERALL], Throughput(ops/sec), 0\n"
	var names, pcts, outcomes, properties strings.Builder
	for i := range 100 {
		fmt.Fprintf(&pcts, "[READ], %d.5PercentileLatency(us), 5\n", i)
		fmt.Fprintf(&outcomes, "[READ], Return=S%d, 1\n", i)
	}
	for i := range 40 { // before the bound, 40 took 55 MB
		fmt.Fprintf(&names, "OP%c%c,1700000000000,5\n", 'A'+i/26, 'A'+i%26)
	}
	for i := range 2000 {
		fmt.Fprintf(&properties, "\"p%d\"=\"v\"\n", i)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := Read(strings.NewReader(head+names.String()), "names.txt")
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "names.txt:35: more than 32 operation names (the next: OPBG)") {
		t.Errorf("40 operation names: %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("40 operation names took %d MB", n>>20)
	}
	for _, c := range []struct{ in, want string }{
		{head + "[READ], Operations, 1\n" + pcts.String(), "f.txt:68: [READ]: more than 64 percentiles"},
		{head + "[READ], Operations, 1\n" + outcomes.String(), "f.txt:36: [READ]: more than 32 Return= outcomes"},
		{head + properties.String(), "f.txt:1027: more than 1024 properties"},
	} {
		if _, err := Read(strings.NewReader(c.in), "f.txt"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}

// What cannot be read fails with the file and line, in one line; a text
// that is not YCSB's says so.
func TestReadRefuses(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"hello\n", "f.txt: no [OVERALL], RunTime(ms) line: not the output of YCSB's client"},
		{"[OVERALL], RunTime(ms), 10\n[READ], Operations, many\n", `f.txt:2: [READ], Operations: "many" is not a number`},
		{"[OVERALL], RunTime(ms), 10\n[READ], Operations, 2.5\n", "f.txt:2: [READ], Operations: 2.5 is not a count"},
		{"[OVERALL], RunTime(ms), 10\n[READ], Return=OK, -1\n", "f.txt:2: [READ], Return=OK: -1 is not a count"},
		{"[OVERALL], RunTime(ms), 10\n[READ], Operations\n", `f.txt:2: [READ]: want "[SECTION], METRIC, VALUE"`},
		{"[OVERALL], RunTime(ms), 10\nREAD,17000,99999999999999999999\n", "f.txt:2: raw line READ,17000,99999999999999999999"},
		{"[OVERALL], RunTime(ms), 10\n" + strings.Repeat("x", maxLine+1), "f.txt:2: a line longer than 1024 KiB"},
		{"[OVERALL], RunTime(ms), -5\n", "f.txt:1: [OVERALL], RunTime(ms): -5 is not a run time"},
		{"[OVERALL], RunTime(ms), 1e300\n", "f.txt:1: [OVERALL], RunTime(ms): 1e+300 is not a run time"},
		{"[OVERALL], RunTime(ms), 10\n[RE\x1b[31mAD], Operations, x\n", `f.txt:2: a control character ("[RE\x1b[31mAD], Operations, x")`},
		{"YCSB Client 0.17.0\x1b]0;pwned\x07\n[OVERALL], RunTime(ms), 10\n", `f.txt:1: a control character ("YCSB Client 0.17.0\x1b]0;pwned\a")`},
		{"Command line: -db site.ycsb.BasicDB\x1b[2J -t\n[OVERALL], RunTime(ms), 10\n", `f.txt:1: a control character`},
		{"\"label\"=\"\u009b31m\"\n[OVERALL], RunTime(ms), 10\n", `f.txt:1: a control character`},
		{"[OVERALL], RunTime(ms), 10\n[], Operations, 1\n", "f.txt:2: []: an empty name"},
		{"[OVERALL], RunTime(ms), 10\n[READ], Return=\x07, 1\n", `f.txt:2: a control character`},
		{"[OVERALL], RunTime(ms), 10\nREAD,300000000000000,5\n", "f.txt:2: raw line READ,300000000000000,5"}, // past year 9999
		{"[OVERALL], RunTime(ms), 10\n[OVERALL], Throughput(ops/sec), 0\n[READ], Operations, 0\n[READ], AverageLatency(us), 1\n[READ], MinLatency(us), 1\n" +
			"[READ], MaxLatency(us), 1\n[READ], Return=A, 4611686018427387903\n[READ], Return=B, 4611686018427387903\n" +
			"[READ], Return=C, 4611686018427387903\n[READ], Return=D, 4611686018427387903\n", "f.txt:7: [READ]: its counts add up to more than a count can hold"},
		{"\xef\xbb\xbf[OVERALL], RunTime(ms), 10\r\n[OVERALL], Throughput(ops/sec), 0\r\n[CLEANUP], Operations, 1\r\n[CLEANUP], AverageLatency(us), 1\r\n" +
			"[CLEANUP], MinLatency(us), 1\r\n[CLEANUP], MaxLatency(us), 1\r\n", ""},
		{"[OVERALL], RunTime(ms), 10\n[OVERALL], Throughput(ops/sec), 0\n", "f.txt:2: no operation's section after [OVERALL]: a cut output"},
	} {
		_, err := Read(strings.NewReader(c.in), "f.txt")
		if c.want == "" {
			if err != nil {
				t.Errorf("%.30q: %v", c.in, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%.30q: %v, want one line with %q", c.in, err, c.want)
		}
	}
}

// Whatever the text, Read does not panic, and what it accepts is a valid
// result that writes as JSON.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"ycsb-run-a.txt", "ycsb-run-f-hdr+raw.txt", "ycsb-run-a-intended.txt", "servbench-each-error-raw.txt"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(sample)
	f.Fuzz(func(t *testing.T, text string) {
		d, err := Read(strings.NewReader(text), "f.txt")
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("%q is not one line", err)
			}
			return
		}
		if err := d.Validate(); err != nil {
			t.Errorf("accepted an invalid result: %v", err)
		}
		if _, err := json.Marshal(d); err != nil {
			t.Errorf("accepted a result that does not write: %v", err)
		}
	})
}

// YCSB's timeseries type counts its Operations without a lock, so threads
// lose increments of it (seen: 1,550 Operations for 1,551 Return=OK): a
// section with time series rows counts its Return= lines; one without is
// refused for the same difference.
func TestReadTimeseriesLostIncrements(t *testing.T) {
	text := func(rows string) string {
		return "[OVERALL], RunTime(ms), 1000\n[OVERALL], Throughput(ops/sec), 10.0\n" +
			"[CLEANUP], Operations, 1\n[CLEANUP], AverageLatency(us), 1.0\n[CLEANUP], MinLatency(us), 1\n[CLEANUP], MaxLatency(us), 1\n" + rows +
			"[READ], Operations, 9\n[READ], AverageLatency(us), 2.0\n[READ], MinLatency(us), 1\n[READ], MaxLatency(us), 3\n[READ], Return=OK, 10\n" + rows
	}
	d, err := Read(strings.NewReader(text("[READ], 0, 2.0\n")), "ts.txt")
	if err != nil || d.Operations != 10 {
		t.Fatalf("timeseries: %v, %+v", err, d)
	}
	if _, err := Read(strings.NewReader(text("")), "h.txt"); err == nil || !strings.Contains(err.Error(), "its Return= lines count 10 operations, its sections 9") {
		t.Errorf("no rows: %v", err)
	}
}

// A minimum latency above the maximum is not one run's output: refused in
// one line naming the file and line (it was imported).
func TestReadMinAboveMax(t *testing.T) {
	run := readGenuine(t)["ycsb-run-a.txt"]
	bad := strings.Replace(run, "[UPDATE], MinLatency(us), ", "[UPDATE], MinLatency(us), 99999", 1)
	_, err := Read(strings.NewReader(bad), "minmax.txt")
	if err == nil || !strings.Contains(err.Error(), "minmax.txt:36: [UPDATE]: a minimum latency") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a minimum above the maximum: %v", err)
	}
}

// An imported result hides its credentials as a run's: the token-bearing
// options of a driver's URL (MONGODB-AWS's AWS_SESSION_TOKEN), YCSB's
// Azure Cosmos DB account key (azurecosmos.primaryKey, a name no rule
// reads as a secret) and Elasticsearch's USER:PASSWORD setting, and a
// secret wherever another property repeats it.
func TestReadHidesSecretsByValue(t *testing.T) {
	text := strings.Replace(sample, "-p redis.password=hunter2",
		"-p mongodb.url=mongodb://AKIA:hunter5x@127.0.0.1/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:hunter6x -p table=hunter6x -p redis.password=hunter7x -p fieldnameprefix=hunter7x -p azurecosmos.primaryKey=hunter8xC2y6yDjf5R+ob0N8A7Cgv30VRDJIWEHLM== -p es.setting.xpack.security.user=elastic:hunter9xEl9PwQ5vLmN8", 1)
	d, err := Read(strings.NewReader(text), "mongodb-a.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.Index(b, []byte("hunter")); i >= 0 {
		t.Errorf("the import holds a secret: %s", b[max(0, i-80):min(len(b), i+20)])
	}
	if d.Properties["redis.host"] != "db1" {
		t.Errorf("properties %v", d.Properties)
	}
}

// An average latency outside the minimum and maximum (past the
// microsecond they are truncated to) is not one run's output: refused in
// one line (it was imported).
func TestReadAverageOutsideMinMax(t *testing.T) {
	run := readGenuine(t)["ycsb-run-a.txt"]
	for _, avg := range []string{"99999999", "3"} {
		bad := strings.Replace(run, "[UPDATE], AverageLatency(us), ", "[UPDATE], AverageLatency(us), "+avg+"0", 1)
		_, err := Read(strings.NewReader(bad), "avg.txt")
		if err == nil || !strings.Contains(err.Error(), "avg.txt:") || !strings.Contains(err.Error(), "an average latency") || strings.Contains(err.Error(), "\n") {
			t.Errorf("an average of %s0: %v", avg, err)
		}
	}
}

// A percentile above the maximum latency, or below a lower percentile
// (a 99th below the 95th), is not one run's output: refused in one line
// naming the file and line, whichever of them comes first (both were
// imported). YCSB's own, its histogram type's rounded down to the ms
// too, read.
func TestReadPercentilesInOrder(t *testing.T) {
	run := readGenuine(t)["ycsb-run-a.txt"]
	for _, c := range []struct{ old, new, want string }{
		{"[UPDATE], 95thPercentileLatency(us), 1", "[UPDATE], 95thPercentileLatency(us), 999", "pct.txt:38: [UPDATE]: the 95th percentile latency (999) above the maximum (1)"},
		{"[UPDATE], MaxLatency(us), 1\n[UPDATE], 50thPercentileLatency(us), 0\n[UPDATE], 95thPercentileLatency(us), 1\n[UPDATE], 99thPercentileLatency(us), 1",
			"[UPDATE], MaxLatency(us), 30\n[UPDATE], 50thPercentileLatency(us), 0\n[UPDATE], 95thPercentileLatency(us), 20\n[UPDATE], 99thPercentileLatency(us), 10",
			"pct.txt:39: [UPDATE]: the 99th percentile latency (10) below the 95th's (20)"},
		{"[UPDATE], MaxLatency(us), 1\n[UPDATE], 50thPercentileLatency(us), 0\n", "[UPDATE], 50thPercentileLatency(us), 0\n[UPDATE], MaxLatency(us), 1\n",
			""},
		{"[UPDATE], MaxLatency(us), 1\n[UPDATE], 50thPercentileLatency(us), 0\n[UPDATE], 95thPercentileLatency(us), 1", "[UPDATE], 50thPercentileLatency(us), 0\n[UPDATE], 95thPercentileLatency(us), 5000\n[UPDATE], MaxLatency(us), 1",
			"pct.txt:38: [UPDATE]: the 95th percentile latency (5000) above the maximum (1)"},
		{"[UPDATE], MaxLatency(us), 1\n[UPDATE], 50thPercentileLatency(us), 0", "[UPDATE], MaxLatency(us), 9\n[UPDATE], 50thPercentileLatency(us), 7", "pct.txt:38: [UPDATE]: the 95th percentile latency (1) below the 50th's (7)"},
	} {
		if !strings.Contains(run, c.old) {
			t.Fatalf("the run lacks %q", c.old)
		}
		_, err := Read(strings.NewReader(strings.Replace(run, c.old, c.new, 1)), "pct.txt")
		if c.want == "" {
			if err != nil {
				t.Errorf("%q: %v", c.new, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.new, err, c.want)
		}
	}
}
