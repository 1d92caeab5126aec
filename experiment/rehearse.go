package experiment

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// A Rehearsal runs a plan's whole shape small, against endpoints of one's
// own: every deployment, workload, record count, thread step, client
// count, rate, repetition, setup step, load and cleanup, with its record
// counts, operation counts and durations scaled down, and its clients
// started on this machine.
type Rehearsal struct {
	// At maps a deployment's label, or a binding's name, to the URL its
	// deployments run against instead of the plan's endpoints (the label's
	// first).
	At map[string]string
	// Properties are set on every deployment whose binding reads them: a
	// key whose first dotted part names a binding (dynamodb.accesskey) on
	// that binding's deployments, any other key on all.
	Properties []plan.Property
	// Scale multiplies record counts, operation counts and durations
	// (0: DefaultScale).
	Scale float64
	// Ends keeps of the plan's thread steps and rates the first and the
	// last: each walk's two ends, where a whole rehearsal takes too long
	// (S2's 432 runs of 32 clients each: 21 minutes on two cores).
	Ends bool
}

// DefaultScale is a rehearsal's scale when none is given: a thousandth.
const DefaultScale = 0.001

// The least a rehearsal scales to: a data set of 100 records (a scan's
// longest, YCSB's maxscanlength), a run of 100 operations or 0.3 s (it
// checks the plan's shape: S2's 432 cells of 32 clients took 3.8 s a cell
// at 1 s, 2.9 s at 0.3 s, most of it the clients' start). A run of
// a number of operations ends at maxOpsSeconds too: a stand-in that
// scans by reading every record (FerretDB sorts a collection whole for
// each of E's scans: 2 a second at 1,000 records) would otherwise take
// most of a rehearsal's time with a few cells.
const (
	minRecords    = 100
	minOperations = 100
	minSeconds    = 0.3
)

// maxOpsSeconds is a variable for a test that reaches it in less time.
var maxOpsSeconds = 3.0

// Rehearse returns pl reshaped by r: its record counts, operation counts,
// durations and warmups scaled (no less than the least above; record
// counts kept apart; a run of as many operations as records, minOperations; a run of operations at most
// maxOpsSeconds long), each deployment's location (db.Located) replaced by
// its URL, the plan's orchestrator left out (its clients start here), and
// r's properties set. pl is not changed. Its errors name the flag.
func Rehearse(pl *plan.Plan, r Rehearsal) (*plan.Plan, error) {
	f := r.Scale
	if f == 0 {
		f = DefaultScale
	}
	if !(f > 0 && f <= 1) {
		return nil, fmt.Errorf("--scale %g: want a fraction of the plan's size, more than 0 and at most 1", f)
	}
	out := *pl
	out.Rehearsal = &plan.Rehearsal{Scale: f, At: r.At, Properties: r.Properties, Ends: r.Ends}
	used := map[string]bool{}
	out.Records = scaleRecords(pl.Records, f)
	if r.Ends {
		out.Threads, out.Rates = ends(pl.Threads), ends(pl.Rates)
	}
	if pl.Operations > 0 {
		out.Operations = max(int64(math.Ceil(float64(pl.Operations)*f)), minOperations)
	}
	if pl.OpsPerRecord { // a run as long as its data set is, scaled, at most a scan-heavy run's few seconds
		out.OpsPerRecord, out.Operations = false, minOperations
	}
	if pl.Duration > 0 {
		out.Duration = max(pl.Duration*f, minSeconds)
		out.Warmup = pl.Warmup * out.Duration / pl.Duration
	} else {
		out.Warmup = pl.Warmup * f
		out.Duration = maxOpsSeconds + out.Warmup
	}
	var located []string // every location key of the plan's bindings
	for _, t := range pl.Deployments {
		located = append(located, location(t.Binding)...)
	}
	out.Properties = keep(pl.Properties, func(k string) bool { return !isOrchestration(k) && !inLocation(located, k) })
	out.Deployments = make([]plan.Deployment, len(pl.Deployments))
	// An endpoint's data sets, by record count: the deployments of a
	// plan are servers apart, a rehearsal's may share one, where two of
	// one scaled record count would load into one table (S1's 1M and 5M
	// customers both 100 at 0.00001).
	held := map[string][]int64{}
	for i, t := range pl.Deployments {
		t.Records = scaleRecords(t.Records, f)
		loc := location(t.Binding)
		t.Properties = keep(t.Properties, func(k string) bool { return !isOrchestration(k) && !inLocation(loc, k) })
		if len(loc) > 0 {
			if _, ok := r.At[t.Binding]; ok {
				used[t.Binding] = true // named for this binding, whichever its deployments take
			}
			url, ok := r.At[t.Label]
			if ok {
				used[t.Label] = true
			} else {
				url, ok = r.At[t.Binding]
			}
			if !ok {
				return nil, fmt.Errorf("--at: deployment %s (binding %s) has no endpoint: give --at %s=URL or --at %s=URL", t.Label, t.Binding, t.Binding, t.Label)
			}
			name := t.Label
			if _, byLabel := r.At[t.Label]; !byLabel {
				name = t.Binding
			}
			t.Properties = append(t.Properties, plan.Property{Key: loc[0], Value: url, Source: "--at " + format.Printable(name)})
			if t.Records == nil { // the plan's, a data set of its own on this endpoint
				t.Records = slices.Clone(out.Records)
			}
			t.Records = apart(t.Records, held, url)
		}
		for _, p := range r.Properties {
			if b, _, ok := strings.Cut(p.Key, "."); ok && b != t.Binding && isBinding(b) {
				continue
			}
			t.Properties = slices.DeleteFunc(t.Properties, func(q plan.Property) bool { return q.Key == p.Key })
			if p.Source == "" {
				p.Source = "-p"
			}
			t.Properties = append(t.Properties, p)
		}
		out.Deployments[i] = t
	}
	for name := range r.At {
		if !used[name] {
			return nil, fmt.Errorf("--at %s: no deployment of the plan is labelled so or uses that binding with a server", format.Printable(name))
		}
	}
	return &out, nil
}

// ends is list's first and last (list itself when it has no more).
func ends[T any](list []T) []T {
	if len(list) <= 2 {
		return list
	}
	return []T{list[0], list[len(list)-1]}
}

// scaleRecords scales each record count by f, at least minRecords, each
// kept apart from the others (a plan's 100 and 1,000 stay two data sets).
func scaleRecords(list []int64, f float64) []int64 {
	if list == nil {
		return nil
	}
	out := make([]int64, len(list))
	for i, n := range list {
		v := max(int64(math.Ceil(float64(n)*f)), minRecords)
		for slices.Contains(out[:i], v) {
			v++
		}
		out[i] = v
	}
	return out
}

// apart moves each of list's record counts up past those endpoint url
// holds already, and notes them held there.
func apart(list []int64, held map[string][]int64, url string) []int64 {
	for i := range list {
		for slices.Contains(held[url], list[i]) || slices.Contains(list[:i], list[i]) {
			list[i]++
		}
		held[url] = append(held[url], list[i])
	}
	return list
}

// location is the location keys of the binding named b (nil for one that
// runs in the client, or is unknown: the plan's check names it).
func location(b string) []string {
	bd, err := db.Lookup(b)
	if err != nil {
		return nil
	}
	if l, ok := bd.(db.Located); ok {
		return l.Location()
	}
	return nil
}

// inLocation reports whether key is one of loc's keys, or under one of
// its prefixes (a key ending in a dot).
func inLocation(loc []string, key string) bool {
	return slices.ContainsFunc(loc, func(k string) bool {
		return k == key || strings.HasSuffix(k, ".") && strings.HasPrefix(key, k)
	})
}

// isOrchestration reports whether key places a plan's clients: the
// orchestrator and its own properties (ssh.hosts, kubernetes.namespace).
func isOrchestration(key string) bool {
	if key == "orchestrator" {
		return true
	}
	pre, _, ok := strings.Cut(key, ".")
	return ok && pre != "local" && slices.Contains(coordinator.Orchestrators(), pre)
}

func isBinding(name string) bool {
	_, err := db.Lookup(name)
	return err == nil
}

// keep returns the properties of list whose key ok accepts, in a new slice.
func keep(list []plan.Property, ok func(string) bool) []plan.Property {
	var out []plan.Property
	for _, p := range list {
		if ok(p.Key) {
			out = append(out, p)
		}
	}
	return out
}

// notRehearsable starts the error of a setup step that a rehearsal's
// endpoint cannot run (NOT_IMPLEMENTED: SQL++ on CouchbaseMock).
const notRehearsable = "not rehearsable: "

// A Cell is one run of a rehearsal and how it went.
type Cell struct {
	ID string
	// Outcome is completed (no operation failed), failed, not rehearsable
	// (every failure NOT_IMPLEMENTED: the endpoint cannot do it),
	// overloaded (some operations failed for the endpoint's load alone:
	// TIMEOUT, THROTTLED, SERVICE_UNAVAILABLE; the others succeeded),
	// skipped (the plan did not need it: past an SLO bound, or its cell's
	// repetitions met their until) or not run (the rehearsal stopped
	// first).
	Outcome string
	Why     string // one line; "" when completed
}

// Outcomes of a rehearsal's cells.
const (
	Completed      = "completed"
	Failed         = "failed"
	NotRehearsable = "not rehearsable"
	Overloaded     = "overloaded"
	Skipped        = "skipped"
	NotRun         = "not run"
)

// overload says whether a failure's cause is the endpoint's load, not the
// plan's shape: a laptop's stand-in under S1's 4,000 threads (DynamoDB
// Local answering SERVICE_UNAVAILABLE) is not the service the plan names.
func overload(status string) bool {
	switch status {
	case db.Timeout.String(), db.Throttled.String(), db.ServiceUnavailable.String():
		return true
	}
	return false
}

// Cells reads a rehearsal's directory: each run's outcome from the index
// and its result, and each setup step its endpoint could not run (as a
// cell named after the step).
func Cells(dir string) ([]Cell, error) {
	ix, err := plan.ReadIndex(dir)
	if err != nil {
		return nil, err
	}
	var cells []Cell
	if log, err := plan.ReadSetup(dir); err == nil {
		for _, st := range log.Steps {
			if why, ok := strings.CutPrefix(st.Error, notRehearsable); ok {
				cells = append(cells, Cell{ID: "setup " + st.ID + " (line " + strconv.Itoa(st.Line) + ")", Outcome: NotRehearsable, Why: why})
			}
		}
	}
	for _, run := range ix.Runs {
		c := Cell{ID: run.ID}
		switch run.Status {
		case "done":
			c.Outcome, c.Why = resultOutcome(filepath.Join(dir, run.Result))
		case "pending", "interrupted":
			c.Outcome = NotRun
		case "skipped": // not needed: past an SLO bound, or the cell's repetitions met their until
			c.Outcome, c.Why = Skipped, run.Error
		default:
			c.Outcome, c.Why = Failed, run.Error
			if strings.Contains(run.Error, db.NotImplemented.String()) {
				c.Outcome = NotRehearsable
			}
		}
		cells = append(cells, c)
	}
	return cells, nil
}

// resultOutcome reads a finished run's result: completed when no operation
// failed, not rehearsable when every failure was NOT_IMPLEMENTED, failed
// otherwise, with the first cause.
func resultOutcome(path string) (string, string) {
	if st, err := os.Stat(path); err == nil && !st.Mode().IsRegular() {
		return Failed, fmt.Sprintf("%s: not a regular file (%s)", path, st.Mode().Type()) // a pipe would hold the table
	}
	d, err := result.ReadFile(path)
	if err != nil {
		return Failed, err.Error()
	}
	outcome, why := Completed, ""
	var ok int64
	var loaded string // the first failure for the endpoint's load
	for _, op := range d.Ops {
		for name, n := range op.Outcomes {
			if n == 0 {
				continue
			}
			if result.Succeeded(name) {
				ok += n
				continue
			}
			line := fmt.Sprintf("%d %s %s: %s", n, op.Name, name, op.Errors[name])
			switch {
			case overload(name):
				if loaded == "" {
					loaded = line
				}
			case name != db.NotImplemented.String():
				return Failed, line
			case outcome == Completed:
				outcome, why = NotRehearsable, line
			}
		}
	}
	switch {
	case loaded != "" && ok == 0:
		return Failed, loaded + " (no operation succeeded)"
	case loaded != "" && outcome == Completed:
		return Overloaded, loaded
	}
	return outcome, why
}

// WriteCells writes a rehearsal's table: a line per cell, then the count
// of each outcome.
func WriteCells(w io.Writer, cells []Cell) {
	n := map[string]int{}
	width := 0
	for _, c := range cells {
		width = max(width, len(c.ID))
	}
	for _, c := range cells {
		n[c.Outcome]++
		line := fmt.Sprintf("%-*s  %s", width, c.ID, c.Outcome)
		if c.Why != "" {
			line += ": " + props.Cut(format.Printable(strings.Join(strings.Fields(c.Why), " ")), 200)
		}
		fmt.Fprintln(w, line)
	}
	fmt.Fprintf(w, "rehearsal: %d cells: %d %s, %d %s, %d %s, %d %s, %d %s, %d %s\n", len(cells),
		n[Completed], Completed, n[Failed], Failed, n[NotRehearsable], NotRehearsable, n[Overloaded], Overloaded, n[Skipped], Skipped, n[NotRun], NotRun)
}
