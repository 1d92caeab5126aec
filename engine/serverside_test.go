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
		Duration: engine.Give(3 * time.Second), Threads: 2, Log: &log})
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

// Two runs against a Redis pinned to one core with taskset, scraping
// node_exporter beside it, and what the report says of each: one where the
// server was the limit (each read costly for the server, the client on the
// other core pipelining), one where the client was (GOMAXPROCS=1, 64
// threads checking every value they read). The host's CPU, shared by both
// sides here, is said but decides nothing.
func TestServerSideLimitFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Redis of its own and drives it to saturation")
	}
	dbtest.ServerURL(t, "SERVBENCH_REDIS_URL") // the servers are there
	node := dbtest.ServerURL(t, "SERVBENCH_NODE_EXPORTER_URL")
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
	// Hashes of up to 100,000 fields kept as listpacks, which Redis
	// searches field by field: a read of one field of a 2,000-field
	// record costs the server far more than the client.
	srv := exec.Command("taskset", "-c", "1", "redis-server", "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir,
		"--hash-max-listpack-entries", "100000", "--hash-max-listpack-value", "1024")
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
	// run measures and returns the report's findings, with the two figures
	// they are drawn from: Redis' main thread's and the client's CPU, each
	// in % busy of what it can use.
	run := func(name string, records int64, threads int, kv ...string) (findings string, redisPct, clientPct float64) {
		p := props.New()
		p.Set("redis.url", "redis://127.0.0.1:"+port, "test")
		p.Set("server.metrics", node, "test")
		p.Set("operationcount", "0", "test")
		for i := 0; i+1 < len(kv); i += 2 {
			p.Set(kv[i], kv[i+1], "test")
		}
		if _, err := engine.Run(context.Background(), engine.Spec{Binding: "redis", Workload: "c", Records: records, Properties: p, Phase: engine.LoadPhase, Threads: 4}); err != nil {
			t.Fatal(err)
		}
		res, err := engine.Run(context.Background(), engine.Spec{Binding: "redis", Workload: "c", Records: records, Properties: p, Duration: engine.Give(4 * time.Second), Threads: threads})
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
		// Other work on this machine takes CPU from both sides, and what
		// it takes is no side's limit: then the findings cannot be checked.
		d := set.Runs[0].Doc
		host := d.ServerSide.Find(result.SourcePrometheus, node).Get("cpu_busy_pct", "")
		redis := d.ServerSide.Find(result.SourceBinding, "redis").Get("cpu_seconds", "")
		if host == nil || redis == nil {
			t.Fatalf("%s: no host CPU or Redis CPU sampled", name)
		}
		others := host.Mean/100*float64(runtime.NumCPU()) - d.ClientCPUS/(d.RuntimeMs/1000) - redis.Mean
		t.Logf("%s: other work used %.2f cores", name, others)
		if others > 0.3 {
			t.Skipf("%s: other work on this machine used %.1f cores during the run: which side was the limit cannot be told", name, others)
		}
		g := set.Groups[0]
		clientPct = g.ClientCPUPct
		for _, f := range g.Server {
			if f.Kind == result.SourceBinding && f.Name == "cpu_busy_pct" {
				redisPct = f.Mean
			}
		}
		t.Logf("%s: Redis' main thread %.0f%% busy, the client's CPU %.0f%%", name, redisPct, clientPct)
		for _, sec := range set.Sections() {
			if sec.ID != "server" {
				continue
			}
			// Beside the throughput: Redis' main thread, the host's CPU
			// and network from node_exporter.
			row := sec.Tables[0].Rows[0]
			if !strings.Contains(row[6], "(redis)") || !strings.Contains(row[7], "127.0.0.1:9100") || row[11] == "" {
				t.Errorf("%s: server-side row %q: want the main thread's, the host's CPU and network", name, row)
			}
			return strings.Join(sec.Points, "\n"), redisPct, clientPct
		}
		t.Fatalf("%s: no server section", name)
		return "", 0, 0
	}
	// The findings say what the figures say: a side past 80% busy is named
	// the limit, a side below is not. Where this machine could not drive a
	// case to its side's limit (a virtual machine's cores lent elsewhere),
	// that case's figures are checked against its findings all the same.
	const busy = 80
	verdict := func(name, findings string, redisPct, clientPct float64) (reached string) {
		server, client := redisPct > busy, clientPct > busy
		var want string
		switch {
		case server && client:
			want = "both sides were near their limits"
		case server:
			want = "the server side was the limit"
		case client:
			want = "the client was the limit"
		}
		for _, phrase := range []string{"both sides were near their limits", "the server side was the limit", "the client was the limit"} {
			if got := strings.Contains(findings, phrase); got != (phrase == want) {
				t.Errorf("%s: Redis' main thread %.0f%% busy, the client %.0f%%: findings %q, want %q", name, redisPct, clientPct, findings, want)
				break
			}
		}
		if server && !strings.Contains(findings, "redis main thread (of one core)") {
			t.Errorf("%s: findings %q do not name Redis' main thread", name, findings)
		}
		return want
	}

	// The server's case: reads of one field of 2,000-field records in
	// windows of 16 on 4 threads, the client on the other core.
	pin("0")
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	server, redisPct, clientPct := run("server", 100, 4, "redis.pipelining", "16", "fieldcount", "2000", "fieldlength", "1", "readallfields", "false")
	pin("0-" + strconv.Itoa(runtime.NumCPU()-1))
	serverCase := verdict("pinned, saturated server", server, redisPct, clientPct)

	// The client's case: one core's worth of Go for 64 threads, each
	// checking every value it reads (dataintegrity), against the same
	// Redis, whose work per read is small.
	client, redisPct, clientPct := run("client", 1000, 64, "dataintegrity", "true", "fieldcount", "10", "fieldlength", "100", "readallfields", "true")
	clientCase := verdict("GOMAXPROCS=1", client, redisPct, clientPct)
	t.Logf("server's case: %s\nclient's case: %s", server, client)
	if serverCase != "the server side was the limit" && clientCase != "the client was the limit" {
		t.Skipf("neither case reached the limit it drives to on this machine (%q, %q): the findings were checked against the figures only", serverCase, clientCase)
	}
}
