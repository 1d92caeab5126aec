// Package cli is servbench's command line: flags to typed specs and plans,
// and how each ended to an exit status. Its commands: load and run (one
// phase here or spread over clients), client (one client of a spread
// phase, started by an orchestrator), bench (an experiment plan), merge,
// import (YCSB's text), report, compare, workloads, bindings, version and
// help. What a command does is in the packages below it (engine,
// coordinator, bench, report); a command's file parses and says.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/sink"
	"github.com/servbench/servbench/workloads"

	_ "github.com/servbench/servbench/db/basic"     // register
	_ "github.com/servbench/servbench/db/cassandra" // register
	_ "github.com/servbench/servbench/db/couchbase" // register
	_ "github.com/servbench/servbench/db/couchdb"   // register
	_ "github.com/servbench/servbench/db/dynamodb"  // register
	_ "github.com/servbench/servbench/db/mongodb"   // register
	_ "github.com/servbench/servbench/db/pebble"    // register
	_ "github.com/servbench/servbench/db/postgres"  // register
	_ "github.com/servbench/servbench/db/redis"     // register
)

// Exit statuses.
const (
	ExitOK          = 0
	ExitFailure     = 1 // the run failed or could not start
	ExitUsage       = 2 // bad input: flags, properties, files
	ExitInterrupted = 130
)

// Main runs the command line args (without the program name) and returns
// the exit status. It never panics on bad input. Signals end it as ending
// says: the first stops the command, which writes what it measured; the
// second ends the process within about a second whatever is blocked.
func Main(args []string, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	// A closed pipe on standard output or error (`| head -1`) would kill
	// the process there, before it wrote what it measured: ignored, such
	// a write fails, and the first one stops the command as Ctrl-C does.
	signal.Ignore(syscall.SIGPIPE)
	var once sync.Once
	broken := func() {
		once.Do(func() {
			select {
			case sigs <- syscall.SIGPIPE:
			default: // signals are there already
			}
		})
	}
	// Standard error never holds the process (queued): what it could not
	// take by the end is left after a second without progress.
	errq := newQueued(pipeWatch{stderr, broken})
	defer errq.Flush(time.Second)
	stdout, stderr = pipeWatch{stdout, broken}, errq
	e := &ending{grace: secondGrace, writeGrace: writeGrace, exit: os.Exit, stderr: stderr, flush: func() { errq.Flush(endFlush) }}
	// A heap past its bound stops the command as a first signal would
	// (memoryGuard), and exits 1: not an interruption asked for.
	g := &memoryGuard{bound: memoryBound(), need: expectedMemory, heap: heapBytes, sigs: sigs, out: stderr}
	if g.bound > 0 {
		t := time.NewTicker(memoryEvery)
		defer t.Stop()
		g.tick = t.C
		done := make(chan struct{})
		defer close(done)
		go g.watch(done)
	}
	code := e.run(sigs, func(ctx context.Context) int { return MainContext(ctx, args, stdout, stderr) })
	if g.fired.Load() && code == ExitInterrupted {
		code = ExitFailure
	}
	return code
}

// MainContext is Main with the caller's context: cancelling it stops a run
// as Ctrl-C does.
func MainContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return ExitUsage
	}
	var err error
	code := ExitOK
	switch args[0] {
	case "load", "run", "client", "bench":
		// Go's TLS reads the files these name whole, at the first
		// connection that checks a server's certificate: refused now, in
		// one line, not out of memory then.
		if err := wire.CheckSystemRoots(osGetenv); err != nil {
			fmt.Fprintf(stderr, "servbench: %s\n", oneLine(err))
			return ExitUsage
		}
	}
	switch args[0] {
	case "load", "run":
		code, err = phaseCommand(ctx, args[0], args[1:], stdout, stderr)
	case "client":
		code, err = client(ctx, args[1:], osGetenv, stdout, stderr)
	case coordinator.CredentialCommand: // run by client-go, not listed
		return coordinator.Credential(ctx, args[1:], stdout, stderr)
	case "bench":
		code, err = benchCmd(ctx, args[1:], stdout, stderr)
	case "merge":
		code, err = merge(ctx, args[1:], stdout)
	case "import":
		code, err = importCmd(ctx, args[1:], stdout)
	case "report":
		code, err = reportCmd(ctx, args[1:], stdout, stderr)
	case "compare":
		code, err = compareCmd(ctx, args[1:], stdout)
	case "history":
		code, err = historyCmd(ctx, args[1:], stdout, stderr)
	case "gate":
		code, err = gateCmd(ctx, args[1:], stdout)
	case "workloads":
		listWorkloads(stdout)
	case "bindings":
		for _, n := range db.Names() {
			b, _ := db.Lookup(n)
			fmt.Fprintf(stdout, "%-10s %s\n", n, b.Summary())
		}
	case "version", "--version", "-version":
		fmt.Fprintf(stdout, "servbench %s (commit %s) %s %s/%s\n", result.Version, result.Commit(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	case "help", "-h", "--help", "-help":
		if len(args) > 1 && (args[1] == "load" || args[1] == "run") {
			fmt.Fprint(stdout, phaseUsage())
		} else if len(args) > 1 && args[1] == "bench" {
			fmt.Fprint(stdout, benchUsage)
		} else if len(args) > 1 && args[1] == "client" {
			fmt.Fprint(stdout, clientUsage())
		} else if len(args) > 1 && args[1] == "merge" {
			fmt.Fprint(stdout, mergeUsage)
		} else if len(args) > 1 && args[1] == "import" {
			fmt.Fprint(stdout, importUsage)
		} else if len(args) > 1 && args[1] == "report" {
			fmt.Fprint(stdout, reportUsage)
		} else if len(args) > 1 && args[1] == "compare" {
			fmt.Fprint(stdout, compareUsage)
		} else if len(args) > 1 && args[1] == "history" {
			fmt.Fprint(stdout, historyUsage)
		} else if len(args) > 1 && args[1] == "gate" {
			fmt.Fprint(stdout, gateUsage)
		} else {
			fmt.Fprint(stdout, usage)
		}
	default:
		err = badf("unknown command %q (commands: load, run, bench, report, compare, history, gate, merge, import, client, workloads, bindings, version, help)", args[0])
	}
	if err != nil {
		// Said through the one redaction, knowing what the command line
		// carries as secrets (-p redis.password=PW), wherever the error
		// repeats them.
		var red props.Redactor
		red.Hidden(strings.Join(args, " "))
		fmt.Fprintf(stderr, "servbench: %s\n", red.Redact(oneLine(err)))
		var ue usageError
		if errors.As(err, &ue) {
			return ExitUsage
		}
		if code == ExitOK {
			code = ExitFailure
		}
	}
	return code
}

// oneLine keeps an error message on one line, its control characters
// escaped (a server's or a driver's text may carry any).
func oneLine(err error) string {
	return format.Printable(strings.Join(strings.Fields(err.Error()), " "))
}

func listWorkloads(w io.Writer) {
	for _, n := range workloads.Names() {
		fmt.Fprintf(w, "%-10s  %s\n", n, workloads.Title(n))
	}
	fmt.Fprintln(w, "\nUse: servbench run -w a   (the same files are in workloads/, for -P)")
}

const usage = `servbench measures databases the way YCSB does, with YCSB's workloads,
and reports throughput and latency you can trust.

Usage:
  servbench run  [binding] [flags]   run a workload (the transaction phase)
  servbench load [binding] [flags]   load the data set (the insert phase)
  servbench bench PLAN.yaml -o DIR   run an experiment plan (sweeps, repetitions, cost)
  servbench report DIR -o R.html     the plan's tables and charts in one page
  servbench compare A B              differences with confidence intervals
  servbench history                  every result recorded, filtered, a figure's trend
  servbench gate NEW                 pass or fail against the history or a baseline
  servbench merge R1.json R2.json... -o M.json   combine clients that ran together
  servbench import ycsb OUT.txt -o R.json        a YCSB run's printed results as a result
  servbench client                   one client of a spread run (orchestrators start it)
  servbench workloads                list the built-in workloads
  servbench bindings                 list the database bindings
  servbench version                  print version information
  servbench help run                 all flags of load and run

The binding defaults to pebble, an embedded store that needs no server.
Without pebble.dir, run loads the data set into a temporary store first.

Examples:
  servbench run -w a                                   workload A on the embedded store
  servbench load pebble -P workloads/workloada -p recordcount=100000 -p pebble.dir=/tmp/db
  servbench run pebble -P workloads/workloada -p recordcount=100000 -p pebble.dir=/tmp/db \
      -threads 8 -target 20000 -s -o result.json
  servbench run basic -w a -threads 2 -p operationcount=1000000   measure the harness itself
`

const phaseUsageText = `Usage: servbench load|run [binding] [flags]

Flags (YCSB's, and long forms; properties are applied in the order given,
later ones win):
  -P, --property-file FILE   read properties from a YCSB workload file (repeatable)
  -w, --workload NAME        use a built-in workload: a..h, pagination (see 'servbench workloads')
  -p, --property KEY=VALUE   set a property (repeatable)
  -threads, --threads N      client threads (threadcount; default 1)
  -target, --target N        total operations per second; latency is then also
                             measured from each operation's intended start
                             (response time, [Intended-*] sections)
  -s, --status               print a status line every status.interval seconds
  -l, --label TEXT           label for status lines and results
  -db NAME                   binding name (same as the positional binding)
  --duration SECONDS         stop after this long (maxexecutiontime)
  --clients N                spread the phase over N servbench clients, each its
                             share of threads, target, operations and keys, from
                             one start, and merge their results (property clients)
ORCHESTRATORS  --client-index I           run client I (from 0) of N only (property clientindex;
                             give startat=TIME to all N for a common start)
  --metrics-addr HOST:PORT   serve the run's progress to Prometheus at /metrics
                             (property metrics.addr; client i of a spread phase
                             serves on PORT+i)
  --dashboard HOST:PORT      serve a live page of the run (property dashboard.addr;
                             a port 0 is said; not loopback: give dashboard.token);
                             with -o R.json its last state is written to
                             R.dashboard.html (dashboard.file)
  -o, --json FILE            write the full result as JSON
  --csv FILE                 write the time series as CSV
  --hlog PREFIX              write HdrHistogram interval logs, PREFIX<SECTION>.hlog
  --cpuprofile FILE          write the client's own CPU profile (go tool pprof FILE)
  --trace FILE               write the client's own execution trace: where its
                             goroutines waited to run (go tool trace FILE)
  -h, --help                 this help

Useful properties (YCSB's names): recordcount, operationcount, fieldcount,
fieldlength, requestdistribution, readproportion ... deleteproportion,
dataintegrity, insertstart, insertcount, maxexecutiontime, status.interval,
hdrhistogram.percentiles, exportfile; servbench's: warmuptime,
warmupoperationcount, timeseries.interval, randomseed, schedule.latethreshold,
cleanupinserts,
clients, clientindex, clientkeys, startat, orchestrator, coordinator.addr,
coordinator.timeout, coordinator.id, coordinator.url, workloadname; the
orchestrators': ORCHESTRATOR_PROPERTIES; the outputs': OUTPUT_PROPERTIES.
The text report goes to standard output (or exportfile); status lines and
progress to standard error. Exit status: 0 done, 1 failed, 2 bad input,
130 interrupted (results so far are still written).
`

// phaseUsage is load's and run's help, the orchestrators' flags and
// properties and the outputs' properties as they are registered
// (coordinator.All, sink.Names).
func phaseUsage() string {
	text := strings.NewReplacer("ORCHESTRATORS", coordinator.Help(), "ORCHESTRATOR_PROPERTIES", strings.Join(coordinator.PropertyNames(), ", "),
		"OUTPUT_PROPERTIES", strings.Join(sink.Properties(sink.Names()...), ", ")).Replace(phaseUsageText)
	// The paragraph of properties, wrapped again at 79 columns.
	head, rest, _ := strings.Cut(text, "Useful properties")
	para, tail, _ := strings.Cut(rest, "\nThe text report")
	return head + format.Wrap("", "Useful properties"+para, 0, 79) + "The text report" + tail
}

// pipeWatch is a standard stream whose write to a closed pipe calls broken.
type pipeWatch struct {
	w      io.Writer
	broken func()
}

func (p pipeWatch) Write(b []byte) (int, error) {
	n, err := p.w.Write(b)
	if errors.Is(err, syscall.EPIPE) {
		p.broken()
	}
	return n, err
}
