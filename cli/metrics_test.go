package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/result"
)

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// A real Prometheus (Debian's package) scrapes a 20 s run's --metrics-addr
// every second; the rate it computes from servbench_transactions_total is
// within 5% of the run's own throughput.
func TestMetricsScrapedByPrometheus(t *testing.T) {
	if testing.Short() {
		t.Skip("a 20 s run scraped by Prometheus: the integration suite's")
	}
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv("SERVBENCH_REQUIRE_SERVERS") != "" {
			t.Fatal("prometheus is not installed (scripts/integration installs Debian's package)")
		}
		t.Skip("prometheus not installed")
	}
	dir := t.TempDir()
	target, web := freePort(t), freePort(t)
	conf := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(conf, []byte(fmt.Sprintf(`global: {scrape_interval: 1s, evaluation_interval: 1s}
scrape_configs:
  - job_name: servbench
    static_configs: [{targets: ["127.0.0.1:%d"]}]
`, target)), 0o644)
	prom := exec.Command(bin, "--config.file="+conf, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address=127.0.0.1:"+strconv.Itoa(web))
	prom.Stdout, prom.Stderr = nil, nil
	if err := prom.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { prom.Process.Kill(); prom.Wait() }()
	api := fmt.Sprintf("http://127.0.0.1:%d", web)
	for i := 0; ; i++ {
		if r, err := http.Get(api + "/-/ready"); err == nil && r.StatusCode == 200 {
			r.Body.Close()
			break
		}
		if i == 300 {
			t.Fatal("prometheus did not become ready")
		}
		time.Sleep(100 * time.Millisecond)
	}
	out := filepath.Join(dir, "r.json")
	code, _, stderr := servbench(t, "run", "basic", "-w", "a", "-threads", "2", "--duration", "20", "-p", "operationcount=0",
		"-p", "timeseries.interval=0.1", // the page changes ten times between scrapes: no aliasing of one against the other
		"-p", "target=20000", "--metrics-addr", "127.0.0.1:"+strconv.Itoa(target), "-l", "scraped", "-o", out)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	d, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// The rate over the run's last 10 s, as Prometheus computes it from
	// its own samples (it finds a new target a few seconds after it is
	// up: the run is long enough to leave 10 s of samples).
	q := url.Values{"query": {`rate(servbench_transactions_total{run="scraped",outcome="OK"}[10s])`},
		"time": {strconv.FormatFloat(float64(d.End.UnixMilli())/1000-0.5, 'f', 3, 64)}}
	r, err := http.Get(api + "/api/v1/query?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	var ans struct {
		Data struct {
			Result []struct {
				Value [2]any `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(r.Body).Decode(&ans); err != nil || len(ans.Data.Result) != 1 {
		t.Fatalf("prometheus answered %+v, %v", ans, err)
	}
	s, _ := ans.Data.Result[0].Value[1].(string)
	rate, err := strconv.ParseFloat(s, 64)
	t.Logf("prometheus %s ops/s, the run %.0f", s, d.Throughput)
	if err != nil || rate < d.Throughput*0.95 || rate > d.Throughput*1.05 {
		q.Set("query", `servbench_transactions_total{run="scraped",outcome="OK"}[10s]`)
		raw, _ := http.Get(api + "/api/v1/query?" + q.Encode())
		var b strings.Builder
		io.Copy(&b, raw.Body)
		t.Errorf("prometheus: %q ops/s; the run: %.0f (%s to %s); samples: %s", s, d.Throughput, d.Start, d.End, b.String())
	}
}
