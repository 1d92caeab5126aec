package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workloads"
	"go.yaml.in/yaml/v3"
)

// study is one entry of plans/studies/parameters.yaml: a study's parameters as its
// text gives them.
type study struct {
	Plan    string `yaml:"plan"`
	Source  string `yaml:"source"`
	Threads []int  `yaml:"threads"`
	// PublishedThreads are thread counts the study gives figures at:
	// each must be one of the plan's steps.
	PublishedThreads []int                              `yaml:"published_threads"`
	Clients          []int                              `yaml:"clients"`
	FieldCount       int                                `yaml:"fieldcount"`
	FieldLength      int                                `yaml:"fieldlength"`
	Records          yaml.Node                          `yaml:"records"`
	Repetitions      int                                `yaml:"repetitions"`
	PricePerMonth    map[string]map[int]float64         `yaml:"price_per_month"`
	Workloads        map[string]map[string]string       `yaml:"workloads"`
	Properties       map[string]string                  `yaml:"properties"`
	Departures       []struct{ What, Mark, Why string } `yaml:"departures"`
	Setup            []struct {
		System, Before, Statement string
		Capacity                  map[int][2]int
	} `yaml:"setup"`
}

// Each shipped study plan matches its study's parameters (plans/studies/parameters.yaml,
// each from the study's text): threads, clients, fields, records (per
// cluster size where the study scales them), repetitions, monthly prices,
// every workload's mix and distributions as the run will have them (the
// workload's file with the plan's properties over it), and the properties
// the study's queries need; every departure is stated in the plan.
func TestShippedPlansMatchTheirStudies(t *testing.T) {
	raw, err := os.ReadFile("../plans/studies/parameters.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var studies map[string]study
	if err := yaml.Unmarshal(raw, &studies); err != nil {
		t.Fatal(err)
	}
	if len(studies) < 3 {
		t.Fatalf("%d studies in plans/studies/parameters.yaml", len(studies))
	}
	for name, st := range studies {
		p, err := shippedPlan(st.Plan)
		if err != nil {
			t.Fatal(err)
		}
		where := name + " (" + st.Plan + ")"
		if st.Threads != nil && !equalInts(p.Threads, st.Threads) {
			t.Errorf("%s: threads %v, the study %v", where, p.Threads, st.Threads)
		}
		for _, n := range st.PublishedThreads {
			if !slices.Contains(p.Threads, n) {
				t.Errorf("%s: the study gives a figure at %d threads, not a step of %v", where, n, p.Threads)
			}
		}
		if st.Clients != nil && !equalInts(p.Clients, st.Clients) {
			t.Errorf("%s: clients %v, the study %v", where, p.Clients, st.Clients)
		}
		if st.Repetitions > 0 && p.Repetitions != st.Repetitions {
			t.Errorf("%s: %d repetitions, the study %d", where, p.Repetitions, st.Repetitions)
		}
		switch st.Records.Kind {
		case yaml.MappingNode: // per cluster size
			var byNodes map[int]int64
			st.Records.Decode(&byNodes)
			for _, d := range p.Deployments {
				if want, ok := byNodes[d.Nodes]; !ok || len(p.RecordsOf(&d)) != 1 || p.RecordsOf(&d)[0] != want {
					t.Errorf("%s: %s (%d nodes): records %v, the study %d", where, d.Label, d.Nodes, p.RecordsOf(&d), want)
				}
			}
		case yaml.SequenceNode:
			var list []int64
			st.Records.Decode(&list)
			if !equalInts(p.Records, list) {
				t.Errorf("%s: records %v, the study %v", where, p.Records, list)
			}
		}
		for _, d := range p.Deployments {
			if byNodes, ok := st.PricePerMonth[d.System]; ok {
				if got := d.PriceHour * HoursPerMonth; got < byNodes[d.Nodes]-0.01 || got > byNodes[d.Nodes]+0.01 {
					t.Errorf("%s: %s: %.2f a month, the study %.2f", where, d.Label, got, byNodes[d.Nodes])
				}
			} else if st.PricePerMonth != nil {
				t.Errorf("%s: %s: the study's prices hold none for %s (every system's price is checked)", where, d.Label, d.System)
			}
			for k, v := range st.Properties {
				if !strings.HasPrefix(k, d.Binding+".") {
					continue
				}
				if got := propertyOf(p, &d, k); got != v {
					t.Errorf("%s: %s: %s is %q, the study's queries need %q", where, d.Label, k, got, v)
				}
			}
		}
		if len(p.Workloads) != len(st.Workloads) {
			t.Errorf("%s: %d workloads, the study %d", where, len(p.Workloads), len(st.Workloads))
		}
		for _, w := range p.Workloads {
			want, ok := st.Workloads[w.Name]
			if !ok {
				t.Errorf("%s: workload %s is not the study's", where, w.Name)
				continue
			}
			eff, err := runProperties(p, w)
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range want {
				got := eff.String(k, "0")
				if a, e1 := strconv.ParseFloat(got, 64); e1 == nil {
					if b, e2 := strconv.ParseFloat(v, 64); e2 == nil && a == b {
						continue
					}
				}
				if got != v {
					t.Errorf("%s: workload %s: %s is %s, the study %s", where, w.Name, k, got, v)
				}
			}
			if st.FieldCount > 0 && eff.String("fieldcount", "10") != strconv.Itoa(st.FieldCount) {
				t.Errorf("%s: workload %s: fieldcount %s, the study %d", where, w.Name, eff.String("fieldcount", "10"), st.FieldCount)
			}
			if st.FieldLength > 0 && eff.String("fieldlength", "100") != strconv.Itoa(st.FieldLength) {
				t.Errorf("%s: workload %s: fieldlength %s, the study %d", where, w.Name, eff.String("fieldlength", "100"), st.FieldLength)
			}
		}
		// The setup steps: each system's deployments have exactly the
		// study's, each where the study has it.
		want := map[string]int{}
		for _, x := range st.Setup {
			for _, d := range p.Deployments {
				if d.System != x.System {
					continue
				}
				stmt := strings.ReplaceAll(x.Statement, "NODES-1", strconv.Itoa(d.Nodes-1))
				if x.Capacity != nil {
					c, ok := x.Capacity[d.Nodes]
					if !ok {
						t.Errorf("%s: %s: the study gives no capacity for %d nodes", where, d.Label, d.Nodes)
					}
					stmt = fmt.Sprintf(`{"read_capacity_units": %d, "write_capacity_units": %d}`, c[0], c[1])
				}
				want[d.Label]++
				if !slices.ContainsFunc(d.Setup, func(s Step) bool { return s.Before == x.Before && s.Statement == stmt }) {
					t.Errorf("%s: %s has no setup step before %s: %s", where, d.Label, x.Before, stmt)
				}
			}
		}
		for _, d := range p.Deployments {
			if len(d.Setup) != want[d.Label] {
				t.Errorf("%s: %s has %d setup steps, the study %d", where, d.Label, len(d.Setup), want[d.Label])
			}
		}
		for _, d := range st.Departures {
			stated := slices.ContainsFunc(p.Departures, func(x Departure) bool {
				return x.What == d.What && strings.Contains(x.What+" "+x.Why, d.Mark)
			})
			if d.Why == "" || !stated {
				t.Errorf("%s: the departure %q (%s) is not among the plan's departures: (want what: %q, %q in it)", where, d.What, d.Why, d.What, d.Mark)
			}
		}
	}
}

func equalInts[T int | int64](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// propertyOf is the value a deployment's runs get for key.
// shippedPlan reads and parses plans/NAME.
func shippedPlan(name string) (*Plan, error) {
	file := filepath.Join("..", "plans", name)
	text, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Parse(text, file, func(n string) bool { return slices.Contains(workloads.Names(), n) })
}

// runProperties are a workload's properties as the plan's runs see them:
// its file (or the built-in one) with the plan's properties over it.
func runProperties(p *Plan, w Workload) (*props.Props, error) {
	eff := props.New()
	var err error
	if w.File != "" {
		err = eff.LoadFile(w.File)
	} else {
		err = workloads.Load(eff, w.Name)
	}
	for _, x := range p.Properties {
		eff.Set(x.Key, x.Value, "plan")
	}
	return eff, err
}

func propertyOf(p *Plan, d *Deployment, key string) string {
	v := ""
	for _, list := range [][]Property{p.Properties, d.Properties} {
		for _, x := range list {
			if x.Key == key {
				v = x.Value
			}
		}
	}
	return v
}
