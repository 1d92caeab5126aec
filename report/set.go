// Package report is what servbench report makes of the results of an
// experiment plan (servbench bench): the studies' tables and charts, cells
// averaged over repetitions, throughput and latency by cluster size,
// curves by client threads with the SLO search, runtimes by record count
// with scale-up ratios, cost per billion operations, and one
// self-contained HTML page holding them all.
package report

import (
	"context"
	"errors"
	"fmt"
	"github.com/servbench/servbench/stats"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// Set is the results of one plan directory, or of loose result files.
type Set struct {
	Name     string
	Dir      string
	PlanText string      // the plan as run (DIR/plan.yaml)
	Index    *plan.Index // nil for loose result files
	Runs     []*Run
	Groups   []*Group
	// Loads are the plan's load phases, one per data set.
	Loads []*LoadRun
	// Reference are the published figures the plan names (reference:).
	Reference []plan.Reference
	// Setup are the plan's setup steps as they ran (DIR/setup.json).
	Setup []plan.SetupStep
}

// Run is one finished run.
type Run struct {
	ID         string
	Deployment string // the deployment's label
	System     string
	Binding    string
	Nodes      int
	Price      float64 // per hour
	Usage      map[string]float64
	Workload   string
	Records    int64
	Threads    int
	Rate       float64
	Doc        *result.Doc
}

// Key is what identifies a cell across its repetitions.
type Key struct {
	Deployment string
	Workload   string
	Records    int64
	Threads    int
	Rate       float64
}

func (r *Run) key() Key {
	return Key{r.Deployment, r.Workload, r.Records, r.Threads, r.Rate}
}

// Load reads a plan directory's index and every finished run in it.
func Load(dir string) (*Set, error) {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("%s is not a directory: give a plan's directory (bench -o DIR)", dir)
	}
	ix, err := plan.ReadIndex(dir)
	if err != nil {
		return nil, err
	}
	s := &Set{Name: ix.Plan, Dir: dir, Index: ix}
	// The plan as run, bounded as every other input (a link to /dev/zero
	// held memory until the process died); it may be missing.
	switch b, err := plan.ReadKept(context.Background(), filepath.Join(dir, "plan.yaml")); {
	case err == nil:
		s.PlanText = string(b)
	case !errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, "plan.yaml"), err)
	}
	// Each run's result is read once, and holds a run of its own: two
	// runs naming one file (through a link too), or holding one run (a
	// copy), would have it decoded, counted and drawn twice.
	bySize := map[int64][]seenResult{}
	byRun := map[string]string{}
	for _, c := range ix.Runs {
		if c.Status != "done" {
			continue
		}
		path := filepath.Join(dir, c.Result)
		if st, err := os.Stat(path); err == nil && st.Mode().IsRegular() {
			for _, o := range bySize[st.Size()] {
				if os.SameFile(o.info, st) {
					return nil, fmt.Errorf("%s: runs %q and %q name one result file (%s): each run has its own", filepath.Join(dir, "index.json"), props.Cut(o.run, 60), props.Cut(c.ID, 60), path)
				}
			}
			bySize[st.Size()] = append(bySize[st.Size()], seenResult{st, c.ID})
		}
		d, err := result.ReadFile(path)
		if err != nil {
			return nil, err
		}
		if other, dup := byRun[d.ID]; dup && d.ID != "" {
			return nil, fmt.Errorf("%s: holds run %q, as the result of run %q does: a result copied, each run has its own", path, props.Cut(d.ID, 60), props.Cut(other, 60))
		}
		byRun[d.ID] = c.ID
		n := c.Clients
		if c.PlanClients > 1 { // a step of fewer threads than the plan's clients stays on its curve
			n = c.PlanClients
		}
		s.Runs = append(s.Runs, &Run{ID: c.ID, Deployment: withClients(c.Deployment, n), System: c.System, Binding: c.Binding, Nodes: c.Nodes,
			Price: c.PricePerHour, Usage: c.UsagePrices, Workload: c.Workload, Records: c.Records, Threads: c.Threads, Rate: c.Rate, Doc: d})
	}
	if s.Name == "" {
		s.Name = filepath.Base(dir)
	}
	if err := s.readLoads(dir); err != nil {
		return nil, err
	}
	if err := s.readReference(dir); err != nil {
		return nil, err
	}
	if s.Index != nil {
		l, err := plan.ReadSetup(dir)
		if err != nil {
			return nil, err
		}
		s.Setup = l.Steps
	}
	s.group()
	return s, nil
}

// seenResult is a result file read, and the run that named it.
type seenResult struct {
	info os.FileInfo
	run  string
}

// Inputs are the files Load reads in dir (those that exist): the index,
// the plan, its reference and setup log, the runs' results and the loads':
// what a report's outputs may not name.
func (s *Set) Inputs() []string {
	if s.Dir == "" {
		return nil
	}
	paths := []string{filepath.Join(s.Dir, "index.json"), filepath.Join(s.Dir, "plan.yaml"),
		filepath.Join(s.Dir, plan.ReferenceFile), filepath.Join(s.Dir, plan.SetupFile)}
	if s.Index != nil {
		for _, c := range s.Index.Runs {
			if c.Result != "" {
				paths = append(paths, filepath.Join(s.Dir, c.Result))
			}
		}
	}
	loads, _ := filepath.Glob(filepath.Join(s.Dir, "loads", "*.json"))
	return append(paths, loads...)
}

// withClients names a deployment driven by n clients: a run spread over 2
// clients is another cell than one of 1, and its own series in a chart.
func withClients(label string, n int) string {
	if n > 1 {
		return fmt.Sprintf("%s (%d clients)", label, n)
	}
	return label
}

// LoadFiles makes a set of loose result files (servbench run -o): runs
// with the same label, workload, record count, threads and rate are
// repetitions of one cell.
func LoadFiles(paths []string) (*Set, error) {
	s := &Set{Name: paths[0]}
	for _, p := range paths {
		d, err := result.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if d.Command != "run" {
			return nil, fmt.Errorf("%s: a %s result; compare run results", p, d.Command)
		}
		label := d.Label
		if label == "" {
			label = d.Binding
		}
		records, _ := strconv.ParseInt(d.Properties["recordcount"], 10, 64)
		s.Runs = append(s.Runs, &Run{ID: p, Deployment: withClients(label, d.Clients), System: d.Binding, Binding: d.Binding, Workload: d.Workload,
			Records: records, Threads: d.Threads, Rate: d.Rate, Doc: d})
	}
	s.group()
	return s, nil
}

// Group is a cell with its repetitions summarized.
type Group struct {
	Key
	System     string
	Binding    string
	Nodes      int
	Price      float64
	Runs       []*Run
	Throughput stats.Stat // ops/s
	Runtime    stats.Stat // seconds
	// YCSBRuntime is the runtime as YCSB counts it (seconds; the
	// binding's start and the threads' cleanup included), when every run
	// measured it.
	YCSBRuntime stats.Stat
	AvgUs       stats.Stat // mean latency over the successful operations, weighted by count (failed ones excluded, as YCSB)
	FailedPct   stats.Stat // percent of operations
	Operations  int64      // over all repetitions
	Failed      []Cause    // failed operations by cause, over all repetitions
	Ops         []OpStat
	// Cost is the cost per billion attempted operations (every
	// operation, failed included) at the mean throughput, every term;
	// CostSuccessful the cost per billion successful operations (OK,
	// BATCHED_OK): Cost × throughput / goodput, as a failed operation is
	// paid for but does no work.
	Cost           float64
	CostSuccessful float64
	Goodput        stats.Stat // successful operations per second
	// Usage are the deployment's usage prices, Terms the cost per billion
	// operations by term when it has them.
	Usage map[string]float64
	Terms *CostTerms
	// Clients is the most clients a run of the cell was spread over (1:
	// not spread), ClientCPUPct the busiest client's share of its cores
	// in any run, in %: above result.BusyClientPct the client may have
	// been the limit, not the database.
	Clients      int
	ClientCPUPct float64
	// Server is what the servers and their hosts did (the runs'
	// server_side), ServerErrors the sources that could not be read.
	Server       []ServerFigure
	ServerErrors []string
}

// BusyClient reports whether a client of the cell was busy enough to be
// the limit.
func (g *Group) BusyClient() bool { return g.ClientCPUPct > result.BusyClientPct }

// Cause is a failure cause and how many operations failed so.
type Cause struct {
	Name  string
	Count int64
}

// OpStat is one operation of a cell over its repetitions (service time of
// successful operations).
type OpStat struct {
	Name  string
	Count int64
	AvgUs stats.Stat
	P99Us stats.Stat
}

func (s *Set) group() {
	byKey := map[Key]*Group{}
	for _, r := range s.Runs {
		g := byKey[r.key()]
		if g == nil {
			g = &Group{Key: r.key(), System: r.System, Binding: r.Binding, Nodes: r.Nodes, Price: r.Price, Usage: r.Usage}
			byKey[r.key()] = g
			s.Groups = append(s.Groups, g)
		}
		g.Runs = append(g.Runs, r)
	}
	for _, g := range s.Groups {
		g.summarize()
		if len(g.Usage) > 0 {
			g.Terms = s.costTerms(g)
			g.Cost = g.Terms.Total
			g.costSuccessful()
		}
	}
}

func (g *Group) summarize() {
	var thr, good, rt, yrt, avg, failed []float64
	causes := map[string]int64{}
	type opAcc struct {
		count    int64
		avg, p99 []float64
	}
	ops := map[string]*opAcc{}
	var names []string
	for _, r := range g.Runs {
		d := r.Doc
		thr = append(thr, d.Throughput)
		if d.Operations > 0 {
			good = append(good, d.Throughput*float64(d.OKOperations)/float64(d.Operations))
		} else {
			good = append(good, 0)
		}
		rt = append(rt, d.RuntimeMs/1000)
		if d.YCSBRuntimeMs > 0 {
			yrt = append(yrt, d.YCSBRuntimeMs/1000)
		}
		failed = append(failed, plan.FailedPct(d))
		g.Operations += d.Operations
		g.Clients = max(g.Clients, d.Clients, 1)
		for _, c := range d.MeasuredClients() {
			g.ClientCPUPct = max(g.ClientCPUPct, c.CPUPct)
		}
		var sum float64
		var n int64
		for _, op := range d.Ops {
			a := ops[op.Name]
			if a == nil {
				a = &opAcc{}
				ops[op.Name] = a
				names = append(names, op.Name)
			}
			a.count += op.Count
			for cause, c := range op.Outcomes {
				if cause != "OK" && cause != "BATCHED_OK" {
					causes[cause] += c
				}
			}
			if l := op.Latency; l != nil {
				a.avg = append(a.avg, l.MeanUs)
				a.p99 = append(a.p99, l.Percentiles["99"])
				sum += l.MeanUs * float64(l.Count)
				n += l.Count
			}
		}
		if n > 0 {
			avg = append(avg, sum/float64(n))
		}
	}
	g.Throughput, g.Goodput, g.Runtime, g.AvgUs, g.FailedPct = stats.Summarize(thr), stats.Summarize(good), stats.Summarize(rt), stats.Summarize(avg), stats.Summarize(failed)
	if len(yrt) == len(g.Runs) {
		g.YCSBRuntime = stats.Summarize(yrt)
	}
	for _, name := range names {
		a := ops[name]
		g.Ops = append(g.Ops, OpStat{Name: name, Count: a.count, AvgUs: stats.Summarize(a.avg), P99Us: stats.Summarize(a.p99)})
	}
	for c, n := range causes {
		g.Failed = append(g.Failed, Cause{c, n})
	}
	sort.Slice(g.Failed, func(i, j int) bool { return g.Failed[i].Name < g.Failed[j].Name })
	g.Cost = plan.CostPerBillion(g.Price, g.Throughput.Mean)
	g.costSuccessful()
	g.summarizeServer()
}

// costSuccessful sets the cost per billion successful operations from
// the cost per billion attempted: 0 when none succeeded (no billion
// successful operations at any price).
func (g *Group) costSuccessful() {
	g.CostSuccessful = 0
	if g.Goodput.Mean > 0 {
		g.CostSuccessful = g.Cost * g.Throughput.Mean / g.Goodput.Mean
	}
}

// Only is the set restricted to one deployment (nil if it has none).
func (s *Set) Only(deployment string) *Set {
	out := &Set{Name: s.Name + ":" + deployment, Dir: s.Dir, PlanText: s.PlanText, Index: s.Index}
	for _, r := range s.Runs {
		if r.Deployment == deployment {
			out.Runs = append(out.Runs, r)
		}
	}
	for _, l := range s.Loads {
		if l.Deployment == deployment {
			out.Loads = append(out.Loads, l)
		}
	}
	if len(out.Runs) == 0 {
		return nil
	}
	out.group()
	return out
}
