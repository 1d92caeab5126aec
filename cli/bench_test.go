package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/report"
	"github.com/servbench/servbench/result"
)

const testPlan = `name: t
deployments:
  - label: pebble
    binding: pebble
    price_per_hour: 3.6
  - label: basic
    binding: basic
workloads: [a, c]
records: [2000]
threads: [1, 2]
operations: 3000
repetitions: 2
`

func writePlan(t *testing.T, text string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "plan.yaml")
	if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

func readIndex(t *testing.T, dir string) *plan.Index {
	t.Helper()
	ix, err := plan.ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

// cancelOnLoad cancels a plan when it starts loading its first data set.
type cancelOnLoad struct {
	buf    bytes.Buffer
	cancel func()
}

func (c *cancelOnLoad) Write(p []byte) (int, error) {
	c.buf.Write(p)
	if bytes.Contains(p, []byte("servbench: loading ")) {
		c.cancel()
	}
	return len(p), nil
}

// The command line maps a plan's end to exit codes: an interrupted plan
// exits 130 (ExitInterrupted) saying how many runs are left, a finished one
// 0, and another plan into its directory is refused. What ran is the plan
// runner's (bench.TestPlanResumesFromIndex).
func TestBenchPlanExitCodes(t *testing.T) {
	t.Parallel()
	planFile := writePlan(t, testPlan)
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := &cancelOnLoad{cancel: cancel}
	if code := MainContext(ctx, []string{"bench", planFile, "-o", dir}, &bytes.Buffer{}, stop); code != ExitInterrupted || !strings.Contains(stop.buf.String(), "plan interrupted; 16 runs left") {
		t.Fatalf("a plan interrupted while loading its first data set: exit %d: %s", code, stop.buf.String())
	}
	if ix := readIndex(t, dir); len(ix.Runs) != 16 || ix.Runs[0].Status != "pending" {
		t.Fatalf("the interrupted plan's index: %d runs, the first %q", len(ix.Runs), ix.Runs[0].Status)
	}
	var errb bytes.Buffer
	if code := MainContext(context.Background(), []string{"bench", "-o", dir, planFile}, &bytes.Buffer{}, &errb); code != ExitOK || !strings.Contains(errb.String(), "16 runs done now, 0 found done, 0 failed") {
		t.Fatalf("resumed plan: exit %d: %s", code, errb.String())
	}
	other := writePlan(t, strings.Replace(testPlan, "repetitions: 2", "repetitions: 3", 1))
	if code, _, e := servbench(t, "bench", other, "-o", dir); code != ExitUsage || !strings.Contains(e, "another plan") {
		t.Errorf("another plan into the same directory: exit %d: %s", code, e)
	}
	// The plan's copy is read as bench wrote it or not at all: a named
	// pipe there (which waited for a writer without end) is refused, and
	// with no copy the index still names its plan.
	kept := filepath.Join(dir, "plan.yaml")
	os.Rename(kept, kept+".was")
	if err := syscall.Mkfifo(kept, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, e := servbench(t, "bench", planFile, "-o", dir); code != ExitUsage || strings.Count(e, "\n") != 1 || !strings.Contains(e, "plan.yaml: not a regular file") {
		t.Errorf("DIR/plan.yaml a named pipe: exit %d: %s", code, e)
	}
	os.Remove(kept)
	renamed := writePlan(t, strings.Replace(testPlan, "name: t\n", "name: u\n", 1))
	if code, _, e := servbench(t, "bench", renamed, "-o", dir); code != ExitUsage || !strings.Contains(e, `its index names plan "t", not "u"`) {
		t.Errorf("another plan into a directory without its copy: exit %d: %s", code, e)
	}
	if code, _, e := servbench(t, "bench", planFile, "-o", dir); code != ExitOK || !strings.Contains(e, "0 runs done now, 16 found done") {
		t.Errorf("the plan into its directory without its copy: exit %d: %s", code, e)
	}
}

// An SLO plan steps the target rate until the response time breaks the
// bound, runs one step past it, and skips the rest. The binding takes 2 ms
// per operation, so one thread serves at most ~500 ops/s: 50 and 100 ops/s
// meet a 1 s p99, 2,000 ops/s queues up for the whole run.
func TestBenchSLOSearch(t *testing.T) {
	t.Parallel()
	planFile := writePlan(t, `name: slo
deployments:
  - label: slow
    binding: basic
    properties:
      basicdb.simulatedelay: 2
      basicdb.randomizedelay: false
workloads: [c]
records: [100]
threads: [1]
rates: [100, 2000, 4000, 8000]
duration: 2
slo:
  latency: p99
  bound_ms: 1000
  after: 1
`)
	dir := filepath.Join(t.TempDir(), "out")
	code, _, e := servbench(t, "bench", planFile, "-o", dir)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	ix := readIndex(t, dir)
	status := map[float64]string{}
	for _, c := range ix.Runs {
		status[c.Rate] = c.Status
	}
	if status[100] != "done" || status[2000] != "done" || status[4000] != "done" || status[8000] != "skipped" {
		t.Fatalf("statuses %v", status)
	}
	if ix.SLO == nil || len(ix.SLO.Curves) != 1 {
		t.Fatalf("slo %+v", ix.SLO)
	}
	c := ix.SLO.Curves[0]
	// 2 ms per operation on one thread is at most 500 ops/s: at 2000
	// ops/s the queue grows by 3 operations every 2 ms, and the p99
	// response time is seconds by the end of the 2 s run however busy the
	// machine is; at 100 ops/s the store idles 80% of the time, and
	// only a stall of a whole second would break the bound (200 ms broke
	// on a machine with both cores busy under the race detector).
	if c.BrokeAt != 2000 || c.Best == nil || c.Best.Step != 100 || c.Best.Throughput <= 0 || c.Best.LatencyUs > 1000000 ||
		len(c.Steps) != 3 || c.Peak == nil || c.Peak.Throughput < c.Best.Throughput {
		t.Errorf("curve %+v", c)
	}
	if !strings.Contains(e, "skipped, beyond the SLO") {
		t.Errorf("no skip reported: %s", e)
	}
}

// A server target with several record counts gets one table per data set
// (table_r<records>), so loading the larger one does not collide with the
// smaller; a plan that names its table and gives several record counts is
// refused before anything runs (the second load met the first's keys).
func TestBenchTablePerDataSet(t *testing.T) {
	t.Parallel()
	pf := writePlan(t, "deployments: [{label: b, binding: basic}]\nworkloads: [c]\nrecords: [100, 200]\nthreads: [1]\noperations: 10\nproperties:\n  table: mine\n")
	if code, _, e := servbench(t, "bench", pf, "-o", filepath.Join(t.TempDir(), "out")); code != ExitUsage || !strings.Contains(e, "the plan names its table (mine) and 2 record counts") {
		t.Errorf("a named table of two data sets: exit %d: %s", code, e)
	}
	for _, tc := range []struct{ extra, want string }{
		{"", "usertable_r100 usertable_r200"},
	} {
		pf := writePlan(t, "deployments: [{label: b, binding: basic}]\nworkloads: [c]\nrecords: [100, 200]\nthreads: [1]\noperations: 10\n"+tc.extra)
		dir := filepath.Join(t.TempDir(), "out")
		if code, _, e := servbench(t, "bench", pf, "-o", dir); code != ExitOK {
			t.Fatalf("exit %d: %s", code, e)
		}
		var got []string
		for _, id := range []string{"r100", "r200"} {
			var d struct {
				Properties map[string]string `json:"properties"`
			}
			raw, _ := os.ReadFile(filepath.Join(dir, "runs/b/c", id+"-t1-qmax-1.json"))
			json.Unmarshal(raw, &d)
			got = append(got, d.Properties["table"])
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("tables %v, want %s", got, tc.want)
		}
	}
}

// Every plan shipped in plans/ is valid: each of its runs and loads passes
// the phases' own checks (nothing connects to a server).
func TestShippedPlans(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../plans/*.yaml")
	if len(files) < 5 {
		t.Fatalf("%d plans in plans/", len(files))
	}
	for _, f := range files {
		code, out, e := servbench(t, "bench", f, "--dry-run")
		if code != ExitOK || !strings.Contains(out, " runs, ") {
			t.Errorf("%s: exit %d: %s", f, code, e)
		}
	}
}

// Credentials in a plan reach no file of its directory nor the report: a
// keyword/value connection string, a URL whose user name holds '#', a
// password key in flow style.
func TestBenchKeepsNoSecret(t *testing.T) {
	t.Parallel()
	pf := writePlan(t, `name: secrets
deployments:
  - label: b
    binding: basic
    properties:
      postgres.url: "host=127.0.0.1 user=postgres password=hunter2 dbname=ycsb"
      redis.url: redis://bo#b:hunter3@127.0.0.1:6379
  - {label: c, binding: basic, properties: {couchbase.password: hunter4}}
workloads: [c]
records: [100]
threads: [1]
operations: 100
`)
	dir := filepath.Join(t.TempDir(), "out")
	if code, _, e := servbench(t, "bench", pf, "-o", dir); code != 0 {
		t.Fatalf("bench: exit %d: %s", code, e)
	}
	html := filepath.Join(t.TempDir(), "r.html")
	if code, _, e := servbench(t, "report", dir, "-o", html); code != 0 {
		t.Fatalf("report: exit %d: %s", code, e)
	}
	files := 0
	for _, root := range []string{dir, html} {
		filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files++
			for _, s := range []string{"hunter2", "hunter3", "hunter4"} {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("%s holds %s", path, s)
				}
			}
			return nil
		})
	}
	if files < 6 {
		t.Errorf("only %d files looked at", files)
	}
	// The plan is the same plan, secrets hidden: rerunning into DIR works.
	if code, _, e := servbench(t, "bench", pf, "-o", dir); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, e)
	}
}

// A plan's clients dimension: each cell once on one client and once spread
// over 2 (local processes of this binary), the spread runs named by their
// clients, merged from both clients' results (kept beside), every
// operation counted once; the report keeps them apart as their own
// deployment; pebble cannot be spread.
func TestBenchClients(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	dir := filepath.Join(t.TempDir(), "out")
	pf := writePlan(t, `name: c
deployments:
  - {label: basic, binding: basic, load_rate: 20000}
workloads: [c]
records: [1000]
threads: [2]
clients: [1, 2]
rates: [5000]
duration: 1
slo: {latency: p99, bound_ms: 60000}
`)
	var errb bytes.Buffer
	if code := MainContext(context.Background(), []string{"bench", "-o", dir, pf}, &bytes.Buffer{}, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	ix := readIndex(t, dir)
	if len(ix.Runs) != 2 || ix.Runs[0].ID != "basic/c/r1000-t2-q5000-1" || ix.Runs[1].ID != "basic/c/r1000-t2-c2-q5000-1" || ix.Runs[1].Clients != 2 {
		t.Fatalf("index runs %+v", ix.Runs)
	}
	// The load was spread over the plan's two clients, paced to the
	// deployment's load_rate.
	loads, _ := filepath.Glob(filepath.Join(dir, "loads", "*.json"))
	loads = slices.DeleteFunc(loads, func(f string) bool { return strings.Contains(f, ".client-") })
	if len(loads) != 1 {
		t.Fatalf("loads %v", loads)
	}
	if d, err := result.ReadFile(loads[0]); err != nil || d.Clients != 2 || d.Operations != 1000 || d.Rate != 20000 {
		t.Errorf("load %s: %v, %d clients, %d operations, rate %v", loads[0], err, d.Clients, d.Operations, d.Rate)
	}
	for i, c := range ix.Runs {
		d, err := result.ReadFile(filepath.Join(dir, c.Result))
		if err != nil || c.Status != "done" || d.Operations == 0 || d.Threads != 2 || d.Label != "basic" {
			t.Errorf("%s: %s, %v: %d operations, %d threads, label %q", c.ID, c.Status, err, d.Operations, d.Threads, d.Label)
			continue
		}
		if (i == 1) != (d.Clients == 2) {
			t.Errorf("%s: %d clients merged", c.ID, d.Clients)
		}
		if i == 1 {
			var sum int64
			for k := range 2 {
				cd, err := result.ReadFile(filepath.Join(dir, "runs", fmt.Sprintf("basic/c/r1000-t2-c2-q5000-1.client-%d.json", k)))
				if err != nil {
					t.Fatalf("client %d's result: %v", k, err)
				}
				sum += cd.Operations
			}
			if sum != d.Operations {
				t.Errorf("merged %d operations, the clients did %d", d.Operations, sum)
			}
		}
	}
	set, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var deps []string
	for _, g := range set.Groups {
		deps = append(deps, g.Deployment)
	}
	if strings.Join(deps, ", ") != "basic, basic (2 clients)" {
		t.Errorf("report cells %v", deps)
	}
	// Each client count is its own SLO curve, found again by the report.
	if c := ix.SLO.Curves; len(c) != 2 || c[1].Clients != 2 || c[1].Best == nil || !strings.HasSuffix(c[1].Series, "/c2") {
		t.Errorf("SLO curves %+v", c)
	}
	var slo *report.Table
	for _, sec := range set.Sections() {
		for _, tb := range sec.Tables {
			if tb.Name == "slo" {
				slo = tb
			}
		}
	}
	if slo == nil || len(slo.Rows) != 2 || slo.Rows[1][0] != "basic (2 clients)" || slo.Rows[1][4] != "2" {
		t.Errorf("SLO table %v", slo)
	}
	bad := writePlan(t, "name: p\ndeployments: [{label: p, binding: pebble}]\nworkloads: [c]\nrecords: [100]\nthreads: [2]\nclients: [2]\noperations: 10\n")
	errb.Reset()
	if code := MainContext(context.Background(), []string{"bench", "-o", t.TempDir(), bad}, &bytes.Buffer{}, &errb); code != ExitUsage || !strings.Contains(errb.String(), "pebble is embedded") {
		t.Errorf("pebble on 2 clients: exit %d: %s", code, errb.String())
	}
}

// A step with fewer threads than the plan's clients runs on as many
// clients as it has threads, and says so: the 2014 study's low steps on 32
// client machines.
func TestBenchFewerThreadsThanClients(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	dir := filepath.Join(t.TempDir(), "out")
	pf := writePlan(t, "name: few\ndeployments: [{label: basic, binding: basic}]\nworkloads: [c]\nrecords: [300]\nthreads: [1, 2]\nclients: [3]\nrates: [600]\noperations: 300\n")
	var errb bytes.Buffer
	if code := MainContext(context.Background(), []string{"bench", "-o", dir, pf}, &bytes.Buffer{}, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{"r300-t1-c3-q600-1: 1 thread on 1 client, not 3: each client needs a thread", "r300-t2-c3-q600-1: 2 threads on 2 clients, not 3"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("the plan does not say %q: %s", want, errb.String())
		}
	}
	ix := readIndex(t, dir)
	for i, c := range ix.Runs {
		d, err := result.ReadFile(filepath.Join(dir, c.Result))
		if err != nil {
			t.Fatalf("%s: %v", c.ID, err)
		}
		want := []int{0, 2}[i] // 1 client: not spread
		if c.Status != "done" || c.Clients != want || d.Clients != want || d.Operations != 300 || d.Threads != c.Threads {
			t.Errorf("%s: %s, %d clients in the index, %d merged, %d operations, %d threads", c.ID, c.Status, c.Clients, d.Clients, d.Operations, d.Threads)
		}
	}
}

// A plan's reference file is checked by --dry-run as by a run, and a
// malformed one (an unterminated quote) is refused in one line naming the
// file and line, by bench and by report of a directory holding it; none
// panics.
func TestBadReferenceFile(t *testing.T) {
	planFile := writePlan(t, "name: r\nreference: ref.csv\ndeployments: [{label: basic, binding: basic}]\nworkloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\n")
	bad := "system,workload,threads,throughput,latency_ms,latency,source\nX,\"c,1,5,,,s\n"
	refFile := filepath.Join(filepath.Dir(planFile), "ref.csv")
	if err := os.WriteFile(refFile, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	for _, args := range [][]string{{"bench", planFile, "--dry-run"}, {"bench", planFile, "-o", dir}} {
		code, _, stderr := servbench(t, args...)
		if code != ExitUsage || !strings.Contains(stderr, "ref.csv:2: extraneous or missing \" in quoted-field") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s made for a plan refused", dir)
	}
	if err := os.WriteFile(refFile, []byte(bad[:strings.Index(bad, "\n")+1]+"X,c,1,5,,,s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := servbench(t, "bench", planFile, "-o", dir); code != ExitOK {
		t.Fatalf("bench: exit %d: %s", code, stderr)
	}
	if err := os.WriteFile(filepath.Join(dir, plan.ReferenceFile), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := servbench(t, "report", dir, "-o", filepath.Join(t.TempDir(), "r.html"))
	if code == ExitOK || !strings.Contains(stderr, "reference.csv:2: extraneous or missing") || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("report: exit %d, %q", code, stderr)
	}
}

// A deployment's server: settings are recorded in its results and shown
// in the report's deployments table, not among the properties.
func TestBenchServerSettings(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	pf := writePlan(t, `name: s
deployments:
  - {label: basic, binding: basic, server: {storage: Magma, bucket_memory: half of RAM, replicas: 1}}
workloads: [c]
records: [100]
threads: [1]
operations: 100
`)
	var errb bytes.Buffer
	if code := MainContext(context.Background(), []string{"bench", "-o", dir, pf}, &bytes.Buffer{}, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	ix := readIndex(t, dir)
	d, err := result.ReadFile(filepath.Join(dir, ix.Runs[0].Result))
	if err != nil {
		t.Fatal(err)
	}
	if s := d.ServerSettings; s["storage"] != "Magma" || s["bucket_memory"] != "half of RAM" || s["replicas"] != "1" || len(s) != 3 {
		t.Errorf("server settings %v", s)
	}
	if _, ok := d.Properties["server.setting.storage"]; ok {
		t.Error("the settings are among the properties too")
	}
	page := filepath.Join(t.TempDir(), "r.html")
	if code, _, e := servbench(t, "report", dir, "-o", page); code != ExitOK {
		t.Fatalf("report: exit %d: %s", code, e)
	}
	if b, _ := os.ReadFile(page); !strings.Contains(string(b), "bucket_memory: half of RAM; replicas: 1; storage: Magma") {
		t.Error("the report's deployments table lacks the server settings")
	}
}

// A step of fewer threads than the plan's clients runs on as many clients
// as it has threads, and stays on its deployment's curve in the report
// (it was a curve of one point, "basic (2 clients)", beside "basic (4
// clients)").
func TestCappedClientsStayOnTheirCurve(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	dir := filepath.Join(t.TempDir(), "out")
	pf := writePlan(t, "name: c\ndeployments: [{binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [2, 4, 8]\nclients: [4]\noperations: 200\n")
	var errb bytes.Buffer
	if code := MainContext(context.Background(), []string{"bench", "-o", dir, pf}, &bytes.Buffer{}, &errb); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	set, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var deps []string
	for _, g := range set.Groups {
		if !slices.Contains(deps, g.Deployment) {
			deps = append(deps, g.Deployment)
		}
	}
	if len(deps) != 1 || deps[0] != "basic (4 clients)" || len(set.Groups) != 3 {
		t.Errorf("cells %d of deployments %q, want 3 of basic (4 clients)", len(set.Groups), deps)
	}
}

// A spread run's merged result is found done when the plan runs again:
// its operation count is one client's share (1,000 over 3: 333).
func TestBenchSpreadRunFoundDone(t *testing.T) {
	t.Parallel() // the test binary is the clients' servbench (TestMain)
	pf := writePlan(t, "name: s\ndeployments: [{label: b, binding: basic}]\nworkloads: [c]\nrecords: [1000]\nthreads: [4]\nclients: [3]\noperations: 1000\n")
	dir := filepath.Join(t.TempDir(), "out")
	for i, want := range []string{"1 run done now, 0 found done", "0 runs done now, 1 found done"} {
		if code, _, e := servbench(t, "bench", pf, "-o", dir); code != ExitOK || !strings.Contains(e, want) {
			t.Errorf("run %d: exit %d: %s", i+1, code, e)
		}
	}
}

// Ctrl-C while the report's page is built (a thousand runs take a while)
// ends the command at once, exit 130, nothing written.
func TestReportStoppedWhileBuilding(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	pf := writePlan(t, "name: s\ndeployments: [{label: basic, binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [1]\noperations: 100\n")
	if code, _, e := servbench(t, "bench", "-o", dir, pf); code != ExitOK {
		t.Fatalf("bench: exit %d: %s", code, e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	defer func(f func()) { building = f }(building)
	building = func() { cancel(); <-release } // the page takes as long as the command waits
	page := filepath.Join(t.TempDir(), "r.html")
	var errb bytes.Buffer
	code := MainContext(ctx, []string{"report", dir, "-o", page}, &bytes.Buffer{}, &errb)
	if code != ExitInterrupted || !strings.Contains(errb.String(), "report: stopped while building the page of "+dir) {
		t.Errorf("exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(page); err == nil {
		t.Error("a report was written")
	}
}
