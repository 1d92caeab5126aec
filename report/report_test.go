package report_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/xml"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	_ "github.com/servbench/servbench/db/basic" // the plans' bindings
	"github.com/servbench/servbench/db/dbtest"
	_ "github.com/servbench/servbench/db/dynamodb"
	_ "github.com/servbench/servbench/db/pebble"
	"github.com/servbench/servbench/experiment"
	"github.com/servbench/servbench/internal/browsertest"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/report"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workloads"
)

// A plan with every dimension the report draws: two systems at cluster
// sizes 1 and 2 with prices, two workloads, two record counts, two thread
// counts, operations scaled with records, two repetitions, an SLO.
const reportPlan = `name: report-test
deployments:
  - {label: pebble, binding: pebble, nodes: 1, price_per_hour: 0.1}
  - {label: basic, binding: basic, system: basic, nodes: 2, price_per_month: 73}
workloads: [a, c]
records: [500, 1000]
threads: [1, 2]
operations: records
repetitions: 2
slo:
  latency: p99
  bound_ms: 50
`

// shared is the plan's directory, run once per test binary.
var shared struct {
	once sync.Once
	dir  string
	err  string
}

// bench runs the plan in file pf into the directory out, as servbench
// bench does (its lines to stderr).
func bench(ctx context.Context, pf, out string, stderr io.Writer) error {
	pl, err := plan.LoadContext(ctx, pf, func(name string) bool { return slices.Contains(workloads.Names(), name) })
	if err != nil {
		return err
	}
	r := experiment.New(pl, out, stderr)
	if err := r.CheckContext(ctx); err != nil {
		return err
	}
	return r.Run(ctx)
}

// writeReport writes the page of the plan directory dir to html, and its
// charts and tables into export unless it is "", as servbench report does.
func writeReport(dir, html, export string) error {
	set, err := report.Load(dir)
	if err != nil {
		return err
	}
	secs := set.Sections()
	var page bytes.Buffer
	if err := set.HTML(&page, secs); err != nil {
		return err
	}
	if err := os.WriteFile(html, page.Bytes(), 0o644); err != nil {
		return err
	}
	if export != "" {
		_, err = report.Export(export, secs)
	}
	return err
}

// runPlan runs the plan once per test binary (32 runs and 4 loads), and
// gives each test a copy of its directory of its own: a test may change a
// result there.
func runPlan(t *testing.T) string {
	t.Helper()
	shared.once.Do(func() {
		pf := filepath.Join(os.Getenv(report.SharedEnv), "plan.yaml")
		if err := os.WriteFile(pf, []byte(reportPlan), 0o644); err != nil {
			shared.err = err.Error()
			return
		}
		out := filepath.Join(os.Getenv(report.SharedEnv), "out")
		var errb bytes.Buffer
		if err := bench(context.Background(), pf, out, &errb); err != nil {
			shared.err = fmt.Sprintf("bench: %v: %s", err, errb.String())
			return
		}
		shared.dir = out
	})
	if shared.err != "" {
		t.Fatal(shared.err)
	}
	out := filepath.Join(t.TempDir(), "out")
	if err := os.CopyFS(out, os.DirFS(shared.dir)); err != nil {
		t.Fatal(err)
	}
	return out
}

func TestReportViewsAndExports(t *testing.T) {
	out := runPlan(t)
	set, err := report.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Runs) != 32 || len(set.Groups) != 16 {
		t.Fatalf("%d runs in %d groups, want 32 in 16", len(set.Runs), len(set.Groups))
	}
	// A group's throughput is the mean of its repetitions.
	g := set.Groups[0]
	if want := (g.Runs[0].Doc.Throughput + g.Runs[1].Doc.Throughput) / 2; g.Throughput.N != 2 || g.Throughput.Mean != want || g.Throughput.CI <= 0 {
		t.Errorf("group throughput %+v, want mean %v", g.Throughput, want)
	}
	secs := set.Sections()
	var ids []string
	for _, s := range secs {
		ids = append(ids, s.ID)
	}
	if got := strings.Join(ids, " "); got != "findings summary quality load clusters server cost threads runtime runs environment" {
		t.Fatalf("sections %s", got)
	}
	// The server side: the embedded store's own metrics, per cell.
	sampled := 0
	for _, g := range set.Groups {
		if g.Binding == "pebble" {
			sampled++
		}
	}
	if sv := secs[5]; sampled == 0 || len(sv.Tables) != 2 || len(sv.Tables[0].Rows) != sampled || !strings.Contains(sv.Tables[1].CSV(), ",pebble,wal_bytes,,B/s,") {
		t.Errorf("server section: %d tables, %d rows for %d cells", len(sv.Tables), len(sv.Tables[0].Rows), sampled)
	}
	// The findings lead: per workload and record count, the deployments
	// ranked at their best step, with intervals, and whether the leader is
	// told apart; then the cells too noisy to rank, if any.
	fs := secs[0]
	if len(fs.Points) < 4 || !strings.HasPrefix(fs.Points[0], "Workload A, 500 records: ") || !strings.Contains(fs.Points[0], " ± ") ||
		!(strings.Contains(fs.Points[0], " leads ") || strings.Contains(fs.Points[0], "not distinguishable")) || len(fs.Figures) != 4 {
		t.Errorf("findings %q, %d figures", fs.Points, len(fs.Figures))
	}
	if got, want := secs[1].Intro, "16 cells × 2 repetitions in the plan: 32 runs, 32 done."; got != want {
		t.Errorf("summary says %q, want %q", got, want)
	}
	tables := map[string]*report.Table{}
	for _, s := range secs {
		for _, tb := range s.Tables {
			if tables[tb.Name] != nil {
				t.Errorf("two tables named %s", tb.Name)
			}
			tables[tb.Name] = tb
		}
	}
	for _, name := range []string{"summary", "quality", "failed", "cost", "slo", "curves", "runtime-pebble-t1", "runtime-totals", "scale-up", "environment", "deployments", "properties"} {
		if tables[name] == nil || len(tables[name].Rows) == 0 {
			t.Errorf("no table %s, or it is empty", name)
		}
	}
	// Operations scale with records: 500 → 1000 records expects 2×.
	sc := tables["scale-up"]
	if !strings.Contains(sc.Header[2], "500→1000 records") || !strings.HasSuffix(sc.Rows[0][2], "(2.00×)") {
		t.Errorf("scale-up %v / %v", sc.Header, sc.Rows[0])
	}
	if len(tables["slo"].Rows) != 8 {
		t.Errorf("%d SLO curves, want 8", len(tables["slo"].Rows))
	}

	// Exports: every chart an SVG file, every table CSV and Markdown.
	x := filepath.Join(t.TempDir(), "x")
	html := filepath.Join(t.TempDir(), "report.html")
	if err := writeReport(out, html, x); err != nil {
		t.Fatalf("report: %v", err)
	}
	f, err := os.Open(filepath.Join(x, "summary.csv"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 17 || rows[0][0] != "deployment" {
		t.Errorf("summary.csv: %d rows, %v", len(rows), err)
	}
	md, _ := os.ReadFile(filepath.Join(x, "cost.md"))
	if !bytes.Contains(md, []byte("| --- |")) || bytes.Count(md, []byte("\n| pebble")) != 8 {
		t.Errorf("cost.md:\n%s", md)
	}
	svgs, _ := filepath.Glob(filepath.Join(x, "*.svg"))
	if len(svgs) < 100 {
		t.Errorf("%d SVG files", len(svgs))
	}
	for _, p := range svgs {
		b, _ := os.ReadFile(p)
		if err := xml.Unmarshal(b, new(struct{})); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	page, _ := os.ReadFile(html)
	for _, bad := range []string{"<script", "<link", "src=", "@import", "url("} {
		if bytes.Contains(page, []byte(bad)) {
			t.Errorf("the page holds %q: it must load nothing", bad)
		}
	}
}

// The page in a real browser: it loads with no error and no request, every
// chart is drawn with as many marks as it says it has data points, every
// table has rows.
func TestReportInBrowser(t *testing.T) {
	ctx := context.Background()
	b := browsertest.Start(t, ctx)
	out := runPlan(t)
	html := filepath.Join(t.TempDir(), "report.html")
	if err := writeReport(out, html, ""); err != nil {
		t.Fatalf("report: %v", err)
	}
	b.Page(t)
	if errs := b.Open(t, "file://"+html); len(errs) > 0 {
		t.Errorf("the page reported errors:\n%s", strings.Join(errs, "\n"))
	}
	var resources int
	b.Eval(t, `performance.getEntriesByType("resource").length`, &resources)
	if resources != 0 {
		t.Errorf("the page requested %d resources", resources)
	}
	type chart struct {
		Title  string  `json:"title"`
		Points int     `json:"points"`
		Marks  int     `json:"marks"`
		Width  float64 `json:"width"`
		Height float64 `json:"height"`
	}
	var charts []chart
	b.Eval(t, `(() => {
		document.querySelectorAll("details").forEach(d => d.open = true);
		return [...document.querySelectorAll("svg.chart")].map(s => {
			const r = s.getBoundingClientRect();
			return {title: s.getAttribute("aria-label"), points: +s.dataset.points,
				marks: s.querySelectorAll(".mark").length, width: r.width, height: r.height};
		});
	})()`, &charts)
	if len(charts) < 100 {
		t.Errorf("%d charts drawn", len(charts))
	}
	for _, c := range charts {
		if c.Points == 0 || c.Marks != c.Points || c.Width < 200 || c.Height < 100 {
			t.Errorf("chart %q: %d points, %d marks, %.0f×%.0f px", c.Title, c.Points, c.Marks, c.Width, c.Height)
		}
	}
	var emptyTables int
	b.Eval(t, `[...document.querySelectorAll("table")].filter(t => t.tBodies[0].rows.length === 0).length`, &emptyTables)
	if emptyTables != 0 {
		t.Errorf("%d empty tables", emptyTables)
	}
	img, err := png.Decode(bytes.NewReader(b.Screenshot(t)))
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() < 600 || r.Dy() < 2000 {
		t.Errorf("screenshot %v: the page is not laid out", r)
	}
	// At a wide and a narrow screen: nothing runs off the right edge (a
	// wide table scrolls in its own box), and in every chart no two
	// labels overlap and none leaves the chart, measured from the laid-out
	// page. A screenshot of each is kept when SERVBENCH_SCREENSHOTS names a
	// directory.
	for _, w := range []int{1400, 800} {
		b.Width(t, w)
		var got struct {
			ScrollWidth int      `json:"scrollWidth"`
			Inner       int      `json:"inner"`
			Problems    []string `json:"problems"`
			Texts       int      `json:"texts"`
		}
		b.Eval(t, `(() => {
			const problems = []; let texts = 0;
			for (const svg of document.querySelectorAll("svg.chart")) {
				const box = svg.getBoundingClientRect();
				if (box.width === 0) continue;
				const rs = [...svg.querySelectorAll("text")].map(e => ({e, r: e.getBoundingClientRect()})).filter(x => x.r.width > 0);
				texts += rs.length;
				const name = svg.getAttribute("aria-label");
				for (const a of rs) {
					if (a.r.left < box.left - 1 || a.r.right > box.right + 1 || a.r.top < box.top - 1 || a.r.bottom > box.bottom + 1)
						problems.push(name + ": label '" + a.e.textContent + "' leaves the chart");
				}
				for (let i = 0; i < rs.length; i++) for (let j = i + 1; j < rs.length; j++) {
					const a = rs[i].r, c = rs[j].r;
					const ox = Math.min(a.right, c.right) - Math.max(a.left, c.left), oy = Math.min(a.bottom, c.bottom) - Math.max(a.top, c.top);
					if (ox > 1 && oy > 1) problems.push(name + ": '" + rs[i].e.textContent + "' overlaps '" + rs[j].e.textContent + "'");
				}
			}
			return {scrollWidth: document.documentElement.scrollWidth, inner: window.innerWidth, problems: problems.slice(0, 20), texts};
		})()`, &got)
		if got.ScrollWidth > got.Inner {
			t.Errorf("at %d px the page is %d px wide: it runs off the screen", w, got.ScrollWidth)
		}
		if got.Texts < 1000 || len(got.Problems) > 0 {
			t.Errorf("at %d px, %d labels measured; %d problems:\n%s", w, got.Texts, len(got.Problems), strings.Join(got.Problems, "\n"))
		}
		shot := b.Screenshot(t)
		if dir := os.Getenv("SERVBENCH_SCREENSHOTS"); dir != "" {
			os.WriteFile(filepath.Join(dir, fmt.Sprintf("report-%d.png", w)), shot, 0o644)
		}
		if img, err := png.Decode(bytes.NewReader(shot)); err != nil || img.Bounds().Dx() > w || img.Bounds().Dx() < w-20 { // less a scrollbar
			t.Errorf("screenshot at %d px: %v, %v wide", w, err, img.Bounds())
		}
	}
}

// The load phase: one row per data set, each complete; a load that
// inserted fewer records than asked is said to have failed its cells, in
// the load section and in the findings.
func TestLoadPhase(t *testing.T) {
	out := runPlan(t)
	set, err := report.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Loads) != 4 {
		t.Fatalf("%d loads, want 4 (2 deployments × 2 record counts)", len(set.Loads))
	}
	for _, l := range set.Loads {
		if l.Short() || l.Doc.OKOperations != l.Asked || l.Doc.Throughput <= 0 {
			t.Errorf("load %s: %d of %d inserted, %v inserts/s", l.Name, l.Doc.OKOperations, l.Asked, l.Doc.Throughput)
		}
	}
	// Ask one of them for more records than it inserted.
	f := filepath.Join(out, "loads", set.Loads[0].Name+".json")
	d, err := result.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	d.Properties["recordcount"] = "5000"
	var buf bytes.Buffer
	result.WriteJSON(&buf, d)
	os.WriteFile(f, buf.Bytes(), 0o644)
	if set, err = report.Load(out); err != nil {
		t.Fatal(err)
	}
	var load, findings string
	for _, sec := range set.Sections() {
		switch sec.ID {
		case "load":
			load = sec.Tables[0].CSV() + strings.Join(sec.Points, "\n")
		case "findings":
			findings = strings.Join(sec.Points, "\n")
		}
	}
	want := fmt.Sprintf("(%s) inserted 1,000 of the 5,000 records asked", set.Loads[0].Name)
	if d.OKOperations != 1000 || !strings.Contains(load, want) || !strings.Contains(load, "short: ") || !strings.Contains(findings, "of the 5,000 records asked: the cells on it measured a smaller data set") {
		t.Errorf("a short load: load section\n%s\nfindings\n%s", load, findings)
	}
}

// With workload E among others run to a fixed operation count, the runtime
// view adds Carvalho et al.'s totals: E alone and every workload but E,
// which add up to the total.
func TestRuntimeTotalsWithoutE(t *testing.T) {
	set := benchPlan(t, "deployments: [{binding: basic}]\nworkloads: [a, c, e]\nrecords: [100]\nthreads: [1]\noperations: records\nproperties: {basicdb.simulatedelay: 1}\n")
	tables := map[string]*report.Table{}
	for _, sec := range set.Sections() {
		for _, tb := range sec.Tables {
			tables[tb.Name] = tb
		}
	}
	value := func(name string) float64 {
		tb := tables[name]
		if tb == nil || len(tb.Rows) != 1 {
			t.Fatalf("table %s: %+v", name, tb)
		}
		v, _ := strconv.ParseFloat(tb.Rows[0][2], 64)
		return v
	}
	all, e, notE := value("runtime-totals"), value("runtime-totals-e"), value("runtime-totals-not-e")
	var wantE float64
	for _, g := range set.Groups {
		if g.Workload == "e" {
			wantE = g.Runtime.Mean
		}
	}
	if e != round2(wantE) || math.Abs(e+notE-all) > 0.011 || notE <= 0 || e <= 0 { // each shown to 0.01 s
		t.Errorf("totals: all %v, E %v (its cell %v), not E %v", all, e, wantE, notE)
	}
	// The grand totals (Carvalho et al.'s Tables 8-10) over every record
	// and thread count: here one of each, so the same sums, in seconds
	// and minutes; and a log-scale chart of each (Figures 6-8).
	gt := tables["runtime-grand-totals"]
	if gt == nil || len(gt.Rows) != 1 || len(gt.Rows[0]) != 4 || !strings.HasPrefix(gt.Rows[0][2], strconv.FormatFloat(e, 'f', 2, 64)+" (") {
		t.Errorf("grand totals %+v", gt)
	}
	figs := map[string]bool{}
	for _, sec := range set.Sections() {
		for _, f := range sec.Figures {
			figs[f.Name] = true
		}
	}
	if !figs["runtime-total"] || !figs["runtime-total-e"] || !figs["runtime-total-not-e"] {
		t.Errorf("figures %v", figs)
	}
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// benchPlan runs a plan's text in a directory of its own and loads it.
func benchPlan(t *testing.T, text string) *report.Set {
	t.Helper()
	dir := t.TempDir()
	pf := filepath.Join(dir, "plan.yaml")
	os.WriteFile(pf, []byte(text), 0o644)
	out := filepath.Join(dir, "out")
	var errb bytes.Buffer
	if err := bench(context.Background(), pf, out, &errb); err != nil {
		t.Fatalf("bench: %v: %s", err, errb.String())
	}
	set, err := report.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// Usage prices add their terms to the cost per billion operations:
// storage by the GB-hour of the data loaded (1,000 records of 10 fields of
// 100 bytes: about 1.1 MB), over the hours a billion operations take;
// terms whose quantity was not measured (transfer and request units of an
// embedded store) are said and left at 0.
func TestCostTerms(t *testing.T) {
	set := benchPlan(t, `deployments:
  - {binding: pebble, price_per_hour: 1, usage_prices: {storage_gb_hour: 100, transfer_gb: 0.01, read_request_units_million: 0.25}}
workloads: [c]
records: [1000]
threads: [1]
operations: 20000
`)
	g := set.Groups[0]
	c := g.Terms
	hours := 1e9 / g.Throughput.Mean / 3600
	if c == nil || math.Abs(c.StorageGB-1000*(10*100+10*6+23)/1e9) > 1e-9 || math.Abs(c.Storage-100*c.StorageGB*hours) > 1e-9*c.Storage ||
		math.Abs(c.Compute-hours) > 1e-9*hours || c.Transfer != 0 || c.Requests != 0 || len(c.Unmeasured) != 2 || g.Cost != c.Compute+c.Storage {
		t.Fatalf("terms %+v, cost %v", c, g.Cost)
	}
	var tables, points string
	for _, sec := range set.Sections() {
		if sec.ID == "cost" {
			for _, tb := range sec.Tables {
				tables += tb.Name + " "
			}
			points = strings.Join(sec.Points, "\n")
		}
	}
	if !strings.Contains(tables, "cost-terms") || !strings.Contains(points, "transfer (the binding counts no bytes of its connections, nor reads its server's) not measured") {
		t.Errorf("cost section: tables %s, points %q", tables, points)
	}
}

// DynamoDB's request units: the units DynamoDB Local reported consumed,
// per operation, by the million at the plan's prices; its transfer: the
// bytes the client's connections sent and received per operation, by the
// GB.
func TestCostTermsDynamoDB(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	set := benchPlan(t, `deployments:
  - binding: dynamodb
    price_per_hour: 0
    usage_prices: {read_request_units_million: 0.25, write_request_units_million: 1.25, transfer_gb: 0.09, read_capacity_unit_hour: 0.00013, write_capacity_unit_hour: 0.00065}
    properties: {dynamodb.endpoint: "`+endpoint+`", table: sbcostterms}
workloads: [a]
records: [200]
threads: [2]
operations: 1000
`)
	g := set.Groups[0]
	c := g.Terms
	var ru, wu, bytes float64
	for _, r := range g.Runs {
		src := r.Doc.ServerSide.Find(result.SourceBinding, "dynamodb")
		ru += src.Get("read_units", "").Total / float64(r.Doc.Operations)
		wu += src.Get("write_units", "").Total / float64(r.Doc.Operations)
		cl := r.Doc.ServerSide.Find(result.SourceClient, "dynamodb")
		bytes += (cl.Get("sent_bytes", "").Total + cl.Get("received_bytes", "").Total) / float64(r.Doc.Operations)
	}
	want := (0.25*ru + 1.25*wu) * 1e3
	// Provisioned: the units per second a billion operations need, held
	// for the hours they take: units per operation × 10⁹ / 3600 unit-hours.
	capacity := (0.00013*ru + 0.00065*wu) * 1e9 / 3600
	// An HTTP request and its answer: some hundreds of bytes each way.
	if c == nil || ru <= 0 || wu <= 0 || math.Abs(c.Requests-want) > 1e-9*want || bytes < 400 || math.Abs(c.Transfer-0.09*bytes) > 1e-9*c.Transfer ||
		math.Abs(c.Capacity-capacity) > 1e-9*capacity || c.TransferFrom != "" || math.Abs(g.Cost-c.Requests-c.Transfer-c.Capacity) > 1e-9*g.Cost || len(c.Unmeasured) != 0 {
		t.Errorf("terms %+v; want requests %v from %v read and %v write units per operation, transfer of %v bytes per operation", c, want, ru, wu, bytes)
	}
}

// A plan's reference figures are set beside the measured cells of their
// system, workload and threads (a range: the best within it), labelled as
// published with their source; one with no cell is said.
func TestReferenceFigures(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pub.csv"), []byte(`system,workload,threads,throughput,latency_ms,latency,source,nodes,records,runtime_s
basic,c,1,1000,0.5,below,a study p. 1,,,
basic,c,2-4,2000,,,a study p. 2,,,
basic,c,99,5,,,a study p. 3,,,
basic,all,1-4,,,,a study p. 4,,,10
basic,c,2,,,,a study p. 5,,100,0.5
basic,all-but-e,1-4,,,,a study p. 6,,999,3
basic,c,1,7,,,a study p. 7,3,,
`), 0o644)
	set := benchPlan(t, "reference: "+filepath.Join(dir, "pub.csv")+"\ndeployments: [{binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [1, 2, 4]\noperations: 2000\n")
	sec := section(set, "reference")
	if sec == nil || len(sec.Tables) != 2 || len(sec.Tables[0].Rows) != 4 || len(sec.Tables[1].Rows) != 3 {
		t.Fatalf("reference section %+v", sec)
	}
	rows := sec.Tables[0].Rows
	best := 0.0
	var at int
	for _, g := range set.Groups {
		if g.Threads >= 2 && g.Throughput.Mean > best {
			best, at = g.Throughput.Mean, g.Threads
		}
	}
	if rows[0][6] != "< 0.5" || rows[0][8] != "basic, 1" || rows[0][13] != "a study p. 1" || rows[0][11] != "0.00" ||
		rows[1][8] != fmt.Sprintf("basic, %d", at) || rows[1][12] != fmt.Sprintf("%.3g", best/2000) ||
		rows[2][8] != "not measured" || rows[3][3] != "3" || rows[3][8] != "not measured" || len(sec.Points) != 1 || !strings.HasPrefix(sec.Points[0], "3 of 7 published figures") {
		t.Errorf("rows %q, points %q", rows, sec.Points)
	}
	// Each published throughput is drawn on its curve by threads too.
	drawn := false
	for _, sec := range set.Sections() {
		for _, f := range sec.Figures {
			drawn = drawn || sec.ID == "threads" && strings.Contains(f.SVG, "published at 1 thread (a study p. 1)")
		}
	}
	if !drawn {
		t.Error("the published figure at 1 thread is not on the throughput-by-threads chart")
	}
	// A published runtime is drawn on its cell's runtime bar.
	drawn = false
	for _, sec := range set.Sections() {
		for _, f := range sec.Figures {
			drawn = drawn || f.Name == "runtime-r100-t2" && strings.Contains(f.SVG, "c, basic: 0.5 published")
		}
	}
	if !drawn {
		t.Error("the published runtime of c at 2 threads is not on its runtime chart")
	}
	// Runtimes: the sum of the cells a figure covers.
	var all, yall, two float64
	for _, g := range set.Groups {
		all += g.Runtime.Mean
		yall += g.YCSBRuntime.Mean
		if g.Threads == 2 {
			two = g.Runtime.Mean
		}
		if g.YCSBRuntime.N == 0 || g.YCSBRuntime.Mean < g.Runtime.Mean {
			t.Errorf("%d threads: YCSB's runtime %+v, ours %+v: it holds ours and more", g.Threads, g.YCSBRuntime, g.Runtime)
		}
	}
	rt := sec.Tables[1].Rows
	if rt[0][1] != "all" || rt[0][6] != fmt.Sprintf("%.2f", all) || rt[0][7] != fmt.Sprintf("%.2f", yall) || rt[0][8] != "3" || rt[0][9] != fmt.Sprintf("%.3g", yall/10) ||
		rt[1][4] != "100" || rt[1][6] != fmt.Sprintf("%.2f", two) || rt[1][8] != "1" ||
		rt[2][1] != "all but E" || rt[2][6] != "not measured" {
		t.Errorf("runtime rows %q (all %v, as YCSB %v, at 2 threads %v)", rt, all, yall, two)
	}
}

// A capacity search's report: every step it tried, in order, each bound
// drawn and answered; and the plan's setup step. The basic binding meets a bound of 50 ms at every
// thread count and none meets 1 ns: one answer at the search's max, one
// with no step down to 1 thread.
func TestReportCapacitySearch(t *testing.T) {
	dir := t.TempDir()
	pf := filepath.Join(dir, "plan.yaml")
	text := `name: capacity
deployments: [{label: basic, binding: basic, setup: [{shell: 'echo "ready, password=x"'}]}]
workloads: [c]
records: [100]
threads: [1, 4]
operations: 200
repetitions: 2
slo: {search: threads, bound_ms: [50, 0.000001]}
`
	if err := os.WriteFile(pf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var errb bytes.Buffer
	if err := bench(context.Background(), pf, out, &errb); err != nil {
		t.Fatalf("bench: %v: %s", err, errb.String())
	}
	for _, want := range []string{"p99 ≤ 0.000001 ms: no step met it, down to 1 thread", "p99 ≤ 50 ms: ", "at 4 threads", "the most the search tries: the capacity is at least this (4 runs)"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("closing lines lack %q:\n%s", want, errb.String())
		}
	}
	set, err := report.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	var sec *report.Section
	for _, s := range set.Sections() {
		if s.ID == "threads" {
			sec = &s
		}
		// The setup step, in the load section, its password hidden.
		if s.ID == "load" && (len(s.Tables) != 2 || s.Tables[1].Name != "setup" || len(s.Tables[1].Rows) != 1 ||
			s.Tables[1].Rows[0][6] != "done: ready, password=REDACTED") {
			t.Errorf("load section's tables: %+v", s.Tables)
		}
	}
	if sec == nil || !strings.Contains(sec.Intro, "A capacity search") || len(sec.Tables) != 2 || len(sec.Figures) != 2 {
		t.Fatalf("threads section %+v", sec)
	}
	slo, curves := sec.Tables[0], sec.Tables[1]
	if len(slo.Rows) != 2 || slo.Rows[0][4] != "0.000001" || slo.Rows[0][5] != "none, down to 1" ||
		slo.Rows[1][5] != "4" || slo.Rows[1][7] == "" || !strings.HasPrefix(slo.Rows[1][7], "2: ") || slo.Rows[1][9] != "at least 4 (the most tried)" || slo.Rows[1][10] != "4" {
		t.Errorf("capacity table %v", slo.Rows)
	}
	var steps []string
	for _, r := range curves.Rows {
		steps = append(steps, r[4])
	}
	if strings.Join(steps, " ") != "1 2 4" {
		t.Errorf("steps %v, want 1 2 4 in order", steps)
	}
	lat := sec.Figures[1].SVG
	if strings.Count(lat, `class="bound"`) != 2 || !strings.Contains(lat, "SLO p99 ≤ 50 ms") {
		t.Errorf("the latency chart draws %d bounds", strings.Count(lat, `class="bound"`))
	}
}

// DIR/plan.yaml is read bounded, as every other input (a larger one, or a
// link to an endless device, is refused in one line); its text is shown
// with its credentials hidden, however it nests its aliases.
func TestPlanCopyBounded(t *testing.T) {
	set := benchPlan(t, "deployments: [{binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [1]\noperations: 100\n")
	kept := filepath.Join(set.Dir, "plan.yaml")
	var b strings.Builder
	b.WriteString("a0: &a0 [hunter1, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	b.WriteString("redis.password: *a9\n")
	if err := os.WriteFile(kept, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	set, err := report.Load(set.Dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range set.Sections() {
		if strings.Contains(s.Pre, "hunter") {
			t.Errorf("section %s shows a credential:\n%s", s.ID, s.Pre)
		}
	}
	f, err := os.Create(kept)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(16<<20 + 1); err != nil { // sparse: no memory, no disk
		t.Fatal(err)
	}
	f.Close()
	if _, err := report.Load(set.Dir); err == nil || !strings.Contains(err.Error(), "plan.yaml: too large") {
		t.Errorf("a plan copy past 16 MiB: %v", err)
	}
}

// Data scaled with the cluster (S2's 20M, 30M and 40M records on 4, 6
// and 8 nodes): a workload's curves by threads share one chart, each
// named with its records.
func TestThreadCurvesOfScaledDataShareAChart(t *testing.T) {
	set := benchPlan(t, "deployments: [{label: b4, binding: basic, system: B, nodes: 4, records: [100]}, {label: b6, binding: basic, system: B, nodes: 6, records: [150]}]\nworkloads: [c]\nthreads: [1, 2]\noperations: 200\n")
	sec := section(set, "threads")
	if sec == nil {
		t.Fatal("no threads section")
	}
	var thr []string
	for _, f := range sec.Figures {
		if strings.HasSuffix(f.Name, "-throughput") {
			thr = append(thr, f.SVG)
		}
	}
	if len(thr) != 1 || !strings.Contains(thr[0], "b4 (100 records)") || !strings.Contains(thr[0], "b6 (150 records)") {
		t.Errorf("%d throughput charts by threads, want one with both deployments' curves", len(thr))
	}
}

// Systems at several cluster sizes: one cost chart per workload, the sizes
// along x and a bar per system (the 2023 study's appendix 6.4).
func TestCostChartPerWorkload(t *testing.T) {
	set := benchPlan(t, "deployments: [{label: a3, binding: basic, system: A, nodes: 3, price_per_hour: 1}, {label: a6, binding: basic, system: A, nodes: 6, price_per_hour: 2}, {label: b3, binding: basic, system: B, nodes: 3, price_per_hour: 1}]\nworkloads: [a, c]\nrecords: [100]\nthreads: [1]\noperations: 200\n")
	sec := section(set, "cost")
	if sec == nil || len(sec.Figures) != 2 {
		t.Fatalf("cost section %+v", sec)
	}
	for i, w := range []string{"A", "C"} {
		svg := sec.Figures[i].SVG
		if !strings.Contains(svg, "Workload "+w+": cost per billion operations") || !strings.Contains(svg, "6 nodes") || !strings.Contains(svg, ">B<") {
			t.Errorf("figure %d: %.300s", i, svg)
		}
	}
}

// A plan's departures from its study are listed in the report.
func TestDeparturesSection(t *testing.T) {
	set := benchPlan(t, "deployments: [{binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [1]\noperations: 100\n"+
		"departures:\n  - {what: the run length, why: the text gives none, seed: \"s:3\"}\n  - {what: the clients, why: one machine here}\n")
	for _, sec := range set.Sections() {
		if sec.ID != "departures" {
			continue
		}
		if rows := sec.Tables[0].Rows; len(rows) != 2 || rows[0][0] != "the run length" || rows[0][1] != "the text gives none" || rows[0][2] != "s:3" || rows[1][2] != "" {
			t.Errorf("rows %q", rows)
		}
		return
	}
	t.Error("no departures section")
}

// A credential a departure's sentence or a plan's comment gives is hidden
// everywhere the plan's text goes: the plan's copy, index.json, setup.json
// and setup.log, the report's departures and its exports; and so are the
// secrets of setup steps' commands and configuration lines, in the steps'
// output too.
func TestDeparturesHideProseCredentials(t *testing.T) {
	set := benchPlan(t, "# Password for the store -> hunter1x\ndeployments:\n  - binding: basic\n    setup:\n      - shell: |\n          # the password is hunter3x\n          echo ok\n"+
		"      - shell: |\n"+
		"          true cbdocloader -c 127.0.0.1 -u Administrator -p hunter5x -b b s.zip; echo hunter5x\n"+
		"          true sstableloader -u cassandra -pw hunter6x -d 127.0.0.1 dir; echo hunter6x\n"+
		"          echo \"sentinel auth-pass mymaster hunter7x\" >/dev/null; echo hunter7x\n"+
		"          printf '[admins]\\nadmin = hunter8x\\n' >/dev/null; echo hunter8x\n"+
		"          true mongosh --eval 'let p = \"hunter9x\"; db.createUser({user: \"u\", pwd: p, roles: []})'; echo hunter9x\n"+
		"          true mysqlsh root:hunter10x@127.0.0.1:3306; echo hunter10x   # pw is hunter11x\n"+
		"          echo hunter11x\n"+
		"workloads: [c]\nrecords: [100]\nthreads: [1]\noperations: 100\n"+
		"departures:\n  - {what: login, why: \"password hunter2x\"}\n  - {what: \"creds admin/hunter4x\", why: the password authentication failed}\n")
	sec := section(set, "departures")
	if sec == nil {
		t.Fatal("no departures section")
	}
	if rows := sec.Tables[0].Rows; len(rows) != 2 || rows[0][1] != "password REDACTED" || rows[1][0] != "creds admin/REDACTED" || rows[1][1] != "the password authentication failed" {
		t.Errorf("rows %q", rows)
	}
	exp := t.TempDir()
	if _, err := report.Export(exp, set.Sections()); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{set.Dir, exp} {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		for _, f := range files {
			if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), "hunter") {
				t.Errorf("%s: a secret in clear: %.400s", f, b)
			}
		}
	}
}

// The scale-up of the totals, as Carvalho et al. compute it: between record
// counts over every workload and thread count (expected: the ratio of
// operations), and between thread counts at each record count.
func TestScaleUpOfTheTotals(t *testing.T) {
	set := benchPlan(t, "deployments: [{binding: basic}]\nworkloads: [a, c]\nrecords: [100, 200]\nthreads: [1, 2]\noperations: records\n")
	for _, sec := range set.Sections() {
		for _, tb := range sec.Tables {
			if tb.Name != "scale-up-totals" {
				continue
			}
			if len(tb.Rows) != 3 || tb.Rows[0][1] != "100 records" || tb.Rows[0][2] != "200 records" || tb.Rows[0][4] != "2.0× (the operations)" ||
				tb.Rows[1][1] != "1 threads, 100 records" || tb.Rows[1][4] != "-50.0% (linear)" || !strings.HasPrefix(tb.Rows[1][3], "runtime ") {
				t.Errorf("rows %q", tb.Rows)
			}
			return
		}
	}
	t.Error("no scale-up-totals table")
}

// section is the set's section of that ID, or nil.
func section(set *report.Set, id string) *report.Section {
	for _, s := range set.Sections() {
		if s.ID == id {
			return &s
		}
	}
	return nil
}

// A published figure too large for 64 bits is shown as it is, in
// exponent form: 1e308 was shown negative.
func TestReferenceFigureBeyondInt64(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "pub.csv"), []byte("system,workload,threads,throughput,latency_ms,latency,source\nbasic,c,1,1e308,,,a study p. 1\n"), 0o644)
	set := benchPlan(t, "reference: "+filepath.Join(dir, "pub.csv")+"\ndeployments: [{binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [1]\noperations: 200\n")
	sec := section(set, "reference")
	if sec == nil || len(sec.Tables) == 0 || len(sec.Tables[0].Rows) != 1 {
		t.Fatalf("reference section %+v", sec)
	}
	row := strings.Join(sec.Tables[0].Rows[0], " | ")
	if strings.Contains(row, "-9,223") || !strings.Contains(row, "1.000e+308") {
		t.Errorf("the published 1e308: %s", row)
	}
}

// Two runs of an index whose results are one file (a link, a hard link)
// or one run (a copy) are refused in one line naming them: the report
// decoded, counted and drew that result once per run naming it (60,000
// ran it out of memory); runs of results of their own read.
func TestReportReadsEachResultOnce(t *testing.T) {
	set := benchPlan(t, "deployments: [{binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [1, 2]\noperations: 100\n")
	ix := set.Index
	if len(ix.Runs) != 2 {
		t.Fatalf("%d runs", len(ix.Runs))
	}
	first, second := filepath.Join(set.Dir, ix.Runs[0].Result), filepath.Join(set.Dir, ix.Runs[1].Result)
	kept, err := os.ReadFile(second)
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	for name, link := range map[string]func() error{
		"a link":      func() error { return os.Symlink(first, second) },
		"a hard link": func() error { return os.Link(first, second) },
		"a copy":      func() error { return os.WriteFile(second, text, 0o644) },
	} {
		os.Remove(second)
		if err := link(); err != nil {
			t.Fatal(err)
		}
		_, err := report.Load(set.Dir)
		want := "name one result file"
		if name == "a copy" {
			want = "a result copied"
		}
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), ix.Runs[0].ID) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q naming run %s", name, err, want, ix.Runs[0].ID)
		}
	}
	os.Remove(second)
	if err := os.WriteFile(second, kept, 0o644); err != nil {
		t.Fatal(err)
	}
	if s, err := report.Load(set.Dir); err != nil || len(s.Runs) != 2 {
		t.Errorf("the runs' own results: %v", err)
	}
}
