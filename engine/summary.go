package engine

import (
	"cmp"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

// ranFacts is what the closing lines on standard error are made of.
type ranFacts struct {
	load     bool
	binding  string
	server   string // the server's version string, if the binding tells
	embedded bool   // the store runs inside this process
	workload string
	records  int64
	late     time.Duration      // schedule.latethreshold
	cpu      time.Duration      // this process's CPU time during the run
	sched    measure.SchedDelay // how long its goroutines waited to run
	cores    int
	redactor *props.Redactor // hides credentials in errors (nil: the rules alone)
}

// The thresholds of the warnings.
const (
	shortRun      = time.Second // a shorter run is called short
	fewOperations = 5000        // so is one with fewer operations
	targetMissPct = 5
)

// Summary says in one line what ran, then one line per failure kind with
// its first error, then one line per warning (see summarize).
func (r *Result) Summary() []string {
	s := r.Setup
	f := ranFacts{
		load: s.Spec.Phase == LoadPhase, binding: s.Spec.Binding, server: r.Server, embedded: r.Embedded,
		workload: workloadLabel(s.Props), records: s.Workload.RecordCount, late: s.measurements.LateThreshold,
		cpu: r.CPU, sched: r.Sched, cores: cmp.Or(r.Cores, cores()), redactor: s.redactor,
	}
	if f.load {
		f.records = s.Workload.InsertCount
	}
	lines := summarize(f, r.Result)
	if r.recorder != nil {
		all, _ := r.Total.ClientOps()
		lines = append(lines, ServerLines(r.serverSide(r.Start, all))...)
	}
	return lines
}

// summarize says in one line what ran, then one line per warning a careful
// user would want: a run too short to mean much, a missed target rate,
// operations started late, a saturated client, a stand-in server.
func summarize(f ranFacts, res *runner.Result) []string {
	all, ok := res.Total.ClientOps()
	what := "ran"
	if f.load {
		what = "loaded"
	}
	store := f.binding
	if f.server != "" {
		store += " (" + format.Printable(f.server) + ")" // the server says it
	}
	threads := plural(int64(res.Threads), "thread")
	head := fmt.Sprintf("%s %s on %s, %s, %s records: %s in %s, %s ops/s",
		what, f.workload, store, threads, format.Thousands(f.records), plural(all, "operation"),
		res.Runtime.Round(time.Millisecond), format.Thousands(int64(throughput(all, res.Runtime))))
	if all > ok {
		head += fmt.Sprintf(", %s failed", plural(all-ok, "operation"))
	}
	lines := []string{head}
	for op := measure.Op(0); op < measure.NumOps; op++ {
		for st := db.Status(0); st < db.NumStatus; st++ {
			if e := res.Total.Errors[op][st]; e != "" {
				lines = append(lines, fmt.Sprintf("%s %s: %s, the first: %s", op, st, plural(res.Total.Count(op, st), "operation"), format.Printable(f.redactor.Redact(e))))
			}
		}
	}
	warn := func(format string, args ...any) { lines = append(lines, "warning: "+fmt.Sprintf(format, args...)) }

	if res.Runtime < shortRun || all < fewOperations {
		warn("a short run (%s, %s) measures start-up and noise more than the database; run for at least 10 s (--duration 10 -p operationcount=0) or many more operations",
			res.Runtime.Round(time.Millisecond), plural(all, "operation"))
	}
	if t := res.Config.Rate; t > 0 && res.Runtime > 0 {
		got := throughput(all, res.Runtime)
		if miss := 100 * (t - got) / t; miss > targetMissPct {
			warn("target rate missed: %s ops/s achieved of %s asked (%.0f%% short); response times include the wait", rate(got), rate(t), miss)
		}
	}
	if lag := res.Total.Lag; lag != nil && lag.TotalCount() > 0 {
		var late int64
		for _, b := range lag.Distribution() {
			if b.From > int64(f.late) {
				late += b.Count
			}
		}
		if 2*late > lag.TotalCount() {
			warn("%s of %s operations started more than %s behind their intended start: the client or the database could not keep the schedule",
				format.Thousands(late), format.Thousands(lag.TotalCount()), f.late)
		}
	}
	if f.cores > 0 && res.Runtime >= shortRun { // shorter runs are mostly start-up
		pct := 100 * f.cpu.Seconds() / (res.Runtime.Seconds() * float64(f.cores))
		if pct > result.BusyClientPct {
			if f.embedded {
				warn("this process, which runs the embedded store too, used %.0f%% of %s: client and store compete for them", pct, plural(int64(f.cores), "core"))
			} else {
				warn("the client used %.0f%% of %s: it may be the limit, not the server; add client machines or threads elsewhere", pct, plural(int64(f.cores), "core"))
			}
		}
	}
	if p99 := opsP99(res.Total); !f.embedded && schedAdds(f.sched.P99, p99) && res.Runtime >= shortRun {
		warn("this client's goroutines waited up to %s (p99) for a core before they ran, against a p99 of %s for the operations: latencies measured here include that wait, the client's own (%.0f%% of %s used); give it more cores or fewer threads, or spread the threads over clients",
			f.sched.P99.Round(time.Microsecond), p99.Round(time.Microsecond), 100*f.cpu.Seconds()/(res.Runtime.Seconds()*float64(max(f.cores, 1))), plural(int64(f.cores), "core"))
	}
	if !f.load {
		// Reads that mostly find nothing: the data was never loaded into
		// this store, or into another table or directory.
		var reads, missing int64
		for _, op := range []measure.Op{measure.Read, measure.ReadModifyWrite, measure.Update} {
			reads += res.Total.OpCount(op)
			missing += res.Total.Count(op, db.NotFound)
		}
		if reads > 0 && 2*missing > reads {
			warn("%s of %s reads and updates found no record: was the data loaded? Load it first with the same properties (servbench load %s ...), or point the run at the store and table the load used",
				format.Thousands(missing), format.Thousands(reads), f.binding)
		}
	}
	if db.IsStandIn(f.server) {
		warn("%s is a stand-in speaking another product's API: these numbers measure it, not that product", f.server)
	}
	if st := res.Settled; st != nil {
		if res.Reason == result.Settled {
			lines = append(lines, fmt.Sprintf("until: stopped after %s, its figures sure: %s", res.Runtime.Round(time.Millisecond), st))
		} else {
			warn("until: the run ended (%s) before its figures were within their bounds: %s", res.Reason, st)
		}
	}
	if n := res.Abandoned(); n > 0 {
		l := fmt.Sprintf("%s abandoned when the run stopped (neither succeeded nor failed)", plural(n, "operation"))
		if res.StuckThreads > 0 {
			l += fmt.Sprintf("; %s still inside %s were left behind", plural(int64(res.StuckThreads), "thread"), f.binding)
		}
		lines = append(lines, l)
	}
	return lines
}

// rate is operations per second in words: thousands grouped, a rate
// below 100 with its fraction.
func rate(v float64) string {
	if v < 100 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return thousands(v)
}

func throughput(ops int64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(ops) / d.Seconds()
}

// plural writes "1 thread", "4 threads", with thousands grouped.
func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return format.Thousands(n) + " " + word + "s"
}

func cores() int { return runtime.GOMAXPROCS(0) }

// workloadLabel names the workload for people: its file, or its class when
// the properties came from elsewhere.
func workloadLabel(p *props.Props) string {
	n := WorkloadName(p)
	if b, ok := strings.CutPrefix(n, "workload "); ok {
		return "workload " + strings.ToUpper(b) // built in: "workload A"
	}
	if n != "" {
		return "workload " + n
	}
	return "CoreWorkload"
}

// WorkloadName is the workload's file, or "workload x" for a built-in
// one, as the result document records it.
func WorkloadName(p *props.Props) string {
	if n, ok := p.Get("workloadname"); ok {
		return n
	}
	src, _, _ := strings.Cut(p.Source("workload"), ":")
	return src
}

// schedAdds reports whether the client's own scheduling delay (its p99)
// is a share of the operations' p99 a user should be told of: a fifth of
// it, and at least 100 µs. A delay above the operations' p99 is not
// theirs (most operations took less than it): the goroutines that waited
// were others (an embedded store's, the runtime's), and nothing is said.
func schedAdds(sched, ops time.Duration) bool {
	return sched >= 100*time.Microsecond && ops > 0 && 5*sched >= ops && sched <= ops
}

// opsP99 is the highest p99 of service time among the operations that
// completed, each measured on its own.
func opsP99(s *measure.Set) time.Duration {
	var most int64
	for op := measure.Op(0); op < measure.NumOps; op++ {
		if !op.IsClientOp() || !op.IsWorkload() {
			continue
		}
		if h := s.Merged(op, false, func(st db.Status) bool { return st.IsOK() }); h != nil {
			most = max(most, h.ValueAtQuantile(99))
		}
	}
	return time.Duration(most)
}
