package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servbench/servbench/internal/browsertest"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/result"
)

// dashboardURL waits for the command's line naming its dashboard.
func dashboardURL(t *testing.T, w *watchFor, seen chan struct{}) string {
	t.Helper()
	select {
	case <-seen:
	case <-time.After(time.Minute): // a safety net, not a measurement
		t.Fatalf("no dashboard said: %s", w.String())
	}
	m := regexp.MustCompile(`dashboard on (http://127\.0\.0\.1:\d+/)`).FindStringSubmatch(w.String())
	if m == nil {
		t.Fatalf("no address: %s", w.String())
	}
	return m[1]
}

// endedResult waits for the page to say the end and the command to exit
// 0, and reads its result.
func endedResult(t *testing.T, b *browsertest.Browser, ended chan int, w *watchFor, out string) *result.Doc {
	t.Helper()
	waitEnded(t, b)
	if code := <-ended; code != ExitOK {
		t.Fatalf("exit %d: %s", code, w.String())
	}
	d, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// waitEnded waits until the page says its run (or plan) ended.
func waitEnded(t *testing.T, b *browsertest.Browser) {
	t.Helper()
	for failsafe := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		var state string
		b.Eval(t, `document.getElementById("state").textContent`, &state)
		if strings.HasPrefix(state, "ended") {
			return
		}
		if time.Now().After(failsafe) { // a safety net, not a measurement
			t.Fatalf("the page never said the end: %q", state)
		}
	}
}

// The live page, opened in headless Chromium while a run runs, ends
// showing the run's result file's figures; the page written beside the
// result holds the same.
func TestDashboardInBrowser(t *testing.T) {
	ctx := context.Background()
	b := browsertest.Start(t, ctx)
	b.Page(t)
	out := filepath.Join(t.TempDir(), "r.json")
	// A host's metrics endpoint (node_exporter's text): the server side
	// the page draws beside the client's figures.
	var used atomic.Int64
	host := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "node_memory_MemTotal_bytes 8e9\nnode_memory_MemAvailable_bytes %d\n", 6_000_000_000-used.Add(1_000_000))
	}))
	defer host.Close()
	w := &watchFor{want: "dashboard on", seen: make(chan struct{})}
	seen := w.seen
	ended := make(chan int, 1)
	go func() {
		ended <- MainContext(ctx, []string{"run", "basic", "-w", "a", "-threads", "2", "-target", "2000", "-p", "operationcount=5000",
			"-p", "server.metrics=" + host.URL + "/metrics", "-p", "server.interval=0.5",
			"--dashboard", "127.0.0.1:0", "-o", out}, io.Discard, w)
	}()
	url := dashboardURL(t, w, seen)
	if errs := b.Open(t, url); len(errs) > 0 {
		t.Errorf("the page's errors: %v", errs)
	}
	var during string
	b.Eval(t, `document.getElementById("state").textContent`, &during)
	// The server side shows while the run runs, not only at its end.
	var live struct {
		State string
		Rows  int
	}
	for failsafe := time.Now().Add(time.Minute); live.Rows == 0 && !strings.HasPrefix(live.State, "ended"); time.Sleep(50 * time.Millisecond) {
		b.Eval(t, `({State: document.getElementById("state").textContent, Rows: document.querySelectorAll("#server-series tr").length})`, &live)
		if time.Now().After(failsafe) { // a safety net, not a measurement
			t.Fatalf("the page never showed the server side: %+v", live)
		}
	}
	if !strings.HasPrefix(live.State, "running") {
		t.Errorf("the server side first showed at %q, not while the run ran", live.State)
	}
	d := endedResult(t, b, ended, w, out)
	page := pageFigures(t, b)
	if !strings.HasPrefix(during, "running") {
		t.Errorf("opened during the run, the page said %q", during)
	}
	if page.Operations != commas(d.Operations) || page.Throughput != commas2(d.Throughput) || page.Points != len(d.Series) {
		t.Errorf("the page: %s operations, %s ops/s, %d points; the result: %d, %.2f, %d", page.Operations, page.Throughput, page.Points,
			d.Operations, d.Throughput, len(d.Series))
	}
	if len(page.Rows) != len(d.Ops) {
		t.Fatalf("%d operations on the page, %d in the result", len(page.Rows), len(d.Ops))
	}
	for i, op := range d.Ops {
		if r := page.Rows[i]; r[0] != op.Name || r[1] != commas(op.Count) || r[3] != commas1(op.Latency.Percentiles["99"]) {
			t.Errorf("%s: the page %v, the result count %d p99 %v", op.Name, r, op.Count, op.Latency.Percentiles["99"])
		}
	}
	// The client's own figures and the server side, as the result has them.
	var more struct {
		Sched     string
		SchedPts  int
		LagPts    int
		Server    [][]string
		ServerPts int
	}
	b.Eval(t, `(() => ({
		Sched: document.getElementById("sched").textContent,
		SchedPts: Number(document.querySelectorAll("#client polyline")[0].dataset.points),
		LagPts: Number(document.querySelectorAll("#client polyline")[1].dataset.points),
		Server: [...document.querySelectorAll("#server-series tr")].slice(1).map(r => [...r.cells].map(c => c.textContent)),
		ServerPts: Number((document.querySelector("#server-series polyline") || {dataset: {points: 0}}).dataset.points),
	}))()`, &more)
	if more.Sched != commas(int64(d.ClientSchedP99Us+0.5)) || more.SchedPts < 1 || more.LagPts < 1 {
		t.Errorf("the page: scheduling p99 %s µs, %d points, lateness %d points; the result %v µs", more.Sched, more.SchedPts, more.LagPts, d.ClientSchedP99Us)
	}
	if d.ServerSide == nil || len(d.ServerSide.Sources) != 1 || len(d.ServerSide.Sources[0].Series) != 1 {
		t.Fatalf("the result's server side: %+v", d.ServerSide)
	}
	x := d.ServerSide.Sources[0].Series[0]
	if len(more.Server) != 1 || more.Server[0][1] != x.Name || more.Server[0][5] != commas1(x.Mean) || more.Server[0][6] != commas1(x.Max) || more.ServerPts < 1 {
		t.Errorf("the page's server side %v (%d points); the result's %s mean %.1f max %.1f", more.Server, more.ServerPts, x.Name, x.Mean, x.Max)
	}
	// The page written beside the result: the same figures, no request.
	frozen := strings.TrimSuffix(out, ".json") + ".dashboard.html"
	if errs := b.Open(t, "file://"+frozen); len(errs) > 0 {
		t.Errorf("the written page's errors: %v", errs)
	}
	var ops string
	b.Eval(t, `document.getElementById("operations").textContent`, &ops)
	if ops != commas(d.Operations) {
		t.Errorf("the written page: %s operations, the result %d", ops, d.Operations)
	}
}

// shownFigures are the run's figures a page shows (pageFigures): its operations,
// throughput and clients, each operation's row, its throughput chart's
// points.
type shownFigures struct {
	Operations, Throughput, Clients string
	Rows                            [][]string
	Points                          int
}

func pageFigures(t *testing.T, b *browsertest.Browser) shownFigures {
	t.Helper()
	var page shownFigures
	b.Eval(t, `(() => ({
		Operations: document.getElementById("operations").textContent,
		Throughput: document.getElementById("throughput").textContent,
		Clients: document.getElementById("clients").textContent,
		Rows: [...document.querySelectorAll("#ops tbody tr")].map(r => [...r.cells].map(c => c.textContent)),
		Points: Number(document.querySelector("#tput polyline").dataset.points),
	}))()`, &page)
	return page
}

func commas(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func commas2(x float64) string {
	whole, frac, _ := strings.Cut(fmt.Sprintf("%.2f", x), ".")
	n := int64(0)
	fmt.Sscan(whole, &n)
	return commas(n) + "." + frac
}

func commas1(x float64) string {
	whole, frac, _ := strings.Cut(fmt.Sprintf("%.1f", x), ".")
	n := int64(0)
	fmt.Sscan(whole, &n)
	return commas(n) + "." + frac
}

// A plan's page counts its runs as the index does: done, skipped, left.
func TestPlanDashboardInBrowser(t *testing.T) {
	ctx := context.Background()
	b := browsertest.Start(t, ctx)
	b.Page(t)
	pf := writePlan(t, `name: board
deployments: [{label: b, binding: basic}]
workloads: [c]
records: [10]
threads: [1]
rates: [200]
operations: 60
repetitions: {min: 2, max: 4, until: {throughput: 50%}}
`)
	dir := filepath.Join(t.TempDir(), "out")
	w := &watchFor{want: "dashboard on", seen: make(chan struct{})}
	seen := w.seen
	ended := make(chan int, 1)
	go func() {
		ended <- MainContext(ctx, []string{"bench", pf, "-o", dir, "--dashboard", "127.0.0.1:0"}, io.Discard, w)
	}()
	url := dashboardURL(t, w, seen)
	if errs := b.Open(t, url); len(errs) > 0 {
		t.Errorf("the page's errors: %v", errs)
	}
	waitEnded(t, b)
	if code := <-ended; code != ExitOK {
		t.Fatalf("exit %d: %s", code, w.String())
	}
	ix := readIndex(t, dir)
	n := map[string]int{}
	for _, c := range ix.Runs {
		n[c.Status]++
	}
	var got map[string]string
	b.Eval(t, `Object.fromEntries(["total", "done", "skipped", "failed", "left"].map(k => [k, document.getElementById("plan-" + k).textContent]))`, &got)
	want := map[string]string{"total": "4", "done": fmt.Sprint(n["done"]), "skipped": fmt.Sprint(n["skipped"]), "failed": "0", "left": "0"}
	if fmt.Sprint(got) != fmt.Sprint(want) || n["done"] < 2 || n["done"]+n["skipped"] != 4 {
		t.Errorf("the page %v, the index %v", got, n)
	}
	// The last run it ran, interval by interval: its figures, its result's.
	var last *plan.IndexRun
	for i := range ix.Runs {
		if ix.Runs[i].Status == "done" {
			last = &ix.Runs[i]
		}
	}
	d, err := result.ReadFile(filepath.Join(dir, last.Result))
	if err != nil {
		t.Fatal(err)
	}
	var run struct{ Name, Operations string }
	b.Eval(t, `({Name: document.getElementById("run-name").textContent, Operations: document.getElementById("operations").textContent})`, &run)
	var p99Pts int
	b.Eval(t, `Number(document.querySelector("#plan-p99 polyline").dataset.points)`, &p99Pts)
	if p99Pts != n["done"] {
		t.Errorf("the runs' p99 chart has %d points, %d runs done", p99Pts, n["done"])
	}
	if run.Name != "The last run: "+last.ID || run.Operations != commas(d.Operations) {
		t.Errorf("the page's run %+v; the last run %s, %d operations", run, last.ID, d.Operations)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "dashboard.html"))
	if err != nil || !strings.Contains(string(raw), `"total":4`) {
		t.Errorf("the plan's written page: %v", err)
	}
}

// The live page serves only GET and HEAD, and with a token only to those
// that carry it.
func TestDashboardReadOnlyAndToken(t *testing.T) {
	t.Parallel()
	w := &watchFor{want: "dashboard on", seen: make(chan struct{})}
	seen := w.seen
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ended := make(chan int, 1)
	go func() {
		ended <- MainContext(ctx, []string{"run", "basic", "-w", "c", "-target", "100", "-p", "operationcount=0",
			"--dashboard", "127.0.0.1:0", "-p", "dashboard.token=s3cretT0ken"}, io.Discard, w)
	}()
	url := dashboardURL(t, w, seen)
	for _, c := range []struct {
		method, path string
		auth         string
		want         int
	}{
		{"GET", "data.json", "", http.StatusUnauthorized},
		{"GET", "data.json?token=wrong", "", http.StatusUnauthorized},
		{"GET", "data.json?token=s3cretT0ken", "", http.StatusOK},
		{"GET", "data.json", "Bearer s3cretT0ken", http.StatusOK},
		{"POST", "data.json?token=s3cretT0ken", "", http.StatusMethodNotAllowed},
		{"GET", "?token=s3cretT0ken", "", http.StatusOK},
	} {
		req, _ := http.NewRequest(c.method, url+c.path, nil)
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var body map[string]any
		if c.want == http.StatusOK && strings.HasPrefix(c.path, "data.json") && json.NewDecoder(resp.Body).Decode(&body) != nil {
			t.Errorf("%s %s: not JSON", c.method, c.path)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%s %s (%q): %d, want %d", c.method, c.path, c.auth, resp.StatusCode, c.want)
		}
	}
	cancel()
	<-ended
	if strings.Contains(w.String(), "s3cretT0ken") {
		t.Errorf("the token was printed: %s", w.String())
	}
}

// A run spread over clients has one page, its coordinator's: while it
// runs it counts the clients reporting and draws their merged intervals;
// at the end it shows the merged result's figures, written beside it.
func TestSpreadDashboardInBrowser(t *testing.T) {
	ctx := context.Background()
	b := browsertest.Start(t, ctx)
	b.Page(t)
	out := filepath.Join(t.TempDir(), "r.json")
	w := &watchFor{want: "dashboard on", seen: make(chan struct{})}
	seen := w.seen
	ended := make(chan int, 1)
	go func() {
		ended <- MainContext(ctx, []string{"run", "basic", "-w", "a", "-threads", "4", "--clients", "2", "-target", "400",
			"-p", "operationcount=0", "-p", "maxexecutiontime=4", "--dashboard", "127.0.0.1:0", "-o", out}, io.Discard, w)
	}()
	url := dashboardURL(t, w, seen)
	if errs := b.Open(t, url); len(errs) > 0 {
		t.Errorf("the page's errors: %v", errs)
	}
	// While it runs: the clients reporting, and some operations.
	var live struct{ State, Clients, Operations string }
	for failsafe := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		b.Eval(t, `({State: document.getElementById("state").textContent, Clients: document.getElementById("clients").textContent,
			Operations: document.getElementById("operations").textContent})`, &live)
		if strings.HasPrefix(live.State, "ended") || (live.Operations != "-" && live.Operations != "0") {
			break
		}
		if time.Now().After(failsafe) { // a safety net, not a measurement
			t.Fatalf("the page never showed the clients' operations: %+v", live)
		}
	}
	if !strings.HasPrefix(live.State, "running") || !regexp.MustCompile(`^[12] of 2 reporting$`).MatchString(live.Clients) {
		t.Errorf("during the run the page said %+v", live)
	}
	d := endedResult(t, b, ended, w, out)
	if d.Clients != 2 {
		t.Fatalf("the result merges %d clients", d.Clients)
	}
	page := pageFigures(t, b)
	if page.Clients != "2" {
		t.Errorf("at the end the page says %q clients", page.Clients)
	}
	if page.Operations != commas(d.Operations) || page.Throughput != commas2(d.Throughput) || page.Points != len(d.Series) || len(page.Rows) != len(d.Ops) {
		t.Errorf("the page: %s operations, %s ops/s, %d points, %d operations; the merged result: %d, %.2f, %d, %d", page.Operations, page.Throughput,
			page.Points, len(page.Rows), d.Operations, d.Throughput, len(d.Series), len(d.Ops))
	}
	raw, err := os.ReadFile(strings.TrimSuffix(out, ".json") + ".dashboard.html")
	if err != nil || !strings.Contains(string(raw), fmt.Sprintf(`"operations":%d`, d.Operations)) {
		t.Errorf("the written page: %v", err)
	}
}
