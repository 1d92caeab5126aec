package sink

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/runner"
)

// metricValue returns the value of the sample whose line starts with
// name{...labels...} containing every part.
func metricValue(t *testing.T, page, name string, parts ...string) float64 {
	t.Helper()
	for _, line := range strings.Split(page, "\n") {
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		ok := true
		for _, p := range parts {
			ok = ok && strings.Contains(line, p)
		}
		if ok {
			v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
	}
	t.Fatalf("no %s %v in\n%s", name, parts, page)
	return 0
}

// The page counts what the drained totals hold: transactions and
// operations by outcome, cumulative latency buckets ending in the count,
// late operations; its labels are escaped; promtool accepts it.
func TestMetrics(t *testing.T) {
	r := measure.NewRecorder()
	for i := 0; i < 1000; i++ {
		ns := int64(50_000) // 50 µs
		if i%10 == 0 {
			ns = 3_000_000 // 3 ms
		}
		st := db.OK
		if i%100 == 0 {
			st = db.Timeout
		}
		r.RecordTxnOp(measure.Read, st, ns, ns)
		r.RecordLag(int64(i) * int64(time.Microsecond)) // 0 … 999 µs late
	}
	total := &measure.Set{}
	r.DrainInto(total)
	m := &Metrics{Labels: map[string]string{"run": `a "quoted" run`, "client": "0"}, Target: 500, LateThreshold: 900 * time.Microsecond,
		CPU: func() time.Duration { return 1500 * time.Millisecond }}
	m.Interval(runner.Progress{Total: total, Interval: total, Warmup: true})
	rec := httptest.NewRecorder()
	m.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	page := rec.Body.String()
	if ct := rec.Header().Get("Content-Type"); !strings.HasPrefix(ct, "text/plain; version=0.0.4") {
		t.Errorf("content type %q", ct)
	}
	for _, c := range []struct {
		name  string
		parts []string
		want  float64
	}{
		{"servbench_transactions_total", []string{`outcome="OK"`}, 990},
		{"servbench_transactions_total", []string{`outcome="TIMEOUT"`}, 10},
		{"servbench_operations_total", []string{`op="READ"`, `outcome="OK"`}, 990},
		{"servbench_operation_duration_seconds_bucket", []string{`op="READ"`, `le="0.0001"`}, 900},
		{"servbench_operation_duration_seconds_bucket", []string{`op="READ"`, `le="0.0025"`}, 900},
		{"servbench_operation_duration_seconds_bucket", []string{`op="READ"`, `le="0.005"`}, 1000},
		{"servbench_operation_duration_seconds_bucket", []string{`op="READ"`, `le="+Inf"`}, 1000},
		{"servbench_operation_duration_seconds_count", []string{`op="READ"`}, 1000},
		{"servbench_late_operations_total", nil, 99},
		{"servbench_target_ops_per_second", nil, 500},
		{"servbench_client_cpu_seconds_total", nil, 1.5},
		{"servbench_measuring", nil, 0},
	} {
		if got := metricValue(t, page, c.name, c.parts...); got != c.want {
			t.Errorf("%s %v = %v, want %v", c.name, c.parts, got, c.want)
		}
	}
	if sum := metricValue(t, page, "servbench_operation_duration_seconds_sum", `op="READ"`); sum < 0.344 || sum > 0.346 {
		t.Errorf("sum %v s, want 0.345 (900 × 50 µs + 100 × 3 ms)", sum)
	}
	if !strings.Contains(page, `run="a \"quoted\" run"`) {
		t.Errorf("label not escaped:\n%s", page)
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("SERVBENCH_REQUIRE_SERVERS") != "" {
			t.Fatal("promtool (Debian's prometheus package) is not installed")
		}
		t.Skip("promtool not installed: the page's syntax is checked by the integration tests")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v: %s", err, out)
	}
}

// The metrics endpoint faces the network: connections held open by a peer
// (each after one scrape, kept alive) are closed past maxMetricsConns,
// the oldest first, and a scraper still gets its page.
func TestMetricsConnectionsBounded(t *testing.T) {
	var said bytes.Buffer
	s, err := (&MetricsOutput{Addr: "127.0.0.1:0"}).Open(&Env{Stderr: &said})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(false)
	addr := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(said.String()), "servbench: metrics on http://"), "/metrics")
	const n = 4 * maxMetricsConns
	conns := make([]net.Conn, n)
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		io.WriteString(c, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		conns[i] = c
	}
	// Each connection is left idle: the server closed the oldest.
	closed := 0
	deadline := time.Now().Add(5 * time.Second) // not an assertion: how long a connection left open is read
	for _, c := range conns[:n-maxMetricsConns] {
		c.SetReadDeadline(deadline)
		if _, err := c.Read(make([]byte, 1)); errors.Is(err, io.EOF) {
			closed++
		}
	}
	if closed < n-maxMetricsConns {
		t.Errorf("%d of %d idle connections closed by the server, want at least %d", closed, n, n-maxMetricsConns)
	}
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("a scrape after them: %v", err)
	}
	resp.Body.Close()
}
