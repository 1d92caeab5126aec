package report

import (
	"strings"
	"testing"

	"github.com/servbench/servbench/result"
)

// A series with no point in its run (a counter that only fell) is no data:
// not averaged in as 0 with the runs that have it, not the busiest, and
// "no data" in the table of every series where no run has it. A source
// that served more series than were kept is said.
func TestServerNoData(t *testing.T) {
	run := func(cpu ...[2]float64) *Run {
		mean := 0.0
		if len(cpu) > 0 {
			mean = cpu[0][1]
		}
		return &Run{Doc: &result.Doc{ServerSide: &result.ServerSide{Sources: []result.Source{{Name: "http://10.0.0.1:9100/metrics", Kind: result.SourcePrometheus, Dropped: 98000, Series: []result.Series{
			{Name: "cpu_busy_pct", Unit: "%", Counter: true, Points: cpu, Mean: mean},
			{Name: "disk_busy_pct", Node: "sda", Unit: "%", Counter: true, Points: [][2]float64{}},
		}}}}}}
	}
	g := &Group{Key: Key{Deployment: "d", Workload: "a"}, Runs: []*Run{run([2]float64{1, 90}), run()}}
	g.summarizeServer()
	if c := g.busiest("cpu_busy_pct", ""); c == nil || c.Mean != 90 || c.Runs != 1 {
		t.Errorf("CPU %+v: want 90 from the run that has it", c)
	}
	if d := g.busiest("disk_busy_pct", ""); d != nil {
		t.Errorf("a disk with no data is the busiest: %+v", d)
	}
	if len(g.ServerErrors) != 1 || !strings.Contains(g.ServerErrors[0], "98000 series it served were not kept") {
		t.Errorf("server errors %q", g.ServerErrors)
	}
	s := &Set{Groups: []*Group{g}}
	sec, _ := s.serverSide()
	found := false
	for _, row := range sec.Tables[1].Rows {
		if row[5] == "disk_busy_pct" {
			found = row[8] == "no data" && row[9] == "no data"
		}
	}
	if !found {
		t.Errorf("every series: %q, want the disk with no data", sec.Tables[1].Rows)
	}
}
