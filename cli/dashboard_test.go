package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/internal/browsertest"
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
	w := &watchFor{want: "dashboard on", seen: make(chan struct{})}
	seen := w.seen
	ended := make(chan int, 1)
	go func() {
		ended <- MainContext(ctx, []string{"run", "basic", "-w", "a", "-threads", "2", "-target", "2000", "-p", "operationcount=5000",
			"--dashboard", "127.0.0.1:0", "-o", out}, io.Discard, w)
	}()
	url := dashboardURL(t, w, seen)
	if errs := b.Open(t, url); len(errs) > 0 {
		t.Errorf("the page's errors: %v", errs)
	}
	var during string
	b.Eval(t, `document.getElementById("state").textContent`, &during)
	waitEnded(t, b)
	if code := <-ended; code != ExitOK {
		t.Fatalf("exit %d: %s", code, w.String())
	}
	d, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var page struct {
		Operations, Throughput string
		Rows                   [][]string
		Points                 int
	}
	b.Eval(t, `(() => ({
		Operations: document.getElementById("operations").textContent,
		Throughput: document.getElementById("throughput").textContent,
		Rows: [...document.querySelectorAll("#ops tbody tr")].map(r => [...r.cells].map(c => c.textContent)),
		Points: Number(document.querySelector("#tput polyline").dataset.points),
	}))()`, &page)
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
