// Command benchpeers runs servbench and YCSB side by side (see package
// peers); scripts/bench-peers builds servbench and calls it. Against Redis
// servbench runs as it comes, with one core (GOMAXPROCS=1: the server
// shares the machine's two), and auto-pipelined; the pipelined cases
// compare auto-pipelining, without and with a flush delay, and windows of
// 16 with redis-benchmark -P 16.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/servbench/servbench/tools/internal/peers"
)

func main() {
	var (
		servbench = flag.String("servbench", "servbench", "the servbench binary")
		ycsb      = flag.String("ycsb", "../shared/tools/ycsb", "YCSB's folder: lib/ (its classpath) and workloads/")
		java      = flag.String("java", "java", "the java binary")
		passes    = flag.Int("passes", 3, "runs of each tool per case (medians are reported)")
		cases     = flag.String("cases", "no-op,redis,bound,pipelined", "which cases: no-op (workloads A and C on 1 and 4 threads), redis (16 and 64 threads), bound (C against redis-benchmark's HGETALL, one request at a time, 16 and 64 connections), pipelined (C, 1 field of 3 bytes, against redis-benchmark -P 16 GET), postgres, mongodb, cassandra, dynamodb, couchbase (A, C and E (not DynamoDB's or Couchbase's) on 1, 16 and 64 threads against YCSB's JDBC, MongoDB, Cassandra, DynamoDB and couchbase2 bindings), postgres-load, redis-load, cassandra-load, mongodb-load, dynamodb-load (a load of -load-records into a new table, each binding batching where it can: run after the others, they empty Redis' database 0), pgbench (C's point reads, uniform, against pgbench with prepared statements on as many connections) and latte (C's point reads of Cassandra, uniform, against latte's prepared SELECT with as many in flight; latte on PATH: cargo install latte-cli)")
		records   = flag.Int("records", 100000, "recordcount")
		noopOps   = flag.Int("noop-ops", 10000000, "operationcount of a no-op run")
		duration  = flag.Int("duration", 20, "maxexecutiontime of a Redis run, seconds")
		redis     = flag.String("redis", "127.0.0.1:6379", "the Redis server, host:port")
		loadRecs  = flag.Int("load-records", 1000000, "recordcount of a load case")
		wls       = flag.String("workloads", "a,c,e", "the workloads of the postgres, mongodb, cassandra and dynamodb cases (E is not DynamoDB's)")
		loadThr   = flag.Int("load-threads", 16, "threads of a load case")
		cpus      = flag.String("client-cpus", "", "CPUs every client runs on (taskset -c LIST; the servers pinned elsewhere by the script); empty: unpinned")
		thr       = flag.String("threads", "", "the thread counts of every case but no-op, comma-separated (empty: each case's own: redis and bound 16,64; the others 1,16,64)")
	)
	flag.StringVar(&servers.postgres, "postgres", "postgres://postgres@127.0.0.1:5432/postgres", "the PostgreSQL server's URL")
	flag.StringVar(&servers.mongodb, "mongodb", "mongodb://127.0.0.1:27017/", "the MongoDB (or FerretDB) server's URL")
	flag.StringVar(&servers.cassandra, "cassandra", "127.0.0.1:9042", "the Cassandra server, host:port")
	flag.StringVar(&servers.dynamodb, "dynamodb", "http://127.0.0.1:8000", "the DynamoDB (Local) endpoint")
	flag.StringVar(&servers.couchbase, "couchbase", "couchbase://127.0.0.1?bootstrap_on=http", "the Couchbase server (or CouchbaseMock), as servbench's couchbase.url")
	flag.Parse()
	clientCPUs = *cpus
	if *thr != "" {
		for _, f := range strings.Split(*thr, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > 100000 {
				fmt.Fprintf(os.Stderr, "bench-peers: -threads %q: want thread counts such as 1,3,6,16,64\n", *thr)
				os.Exit(2)
			}
			threadList = append(threadList, n)
		}
	}
	if err := run(*servbench, *ycsb, *java, *passes, *cases, *records, *noopOps, *duration, *redis, *loadRecs, *loadThr, *wls); err != nil {
		fmt.Fprintln(os.Stderr, "bench-peers:", err)
		os.Exit(1)
	}
}

// threadList is -threads: every case's thread counts but no-op's (nil:
// each case's own).
var threadList []int

// threadsOr is -threads, or own.
func threadsOr(own ...int) []int {
	if threadList != nil {
		return threadList
	}
	return own
}

const (
	redisBenchmark = "redis-benchmark"
	autoNote       = "auto-pipelining"
	boundNote      = "one request at a time"
	boundDB        = "2" // redis-benchmark's hashes
)

// The pipelined case's records are as small as redis-benchmark's values,
// in a database of their own.
const pipelinedDB = "1"

var pipelinedProps = []string{"-p", "fieldcount=1", "-p", "fieldlength=3", "-p", "redis.db=" + pipelinedDB}

func run(servbench, ycsb, java string, passes int, which string, records, noopOps, duration int, redis string, loadRecords, loadThreads int, workloads string) error {
	if _, err := os.Stat(filepath.Join(ycsb, "lib")); err != nil {
		return fmt.Errorf("no YCSB at %s (-ycsb): %v", ycsb, err)
	}
	host, port, ok := strings.Cut(redis, ":")
	if !ok {
		return fmt.Errorf("-redis %q: want host:port", redis)
	}
	tmp, err := os.MkdirTemp("", "benchpeers")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	cred, err := credentials(tmp)
	if err != nil {
		return err
	}
	dbs, err := serverDBs(cred)
	if err != nil {
		return err
	}
	table := fmt.Sprintf("peers%d", time.Now().Unix())
	dbArgs := func(db string, sb bool) []string {
		if d, ok := dbs[db]; ok {
			if sb {
				return d.sb
			}
			return d.ycsb
		}
		switch {
		case db == "redis" && sb:
			return []string{"redis", "-p", "redis.host=" + host, "-p", "redis.port=" + port}
		case db == "redis":
			return []string{"-db", "site.ycsb.db.RedisClient", "-p", "redis.host=" + host, "-p", "redis.port=" + port}
		case sb:
			return []string{"basic", "-p", "basicdb.verbose=false"}
		}
		return []string{"-db", "site.ycsb.BasicDB", "-p", "basicdb.verbose=false"}
	}
	ld := &loads{args: map[string][]string{}, file: filepath.Join(ycsb, "workloads", "workloada"), prefix: table, last: map[string]string{}}
	for _, name := range loadDBs {
		ld.args[name] = dbArgs(name, true)
	}
	common := func(c peers.Case) []string {
		out := []string{"-P", filepath.Join(ycsb, "workloads", c.Workload), "-threads", strconv.Itoa(c.Threads)}
		if !c.Load {
			out = append(out, "-p", "recordcount="+strconv.Itoa(records))
		}
		for _, kv := range c.Properties {
			out = append(out, "-p", kv)
		}
		switch _, ok := dbs[c.DB]; {
		case ok && c.Load:
			out = append(out, "-p", "table="+ld.table())
		case ok: // a table of this comparison's own: no earlier rows in the way of the load
			out = append(out, "-p", "table="+table)
		}
		return out
	}
	servbenchRun := func(extra ...string) func(c peers.Case) []string {
		return func(c peers.Case) []string {
			phase, props := "run", extra
			if c.Load {
				phase, props = "load", append(slices.Clone(extra), "batchsize=100")
			}
			args := append(append([]string{servbench, phase}, dbArgs(c.DB, true)...), common(c)...)
			if c.Ref == redisBenchmark && c.Note != boundNote {
				args = append(args, pipelinedProps...)
			}
			for _, kv := range props {
				args = append(args, "-p", kv)
			}
			return args
		}
	}
	isRedis := func(c peers.Case) bool { return c.DB == "redis" && !c.Load }
	ins := &inserts{records: records, most: map[string]int64{}}
	before := func(ctx context.Context, c peers.Case) error {
		if !c.Load {
			return ins.undo(ctx, ld, c, table)
		}
		return ld.before(ctx, c)
	}
	vsYCSB := func(c peers.Case) bool { return c.Ref == "" }
	vsBench := func(c peers.Case) bool { return c.Ref == redisBenchmark }
	// redis-benchmark runs a number of requests: about duration seconds'
	// worth here.
	benchN := func(c peers.Case) int64 {
		if c.Note == boundNote {
			return int64(duration) * 100_000
		}
		return int64(duration) * 1_000_000
	}
	pgbench, pgbenchCheck, err := pgbenchTool(tmp, table, records, duration)
	if err != nil {
		return err
	}
	latte, err := latteTool(tmp, table, records, duration)
	if err != nil {
		return err
	}
	tools := []peers.Tool{
		{Name: "servbench", Command: servbenchRun(), Before: before, Parse: ins.track},
		// Unpinned beside its server servbench takes half the cores
		// (client.cores=auto); every core, as before, for comparison.
		{Name: "servbench client.cores=all", Command: servbenchRun("client.cores=all"),
			For: func(c peers.Case) bool { return clientCPUs == "" && c.DB != "no-op" && !c.Load }},
		{Name: "servbench GOMAXPROCS=1", Command: servbenchRun(), Env: []string{"GOMAXPROCS=1"},
			For: func(c peers.Case) bool { return isRedis(c) && (vsYCSB(c) || c.Note == boundNote) }},
		{Name: "servbench auto-pipelining", Command: servbenchRun("redis.pipelining=auto"),
			For: func(c peers.Case) bool { return isRedis(c) && vsYCSB(c) }},
		{Name: "servbench redis.flushdelay=200", Command: servbenchRun("redis.flushdelay=200"),
			For: func(c peers.Case) bool { return vsBench(c) && c.Note == autoNote }},
		{Name: "YCSB", For: vsYCSB, Before: before, Parse: ins.track, Command: func(c peers.Case) []string {
			cp := filepath.Join(ycsb, "lib") + "/*"
			d, ok := dbs[c.DB]
			if ok {
				cp += ":" + filepath.Join(ycsb, "bindings", d.cp) + "/*"
			}
			phase := "-t"
			if c.Load {
				phase = "-load"
			}
			args := append(append(append(append([]string{java}, d.jvm...), "-cp", cp, "site.ycsb.Client", phase), dbArgs(c.DB, false)...), common(c)...)
			if c.Load {
				args = append(args, d.ycsbLoad...)
			}
			return args
		}},
		{Name: redisBenchmark, Native: true, For: vsBench,
			Parse: func(c peers.Case, r io.Reader) (peers.Report, error) { return peers.ParseRedisBenchmark(r, benchN(c)) },
			Command: func(c peers.Case) []string {
				n := strconv.FormatInt(benchN(c), 10)
				if c.Note == boundNote {
					// HGETALL of hashes like YCSB's records (its own keys,
					// in database 2), one request at a time per connection.
					return []string{"redis-benchmark", "-h", host, "-p", port, "--dbnum", boundDB, "-c", strconv.Itoa(c.Threads),
						"-r", strconv.Itoa(records), "-n", n, "--csv", "HGETALL", "key:__rand_int__"}
				}
				return []string{"redis-benchmark", "-h", host, "-p", port, "--dbnum", pipelinedDB, "-P", "16", "-c", "50",
					"-t", "get", "-r", strconv.Itoa(records), "-d", "3", "-n", n, "--csv"}
			}},
		pgbench,
		latte,
	}
	var list, loadList []peers.Case
	for _, w := range strings.Split(which, ",") {
		switch w {
		case "no-op":
			for _, wl := range []string{"workloada", "workloadc"} {
				for _, th := range []int{1, 4} {
					list = append(list, peers.Case{Workload: wl, DB: "no-op", Threads: th,
						Properties: []string{"operationcount=" + strconv.Itoa(noopOps)}})
				}
			}
		case "redis":
			for _, wl := range []string{"workloada", "workloadc"} {
				for _, th := range threadsOr(16, 64) {
					list = append(list, peers.Case{Workload: wl, DB: "redis", Threads: th,
						Properties: []string{"operationcount=1000000000", "maxexecutiontime=" + strconv.Itoa(duration)}})
				}
			}
		case "bound":
			// What the leanest client does one request at a time:
			// redis-benchmark (C, one event loop) reading records of
			// YCSB's size, as many connections as threads.
			for _, th := range threadsOr(16, 64) {
				list = append(list, peers.Case{Workload: "workloadc", DB: "redis", Threads: th, Ref: redisBenchmark, Note: boundNote,
					Properties: []string{"operationcount=1000000000", "maxexecutiontime=" + strconv.Itoa(duration)}})
			}
		case "pipelined":
			// Auto-pipelining with as many threads as it needs to fill
			// its writes; windows of 16 on as many connections as
			// redis-benchmark's.
			for _, c := range []struct {
				threads          int
				pipelining, note string
			}{{256, "auto", autoNote}, {50, "16", "windows of 16"}} {
				list = append(list, peers.Case{Workload: "workloadc", DB: "redis", Threads: c.threads, Ref: redisBenchmark, Note: c.note,
					Properties: []string{"operationcount=1000000000", "maxexecutiontime=" + strconv.Itoa(duration), "redis.pipelining=" + c.pipelining}})
			}
		case "postgres", "mongodb", "cassandra", "dynamodb", "couchbase":
			for _, wl := range strings.Split(workloads, ",") {
				var props []string
				switch wl {
				case "a", "c":
				case "e":
					// E where both scan alike: key order (PostgreSQL,
					// MongoDB) or token order (Cassandra); both DynamoDB
					// bindings scan the table unordered, and differently.
					if w == "dynamodb" || w == "couchbase" { // Couchbase's scans are SQL++: CouchbaseMock has no query service
						continue
					}
					if w == "postgres" {
						// YCSB's JDBC binding returns no rows from a scan of
						// all fields (it collects only named ones), and this
						// YCSB then divides by zero: both scan one field.
						props = append(props, "readallfields=false")
					}
				default:
					return fmt.Errorf("-workloads: %q: want a, c or e", wl)
				}
				for _, th := range threadsOr(1, 16, 64) {
					c := peers.Case{Workload: "workload" + wl, DB: w, Threads: th,
						Properties: append([]string{"operationcount=1000000000", "maxexecutiontime=" + strconv.Itoa(duration)}, props...)}
					if len(props) > 0 {
						c.Note = strings.Join(props, ", ")
					}
					list = append(list, c)
				}
			}
		case latteName:
			// Point reads of the same table as latte's script: workload
			// C's reads of all fields, prepared, at consistency ONE, keys
			// "user" + n drawn uniformly (a load in key order put them
			// there; latte draws n from its hash of the cycle).
			for _, th := range threadsOr(1, 16, 64) {
				list = append(list, peers.Case{Workload: "workloadc", DB: "cassandra", Threads: th, Ref: latteName, Note: "uniform point reads",
					Properties: []string{"operationcount=1000000000", "maxexecutiontime=" + strconv.Itoa(duration), "requestdistribution=uniform", "insertorder=ordered"}})
			}
		case pgbenchName:
			// The same point reads as pgbench's script: workload C's
			// reads of all fields, keys drawn uniformly (pgbench has no
			// scrambled Zipfian).
			for _, th := range threadsOr(1, 16, 64) {
				list = append(list, peers.Case{Workload: "workloadc", DB: "postgres", Threads: th, Ref: pgbenchName, Note: "uniform point reads",
					Properties: []string{"operationcount=1000000000", "maxexecutiontime=" + strconv.Itoa(duration), "requestdistribution=uniform"}})
			}
		default:
			c, ok := loadCase(w, loadThreads, loadRecords)
			if !ok {
				return fmt.Errorf("-cases: unknown case %q (no-op, redis, bound, pipelined, pgbench, %s, or one of them with -load)", w, strings.Join(serverDBNames, ", "))
			}
			loadList = append(loadList, c)
		}
	}
	list = append(list, loadList...) // last: a Redis load empties the database the others read
	pin(tools)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	load := func(what string, args ...string) error {
		fmt.Fprintf(os.Stderr, "loading %s\n", what)
		if out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("load %s: %v: %s", what, err, out)
		}
		return nil
	}
	servbenchLoad := append(append([]string{servbench, "load"}, dbArgs("redis", true)...),
		common(peers.Case{Workload: "workloada", Threads: 16})...)
	named := strings.Split(which, ",")
	if slices.Contains(named, "redis") || slices.Contains(named, "bound") {
		if err := load(fmt.Sprintf("%d records into Redis", records), append(slices.Clone(servbenchLoad), "-p", "batchsize=100")...); err != nil {
			return err
		}
	}
	if slices.Contains(named, "bound") {
		hset := []string{"redis-benchmark", "-h", host, "-p", port, "--dbnum", boundDB, "-P", "16", "-r", strconv.Itoa(records),
			"-n", strconv.Itoa(10 * records), "-q", "HSET", "key:__rand_int__"}
		value := strings.Repeat("x", 100)
		for i := 0; i < 10; i++ {
			hset = append(hset, "field"+strconv.Itoa(i), value)
		}
		if err := load(fmt.Sprintf("redis-benchmark's %d hashes", records), hset...); err != nil {
			return err
		}
	}
	if slices.Contains(named, "pipelined") {
		// Database 1: records of one 3-byte field for servbench, and
		// redis-benchmark's keys with 3-byte values.
		if err := load(fmt.Sprintf("%d small records", records), append(append(slices.Clone(servbenchLoad), "-p", "batchsize=100"), pipelinedProps...)...); err != nil {
			return err
		}
		if err := load(fmt.Sprintf("redis-benchmark's %d keys", records), "redis-benchmark", "-h", host, "-p", port, "--dbnum", pipelinedDB,
			"-P", "16", "-t", "set", "-r", strconv.Itoa(records), "-d", "3", "-n", strconv.Itoa(10*records), "-q"); err != nil {
			return err
		}
	}
	var compared []string
	for _, name := range serverDBNames {
		if !slices.Contains(named, name) && (name != "postgres" || !slices.Contains(named, pgbenchName)) && (name != "cassandra" || !slices.Contains(named, latteName)) {
			continue
		}
		compared = append(compared, name)
		// servbench loads the data set both read: its tables are YCSB's
		// (usertable, y_id or ycsb_key and a column per field).
		args := append(append([]string{servbench, "load"}, dbArgs(name, true)...), common(peers.Case{Workload: "workloada", DB: name, Threads: 16})...)
		if name == "couchbase" {
			// Its keys are not the table's: a second comparison finds the
			// first one's records.
			args = append(args, "-p", "couchbase.upsert=true")
		}
		if err := load(fmt.Sprintf("%d records into %s", records, name), append(args, "-p", "batchsize=100")...); err != nil {
			return err
		}
		if name == "cassandra" && slices.Contains(named, latteName) {
			// latte's keys: "user" + n, n below records, beside the
			// hashed ones in the same table.
			if err := load(fmt.Sprintf("%d records in key order into %s, latte's", records, name), append(args, "-p", "batchsize=100", "-p", "insertorder=ordered")...); err != nil {
				return err
			}
		}
		d := dbs[name]
		if name == "couchbase" {
			port, err := couchbaseCarrierPort(ctx)
			if err != nil {
				return err
			}
			d.jvm = []string{"-Dcom.couchbase.bootstrapCarrierDirectPort=" + strconv.Itoa(port)}
			dbs[name] = d
		}
		if d.ownData {
			c := peers.Case{Workload: "workloada", DB: name, Threads: 16}
			cp := filepath.Join(ycsb, "lib") + "/*:" + filepath.Join(ycsb, "bindings", d.cp) + "/*"
			args := append(append(append(append([]string{java}, d.jvm...), "-cp", cp, "site.ycsb.Client", "-load"), d.ycsb...), common(c)...)
			if err := load(fmt.Sprintf("YCSB's own %d records into %s", records, name), args...); err != nil {
				return err
			}
		}
	}
	if slices.Contains(strings.Split(which, ","), pgbenchName) {
		// pgbench's keys are the loaded ones: its check script stops at
		// the first it does not find.
		if err := load("nothing: pgbench's keys are checked", pinned(pgbenchCheck)...); err != nil {
			return err
		}
	}
	if len(compared) > 0 {
		fmt.Println(configTable(dbs, compared))
	}
	rows, err := peers.Compare(ctx, tools, list, []string{"operationcount=1", "maxexecutiontime=0"}, passes,
		func(s string) { fmt.Fprintln(os.Stderr, s) })
	peers.Markdown(os.Stdout, tools, rows)
	if len(loadList) > 0 {
		if cerr := ld.cleanup(context.WithoutCancel(ctx)); err == nil {
			err = cerr
		}
	}
	return err
}
