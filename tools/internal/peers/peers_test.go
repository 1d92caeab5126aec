package peers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// A report as YCSB 0.17 prints it after a paced run with a failed read.
const ycsbText = `[OVERALL], RunTime(ms), 2000
[OVERALL], Throughput(ops/sec), 5000.5
[TOTAL_GCS_PS_Scavenge], Count, 3
[READ], Operations, 5000
[READ], AverageLatency(us), 12.5
[READ], 99thPercentileLatency(us), 40
[READ], Return=OK, 4999
[READ-FAILED], Operations, 1
[READ-FAILED], 99thPercentileLatency(us), 900
[Intended-READ], Operations, 5000
[Intended-READ], 99thPercentileLatency(us), 70
[UPDATE], Operations, 5001
[UPDATE], 99thPercentileLatency(us), 55
[CLEANUP], Operations, 4
[CLEANUP], 99thPercentileLatency(us), 3
[SCHEDULE], Operations, 10001
`

func TestParse(t *testing.T) {
	r, err := Parse(strings.NewReader("servbench: a warning on stderr\n" + ycsbText))
	if err != nil {
		t.Fatal(err)
	}
	if r.Throughput != 5000.5 || r.Operations != 10001 {
		t.Errorf("throughput %v, operations %d; want 5000.5, 10001", r.Throughput, r.Operations)
	}
	if r.Counts["READ"] != 5000 || r.Counts["UPDATE"] != 5001 || len(r.Counts) != 2 {
		t.Errorf("counts %v: want READ 5000 and UPDATE 5001 only", r.Counts)
	}
	if len(r.P99) != 2 || r.P99["READ"] != 40 || r.P99["UPDATE"] != 55 {
		t.Errorf("p99 %v: want READ 40 and UPDATE 55 only", r.P99)
	}
	if _, err := Parse(strings.NewReader("Error: no such binding\n")); err == nil {
		t.Error("a report without throughput was accepted")
	}
}

func TestCPUPerOpLeavesOutStartUp(t *testing.T) {
	r := Report{Operations: 1_000_001, CPU: 3 * time.Second}
	if got := r.CPUPerOp(time.Second); got != 2 {
		t.Errorf("%v CPU-µs/op, want 2 (3 s less 1 s of start-up over 1,000,000 operations)", got)
	}
	if got := (Report{Operations: 1, CPU: time.Second}).CPUPerOp(0); got != 0 {
		t.Errorf("one operation: %v", got)
	}
}

func TestMarkdownMediansAndRatios(t *testing.T) {
	tools := []Tool{{Name: "servbench"}, {Name: "YCSB"}}
	rep := func(tput float64, cpu time.Duration, p99 float64) Report {
		return Report{Throughput: tput, Operations: 1_000_001, CPU: cpu, P99: map[string]float64{"READ": p99}}
	}
	rows := []Row{{
		Case: Case{Workload: "workloada", DB: "no-op", Threads: 4},
		Reports: [][]Report{
			{rep(9e6, time.Second, 10), rep(1e6, 2*time.Second, 30), rep(8e6, 3*time.Second, 20)},
			{rep(4e6, time.Second, 10), rep(4e6, time.Second, 10), rep(4e6, time.Second, 10)},
		},
		Base: []time.Duration{0, 500 * time.Millisecond},
	}}
	var b strings.Builder
	Markdown(&b, tools, rows)
	want := "| a, no-op, 4 | servbench | 8,000,000 | YCSB | 4,000,000 | 2.00 | 2.000 | 0.500 | 4.00 | READ 20 / 10 |"
	if !strings.Contains(b.String(), want) {
		t.Errorf("table:\n%s\nwant the row\n%s", b.String(), want)
	}
}

// A case compares each tool that runs it with the case's reference tool,
// which need not be YCSB; a tool that does not run a case has no row.
func TestMarkdownReference(t *testing.T) {
	tools := []Tool{{Name: "servbench"}, {Name: "servbench auto"}, {Name: "YCSB"}, {Name: "redis-benchmark"}}
	rep := func(tput float64) []Report {
		return []Report{{Throughput: tput, Operations: 1_000_001, CPU: time.Second, P99: map[string]float64{"READ": 100}}}
	}
	rows := []Row{{
		Case:    Case{Workload: "workloadc", DB: "redis", Threads: 256, Ref: "redis-benchmark"},
		Reports: [][]Report{nil, rep(300_000), nil, rep(1_200_000)},
		Base:    make([]time.Duration, 4),
	}}
	var b strings.Builder
	Markdown(&b, tools, rows)
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	want := "| c, redis, 256 | servbench auto | 300,000 | redis-benchmark | 1,200,000 | 0.25 |"
	if len(lines) != 3 || !strings.HasPrefix(lines[2], want) {
		t.Errorf("table:\n%s\nwant one row beginning\n%s", b.String(), want)
	}
}

func TestParseRedisBenchmark(t *testing.T) {
	out := `"test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
"GET","1680672.25","0.410","0.136","0.399","0.591","0.895","1.447"
`
	r, err := ParseRedisBenchmark(strings.NewReader(out), 2_000_000)
	if err != nil {
		t.Fatal(err)
	}
	if r.Throughput != 1680672.25 || r.Operations != 2_000_000 || r.P99["READ"] != 895 {
		t.Errorf("report %+v", r)
	}
	// A command of its own is named in full.
	hgetall := strings.Replace(out, `"GET"`, `"HGETALL key:__rand_int__"`, 1)
	if r, err := ParseRedisBenchmark(strings.NewReader(hgetall), 1); err != nil || r.P99["READ"] != 895 {
		t.Errorf("HGETALL: %+v, %v", r, err)
	}
	for _, bad := range []string{"", "ERROR: connection refused\n", out[:strings.Index(out, "\n")+1] + `"GET","fast","0.4","0","0","0","0.9","1"` + "\n"} {
		if _, err := ParseRedisBenchmark(strings.NewReader(bad), 1); err == nil {
			t.Errorf("report %q accepted", bad)
		}
	}
}

// pgbench 15's report of a run, and two threads' sampled logs: throughput
// from tps, operations from the transactions processed, p99 of the logged
// latencies (the 99th of 100 values is 99, not 100).
func TestParsePgbench(t *testing.T) {
	const out = `pgbench (15.18 (Debian 15.18-0+deb12u1))
transaction type: /tmp/read.sql
query mode: prepared
number of clients: 2
number of threads: 1
number of transactions actually processed: 38691
number of failed transactions: 0 (0.000%)
latency average = 0.051 ms
initial connection time = 4.227 ms
tps = 38847.984706 (without initial connection time)
`
	var a, b strings.Builder
	for i := 1; i <= 100; i++ {
		w := &a
		if i%2 == 0 {
			w = &b
		}
		fmt.Fprintf(w, "0 %d %d 0 1795522913 3069\n", i, 101-i)
	}
	r, err := ParsePgbench(strings.NewReader(out), strings.NewReader(a.String()), strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if r.Throughput != 38847.984706 || r.Operations != 38691 || r.P99["READ"] != 99 {
		t.Errorf("%+v: want 38847.984706 tps, 38691 operations, READ p99 99", r)
	}
	for _, bad := range []string{
		"number of transactions actually processed: 0/1\ntps = 0.0\n",
		"pgbench: error: connection to server failed\n",
		"tps = fast (without initial connection time)\nnumber of transactions actually processed: 5\n",
	} {
		if _, err := ParsePgbench(strings.NewReader(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := ParsePgbench(strings.NewReader(out), strings.NewReader("0 1 x 0 1 2\n")); err == nil {
		t.Error("a log line without a latency accepted")
	}
}

// A load's operations are its records, however its client batched them
// (servbench reports batches); Before runs first, and a failing Before
// stops the run.
func TestRunLoad(t *testing.T) {
	var before []string
	tool := Tool{Name: "sh",
		Before: func(_ context.Context, c Case) error {
			before = append(before, c.String())
			if c.Threads == 0 {
				return errors.New("no table")
			}
			return nil
		},
		Command: func(Case) []string {
			return []string{"sh", "-c", "printf '[OVERALL], Throughput(ops/sec), 90000\\n[BATCH-INSERT], Operations, 50\\n'"}
		}}
	c := Case{DB: "postgres", Threads: 16, Load: true, Properties: []string{"recordcount=10", "recordcount=5000"}}
	rep, err := Run(context.Background(), tool, c)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Operations != 5000 || rep.Throughput != 90000 || rep.MaxRSS <= 0 {
		t.Errorf("%+v: want 5000 operations (the last recordcount), 90000/s, a peak RSS", rep)
	}
	if len(before) != 1 || before[0] != "load, postgres, 16" {
		t.Errorf("before: %q", before)
	}
	c.Threads = 0
	if _, err := Run(context.Background(), tool, c); err == nil || !strings.Contains(err.Error(), "no table") {
		t.Errorf("a failed Before: %v", err)
	}
}

// latte's JSON report: its cycles, their throughput and p99 (ms), found
// by the report's list of percentiles; failed cycles refuse it.
func TestParseLatte(t *testing.T) {
	pcts := `[0.0,1.0,2.0,5.0,10.0,25.0,50.0,75.0,90.0,95.0,98.0,99.0,99.9,99.99,100.0]`
	lat := `[{"n":1,"value":0.1},{"n":1,"value":0.1},{"n":1,"value":0.1},{"n":1,"value":0.1},{"n":1,"value":0.1},{"n":1,"value":0.2},{"n":1,"value":0.3},` +
		`{"n":1,"value":0.4},{"n":1,"value":0.5},{"n":1,"value":0.6},{"n":1,"value":0.7},{"n":1,"value":1.25},{"n":1,"value":2.0},{"n":1,"value":3.0},{"n":1,"value":4.0}]`
	doc := func(errors int) string {
		return `{"conf":{},"percentiles":` + pcts + `,"result":{"cycle_count":200000,"error_count":` + fmt.Sprint(errors) +
			`,"cycle_throughput":{"n":1,"value":10000.5},"cycle_latency":{"mean":{"n":1,"value":0.3},"percentiles":` + lat + `}}}`
	}
	rep, err := ParseLatte(strings.NewReader(doc(0)))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Operations != 200000 || rep.Throughput != 10000.5 || rep.P99["READ"] != 1250 {
		t.Errorf("%+v: want 200000 operations, 10000.5/s, p99 1250 µs", rep)
	}
	if _, err := ParseLatte(strings.NewReader(doc(3))); err == nil || !strings.Contains(err.Error(), "3 of its 200000 cycles failed") {
		t.Errorf("failed cycles: %v", err)
	}
	if _, err := ParseLatte(strings.NewReader(`{"result":{}}`)); err == nil {
		t.Error("an empty report was taken")
	}
}
