package plan

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The shipped reference files read, and each figure is in its source: the
// seed lines it names hold its numbers as the text writes them (its
// throughput, latency, runtime, cluster size, and its thread count where
// the lines speak of threads), checked where the studies' text is at
// hand, beside the repository.
func TestShippedReferences(t *testing.T) {
	files, _ := filepath.Glob("../plans/*-reference.csv")
	if len(files) < 4 {
		t.Fatalf("%d reference files in plans/, want S1's two, S2's and S3's", len(files))
	}
	seeds := filepath.Join("..", "..", "shared", "spec", "seeds")
	_, err := os.Stat(seeds)
	haveSeeds := err == nil
	sourceRE := regexp.MustCompile(`^([^:\s]+):(\d+)(?:-(\d+))?\b`)
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		refs, err := ParseReference(raw, f)
		if err != nil {
			t.Fatal(err)
		}
		if len(refs) == 0 {
			t.Errorf("%s: no figures", f)
		}
		for _, r := range refs {
			m := sourceRE.FindStringSubmatch(r.Source)
			if m == nil {
				t.Errorf("%s:%d: source %q does not name a file and line", f, r.Line, r.Source)
				continue
			}
			if !haveSeeds {
				continue
			}
			text, err := os.ReadFile(filepath.Join(seeds, m[1]))
			if err != nil {
				t.Errorf("%s:%d: %v", f, r.Line, err)
				continue
			}
			lines := strings.Split(string(text), "\n")
			from, _ := strconv.Atoi(m[2])
			to := from
			if m[3] != "" {
				to, _ = strconv.Atoi(m[3])
			}
			if from < 1 || to < from || to > len(lines) || to-from > 5 {
				t.Errorf("%s:%d: %s has no lines %d-%d", f, r.Line, m[1], from, to)
				continue
			}
			l := strings.ReplaceAll(strings.Join(lines[from-1:to], " "), ",", "")
			says := func(what string, forms ...string) {
				for _, x := range forms {
					if strings.Contains(l, x) {
						return
					}
				}
				t.Errorf("%s:%d: %s lines %d-%d do not say its %s (%q)", f, r.Line, m[1], from, to, what, forms)
			}
			if r.RuntimeS > 0 {
				says("runtime", fmt.Sprintf("%.2f", r.RuntimeS), fmt.Sprintf("%.2f min", r.RuntimeS/60))
			} else if r.Throughput > 0 {
				k := strconv.FormatFloat(r.Throughput/1000, 'f', -1, 64) + "K ops/s"
				if r.Throughput >= 1e6 {
					k = strconv.FormatFloat(r.Throughput/1e6, 'f', -1, 64) + "M ops/s"
				}
				n := strconv.FormatFloat(r.Throughput, 'f', -1, 64)
				says("throughput", n+" ops/s", n+" to ", k) // "from 13,550 to 71,170 ops/sec"
			}
			if r.LatencyMs > 0 {
				ms := strconv.FormatFloat(r.LatencyMs, 'f', -1, 64)
				says("latency", ms+" ms", ms+"ms", strconv.FormatFloat(r.LatencyMs/1000, 'f', -1, 64)+" seconds") // "exceeding 5 seconds"
			}
			num := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
			for _, x := range []struct {
				what string
				r    Range
			}{{"failure share", r.FailedPct}, {"read units", r.ReadUnits}, {"write units", r.WriteUnits}} {
				switch {
				case !x.r.Given():
				case x.r.Lo != x.r.Hi:
					says(x.what, num(x.r.Lo)+"–"+num(x.r.Hi), num(x.r.Lo)+"-"+num(x.r.Hi))
				default:
					says(x.what, num(x.r.Lo)+"%", num(x.r.Lo)+" ")
				}
			}
			if r.Nodes > 0 {
				// A figure the text gives for every size but the one it
				// names ("on larger clusters", past the 3 nodes the
				// sentence names) is set beside each of them.
				forms := []string{fmt.Sprintf("%d-node", r.Nodes), fmt.Sprintf("%d node", r.Nodes), "each type of cluster", "averaging around"}
				if r.Nodes > 3 {
					forms = append(forms, "on larger clusters")
				}
				says("cluster size", forms...)
			}
			if strings.Contains(strings.ToLower(l), "thread") {
				says("threads", strconv.Itoa(r.ThreadsHi)+" ", strconv.Itoa(r.ThreadsLo)+" ")
			}
		}
	}
	if !haveSeeds {
		t.Log("the studies' text (../shared/spec/seeds) is not here: sources not checked against it")
	}
}

// Figures the studies give without a throughput: a latency alone, a range
// of capacity units, failure percentages exact, ranged or approximate.
func TestParseReferenceFiguresWithoutThroughput(t *testing.T) {
	in := "system,workload,threads,throughput,latency_ms,latency,source,failed_pct,read_units,write_units\n" +
		"MongoDB,a,400,,25.67,mean,s:1,,,\n" +
		"DynamoDB,c,400,,,,s:2,,141080-149900,\n" +
		"DynamoDB,a,400,,,,s:3,43-58,,\n" +
		"DynamoDB,e,400,,,,s:4,~50,,\n"
	refs, err := ParseReference([]byte(in), "r.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(refs) != 4 || refs[0].LatencyMs != 25.67 || refs[0].Throughput != 0 ||
		refs[1].ReadUnits != (Range{Lo: 141080, Hi: 149900}) || refs[1].ReadUnits.String() != "141080–149900" ||
		refs[2].FailedPct != (Range{Lo: 43, Hi: 58}) || !refs[2].FailedPct.Holds(50) || refs[2].FailedPct.Holds(60) ||
		refs[3].FailedPct != (Range{Lo: 50, Hi: 50, About: true}) || !refs[3].FailedPct.Holds(54) || refs[3].FailedPct.String() != "~50" {
		t.Errorf("read %+v", refs)
	}
}

// A reference file that cannot be read fails on its line.
func TestParseReferenceRefuses(t *testing.T) {
	head := "system,workload,threads,throughput,latency_ms,latency,source\n"
	for _, c := range []struct{ in, want string }{
		{"system,threads\n", "r.csv:1: no column workload: want the header system,workload,threads"},
		{"system,workload,threads,throughput,latency_ms,latency,source,colour\n", `r.csv:1: column "colour"`},
		{head + "X,a,3,,,,s\n", "r.csv:2: give a throughput, a runtime_s, a latency_ms"},
		{"system,workload,threads,throughput,latency_ms,latency,source,runtime_s\nX,a,3,5,,,s,7\n", "r.csv:2: a figure is a throughput or a runtime, not both"},
		{head + "X,all,3,5,,,s\n", "r.csv:2: workload all is for runtimes"},
		{"system,workload,threads,throughput,latency_ms,latency,source,nodes\nX,a,3,5,,,s,1.5\n", `r.csv:2: nodes "1.5"`},
		{"system,workload,threads,throughput,latency_ms,latency,source,records\nX,a,3,5,,,s,-1\n", `r.csv:2: records "-1"`},
		{"", "r.csv: no header line"},
		{head + "X,a,many,5,,,s\n", `r.csv:2: threads "many": want a thread count or a range`},
		{head + "X,a,9-3,5,,,s\n", `r.csv:2: threads "9-3"`},
		{head + "# a comment\nX,a,3,-5,,,s\n", `r.csv:3: throughput "-5"`},
		{head + "X,a,3,5,0,,s\n", `r.csv:2: latency_ms "0"`},
		{head + "X,a,3,5,1,about,s\n", `r.csv:2: latency "about": want mean, below`},
		{head + "X,a,3,NaN,1,,s\n", `r.csv:2: throughput "NaN"`},
		{head + "X,a,3,5,1,below,\n", "r.csv:2: give system, workload and source"},
		{head + "X,a,3\n", "r.csv"},
		{head + "X,\"a,3,5,,,s\n", `r.csv:2: extraneous or missing " in quoted-field`},
		{"system,\"workload\n", `r.csv:1: extraneous or missing " in quoted-field`},
		{head + "X,a\"b,3,5,,,s\n", `r.csv:2: bare " in non-quoted-field`},
		{"system,workload,threads,throughput,latency_ms,latency,source,failed_pct\nX,a,3,,,,s,58-43\n", `r.csv:2: failed_pct "58-43"`},
		{"system,workload,threads,throughput,latency_ms,latency,source,failed_pct\nX,a,3,,,,s,120\n", `r.csv:2: failed_pct "120"`},
		{"system,workload,threads,throughput,latency_ms,latency,source,read_units\nX,a,3,,,,s,~\n", `r.csv:2: read_units "~"`},
	} {
		if _, err := ParseReference([]byte(c.in), "r.csv"); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want one line with %q", c.in, err, c.want)
		}
	}
}

// S3's runtimes add up as its text prints them, except where the text's
// own figures do not, which the reference file says: per system and
// record count, the 3-thread workloads' runtimes sum to the 3-thread
// total (MongoDB's Table 6 does not), and each thread count's totals sum
// to the total over thread counts.
func TestS3ReferenceAddsUp(t *testing.T) {
	raw, err := os.ReadFile("../plans/s3-reference.csv")
	if err != nil {
		t.Fatal(err)
	}
	refs, err := ParseReference(raw, "s3-reference.csv")
	if err != nil {
		t.Fatal(err)
	}
	type cell struct {
		system string
		lo, hi int
		rec    int64
	}
	perWorkload, total, workloadA := map[cell]float64{}, map[cell]float64{}, map[cell]float64{}
	byThreads := map[cell]float64{} // per system and records, the thread counts' totals summed
	for _, r := range refs {
		if r.RuntimeS <= 0 || r.Records == 0 {
			continue
		}
		c := cell{r.System, r.ThreadsLo, r.ThreadsHi, r.Records}
		switch {
		case r.Workload == AllWorkloads && r.ThreadsLo == r.ThreadsHi:
			if total[c] != 0 && total[c] != r.RuntimeS {
				t.Errorf("%s: two totals for one cell, %v and %v", r.Source, total[c], r.RuntimeS)
			}
			total[c] = r.RuntimeS
		case r.Workload == AllWorkloads:
			byThreads[c] = r.RuntimeS
		case len(r.Workload) == 1 && r.ThreadsLo == 3 && r.ThreadsHi == 3:
			perWorkload[c] += r.RuntimeS
			if r.Workload == "a" {
				workloadA[c] = r.RuntimeS
			}
		}
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 0.06 }
	checked := 0
	for c, sum := range perWorkload {
		want := total[c]
		if c.system == "MongoDB" { // Table 6's rows: 148.50 / 6,405.00 / 156,115.68, printed 137.85 / 6,107.59 / 151,164.85: without A
			if near(sum, want) || !near(sum-workloadA[c], want) {
				t.Errorf("%v: MongoDB's Table 6 rows sum to %.2f, %.2f without A, printed %.2f: the file's note is wrong", c, sum, sum-workloadA[c], want)
			}
			continue
		}
		checked++
		if !near(sum, want) {
			t.Errorf("%v: the workloads sum to %.2f, the total is %.2f", c, sum, want)
		}
	}
	for c, all := range byThreads {
		var sum float64
		for _, n := range []int{1, 3, 6} {
			sum += total[cell{c.system, n, n, c.rec}]
		}
		checked++
		if !near(sum, all) {
			t.Errorf("%v: the thread counts' totals sum to %.2f, the total over them is %.2f", c, sum, all)
		}
	}
	if checked < 9+6 {
		t.Errorf("only %d sums checked", checked)
	}
}
