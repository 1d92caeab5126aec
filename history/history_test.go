package history

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/servbench/servbench/result"
)

func doc(id, label string, target float64, tput float64) *result.Doc {
	return &result.Doc{ID: id, Command: "run", Binding: "basic", Label: label, Workload: "a", Threads: 2, Rate: target,
		Start: time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), Throughput: tput, Operations: 100, OKOperations: 98,
		Properties: result.Settings{"recordcount": "1000", "threadcount": "2", "target": fmt.Sprint(target), "result.file": id + ".json"},
		Ops: result.Ops{{Name: "READ", Count: 100, Outcomes: result.Bounded[int64]{"OK": 98, "ERROR": 2},
			Latency: &result.Latency{MeanUs: 10, Percentiles: result.Bounded[float64]{"50": 9, "99": 40, "99.9": 80}}}}}
}

// Entries keep what a trend and a gate read; a result is recorded once;
// the cell leaves out the rate, the length and the outputs but not the
// label or the record count.
func TestRecordListFilter(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "sub", "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, d := range []*result.Doc{doc("a1", "x", 1000, 990), doc("a2", "x", 2000, 1980), doc("a3", "y", 1000, 995)} {
		if added, err := s.Add(ctx, EntryOf(d, "/r/"+d.ID+".json", fmt.Sprint(i))); err != nil || !added {
			t.Fatalf("add %s: %v %v", d.ID, added, err)
		}
	}
	if added, err := s.Add(ctx, EntryOf(doc("a1", "x", 1000, 1), "/elsewhere.json", "9")); err != nil || added {
		t.Errorf("a result recorded twice: added %v, %v", added, err)
	}
	all, err := s.List(ctx, Filter{})
	if err != nil || len(all) != 3 {
		t.Fatalf("%d entries, %v", len(all), err)
	}
	e := all[0]
	if e.ResultID != "a1" || e.Throughput != 990 || e.Records != 1000 || e.OK != 98 || e.Path != "/r/a1.json" || e.Rate != 1000 ||
		e.Figures["READ p99"] != 40 || e.Figures["READ failed ERROR"] != 2 || !e.Start.Equal(doc("", "", 0, 0).Start) {
		t.Errorf("entry %+v", e)
	}
	if all[0].Config != all[1].Config || all[0].Config == all[2].Config {
		t.Errorf("cells %s %s %s: the target is not the cell's, the label is", all[0].Config, all[1].Config, all[2].Config)
	}
	d := doc("a4", "x", 1000, 1)
	d.Properties["recordcount"] = "2000"
	if ConfigDigest(d) == all[0].Config {
		t.Error("another record count, the same cell")
	}
	if xs, _ := s.List(ctx, Filter{Label: "x"}); len(xs) != 2 {
		t.Errorf("label x: %d entries", len(xs))
	}
	if xs, _ := s.List(ctx, Filter{Config: all[0].Config, Not: []string{"a2"}}); len(xs) != 1 || xs[0].ResultID != "a1" {
		t.Errorf("the cell without a2: %+v", xs)
	}
	if xs, _ := s.List(ctx, Filter{Last: 1}); len(xs) != 1 || xs[0].ResultID != "a3" {
		t.Errorf("the last one: %+v", xs)
	}
}

// Processes record into one history at once (here goroutines, each with
// its own connection, as processes have): nothing is lost.
func TestConcurrentRecords(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := Record(ctx, path, doc(fmt.Sprint("r", i), "x", 1000, float64(i)), ""); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if all, err := s.List(ctx, Filter{}); err != nil || len(all) != 40 {
		t.Errorf("%d of 40 recorded: %v", len(all), err)
	}
}

// A history that is not a database, or a file where its folder should
// be, is an error that names it, not a panic.
func TestUnusableHistory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	bad := filepath.Join(dir, "h.db")
	os.WriteFile(bad, []byte(strings.Repeat("not a database\n", 1000)), 0o600)
	if _, err := Record(ctx, bad, doc("a", "x", 0, 1), ""); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("a file that is no database: %v", err)
	}
	if _, err := Record(ctx, filepath.Join(bad, "h.db"), doc("a", "x", 0, 1), ""); err == nil {
		t.Error("a history under a file was made")
	}
	if _, err := Record(ctx, filepath.Join(dir, "ok.db"), doc("a", "x", 0, 1), filepath.Join(dir, "none.json")); err == nil ||
		!strings.Contains(err.Error(), "the result file") {
		t.Errorf("a result file not there: %v", err)
	}
}

func TestDefaultPath(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	get := func(k string) string { return env[k] }
	if p, _ := DefaultPath(get); p != "/home/u/.local/share/servbench/history.db" {
		t.Errorf("default %s", p)
	}
	env["XDG_DATA_HOME"] = "/data"
	if p, _ := DefaultPath(get); p != "/data/servbench/history.db" {
		t.Errorf("XDG_DATA_HOME: %s", p)
	}
	env = map[string]string{"XDG_DATA_HOME": "relative"}
	if _, err := DefaultPath(get); err == nil || !strings.Contains(err.Error(), "history.file") {
		t.Errorf("neither: %v", err)
	}
}

// A result written to a device or a named pipe is recorded by its id,
// never read: a pipe's open would wait for a writer, /dev/zero never end.
func TestResultNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	if _, err := Checksum(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a named pipe: %v", err)
	}
	db := filepath.Join(dir, "h.db")
	if added, err := Record(context.Background(), db, doc("p", "x", 0, 1), fifo); err != nil || !added {
		t.Fatalf("recorded %v: %v", added, err)
	}
	s, _ := Open(context.Background(), db)
	defer s.Close()
	if es, _ := s.List(context.Background(), Filter{}); len(es) != 1 || es[0].SHA256 != "" || es[0].Path != fifo {
		t.Errorf("%+v", es)
	}
}

// The filter that leaves the new results out of their own baseline leaves
// out only them: entries without an id, or without a checksum, stay.
func TestNotLeavesOnlyThose(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, e := range []Entry{EntryOf(doc("", "x", 0, 1), "/a.json", "sumA"), EntryOf(doc("", "x", 0, 2), "/b.json", "sumB"), EntryOf(doc("idC", "x", 0, 3), "", "")} {
		if _, err := s.Add(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	es, err := s.List(ctx, Filter{Not: []string{"", "sumB"}})
	if err != nil || len(es) != 2 || es[0].SHA256 != "sumA" || es[1].ResultID != "idC" {
		t.Errorf("%+v %v", es, err)
	}
}

// A history whose trigger never ends gives up at its deadline: the run
// that records into it ends.
func TestEndlessTriggerGivesUp(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "h.db")
	s, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.db.ExecContext(ctx, `CREATE TRIGGER endless BEFORE INSERT ON entries BEGIN
  SELECT count(*) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c); END`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	old := Deadline
	Deadline = 300 * time.Millisecond
	defer func() { Deadline = old }()
	done := make(chan error, 1)
	go func() { _, err := Record(ctx, path, doc("r", "x", 0, 1), ""); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("recorded through an endless trigger")
		}
	case <-time.After(time.Minute): // a safety net, not a measurement
		t.Fatal("Record did not give up")
	}
}

// Reading a history writes nothing, and a file that is no history is
// refused.
func TestOpenReadWritesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "h.db")
	if _, err := Record(ctx, path, doc("a", "x", 0, 1), ""); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o444)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	s, err := OpenRead(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	if es, err := s.List(ctx, Filter{}); err != nil || len(es) != 1 {
		t.Errorf("a read-only history: %d entries, %v", len(es), err)
	}
	s.Close()
	os.Chmod(dir, 0o755)
	other := filepath.Join(dir, "other.db")
	o, _ := Open(ctx, other)
	o.db.ExecContext(ctx, "DROP TABLE figures")
	o.Close()
	if _, err := OpenRead(ctx, other); err == nil || !strings.Contains(err.Error(), "not a servbench history") {
		t.Errorf("another database: %v", err)
	}
}

// An imported result's texts are kept bounded.
func TestEntryTextsBounded(t *testing.T) {
	d := doc("a", strings.Repeat("é", 1<<20), 0, 1)
	e := EntryOf(d, "", "")
	if len(e.Label) > MaxText+len("…") || !strings.HasSuffix(e.Label, "…") || !utf8.ValidString(e.Label) {
		t.Errorf("a label of %d bytes kept as %d", len(d.Label), len(e.Label))
	}
}
