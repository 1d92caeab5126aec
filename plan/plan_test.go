package plan

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func builtin(n string) bool { return len(n) == 1 || n == "pagination" }

const good = `
name: s3
deployments:
  - label: mongo
    binding: mongodb
    nodes: 3
    price_per_month: 730
    properties:
      mongodb.url: mongodb://127.0.0.1:27017/
  - binding: pebble
workloads: [a, c]
records: [1000, 10000]
threads: [1, 3, 6]
rates: [0, 500]
duration: 30
repetitions: 3
properties:
  fieldcount: 20
`

func TestParseAndRuns(t *testing.T) {
	p, err := Parse([]byte(good), "s3.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "s3" || len(p.Deployments) != 2 || p.Deployments[1].Label != "pebble" || p.Deployments[0].PriceHour != 1 ||
		p.Deployments[0].Nodes != 3 || p.LoadThreads != 6 || p.Properties[0].Key != "fieldcount" || p.Deployments[0].Line != 4 {
		t.Errorf("plan %+v", p)
	}
	cells := p.Runs()
	if len(cells) != 2*2*2*3*2*3 {
		t.Fatalf("%d cells", len(cells))
	}
	// Grouped by target and record count: each data set's cells are together.
	seen := map[string]bool{}
	last := ""
	for _, c := range cells {
		key := c.Deployment.Label + "/" + strconv.FormatInt(c.Records, 10)
		if key != last && seen[key] {
			t.Fatalf("cells of %s are not together", key)
		}
		seen[key], last = true, key
	}
	ids := map[string]bool{}
	for _, c := range cells {
		ids[c.ID()] = true
	}
	if len(ids) != len(cells) || cells[0].ID() != "mongo/a/r1000-t1-qmax-1" {
		t.Errorf("ids not unique or unexpected: %s", cells[0].ID())
	}
}

// clients is a dimension like threads: each cell once per client count,
// named by it when above 1 (a plan of one client keeps its run names), and
// its own SLO series.
func TestClientsDimension(t *testing.T) {
	p, err := Parse([]byte(good+"clients: [1, 4]\n"), "s3.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	cells := p.Runs()
	if len(cells) != 2*2*2*3*2*2*3 {
		t.Fatalf("%d cells", len(cells))
	}
	if cells[0].Clients != 1 || cells[0].ID() != "mongo/a/r1000-t1-qmax-1" || cells[6].Clients != 4 || cells[6].ID() != "mongo/a/r1000-t1-c4-qmax-1" {
		t.Errorf("cells %s (%d clients), %s (%d clients)", cells[0].ID(), cells[0].Clients, cells[6].ID(), cells[6].Clients)
	}
	slo := &SLO{Step: "threads"}
	if a, b := slo.Series(&cells[0]), slo.Series(&cells[6]); a == b || !strings.HasSuffix(b, "/c4") {
		t.Errorf("SLO series %q and %q", a, b)
	}
}

func TestErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct {
		edit func(string) string
		want string
	}{
		{func(s string) string { return s + "colour: red\n" }, `s3.yaml:19: unknown key "colour"`},
		{func(s string) string { return s + "departures:\n  - {what: the runs}\n" }, "s3.yaml:20: a departure says what and why"},
		{func(s string) string { return s + "departures: [{what: x, why: y, colour: z}]\n" }, `s3.yaml:19: departure: unknown key "colour"`},
		{func(s string) string { return s + "departures: none\n" }, "s3.yaml:19: departures: want a list"},
		{func(s string) string { return strings.Replace(s, "nodes: 3", "nodes: three", 1) }, "s3.yaml:6:"},
		{func(s string) string { return strings.Replace(s, "[1, 3, 6]", "[1, -3]", 1) }, `s3.yaml:13: "-3" is not a positive thread count`},
		{func(s string) string { return strings.Replace(s, "[a, c]", "[a, nosuchfile]", 1) }, `s3.yaml:11: workload "nosuchfile"`},
		{func(s string) string {
			return strings.Replace(s, "  - binding: pebble\n", "  - binding: pebble\n    colour: red\n", 1)
		}, `s3.yaml:11: deployment: unknown key "colour"`},
		{func(s string) string { return strings.Replace(s, "    binding: mongodb\n", "", 1) }, "s3.yaml:4: deployment without a binding"},
		{func(s string) string { return strings.Replace(s, "duration: 30\n", "", 1) }, "give duration"},
		{func(s string) string { return strings.Replace(s, "repetitions: 3", "repetitions: 0", 1) }, "s3.yaml:16: repetitions must be at least 1"},
		{func(s string) string { return s + "clients: [1, 0]\n" }, `s3.yaml:19: "0" is not a client count from 1 to 10,000`},
		{func(s string) string {
			return strings.Replace(s, "- binding: pebble", "- binding: pebble\n    label: mongo", 1)
		}, `two deployments are labelled "mongo"`},
		{func(s string) string { return "deployments: [\n" }, "s3.yaml:"},
		{func(s string) string { return strings.Replace(s, "[a, c]", "[a, c, a]", 1) }, `s3.yaml:11: workloads "a" (line 11) and "a" would share run names`},
		{func(s string) string { return s + "targets: [{binding: basic}]\n" }, "s3.yaml:19: give deployments or targets (their old name), not both"},
		// Numbers are finite, whole where a count is wanted, and bounded.
		{func(s string) string { return strings.Replace(s, "duration: 30", "duration: .nan", 1) }, `s3.yaml:15: ".nan" is not duration seconds`},
		{func(s string) string { return strings.Replace(s, "duration: 30", "duration: .inf", 1) }, `s3.yaml:15: ".inf" is not duration seconds`},
		{func(s string) string { return strings.Replace(s, "price_per_month: 730", "price_per_month: .nan", 1) }, `s3.yaml:7: ".nan" is not a price`},
		{func(s string) string { return strings.Replace(s, "[1, 3, 6]", "[1.5]", 1) }, `s3.yaml:13: "1.5" is not a positive thread count`},
		{func(s string) string { return strings.Replace(s, "rates: [0, 500]", "rates: [-.inf]", 1) }, `s3.yaml:14: "-.inf" is not`},
		{func(s string) string { return strings.Replace(s, "repetitions: 3", "repetitions: 1000000000", 1) }, "the plan expands to 48000000000 runs: at most 100000"},
		{func(s string) string {
			return strings.Replace(s, "[1, 3, 6]", "["+strings.Repeat("1, ", 300000)+"1]", 1)
		}, "s3.yaml:13: 300001 values: at most 1000"},
		{func(s string) string { return s + "slo: {latency: p99, bound_ms: .nan}\n" }, `".nan" is not a bound`},
		{func(s string) string { return s + "slo: {latency: p99, bound_ms: 5, max_failed_percent: 500}\n" }, `"500" is not a percentage from 0 to 100`},
		{func(s string) string { return s + strings.Repeat("x", 1000) + ": 1\n" }, `unknown key "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…"`},
		{func(s string) string { return s + "\x01\x02key: 1\n" }, `control characters are not allowed`},
		{func(string) string { return "" }, "s3.yaml: the plan is empty"},
		{func(s string) string { return strings.Replace(s, "name: s3", `name: "red \e[31m"`, 1) }, `s3.yaml:2: name: want at most 100 characters and no control characters`},
		{func(s string) string { return strings.Replace(s, "name: s3", "name: "+strings.Repeat("n", 1000), 1) }, `name: want at most 100 characters`},
		// Two runs never share one result; a run's keys come from one place.
		{func(s string) string { return s + "clients: [1, 1]\n" }, `s3.yaml:19: 1 is given twice`},
		{func(s string) string { return strings.Replace(s, "[1000, 10000]", "[100, 100]", 1) }, `s3.yaml:12: 100 is given twice`},
		{func(s string) string { return strings.Replace(s, "rates: [0, 500]", "rates: [500, 5e2]", 1) }, `s3.yaml:14: 5e2 is given twice`},
		{func(s string) string { return strings.Replace(s, "duration: 30", "duration: 1e9", 1) }, `s3.yaml:15: duration 1e9 seconds is more than a year`},
		{func(s string) string { return s + "warmup: 1e10\n" }, `warmup 1e10 seconds is more than a year`},
		{func(s string) string { return strings.Replace(s, "duration: 30", "duration: 1e-300", 1) }, `s3.yaml:15: duration 1e-300 seconds is less than a nanosecond`},
		{func(s string) string { return s + "  threadcount: 64\n" }, `property threadcount is the plan's threads:`},
		{func(s string) string {
			return strings.Replace(s, "      mongodb.url: mongodb://127.0.0.1:27017/\n", "      mongodb.url: a\n      mongodb.url: b\n", 1)
		}, `property mongodb.url is given twice (line 9 too)`},
	} {
		_, err := Parse([]byte(tc.edit(good)), "s3.yaml", builtin)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "::") {
			t.Errorf("err = %v, want one line with %q", err, tc.want)
		}
	}
}

func TestCostPerBillion(t *testing.T) {
	// $3.60 an hour at 1,000 ops/s: a billion operations take 10^6 s =
	// 277.8 h, so $1,000.
	if got := CostPerBillion(3.6, 1000); math.Abs(got-1000) > 1e-9 {
		t.Errorf("cost %v", got)
	}
	if CostPerBillion(0, 1000) != 0 || CostPerBillion(1, 0) != 0 {
		t.Error("no price or no throughput must give no cost")
	}
}

// Targets may carry their own record counts (S1 scales the data set with
// the cluster), a system name shared across cluster sizes, and runs may
// do as many operations as records.
func TestDeploymentRecordsAndSystem(t *testing.T) {
	p, err := Parse([]byte(`
targets:
  - {label: cb3, binding: couchbase, system: Couchbase, nodes: 3, records: [1000]}
  - {label: cb6, binding: couchbase, system: Couchbase, nodes: 6, records: [2000]}
  - {label: pb, binding: pebble, records: [10, 20]}
workloads: [a]
threads: [4]
operations: records
`), "s1.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range p.Runs() {
		got = append(got, c.ID()+"="+c.Deployment.System+"="+strconv.FormatInt(p.OperationsOf(c.Records), 10))
	}
	want := "cb3/a/r1000-t4-qmax-1=Couchbase=1000 cb6/a/r2000-t4-qmax-1=Couchbase=2000 pb/a/r10-t4-qmax-1=pebble=10 pb/a/r20-t4-qmax-1=pebble=20"
	if strings.Join(got, " ") != want {
		t.Errorf("cells\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	if _, err := Parse([]byte("targets: [{binding: pebble}]\nworkloads: [a]\nthreads: [1]\noperations: 5\n"), "x.yaml", builtin); err == nil || !strings.Contains(err.Error(), "no records") {
		t.Errorf("a target without records and no plan records: %v", err)
	}
}

// Plans written before 0.2 name their deployments "targets".
func TestOldTargetsKey(t *testing.T) {
	p, err := Parse([]byte(strings.Replace(good, "deployments:", "targets:", 1)), "s3.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Deployments) != 2 || p.Deployments[0].Label != "mongo" {
		t.Errorf("deployments %+v", p.Deployments)
	}
}

// Two workload files of one base name would share their runs' IDs and
// files: the second would be found done and never run.
func TestWorkloadsOfOneName(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"d1", "d2"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, d, "wl"), []byte("recordcount=10\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	text := "deployments: [{binding: basic}]\nworkloads: [d1/wl, d2/wl]\nrecords: [10]\nthreads: [1]\noperations: 5\n"
	_, err := Parse([]byte(text), filepath.Join(dir, "p.yaml"), builtin)
	if err == nil || !strings.Contains(err.Error(), `workloads "d1/wl" (line 2) and "d2/wl" would share run names (wl)`) {
		t.Errorf("err = %v", err)
	}
}

// A deployment's metrics are the Prometheus endpoints its runs scrape: the
// property server.metrics. Anything but a list of http(s) URLs is refused
// on its line, without the password it carries.
func TestDeploymentMetrics(t *testing.T) {
	with := func(m string) string {
		return strings.Replace(good, "    binding: mongodb\n", "    binding: mongodb\n    metrics: "+m+"\n", 1)
	}
	p, err := Parse([]byte(with("[http://db1:9100/metrics, https://db2/m]")), "s3.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, pr := range p.Deployments[0].Properties {
		if pr.Key == "server.metrics" {
			got = pr.Value
		}
	}
	if got != "http://db1:9100/metrics,https://db2/m" {
		t.Errorf("server.metrics %q", got)
	}
	for _, c := range []struct{ m, want string }{
		{"[ftp://bob:s3cret@db1/metrics]", `s3.yaml:6: metrics: "ftp://bob:REDACTED@db1/metrics": want http://HOST:PORT/PATH`},
		{"http://db1:9100/metrics", "s3.yaml:6: metrics: want a list of endpoint URLs"},
		{"[]", "want a list of endpoint URLs"},
		{`["http://a/m,http://b/m"]`, `metrics: "http://a/m,http://b/m": want`},
	} {
		_, err := Parse([]byte(with(c.m)), "s3.yaml", builtin)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("metrics %s: %v, want %q", c.m, err, c.want)
		}
	}
	twice := strings.Replace(with("[http://db1:9100/metrics]"), "      mongodb.url:", "      server.metrics: http://x/m\n      mongodb.url:", 1)
	if _, err := Parse([]byte(twice), "s3.yaml", builtin); err == nil || !strings.Contains(err.Error(), "server.metrics is given twice") {
		t.Errorf("metrics and server.metrics both: %v", err)
	}
}

// stages: shape each run's rate (the runner's property stages); without
// a duration the runs last the stages less the warmup. Rates beside them,
// or a stage that cannot be run, are refused on their line.
func TestStages(t *testing.T) {
	base := "deployments: [{binding: basic}]\nworkloads: [a]\nrecords: [100]\nthreads: [4]\nwarmup: 10\n"
	p, err := Parse([]byte(base+"stages:\n  - {duration: 60, rate: 1000}\n  - {duration: 30, rate: 5000}\n  - {duration: 30, rate: 5000, step: true}\n"), "s.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, x := range p.Properties {
		if x.Key == "stages" {
			got = x.Value
		}
	}
	if got != "60:1000,30:5000,30:5000:step" || p.Duration != 110 {
		t.Errorf("stages %q, duration %v: want the property and 120 s less the 10 s warmup", got, p.Duration)
	}
	for _, c := range []struct{ add, want string }{
		{"stages: [{duration: 60}]\n", "s.yaml:6: stages: want {duration: SECONDS, rate: OPS/S}"},
		{"stages: [{duration: -1, rate: 5}]\n", "s.yaml:6: stages: want"},
		{"stages: 60:1000\n", "s.yaml:6: stages: want a list"},
		{"stages: [{duration: 60, rate: 5}]\nrates: [100]\n", "give rates or stages, not both"},
		{"stages: [{duration: 60, rate: 5}]\nproperties: {stages: \"10:5\"}\n", "give stages or properties' stages, not both"},
	} {
		if _, err := Parse([]byte(base+c.add), "s.yaml", builtin); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.add, err, c.want)
		}
	}
}

// usage_prices: the known terms, prices ≥ 0; anything else on its line.
func TestUsagePrices(t *testing.T) {
	base := "workloads: [a]\nrecords: [100]\nthreads: [4]\nduration: 10\ndeployments:\n  - binding: mongodb\n"
	p, err := Parse([]byte(base+"    usage_prices: {storage_gb_hour: 0.000182, transfer_gb: 0.01}\n"), "s.yaml", builtin)
	if err != nil {
		t.Fatal(err)
	}
	if u := p.Deployments[0].Usage; u["storage_gb_hour"] != 0.000182 || u["transfer_gb"] != 0.01 || len(u) != 2 {
		t.Errorf("usage %v", u)
	}
	for _, c := range []struct{ add, want string }{
		{"    usage_prices: {storage_gb_month: 1}\n", `s.yaml:7: usage_prices: unknown price "storage_gb_month" (known: storage_gb_hour`},
		{"    usage_prices: {transfer_gb: -1}\n", `"-1" is not a price ≥ 0`},
		{"    usage_prices: 5\n", "usage_prices: want a mapping"},
	} {
		if _, err := Parse([]byte(base+c.add), "s.yaml", builtin); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.add, err, c.want)
		}
	}
}

// A plan is one YAML document: a second one (---) would be ignored by the
// runs and shown by the report.
func TestOneDocument(t *testing.T) {
	_, err := Parse([]byte("name: p\ndeployments: [{label: a, binding: basic}]\nworkloads: [a]\n---\nname: q\n"), "p.yaml", nil)
	if err == nil || !strings.Contains(err.Error(), "more than one YAML document") {
		t.Errorf("err = %v", err)
	}
}
