package report

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/servbench/servbench/result"
)

// LoadRun is one data set's load phase of a plan (DIR/loads/*.json).
type LoadRun struct {
	Deployment string
	Name       string // the data set: deployment, records, document model
	Doc        *result.Doc
	// Asked is the records the load was to insert (insertcount, or
	// recordcount less insertstart).
	Asked int64
}

// Short reports whether the load inserted fewer records than asked (or
// did not finish): the cells on its data set measured another data set
// than the plan says.
func (l *LoadRun) Short() bool { return !l.Doc.Stop.Finished() || l.Doc.OKOperations < l.Asked }

// readLoads reads the plan's load results.
func (s *Set) readLoads(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "loads", "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, f := range files {
		d, err := result.ReadFile(f)
		if err != nil {
			return err
		}
		l := &LoadRun{Deployment: d.Label, Name: strings.TrimSuffix(filepath.Base(f), ".json"), Doc: d}
		if l.Deployment == "" {
			l.Deployment = d.Binding
		}
		n := func(k string) int64 { v, _ := strconv.ParseInt(d.Properties[k], 10, 64); return v }
		if l.Asked = n("insertcount"); l.Asked == 0 {
			l.Asked = n("recordcount") - n("insertstart")
		}
		s.Loads = append(s.Loads, l)
	}
	return nil
}

// loadSection is the plan's load phase per deployment and data set: the
// time it took, inserts per second, insert latency, and whether every
// record asked was inserted (a short load fails its cells in words).
func (s *Set) loadSection() (Section, bool) {
	if len(s.Loads) == 0 && len(s.Setup) == 0 {
		return Section{}, false
	}
	sec := Section{ID: "load", Title: "Load phase",
		Intro: "Each data set's load (YCSB's -load): the records inserted, the time it took, inserts per second and the latency of each insert (or batch). The run cells of a data set whose load inserted fewer records than asked measured another data set than the plan says."}
	t := &Table{Name: "load", Title: "Load phase per deployment and data set",
		Header: []string{"deployment", "data set", "threads", "records asked", "inserted", "load time s", "inserts/s", "insert avg ms", "insert p99 ms", "failed", "status"}}
	for _, l := range s.Loads {
		d := l.Doc
		avg, p99 := "", ""
		for _, o := range d.Ops {
			if (o.Name == "INSERT" || o.Name == "BATCH-INSERT") && o.Latency != nil {
				avg, p99 = ms(o.Latency.MeanUs), ms(o.Latency.Percentiles["99"])
			}
		}
		status := "complete"
		if l.Short() {
			status = fmt.Sprintf("short: %s of %s records inserted (%s)", thousands(float64(d.OKOperations)), thousands(float64(l.Asked)), d.Stop)
			sec.Points = append(sec.Points, fmt.Sprintf("The load of %s (%s) inserted %s of the %s records asked (%s): its cells measured a smaller data set than the plan says; load it again.",
				l.Deployment, l.Name, thousands(float64(d.OKOperations)), thousands(float64(l.Asked)), d.Stop))
		}
		t.Rows = append(t.Rows, []string{l.Deployment, l.Name, strconv.Itoa(d.Threads), thousands(float64(l.Asked)), thousands(float64(d.OKOperations)),
			f2(d.RuntimeMs / 1000), f0(d.Throughput), avg, p99, thousands(float64(d.Operations - d.OKOperations)), status})
	}
	sec.Tables = []*Table{t}
	if len(s.Setup) > 0 {
		sec.Tables = append(sec.Tables, s.setupTable())
	}
	return sec, true
}

// setupTable lists the plan's setup steps as they ran: what, where, how
// long, and the server's answer or the error.
func (s *Set) setupTable() *Table {
	t := &Table{Name: "setup", Title: "Setup steps (DIR/setup.json)",
		Header: []string{"deployment", "before", "records", "step", "line", "seconds", "outcome"}}
	for _, e := range s.Setup {
		before := "load"
		if e.Workload != "" {
			before = "workload " + wlName(e.Workload)
		}
		outcome := "done"
		switch {
		case e.Error != "":
			outcome = "failed: " + e.Error
		case e.Answer != "":
			outcome = "done: " + e.Answer
		}
		t.Rows = append(t.Rows, []string{e.Deployment, before, strconv.FormatInt(e.Records, 10), e.Kind + ": " + e.Text, strconv.Itoa(e.Line), f2(e.Seconds), outcome})
	}
	t.Note = "Each step ran once before its data set's load or its workload's runs; a plan run again skips the steps done, and runs a failed one again."
	return t
}
