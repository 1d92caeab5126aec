package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/result"
)

// These tests run YCSB's own client (site.ycsb:core from Maven Central,
// installed by scripts/ycsb-core) next to servbench on the same properties
// and compare what both print.

// ycsbClasspath returns the classpath of YCSB's core, or skips (fails when
// SERVBENCH_REQUIRE_YCSB is set, as the test command does).
func ycsbClasspath(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs YCSB's Java client")
	}
	fail := t.Skipf
	if os.Getenv("SERVBENCH_REQUIRE_YCSB") != "" {
		fail = t.Fatalf
	}
	dir := os.Getenv("SERVBENCH_YCSB_CORE")
	if dir == "" {
		fail("set SERVBENCH_YCSB_CORE to YCSB's core jars: export SERVBENCH_YCSB_CORE=$(scripts/ycsb-core)")
	}
	if _, err := os.Stat(dir); err != nil {
		fail("SERVBENCH_YCSB_CORE: %v", err)
	}
	if _, err := exec.LookPath("java"); err != nil {
		fail("YCSB needs java: %v", err)
	}
	return filepath.Join(dir, "*")
}

// runYCSB runs site.ycsb.Client with BasicDB and returns its standard output.
func runYCSB(t *testing.T, cp string, args ...string) string {
	t.Helper()
	cmd := exec.Command("java", append([]string{"-cp", cp, "site.ycsb.Client", "-db", "site.ycsb.BasicDB"}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("YCSB %v: %v\n%s", args, err, errb.String())
	}
	return out.String()
}

// ycsbArgs turns servbench-style arguments into YCSB's: load/run become
// -load/-t, -w NAME a file of ours.
func ycsbArgs(args []string) []string {
	out := []string{}
	for i := 0; i < len(args); i++ {
		switch a := args[i]; a {
		case "load":
			out = append(out, "-load")
		case "run":
			out = append(out, "-t")
		case "basic":
		case "-w":
			out = append(out, "-P", filepath.Join("..", "workloads", "workload"+args[i+1]))
			i++
		default:
			out = append(out, a)
		}
	}
	return out
}

// insertedValues reads BasicDB's verbose INSERT lines: key -> field -> value.
// Integrity values hold no spaces, so "field=value" splits on spaces.
func insertedValues(t *testing.T, text string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "INSERT usertable ")
		if !ok {
			continue
		}
		key, rest, _ := strings.Cut(line, " [ ")
		fields := map[string]string{}
		for _, fv := range strings.Fields(strings.TrimSuffix(rest, "]")) {
			f, v, _ := strings.Cut(fv, "=")
			fields[f] = v
		}
		out[key] = fields
	}
	return out
}

func TestYCSBIntegrityValues(t *testing.T) {
	cp := ycsbClasspath(t)
	for _, c := range [][]string{
		{"-p", "fieldlength=100"},
		{"-p", "fieldlength=1", "-p", "fieldcount=3"},
		{"-p", "fieldlength=23", "-p", "zeropadding=12"},
		{"-p", "fieldlength=1000", "-p", "insertorder=ordered", "-p", "fieldnameprefix=f_"},
		{"-p", "fieldlength=57", "-p", "fieldcount=20", "-p", "insertstart=100", "-p", "insertcount=40"},
	} {
		args := append([]string{"load", "basic", "-w", "a", "-p", "recordcount=200", "-p", "dataintegrity=true", "-p", "basicdb.verbose=true"}, c...)
		want := insertedValues(t, runYCSB(t, cp, ycsbArgs(args)...))
		var verbose bytes.Buffer
		basic.Output = &verbose
		code, _, errOut := servbench(t, args...)
		basic.Output = os.Stdout
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", c, code, errOut)
		}
		got := insertedValues(t, verbose.String())
		if len(want) == 0 || len(got) != len(want) {
			t.Fatalf("%v: servbench inserted %d records, YCSB %d", c, len(got), len(want))
		}
		diffs := 0
		for key, fields := range want {
			for f, v := range fields {
				if got[key][f] != v {
					if diffs++; diffs <= 3 {
						t.Errorf("%v: %s %s:\n servbench %q\n YCSB      %q", c, key, f, got[key][f], v)
					}
				}
			}
		}
		if diffs > 0 {
			t.Errorf("%v: %d values differ from YCSB's", c, diffs)
		}
	}
}

// ycsbLine is one line of a text report: [SECTION], metric, value.
var ycsbLine = regexp.MustCompile(`^\[([^\]]+)\], (.*), ([^,]*)$`)

// reportShape is what two reports of the same properties must share:
// per section, its metric names in order; the values that do not depend
// on timing (operation and outcome counts, and the markers of an empty
// measurement); and the raw data lines' count per name.
type reportShape struct {
	sections map[string][]string
	values   map[string]string
	raw      map[string]int
}

func shapeOf(t *testing.T, text string) reportShape {
	t.Helper()
	s := reportShape{sections: map[string][]string{}, values: map[string]string{}, raw: map[string]int{}}
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutSuffix(line, " latency raw data: op, timestamp(ms), latency(us)"); ok {
			s.raw[name] += 0
			continue
		}
		if f := strings.Split(line, ","); len(f) == 3 && !strings.HasPrefix(line, "[") {
			s.raw[f[0]]++
			continue
		}
		m := ycsbLine.FindStringSubmatch(line)
		if m == nil {
			continue // YCSB's banner and property dump
		}
		sec, metric, value := m[1], m[2], m[3]
		if sec == "OVERALL" || sec == "SCHEDULE" || strings.HasPrefix(sec, "TOTAL_GC") {
			continue // timing, servbench's schedule, the JVM's collectors
		}
		if _, err := strconv.Atoi(metric); err == nil && (strings.Contains(value, ".") || value == "NaN") {
			// A timeseries bucket ("[READ], 1000, 53.2"): how many there
			// are depends on how long the run took.
			if ms := s.sections[sec]; len(ms) > 0 && ms[len(ms)-1] == "<time buckets>" {
				continue
			}
			metric = "<time buckets>"
		}
		s.sections[sec] = append(s.sections[sec], metric)
		if metric == "Operations" || metric == "Total Operations" || strings.HasPrefix(metric, "Return=") ||
			value == "NaN" || value == "-1" || value == "9223372036854775807" {
			s.values[sec+", "+metric] = value
		}
	}
	return s
}

// without drops metrics from every section.
func (s reportShape) without(metrics ...string) {
	for sec, ms := range s.sections {
		s.sections[sec] = slices.DeleteFunc(ms, func(m string) bool { return slices.Contains(metrics, m) })
	}
}

func (s reportShape) diff(o reportShape) []string {
	var d []string
	names := func(m map[string][]string) []string {
		var k []string
		for n := range m {
			k = append(k, n)
		}
		slices.Sort(k)
		return k
	}
	if a, b := names(s.sections), names(o.sections); !slices.Equal(a, b) {
		return []string{fmt.Sprintf("sections %v, YCSB's %v", a, b)}
	}
	for sec, metrics := range o.sections {
		if !slices.Equal(s.sections[sec], metrics) {
			d = append(d, fmt.Sprintf("[%s] metrics %v, YCSB's %v", sec, s.sections[sec], metrics))
		}
	}
	for k, v := range o.values {
		if s.values[k] != v {
			d = append(d, fmt.Sprintf("%s = %q, YCSB's %q", k, s.values[k], v))
		}
	}
	for k, v := range o.raw {
		if s.raw[k] != v {
			d = append(d, fmt.Sprintf("raw %s: %d lines, YCSB's %d", k, s.raw[k], v))
		}
	}
	if len(s.raw) != len(o.raw) {
		d = append(d, fmt.Sprintf("raw data for %d names, YCSB's %d", len(s.raw), len(o.raw)))
	}
	return d
}

// TestYCSBMeasurementOptions runs every measurement type under every
// measurement.interval, with VERIFY and CLEANUP in play, in both tools.
func TestYCSBMeasurementOptions(t *testing.T) {
	cp := ycsbClasspath(t)
	base := []string{"run", "basic", "-w", "c", "-p", "recordcount=10", "-p", "operationcount=40",
		"-p", "dataintegrity=true", "-p", "basicdb.verbose=false", "-p", "hdrhistogram.percentiles=50,95,99", "-threads", "2"}
	var cases [][]string
	for _, mt := range []string{"hdrhistogram", "histogram", "hdrhistogram+histogram", "timeseries", "raw", "hdrhistogram+raw"} {
		for _, iv := range []string{"op", "intended", "both"} {
			cases = append(cases, []string{"-p", "measurementtype=" + mt, "-p", "measurement.interval=" + iv})
		}
	}
	cases = append(cases,
		[]string{"-p", "measurement.interval=both", "-target", "2000"},
		[]string{"-p", "measurementtype=histogram", "-p", "measurement.histogram.verbose=true", "-p", "histogram.buckets=5"},
		[]string{"-p", "measurementtype=raw", "-p", "measurement.raw.no_summary=true"},
		[]string{"-p", "reportlatencyforeacherror=true"},
		[]string{"-P", filepath.Join("testdata", "ycsb", "workload_template"), "-p", "operationcount=40", "-p", "readproportion=1", "-p", "updateproportion=0"},
	)
	for _, c := range cases {
		args := append(slices.Clone(base), c...)
		want := shapeOf(t, runYCSB(t, cp, ycsbArgs(args)...))
		code, out, errOut := servbench(t, args...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", c, code, errOut)
		}
		if len(want.sections) == 0 {
			t.Fatalf("%v: YCSB printed no measurement", c)
		}
		got := shapeOf(t, out)
		if slices.Contains(c, "histogram.buckets=5") {
			// The histogram type writes a percentile only when it falls
			// within the buckets (YCSB's rule, and servbench's): whether a
			// 95th or 99th percentile is under 5 ms depends on how busy the
			// machine is, not on either tool.
			got.without("95thPercentileLatency(us)", "99thPercentileLatency(us)")
			want.without("95thPercentileLatency(us)", "99thPercentileLatency(us)")
		}
		for _, d := range got.diff(want) {
			t.Errorf("%v: %s", c, d)
		}
	}
}

func TestYCSBWorkloadFiles(t *testing.T) {
	// YCSB's template runs unchanged (it sets measurementtype=histogram);
	// its time-series workload is refused in one line naming the class.
	code, out, errOut := servbench(t, "run", "basic", "-P", filepath.Join("testdata", "ycsb", "workload_template"), "-p", "operationcount=100")
	if code != ExitOK || !strings.Contains(out, "[READ], LatencyVariance(us), ") {
		t.Errorf("workload_template: exit %d, stderr %q; want YCSB's histogram lines", code, errOut)
	}
	code, _, errOut = servbench(t, "run", "basic", "-P", filepath.Join("testdata", "ycsb", "tsworkloada"))
	if code != ExitUsage || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "TimeSeriesWorkload is not implemented") {
		t.Errorf("tsworkloada: exit %d, stderr %q; want one line refusing TimeSeriesWorkload", code, errOut)
	}
}

// servbench import ycsb reads what YCSB 0.17.0 itself printed (standard
// output and error together, as 2>&1 keeps them), in every measurement
// type: the run's time and throughput, each operation's count and mean as
// YCSB printed them, its percentiles, the command line's binding, workload
// and threads; raw lines become exact histograms.
func TestImportYCSB(t *testing.T) {
	cp := ycsbClasspath(t)
	dir := t.TempDir()
	line := regexp.MustCompile(`(?m)^\[(\w+)\], (Operations|Total Operations|AverageLatency\(us\)|Average), ([0-9.E-]+)$`)
	for _, mt := range []string{"hdrhistogram", "histogram", "timeseries", "raw", "hdrhistogram+histogram", "hdrhistogram+raw"} {
		cmd := exec.Command("java", "-cp", cp, "site.ycsb.Client", "-t", "-db", "site.ycsb.BasicDB", "-P", filepath.Join("..", "workloads", "workloada"),
			"-p", "recordcount=100", "-p", "operationcount=3000", "-p", "measurementtype="+mt, "-p", "basicdb.verbose=false", "-threads", "3")
		text, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("YCSB %s: %v\n%s", mt, err, text)
		}
		in := filepath.Join(dir, mt+".txt")
		os.WriteFile(in, text, 0o644)
		out := filepath.Join(dir, mt+".json")
		if code, _, e := servbench(t, "import", "ycsb", in, "-o", out); code != ExitOK {
			t.Fatalf("%s: exit %d: %s", mt, code, e)
		}
		d, err := result.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if d.Operations != 3000 || d.Binding != "basic" || d.Workload != "workload a" || d.Threads != 3 || d.Command != "run" || !strings.HasPrefix(d.Driver, "YCSB 0.17.0") {
			t.Errorf("%s: %d operations, binding %s, %q, %d threads, %s, %q", mt, d.Operations, d.Binding, d.Workload, d.Threads, d.Command, d.Driver)
		}
		// Each operation as YCSB printed it (a combined type's
		// HdrHistogram section first).
		printed := map[string]map[string]float64{}
		for _, m := range line.FindAllStringSubmatch(string(text), -1) {
			name := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(m[1], "Hdr"), "Bucket"), "Raw")
			metric := map[string]string{"Operations": "count", "Total Operations": "count", "AverageLatency(us)": "mean", "Average": "mean"}[m[2]]
			if printed[name] == nil {
				printed[name] = map[string]float64{}
			}
			if _, have := printed[name][metric]; !have {
				printed[name][metric], _ = strconv.ParseFloat(m[3], 64)
			}
		}
		for _, op := range d.Ops {
			p := printed[op.Name]
			// YCSB's timeseries type counts its Operations without a
			// lock: threads lose increments, and its Return= lines,
			// counted atomically, are the count (ycsbtext).
			countOK := float64(op.Latency.Count) == p["count"] || mt == "timeseries" && float64(op.Latency.Count) > p["count"]
			if p == nil || !countOK || op.Latency.MeanUs != p["mean"] || op.Count != op.Outcomes["OK"] {
				t.Errorf("%s %s: imported count %d mean %v, YCSB printed %v", mt, op.Name, op.Latency.Count, op.Latency.MeanUs, p)
			}
			if mt != "timeseries" && len(op.Latency.Percentiles) == 0 {
				t.Errorf("%s %s: no percentiles", mt, op.Name)
			}
			if strings.HasSuffix(mt, "raw") {
				h, err := result.DecodeHistogram(op.Histograms["OK"])
				if err != nil || h.TotalCount() != op.Count {
					t.Errorf("%s %s: histogram of the raw lines: %v, %v", mt, op.Name, h, err)
				}
			}
		}
	}
}
