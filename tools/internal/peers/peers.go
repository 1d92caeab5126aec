// Package peers measures servbench side by side with YCSB (or another
// reference client, such as redis-benchmark) on identical properties: the
// same workload file, record count, threads and database, back to back,
// several passes. It reads each tool's own text report (YCSB's format,
// which servbench writes too) and the client process's CPU time from the
// kernel's accounting, and prints a Markdown table with ratios to the
// reference. scripts/bench-peers runs it.
package peers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Report is what one run of a tool printed and cost.
type Report struct {
	Throughput float64            // [OVERALL], Throughput(ops/sec)
	Operations int64              // the sum of the operations' counts
	Counts     map[string]int64   // operation -> its count (successful ones: INSERT-FAILED is apart)
	P99        map[string]float64 // operation -> 99thPercentileLatency(us)
	CPU        time.Duration      // the client process's user and system time
	MaxRSS     int64              // the client process's peak resident memory, bytes
}

// CPUPerOp is the client's CPU time per operation in microseconds, less
// base: what the same command costs for one operation (start-up: a JVM's
// takes about a second of CPU).
func (r Report) CPUPerOp(base time.Duration) float64 {
	if r.Operations <= 1 {
		return 0
	}
	return float64((r.CPU - base).Nanoseconds()) / 1000 / float64(r.Operations-1)
}

// Parse reads a YCSB text report. Sections other than operations
// (OVERALL, CLEANUP, SCHEDULE, Intended-*, *-FAILED) do not count as
// operations.
func Parse(r io.Reader) (Report, error) {
	rep := Report{P99: map[string]float64{}, Counts: map[string]int64{}}
	seen := false
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		parts := strings.SplitN(sc.Text(), ", ", 3)
		if len(parts) != 3 || !strings.HasPrefix(parts[0], "[") || !strings.HasSuffix(parts[0], "]") {
			continue
		}
		section, metric := strings.Trim(parts[0], "[]"), parts[1]
		v, err := strconv.ParseFloat(strings.TrimSpace(parts[2]), 64)
		if err != nil {
			continue
		}
		switch {
		case section == "OVERALL" && metric == "Throughput(ops/sec)":
			rep.Throughput, seen = v, true
		case !isOperation(section):
		case metric == "Operations":
			rep.Operations += int64(v)
			rep.Counts[section] += int64(v)
		case metric == "99thPercentileLatency(us)":
			rep.P99[section] = v
		}
	}
	if err := sc.Err(); err != nil {
		return rep, err
	}
	if !seen {
		return rep, fmt.Errorf("no [OVERALL], Throughput(ops/sec) line")
	}
	return rep, nil
}

func isOperation(section string) bool {
	switch section {
	case "OVERALL", "CLEANUP", "SCHEDULE", "VERIFY":
		return false
	}
	return !strings.HasPrefix(section, "Intended-") && !strings.HasSuffix(section, "-FAILED") &&
		!strings.HasPrefix(section, "Hdr") && !strings.HasPrefix(section, "Bucket")
}

// Tool runs one benchmark client.
type Tool struct {
	Name string
	// Command returns the command line for a case.
	Command func(c Case) []string
	// Env is added to the tool's environment (GOMAXPROCS=1).
	Env []string
	// For says which cases the tool runs; nil: all.
	For func(c Case) bool
	// Parse reads the tool's report of a case; nil: YCSB's text format.
	Parse func(c Case, r io.Reader) (Report, error)
	// Native tools start in no measurable time: no one-operation run is
	// made to measure their start-up.
	Native bool
	// Before, when set, runs before each of the tool's runs (a fresh
	// table for a load); its time and CPU are not the run's.
	Before func(ctx context.Context, c Case) error
}

func (t Tool) runs(c Case) bool { return t.For == nil || t.For(c) }

// Case is one comparison: a workload on a database at a thread count.
type Case struct {
	Workload string // YCSB workload file (workloada, ...)
	DB       string // "no-op" or "redis"
	Threads  int
	// Properties are given to both tools as -p k=v.
	Properties []string
	// Ref names the tool the others are compared with; "" is YCSB.
	Ref string
	// Note tells cases of one workload, database and threads apart.
	Note string
	// Load: the case is the load phase (records per second).
	Load bool
	// One, when set, are the properties of the one-operation run that
	// measures start-up, instead of Compare's.
	One []string
}

func (c Case) ref() string {
	if c.Ref == "" {
		return "YCSB"
	}
	return c.Ref
}

// records is the recordcount the case's properties give, 0 if none.
func (c Case) records() int64 {
	var n int64
	for _, kv := range c.Properties {
		if v, ok := strings.CutPrefix(kv, "recordcount="); ok {
			n, _ = strconv.ParseInt(v, 10, 64)
		}
	}
	return n
}

func (c Case) String() string {
	s := fmt.Sprintf("%s, %s, %d", strings.TrimPrefix(c.Workload, "workload"), c.DB, c.Threads)
	if c.Load {
		s = fmt.Sprintf("load, %s, %d", c.DB, c.Threads)
	}
	if c.Note != "" {
		s += ", " + c.Note
	}
	return s
}

// Run runs tool on c and reads its report.
func Run(ctx context.Context, tool Tool, c Case) (Report, error) {
	if tool.Before != nil {
		if err := tool.Before(ctx, c); err != nil {
			return Report{}, fmt.Errorf("%s %s: before the run: %v", tool.Name, c, err)
		}
	}
	args := tool.Command(c)
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	if len(tool.Env) > 0 {
		cmd.Env = append(os.Environ(), tool.Env...)
	}
	var out, errs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errs
	if err := cmd.Run(); err != nil {
		return Report{}, fmt.Errorf("%s %s: %v: %s", tool.Name, c, err, lastLine(errs.String()))
	}
	var rep Report
	var err error
	if tool.Parse != nil {
		rep, err = tool.Parse(c, &out)
	} else {
		rep, err = Parse(&out)
	}
	if err != nil {
		return rep, fmt.Errorf("%s %s: %v", tool.Name, c, err)
	}
	if n := c.records(); c.Load && n > 0 {
		rep.Operations = n // a record is a load's operation, whatever the batches
	}
	rep.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rep.MaxRSS = ru.Maxrss * 1024 // kilobytes on Linux
	}
	return rep, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Row is a case's runs, per tool.
type Row struct {
	Case    Case
	Reports [][]Report      // per tool, one per pass
	Base    []time.Duration // per tool: the CPU of a run of one operation
}

// Median returns tool i's median report (throughput, CPU per operation and
// each p99 taken separately).
func (r Row) Median(i int) (tput, cpu float64, p99 map[string]float64) {
	reps := r.Reports[i]
	var ts, cs []float64
	ops := map[string][]float64{}
	for _, rep := range reps {
		ts = append(ts, rep.Throughput)
		cs = append(cs, rep.CPUPerOp(r.Base[i]))
		for op, v := range rep.P99 {
			ops[op] = append(ops[op], v)
		}
	}
	p99 = map[string]float64{}
	for op, vs := range ops {
		p99[op] = median(vs)
	}
	return median(ts), median(cs), p99
}

// MedianRSS is tool i's median peak resident memory, in bytes.
func (r Row) MedianRSS(i int) float64 {
	var v []float64
	for _, rep := range r.Reports[i] {
		v = append(v, float64(rep.MaxRSS))
	}
	return median(v)
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Compare runs every case passes times with each tool, back to back,
// alternating which tool goes first, and calls progress after each run.
// Each tool first runs the case for one operation (once): its CPU time is
// the start-up that CPU per operation leaves out. one is the case's
// properties for that run.
func Compare(ctx context.Context, tools []Tool, cases []Case, one []string, passes int, progress func(string)) ([]Row, error) {
	rows := make([]Row, len(cases))
	for ci, c := range cases {
		rows[ci] = Row{Case: c, Reports: make([][]Report, len(tools)), Base: make([]time.Duration, len(tools))}
		base := c
		if c.One != nil {
			base.Properties = append(slices.Clone(c.Properties), c.One...)
		} else {
			base.Properties = append(slices.Clone(c.Properties), one...)
		}
		for ti, tool := range tools {
			if tool.Native || !tool.runs(c) {
				continue
			}
			rep, err := Run(ctx, tool, base)
			if err != nil {
				return rows[:ci], err
			}
			rows[ci].Base[ti] = rep.CPU
		}
		for p := 0; p < passes; p++ {
			for k := range tools {
				ti := (k + p) % len(tools)
				if !tools[ti].runs(c) {
					continue
				}
				rep, err := Run(ctx, tools[ti], c)
				if err != nil {
					return rows[:ci+1], err
				}
				rows[ci].Reports[ti] = append(rows[ci].Reports[ti], rep)
				if progress != nil {
					progress(fmt.Sprintf("%s, pass %d: %s %.0f ops/s, %.3f CPU-µs/op", c, p+1, tools[ti].Name, rep.Throughput, rep.CPUPerOp(rows[ci].Base[ti])))
				}
			}
		}
	}
	return rows, nil
}

// Markdown writes the rows as a table: per case and tool, the tool's
// throughput, client CPU per operation and p99 of each operation beside the
// case's reference tool's, with ratios.
func Markdown(w io.Writer, tools []Tool, rows []Row) {
	fmt.Fprintln(w, "| workload, database, threads | client | ops/s | reference | ops/s | ratio | CPU-µs/op | reference CPU-µs/op | ratio | p99 µs (client / reference) | peak RSS MB (client / reference) |")
	fmt.Fprintln(w, "|---|---|---:|---|---:|---:|---:|---:|---:|---|---|")
	for _, r := range rows {
		ref := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == r.Case.ref() })
		if ref < 0 || len(r.Reports[ref]) == 0 {
			continue
		}
		tb, cb, pb := r.Median(ref)
		for i, t := range tools {
			if i == ref || len(r.Reports[i]) == 0 {
				continue
			}
			ta, ca, pa := r.Median(i)
			var p99 []string
			for _, op := range sortedKeys(pa) {
				if v, ok := pb[op]; ok {
					p99 = append(p99, fmt.Sprintf("%s %s / %s", op, group(pa[op]), group(v)))
				}
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %.2f | %.3f | %.3f | %.2f | %s | %.0f / %.0f |\n", r.Case, t.Name, group(ta),
				tools[ref].Name, group(tb), ratio(ta, tb), ca, cb, ratio(ca, cb), strings.Join(p99, ", "), r.MedianRSS(i)/1e6, r.MedianRSS(ref)/1e6)
		}
	}
}

// ParseRedisBenchmark reads redis-benchmark's --csv report of one test run
// n times: its requests per second, and its p99 under the name of the
// workload operation it stands for (GET and HGETALL are READ, SET and HSET
// UPDATE).
func ParseRedisBenchmark(r io.Reader, n int64) (Report, error) {
	rep := Report{P99: map[string]float64{}, Operations: n}
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return rep, fmt.Errorf("redis-benchmark: %v", err)
	}
	col := map[string]int{}
	for _, row := range rows {
		if len(row) > 0 && row[0] == "test" {
			for i, name := range row {
				col[name] = i
			}
			continue
		}
		rps, p99 := col["rps"], col["p99_latency_ms"]
		if len(col) == 0 || len(row) <= max(rps, p99) {
			continue
		}
		v, err1 := strconv.ParseFloat(row[rps], 64)
		ms, err2 := strconv.ParseFloat(row[p99], 64)
		if err1 != nil || err2 != nil {
			return rep, fmt.Errorf("redis-benchmark: test %s: rps %q, p99 %q", row[0], row[rps], row[p99])
		}
		rep.Throughput = v
		switch cmd, _, _ := strings.Cut(row[0], " "); cmd {
		case "GET", "HGETALL":
			rep.P99["READ"] = ms * 1000
		case "SET", "HSET":
			rep.P99["UPDATE"] = ms * 1000
		}
	}
	if rep.Throughput == 0 {
		return rep, fmt.Errorf("redis-benchmark: no test in its report")
	}
	return rep, nil
}

// ParsePgbench reads pgbench's report (its tps and the transactions it
// processed) and its per-transaction logs (-l, possibly sampled): their
// latencies' p99, under READ (the script is one point read).
func ParsePgbench(r io.Reader, logs ...io.Reader) (Report, error) {
	rep := Report{P99: map[string]float64{}}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "number of transactions actually processed: "); ok {
			n, _, _ := strings.Cut(v, "/")
			if rep.Operations, _ = strconv.ParseInt(n, 10, 64); rep.Operations == 0 {
				return rep, fmt.Errorf("pgbench: %q", line)
			}
		}
		if v, ok := strings.CutPrefix(line, "tps = "); ok {
			n, _, _ := strings.Cut(v, " ")
			var err error
			if rep.Throughput, err = strconv.ParseFloat(n, 64); err != nil {
				return rep, fmt.Errorf("pgbench: %q", line)
			}
		}
	}
	if rep.Throughput == 0 || rep.Operations == 0 {
		return rep, fmt.Errorf("pgbench: no tps or transactions processed in its report")
	}
	var lat []float64
	for _, l := range logs {
		sc := bufio.NewScanner(l)
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) < 6 {
				return rep, fmt.Errorf("pgbench: log line %q: want client, transaction, latency, script, epoch, µs", sc.Text())
			}
			v, err := strconv.ParseFloat(f[2], 64)
			if err != nil {
				return rep, fmt.Errorf("pgbench: log line %q: latency %q", sc.Text(), f[2])
			}
			lat = append(lat, v)
		}
		if err := sc.Err(); err != nil {
			return rep, fmt.Errorf("pgbench: log: %v", err)
		}
	}
	if len(lat) > 0 {
		slices.Sort(lat)
		rep.P99["READ"] = lat[(len(lat)*99+99)/100-1]
	}
	return rep, nil
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// group writes a number rounded to an integer with thousands separators.
func group(v float64) string {
	s := strconv.FormatInt(int64(v+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ParseLatte reads latte's JSON report (latte run -o FILE): its cycles
// (one point read each), their throughput and their p99 (milliseconds in
// the report), under READ; errors make it refuse the report.
func ParseLatte(r io.Reader) (Report, error) {
	var doc struct {
		Result struct {
			CycleCount      int64 `json:"cycle_count"`
			ErrorCount      int64 `json:"error_count"`
			CycleThroughput struct {
				Value float64 `json:"value"`
			} `json:"cycle_throughput"`
			CycleLatency struct {
				Percentiles []struct {
					Value float64 `json:"value"`
				} `json:"percentiles"`
			} `json:"cycle_latency"`
		} `json:"result"`
		Percentiles []float64 `json:"percentiles"`
	}
	if err := json.NewDecoder(io.LimitReader(r, 1<<30)).Decode(&doc); err != nil {
		return Report{}, fmt.Errorf("latte: its report: %w", err)
	}
	res := doc.Result
	if res.CycleCount == 0 || res.CycleThroughput.Value == 0 {
		return Report{}, fmt.Errorf("latte: no cycles in its report")
	}
	if res.ErrorCount > 0 {
		return Report{}, fmt.Errorf("latte: %d of its %d cycles failed", res.ErrorCount, res.CycleCount)
	}
	rep := Report{Throughput: res.CycleThroughput.Value, Operations: res.CycleCount, Counts: map[string]int64{"READ": res.CycleCount}, P99: map[string]float64{}}
	for i, p := range doc.Percentiles {
		if p == 99 && i < len(res.CycleLatency.Percentiles) {
			rep.P99["READ"] = res.CycleLatency.Percentiles[i].Value * 1000 // ms → µs
		}
	}
	if _, ok := rep.P99["READ"]; !ok {
		return rep, fmt.Errorf("latte: no p99 in its report")
	}
	return rep, nil
}
