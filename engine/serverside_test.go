package engine_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db/dbtest"
	_ "github.com/servbench/servbench/db/redis"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/report"
	"github.com/servbench/servbench/result"
)

// A run scrapes node_exporter (started by scripts/servers on 127.0.0.1):
// the host's CPU and network series are in the result. An endpoint that
// does not answer leaves the run whole and is said once, in one line,
// naming it without its password.
func TestServerSideEndpoints(t *testing.T) {
	node := dbtest.ServerURL(t, "SERVBENCH_NODE_EXPORTER_URL")
	dead := "http://bob:s3cret@127.0.0.1:1/metrics"
	p := props.New()
	p.Set("server.metrics", node+","+dead, "test")
	p.Set("basicdb.simulatedelay", "1", "test")
	p.Set("operationcount", "0", "test")
	var log bytes.Buffer
	res, err := engine.Run(context.Background(), engine.Spec{Binding: "basic", Workload: "a", Records: 100, Properties: p,
		Duration: 3 * time.Second, Threads: 2, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := result.WriteJSON(&buf, res.Doc()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "s3cret") || strings.Contains(log.String(), "s3cret") {
		t.Fatal("the endpoint's password is in the result or the log")
	}
	doc, err := result.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !doc.Stop.Finished() || doc.Operations == 0 {
		t.Errorf("the run: %s, %d operations: want it whole", doc.Stop, doc.Operations)
	}
	src := doc.ServerSide.Find(result.SourcePrometheus, node)
	if src == nil || src.Error != "" {
		t.Fatalf("node_exporter: %+v", src)
	}
	for _, name := range []string{"cpu_busy_pct", "network_receive_bytes", "network_transmit_bytes", "memory_used_bytes"} {
		if x := src.Get(name, ""); x == nil || len(x.Points) < 2 {
			t.Errorf("%s: %+v, want a point each interval", name, x)
		}
	}
	if x := src.Get("network_receive_bytes", ""); x.Total <= 0 {
		t.Errorf("network bytes received %v: the scrapes themselves cross the loopback", x.Total)
	}
	bad := doc.ServerSide.Find(result.SourcePrometheus, "http://bob:xxxxx@127.0.0.1:1/metrics")
	if bad == nil || bad.Failed == 0 || !strings.Contains(bad.Error, "refused") {
		t.Errorf("the dead endpoint: %+v", bad)
	}
	n := 0
	for _, l := range strings.Split(log.String(), "\n") {
		if strings.Contains(l, "127.0.0.1:1/metrics") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the dead endpoint is in %d lines of the log, want one:\n%s", n, log.String())
	}
}

// Two runs against Redis, and what the report says of each: one where the
// server was the limit (a Redis pinned to one core with taskset, the
// client kept off that core, many threads pipelining), one where the client
// was (GOMAXPROCS=1, many threads, a Redis with a core of its own).
func TestServerSideLimitFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis of its own and drives it to saturation")
	}
	dbtest.ServerURL(t, "SERVBENCH_REDIS_URL") // the servers are there
	if runtime.NumCPU() < 2 {
		t.Skip("needs two cores: one for the server, one for the client")
	}
	for _, tool := range []string{"taskset", "redis-server", "redis-cli"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	dir := t.TempDir()
	const port = "6397"
	srv := exec.Command("taskset", "-c", "1", "redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Process.Kill(); srv.Wait() }()
	for i := 0; exec.Command("redis-cli", "-p", port, "ping").Run() != nil; i++ {
		if i > 100 {
			t.Fatal("the pinned redis-server did not answer")
		}
		time.Sleep(100 * time.Millisecond)
	}
	pin := func(cpus string) {
		if out, err := exec.Command("taskset", "-a", "-p", "-c", cpus, strconv.Itoa(os.Getpid())).CombinedOutput(); err != nil {
			t.Fatalf("taskset: %v: %s", err, out)
		}
	}
	run := func(name string, threads int, kv ...string) string {
		p := props.New()
		p.Set("redis.url", "redis://127.0.0.1:"+port, "test")
		p.Set("operationcount", "0", "test")
		for i := 0; i+1 < len(kv); i += 2 {
			p.Set(kv[i], kv[i+1], "test")
		}
		engine.Run(context.Background(), engine.Spec{Binding: "redis", Workload: "c", Records: 1000, Properties: p, Phase: engine.LoadPhase, Threads: 4})
		res, err := engine.Run(context.Background(), engine.Spec{Binding: "redis", Workload: "c", Records: 1000, Properties: p, Duration: 4 * time.Second, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		f := filepath.Join(dir, name+".json")
		var buf bytes.Buffer
		if err := result.WriteJSON(&buf, res.Doc()); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(f, buf.Bytes(), 0o644)
		set, err := report.LoadFiles([]string{f})
		if err != nil {
			t.Fatal(err)
		}
		for _, sec := range set.Sections() {
			if sec.ID == "server" {
				return strings.Join(sec.Points, "\n")
			}
		}
		t.Fatalf("%s: no server section", name)
		return ""
	}

	// The server's case: reads of one field of large hashes, windows of
	// 16 on 64 threads, the client on the other core. On two cores the
	// client's core is busy too: the finding may name both sides, but it
	// must name the server's main thread near its limit.
	pin("0")
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	server := run("server", 64, "redis.pipelining", "16", "fieldcount", "10", "fieldlength", "1000", "readallfields", "false")
	pin("0-" + strconv.Itoa(runtime.NumCPU()-1))
	if !(strings.Contains(server, "the server side was the limit") || strings.Contains(server, "both sides were near their limits")) ||
		!strings.Contains(server, "main thread (of one core)") {
		t.Errorf("pinned, saturated server: findings %q, want the server's main thread named near its limit", server)
	}

	// The client's case: one core's worth of Go for 64 threads, each
	// checking every value it reads (dataintegrity), against the same
	// Redis, whose work per read is small.
	client := run("client", 64, "dataintegrity", "true", "fieldcount", "10", "fieldlength", "100", "readallfields", "true")
	t.Logf("server's case: %s\nclient's case: %s", server, client)
	if !strings.Contains(client, "the client was the limit") {
		t.Errorf("GOMAXPROCS=1: findings %q, want the client named the limit", client)
	}
}
