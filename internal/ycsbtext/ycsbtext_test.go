package ycsbtext

import (
	"strings"
	"testing"
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
[READ-FAILED], 99thPercentileLatency(us), 130
[CLEANUP], Operations, 8
[CLEANUP], AverageLatency(us), 3
[UPDATE], Operations, 5000
[UPDATE], AverageLatency(us), 300
[UPDATE], 95thPercentileLatency(ms), 1
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
	if u := d.Ops[1]; u.Latency.Percentiles["95"] != 1000 {
		t.Errorf("UPDATE p95 %v µs, want 1000 (YCSB's histogram type prints ms)", u.Latency.Percentiles["95"])
	}
	if d.Cleanup == nil || d.Cleanup.Count != 8 {
		t.Errorf("cleanup %+v", d.Cleanup)
	}
	again, _ := Read(strings.NewReader(sample), "other-name.txt")
	if again.ID != d.ID {
		t.Error("the same text imported twice has two identities: merging could count it twice")
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
		{"[OVERALL], RunTime(ms), -5\n", "f.txt: runtime_ms is -5"},
		{"[OVERALL], RunTime(ms), 10\n[READ], Operations, 5\n[READ], Return=OK, 3\n", ""},
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
