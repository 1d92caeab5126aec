package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/result"
)

// A cell whose busiest client used more than result.BusyClientPct of its
// cores is marked in the summary, with a note saying what to do; a merged
// result's clients count one by one, a single client's result by itself.
func TestBusyClientFlagged(t *testing.T) {
	dir := t.TempDir()
	t0 := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	write := func(name, label string, d *result.Doc) string {
		d.Format, d.Version, d.Command, d.Binding, d.Workload, d.Label = result.Format, result.FormatVersion, "run", "redis", "workload c", label
		d.Start, d.End, d.RuntimeMs, d.Stop, d.HistogramUnit, d.Threads = t0, t0.Add(10*time.Second), 10_000, result.Completed, "ns", 4
		d.Environment = result.Environment{Cores: 2, GOMAXPROCS: 2}
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := result.WriteJSON(f, d); err != nil {
			t.Fatal(err)
		}
		return p
	}
	calm := write("calm.json", "calm", &result.Doc{ClientCPUS: 4}) // 4 of 20 core-seconds: 20%
	busy := write("busy.json", "busy", &result.Doc{Clients: 2, ClientRuns: []result.ClientRun{{Index: 0, CPUPct: 30}, {Index: 1, CPUPct: 95}}})
	s, err := LoadFiles([]string{calm, busy})
	if err != nil {
		t.Fatal(err)
	}
	sum := s.summary().Tables[0]
	col := len(sum.Header) - 1
	if sum.Header[col] != "client CPU %" || sum.Header[col-1] != "clients" {
		t.Fatalf("header %v", sum.Header)
	}
	got := map[string][]string{}
	for _, r := range sum.Rows {
		got[r[0]] = r[col-1:]
	}
	if strings.Join(got["calm"], " ") != "1 20" || strings.Join(got["busy (2 clients)"], " ") != "2 95 busy" {
		t.Errorf("rows %v", got)
	}
	if !strings.Contains(sum.Note, "may have been the limit") {
		t.Errorf("note %q", sum.Note)
	}
}
