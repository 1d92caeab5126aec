package plan

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A shipped plan states the choices its properties and the code make
// where the study's text is silent, each as a departure: Redis over TLS
// (a rediss:// URL), Couchbase's SQL++ statements run prepared (the
// binding's Adhoc false, on a plan whose workloads scan or query), several
// record counts kept side by side on a MongoDB or CouchDB server (one
// table each), Couchbase's inserts made upserts (couchbase.upsert), and
// Couchbase's updates the binding's default sub-document upsert, where
// YCSB's Couchbase bindings replace the document. s1-kv, s1-pagination,
// s2 and s3 made them unstated.
func TestShippedPlansStateTheirChoices(t *testing.T) {
	src, err := os.ReadFile("../db/couchbase/couchbase.go")
	if err != nil {
		t.Fatal(err)
	}
	prepared := strings.Contains(string(src), "Adhoc: false")
	subdoc := strings.Contains(string(src), `p.OneOf("couchbase.update", "subdoc",`) // the default
	files, err := filepath.Glob("../plans/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 5 {
		t.Fatalf("%d shipped plans", len(files))
	}
	for _, f := range files {
		p, err := shippedPlan(filepath.Base(f))
		if err != nil {
			t.Fatal(err)
		}
		stated := func(words ...string) bool {
			for _, d := range p.Departures {
				all := true
				for _, w := range words {
					all = all && strings.Contains(strings.ToLower(d.What+" "+d.Why), strings.ToLower(w))
				}
				if all {
					return true
				}
			}
			return false
		}
		updates := false // a workload that updates
		sqlpp := false   // a workload that scans or queries
		for _, w := range p.Workloads {
			eff, err := runProperties(p, w)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range []string{"updateproportion", "readmodifywriteproportion"} {
				if v, _ := eff.Get(k); v != "" {
					if x, err := strconv.ParseFloat(v, 64); err == nil && x > 0 {
						updates = true
					}
				}
			}
			for _, k := range []string{"scanproportion", "query1proportion"} {
				if v, _ := eff.Get(k); v != "" {
					if x, err := strconv.ParseFloat(v, 64); err == nil && x > 0 {
						sqlpp = true
					}
				}
			}
		}
		// A plan of the study's client machines says how to place them:
		// without an orchestrator its clients are processes here.
		if raw, err := os.ReadFile(f); err == nil && slices.ContainsFunc(p.Clients, func(n int) bool { return n > 1 }) &&
			!strings.Contains(string(raw), "orchestrator") {
			t.Errorf("%s: %v clients, and nothing says how to place them on machines (orchestrator)", f, p.Clients)
		}
		// A latency bound counts only steps whose operations answered: a
		// mean lowered by operations that fail fast is no capacity.
		if p.SLO != nil && p.SLO.MaxFailedPct < 0 {
			t.Errorf("%s: its slo counts a step that answers fast by failing as within the bound (no max_failed_percent)", f)
		}
		for i := range p.Deployments {
			d := &p.Deployments[i]
			records := p.Records
			if len(d.Records) > 0 {
				records = d.Records
			}
			switch d.Binding {
			case "redis":
				if strings.HasPrefix(propertyOf(p, d, "redis.url"), "rediss://") && !stated("Redis over TLS", "rediss://") {
					t.Errorf("%s: %s connects over TLS (rediss://), no departure says so", f, d.Label)
				}
			case "couchbase":
				if sqlpp && prepared && propertyOf(p, d, "couchbase.scanmode") != "rangescan" && !stated("prepared", "Adhoc false") {
					t.Errorf("%s: %s runs its SQL++ statements prepared, no departure says so", f, d.Label)
				}
				if mode := propertyOf(p, d, "couchbase.update"); updates && subdoc && (mode == "" || mode == "subdoc") && !stated("sub-document", "updates") {
					t.Errorf("%s: %s updates by sub-document upsert (not YCSB's replacement), no departure says so", f, d.Label)
				}
				if v, _ := strconv.ParseBool(propertyOf(p, d, "couchbase.upsert")); v && !stated("couchbase.upsert", "upsert") {
					t.Errorf("%s: %s inserts by upsert (couchbase.upsert), no departure says so", f, d.Label)
				}
				if (len(records) > 1 || p.SharesServer(d)) && propertyOf(p, d, "table") == "" && !stated("data sets kept side by side", "usertable_r<N>") {
					t.Errorf("%s: %s keeps %d data sets side by side, no departure says so", f, d.Label, len(records))
				}
			case "mongodb", "couchdb", "cassandra":
				if (len(records) > 1 || p.SharesServer(d)) && propertyOf(p, d, "table") == "" && !stated("data sets kept side by side", "usertable_r<N>") {
					t.Errorf("%s: %s keeps %d data sets side by side, no departure says so", f, d.Label, len(records))
				}
			}
		}
	}
}

// An audit does not call Couchbase's sub-document update YCSB's: YCSB's
// Couchbase bindings replace the document (docs/studies/s2.md called the
// one-field sub-document update "YCSB's defaults").
func TestAuditsSubDocumentNotYCSBs(t *testing.T) {
	files, err := filepath.Glob("../docs/studies/*.md")
	if err != nil || len(files) < 3 {
		t.Fatalf("%d audits: %v", len(files), err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, cell := range strings.Split(line, "|") {
				if strings.Contains(cell, "sub-document") && strings.Contains(cell, "YCSB's default") {
					t.Errorf("%s:%d calls the sub-document update YCSB's: %q", f, i+1, cell)
				}
			}
		}
	}
}
