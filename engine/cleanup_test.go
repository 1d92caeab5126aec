package engine

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	_ "github.com/servbench/servbench/db/pebble"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/workloads"
)

// countKeys counts the records of table in the Pebble store at dir.
func countKeys(t *testing.T, dir string) int {
	t.Helper()
	b, err := db.Lookup("pebble")
	if err != nil {
		t.Fatal(err)
	}
	d, err := b.Open(context.Background(), props.Of("pebble.dir", dir), db.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	var rs db.RecordSet
	if err := d.Scan(context.Background(), "usertable", "", 1_000_000, nil, &rs); err != nil {
		t.Fatal(err)
	}
	return rs.Len()
}

// With cleanupinserts, a run of workload D leaves the store as it was
// loaded (its inserts removed after it, outside its measurements), so
// that the next run on the load starts where this one did; without, its
// inserts stay.
func TestCleanupInserts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	spec := func(phase Phase, kv ...string) Spec {
		p := props.New()
		workloads.Load(p, "d")
		p.Set("pebble.dir", dir, "test")
		for i := 0; i+1 < len(kv); i += 2 {
			p.Set(kv[i], kv[i+1], "test")
		}
		return Spec{Binding: "pebble", Properties: p, Phase: phase, Records: 300, Operations: 2000, Threads: 2}
	}
	if _, err := Run(context.Background(), spec(LoadPhase)); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, dir); n != 300 {
		t.Fatalf("loaded %d records", n)
	}
	for rep := 0; rep < 2; rep++ {
		res, err := Run(context.Background(), spec(RunPhase, "cleanupinserts", "true"))
		if err != nil || res.Err != nil {
			t.Fatal(err, res.Err)
		}
		inserts := res.Doc().Ops
		ok := false
		for _, o := range inserts {
			ok = ok || o.Name == "INSERT" && o.Outcomes["OK"] > 0
		}
		if n := countKeys(t, dir); !ok || n != 300 {
			t.Errorf("repetition %d: %d records after a run that inserted (%v), want the 300 loaded", rep, n, ok)
		}
	}
	if _, err := Run(context.Background(), spec(RunPhase)); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, dir); n <= 300 {
		t.Errorf("without cleanupinserts: %d records, want the run's inserts too", n)
	}
}

// A run whose recordcount is below the records loaded inserts over loaded
// records: cleanupinserts removes none of them (it deleted them and called
// them the run's inserts) and says why; a binding that cannot tell a
// missing key keeps the run's inserts and says so.
func TestCleanupInsertsOnlyTheRunsOwn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	spec := func(phase Phase, records int64, kv ...string) Spec {
		p := props.New()
		workloads.Load(p, "d")
		p.Set("pebble.dir", dir, "test")
		for i := 0; i+1 < len(kv); i += 2 {
			p.Set(kv[i], kv[i+1], "test")
		}
		return Spec{Binding: "pebble", Properties: p, Phase: phase, Records: records, Operations: 2000, Threads: 2}
	}
	if _, err := Run(context.Background(), spec(LoadPhase, 500)); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sp := spec(RunPhase, 100, "cleanupinserts", "true")
	sp.Log = &log
	res, err := Run(context.Background(), sp)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	if n := countKeys(t, dir); n < 500 {
		t.Errorf("%d records after a run of recordcount 100 on 500 loaded, want every loaded one kept", n)
	}
	if !strings.Contains(log.String(), "is there before the run") {
		t.Errorf("the run does not say why its inserts stay: %s", log.String())
	}

	log.Reset()
	p := props.New()
	workloads.Load(p, "d")
	p.Set("cleanupinserts", "true", "test")
	if _, err := Run(context.Background(), Spec{Binding: "basic", Properties: p, Records: 10, Operations: 100, Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "cannot tell its inserts") {
		t.Errorf("basic, which stores nothing: %s", log.String())
	}
}

var registerStuckDelete sync.Once

// stuckDeleteNow is the stuckDelete binding's latest database.
var stuckDeleteNow struct {
	sync.Mutex
	d *stuckDeleteDB
}

// stuckDelete is Pebble whose deletes never end, whatever their context
// (a server that stops answering once the run is over).
type stuckDelete struct{}

func (stuckDelete) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	b, _ := db.Lookup("pebble")
	d, err := b.Open(ctx, p, o)
	if err != nil || d == nil || o.CheckOnly {
		return d, err
	}
	s := &stuckDeleteDB{DB: d, deleting: make(chan struct{}), release: make(chan struct{})}
	stuckDeleteNow.Lock()
	stuckDeleteNow.d = s
	stuckDeleteNow.Unlock()
	return s, nil
}

func (stuckDelete) Summary() string { return "pebble whose deletes never answer" }

type stuckDeleteDB struct {
	db.DB
	once     sync.Once
	deleting chan struct{} // closed at the first delete
	release  chan struct{} // closed by the test
}

func (s *stuckDeleteDB) Delete(context.Context, string, string) error {
	s.once.Do(func() { close(s.deleting) })
	<-s.release
	return nil
}

// The removal of a run's inserts after it (cleanupinserts) gives way when
// the run is abandoned (a second Ctrl-C) while a delete waits on its
// server: the results are returned at once, the removal said unfinished.
func TestCleanupInsertsAbandoned(t *testing.T) {
	registerStuckDelete.Do(func() { db.Register("engine-test-stuck-delete", stuckDelete{}) })
	dir := filepath.Join(t.TempDir(), "store")
	spec := func(phase Phase, kv ...string) Spec {
		p := props.New()
		workloads.Load(p, "d")
		p.Set("pebble.dir", dir, "test")
		for i := 0; i+1 < len(kv); i += 2 {
			p.Set(kv[i], kv[i+1], "test")
		}
		return Spec{Binding: "pebble", Properties: p, Phase: phase, Records: 300, Operations: 200, Threads: 2}
	}
	if _, err := Run(context.Background(), spec(LoadPhase)); err != nil {
		t.Fatal(err)
	}
	s := spec(RunPhase, "cleanupinserts", "true")
	s.Binding = "engine-test-stuck-delete"
	log := &lockedLog{}
	s.Log = log
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	abandon := make(chan struct{})
	type answer struct {
		res *Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := Run(runner.WithAbandon(ctx, abandon), s)
		done <- answer{res, err}
	}()
	var d *stuckDeleteDB
	for d == nil {
		stuckDeleteNow.Lock()
		d = stuckDeleteNow.d
		stuckDeleteNow.Unlock()
		time.Sleep(time.Millisecond)
	}
	defer close(d.release)
	<-d.deleting
	cancel()
	close(abandon)
	var a answer
	select {
	case a = <-done:
	case <-time.After(30 * time.Second): // generous: the abandoned run waits for nothing
		t.Fatal("the abandoned run still waits for its deletes")
	}
	if a.err != nil || a.res == nil {
		t.Fatalf("%v %v", a.res, a.err)
	}
	if !strings.Contains(log.String(), "cleanupinserts: left unfinished") {
		t.Errorf("not said: %s", log)
	}
}
