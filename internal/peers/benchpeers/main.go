// Command benchpeers runs servbench and YCSB side by side (see package
// peers); scripts/bench-peers builds servbench and calls it.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/servbench/servbench/internal/peers"
)

func main() {
	var (
		servbench = flag.String("servbench", "servbench", "the servbench binary")
		ycsb      = flag.String("ycsb", "../shared/tools/ycsb", "YCSB's folder: lib/ (its classpath) and workloads/")
		java      = flag.String("java", "java", "the java binary")
		passes    = flag.Int("passes", 3, "runs of each tool per case (medians are reported)")
		cases     = flag.String("cases", "no-op,redis", "which cases: no-op (workloads A and C on 1 and 4 threads), redis (16 and 64 threads)")
		records   = flag.Int("records", 100000, "recordcount")
		noopOps   = flag.Int("noop-ops", 10000000, "operationcount of a no-op run")
		duration  = flag.Int("duration", 20, "maxexecutiontime of a Redis run, seconds")
		redis     = flag.String("redis", "127.0.0.1:6379", "the Redis server, host:port")
	)
	flag.Parse()
	if err := run(*servbench, *ycsb, *java, *passes, *cases, *records, *noopOps, *duration, *redis); err != nil {
		fmt.Fprintln(os.Stderr, "bench-peers:", err)
		os.Exit(1)
	}
}

func run(servbench, ycsb, java string, passes int, which string, records, noopOps, duration int, redis string) error {
	if _, err := os.Stat(filepath.Join(ycsb, "lib")); err != nil {
		return fmt.Errorf("no YCSB at %s (-ycsb): %v", ycsb, err)
	}
	host, port, ok := strings.Cut(redis, ":")
	if !ok {
		return fmt.Errorf("-redis %q: want host:port", redis)
	}
	dbArgs := func(db string, sb bool) []string {
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
	common := func(c peers.Case) []string {
		out := []string{"-P", filepath.Join(ycsb, "workloads", c.Workload), "-threads", strconv.Itoa(c.Threads),
			"-p", "recordcount=" + strconv.Itoa(records)}
		for _, kv := range c.Properties {
			out = append(out, "-p", kv)
		}
		return out
	}
	tools := []peers.Tool{
		{Name: "servbench", Command: func(c peers.Case) []string {
			return append(append([]string{servbench, "run"}, dbArgs(c.DB, true)...), common(c)...)
		}},
		{Name: "YCSB", Command: func(c peers.Case) []string {
			return append(append([]string{java, "-cp", filepath.Join(ycsb, "lib") + "/*", "site.ycsb.Client", "-t"}, dbArgs(c.DB, false)...), common(c)...)
		}},
	}
	var list []peers.Case
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
				for _, th := range []int{16, 64} {
					list = append(list, peers.Case{Workload: wl, DB: "redis", Threads: th,
						Properties: []string{"operationcount=1000000000", "maxexecutiontime=" + strconv.Itoa(duration)}})
				}
			}
		default:
			return fmt.Errorf("-cases: unknown case %q (no-op, redis)", w)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if strings.Contains(which, "redis") {
		load := append(append([]string{servbench, "load"}, dbArgs("redis", true)...),
			common(peers.Case{Workload: "workloada", Threads: 16})...)
		fmt.Fprintf(os.Stderr, "loading %d records into Redis at %s\n", records, redis)
		if out, err := exec.CommandContext(ctx, load[0], load[1:]...).CombinedOutput(); err != nil {
			return fmt.Errorf("load: %v: %s", err, out)
		}
	}
	rows, err := peers.Compare(ctx, tools, list, []string{"operationcount=1", "maxexecutiontime=0"}, passes,
		func(s string) { fmt.Fprintln(os.Stderr, s) })
	peers.Markdown(os.Stdout, tools, rows)
	return err
}
