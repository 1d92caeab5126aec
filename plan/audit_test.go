package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The studies' audits (docs/studies/*.md) hold a row per element each
// study's text states: where, what it says, what servbench does, and
// whether that is exact or a departure (and why). Every row that says a
// number and calls it exact carries checks that the shipped plan has it;
// this test runs them, and fails on a row it cannot read.
func TestStudyAudits(t *testing.T) {
	files, err := filepath.Glob("../docs/studies/*.md")
	if err != nil || len(files) < 3 {
		t.Fatalf("audits %v (%v): want one per study", files, err)
	}
	plans := map[string]*Plan{}
	planOf := func(name string) (*Plan, error) {
		if p, ok := plans[name]; ok {
			return p, nil
		}
		p, err := shippedPlan(name)
		if err != nil {
			return nil, err
		}
		plans[name] = p
		return p, nil
	}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rows, checks := 0, 0
		var col map[string]int
		for n, line := range strings.Split(string(raw), "\n") {
			where := fmt.Sprintf("%s:%d", filepath.Base(f), n+1)
			if !strings.HasPrefix(line, "|") {
				col = nil // a table ends at its first other line
				continue
			}
			cells := splitRow(line)
			if col == nil {
				col = map[string]int{}
				for i, c := range cells {
					col[strings.ToLower(c)] = i
				}
				for _, want := range []string{"element", "seed", "the study says", "servbench", "verdict", "check"} {
					if _, ok := col[want]; !ok {
						t.Fatalf("%s: the table's header lacks %q: %q", where, want, cells)
					}
				}
				continue
			}
			if strings.Trim(strings.Join(cells, ""), "-: ") == "" {
				continue // the header's rule
			}
			if len(cells) != len(col) {
				t.Errorf("%s: %d cells, the header has %d", where, len(cells), len(col))
				continue
			}
			rows++
			get := func(name string) string { return cells[col[name]] }
			verdict := strings.ToLower(get("verdict"))
			exact := strings.HasPrefix(verdict, "exact")
			switch {
			case exact:
			case strings.HasPrefix(verdict, "departure") || strings.HasPrefix(verdict, "not measured") || strings.HasPrefix(verdict, "not reproducible"):
				if _, why, _ := strings.Cut(verdict, ":"); len(strings.TrimSpace(why)) < 8 {
					t.Errorf("%s: %q: a departure says why (departure: why)", where, get("verdict"))
				}
			default:
				t.Errorf("%s: verdict %q: want exact, departure: why, not measured: why, or not reproducible: why", where, get("verdict"))
			}
			if !strings.Contains(get("seed"), ":") {
				t.Errorf("%s: seed %q: want FILE:LINE", where, get("seed"))
			}
			check := strings.Trim(get("check"), "` ")
			if check == "" || check == "—" {
				if exact && strings.ContainsAny(get("the study says"), "0123456789") {
					t.Errorf("%s: an exact row with a number (%q) checks nothing against the plan", where, get("the study says"))
				}
				continue
			}
			planName, exprs, ok := strings.Cut(check, ":")
			if !ok {
				t.Errorf("%s: check %q: want PLAN.yaml: expr; expr", where, check)
				continue
			}
			p, err := planOf(strings.TrimSpace(planName))
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			for _, e := range strings.Split(exprs, ";") {
				if e = strings.TrimSpace(e); e == "" {
					continue
				}
				checks++
				if msg := auditCheck(p, e); msg != "" {
					t.Errorf("%s: %s: %s", where, e, msg)
				}
			}
		}
		if rows < 20 || checks < 10 {
			t.Errorf("%s: %d rows, %d checks: an audit states every element", f, rows, checks)
		}
	}
}

// splitRow splits a markdown table row into its trimmed cells; a | inside
// backquotes is text.
func splitRow(line string) []string {
	var cells []string
	var b strings.Builder
	code := false
	for _, r := range strings.TrimSpace(line)[1:] {
		switch {
		case r == '`':
			code = !code
			b.WriteRune(r)
		case r == '|' && !code:
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteRune(r)
		}
	}
	if s := strings.TrimSpace(b.String()); s != "" {
		cells = append(cells, s)
	}
	return cells
}

// auditCheck evaluates one check against plan p, "" when it holds:
//
//	threads=400[,800]        the plan steps through each
//	clients=10, records=100000[,...], repetitions=3, duration=300,
//	warmup=60, operations=records|N, load_threads=400
//	LABEL.records=N, LABEL.nodes=N, LABEL.price_per_month=N,
//	LABEL.load_rate=N         a deployment's
//	LABEL.KEY=V              a deployment's property (the plan's under it)
//	LABEL.server.KEY~text     a deployment's server setting holds text
//	LABEL.setup~text         one of its setup steps holds text
//	WORKLOAD.KEY=V           a workload's property as its runs see it
//	KEY=V                    a plan property
//
// = compares numbers as numbers; ~ is "contains", ignoring case.
func auditCheck(p *Plan, e string) string {
	op := "="
	k, v, ok := strings.Cut(e, "~")
	if ok {
		op = "~"
	} else if k, v, ok = strings.Cut(e, "="); !ok {
		return "want KEY=VALUE or KEY~TEXT"
	}
	k, v = strings.TrimSpace(k), strings.TrimSpace(v)
	same := func(got string) bool {
		if op == "~" {
			return strings.Contains(strings.ToLower(got), strings.ToLower(v))
		}
		a, e1 := strconv.ParseFloat(strings.ReplaceAll(got, ",", ""), 64)
		b, e2 := strconv.ParseFloat(strings.ReplaceAll(v, ",", ""), 64)
		if e1 == nil && e2 == nil {
			return a == b
		}
		return got == v
	}
	list := func(have []string) string {
		for _, x := range strings.Split(v, ",") {
			x = strings.TrimSpace(x)
			if !slices.ContainsFunc(have, func(h string) bool {
				a, _ := strconv.ParseFloat(h, 64)
				b, _ := strconv.ParseFloat(x, 64)
				return a == b
			}) {
				return fmt.Sprintf("%s is not among %v", x, have)
			}
		}
		return ""
	}
	ftoa := func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }
	switch k {
	case "threads":
		var have []string
		for _, n := range p.Threads {
			have = append(have, strconv.Itoa(n))
		}
		return list(have)
	case "clients":
		var have []string
		for _, n := range p.Clients {
			have = append(have, strconv.Itoa(n))
		}
		return list(have)
	case "records":
		var have []string
		for _, n := range p.Records {
			have = append(have, strconv.FormatInt(n, 10))
		}
		for _, d := range p.Deployments {
			for _, n := range d.Records {
				have = append(have, strconv.FormatInt(n, 10))
			}
		}
		return list(have)
	case "repetitions", "duration", "warmup", "operations", "load_threads":
		got := map[string]string{"repetitions": strconv.Itoa(p.Repetitions), "duration": ftoa(p.Duration), "warmup": ftoa(p.Warmup),
			"operations": strconv.FormatInt(p.Operations, 10), "load_threads": strconv.Itoa(p.LoadThreads)}[k]
		if k == "operations" && p.OpsPerRecord {
			got = "records"
		}
		if !same(got) {
			return fmt.Sprintf("the plan has %s", got)
		}
		return ""
	}
	head, rest, dotted := strings.Cut(k, ".")
	for i := range p.Deployments {
		d := &p.Deployments[i]
		if !dotted || d.Label != head {
			continue
		}
		var got string
		switch {
		case rest == "records":
			var have []string
			for _, n := range d.Records {
				have = append(have, strconv.FormatInt(n, 10))
			}
			return list(have)
		case rest == "nodes":
			got = strconv.Itoa(d.Nodes)
		case rest == "price_per_month":
			got = ftoa(float64(int64(d.PriceHour*HoursPerMonth*100+0.5)) / 100)
		case rest == "load_rate":
			got = ftoa(d.LoadRate)
		case rest == "setup":
			for _, s := range d.Setup {
				if same(s.Statement) || same(s.Shell) {
					return ""
				}
			}
			return "no setup step holds it"
		case strings.HasPrefix(rest, "server."):
			got = propertyOf(p, d, "server.setting."+strings.TrimPrefix(rest, "server."))
		default:
			got = propertyOf(p, d, rest)
		}
		if !same(got) {
			return fmt.Sprintf("%s has %q", d.Label, got)
		}
		return ""
	}
	for _, w := range p.Workloads {
		if !dotted || w.Name != head {
			continue
		}
		eff, err := runProperties(p, w)
		if err != nil {
			return err.Error()
		}
		if got := eff.String(rest, ""); !same(got) {
			return fmt.Sprintf("workload %s has %q", w.Name, got)
		}
		return ""
	}
	if dotted && !strings.Contains(rest, ".") && !slices.ContainsFunc(p.Properties, func(x Property) bool { return x.Key == k }) {
		// LABEL.KEY or WORKLOAD.KEY naming neither is a typo, unless
		// it is a dotted plan property (redis.scanmode).
		known := false
		for _, d := range p.Deployments {
			known = known || strings.HasPrefix(k, d.Binding+".")
		}
		if !known {
			return fmt.Sprintf("%s is no deployment or workload of the plan", head)
		}
	}
	for _, x := range p.Properties {
		if x.Key == k {
			if !same(x.Value) {
				return fmt.Sprintf("the plan has %q", x.Value)
			}
			return ""
		}
	}
	return "the plan does not set it"
}
