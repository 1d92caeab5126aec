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
	"github.com/servbench/servbench/workload"
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
		return Spec{Binding: "pebble", Properties: p, Phase: phase, Records: 300, Operations: Give[int64](2000), Threads: 2}
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
		return Spec{Binding: "pebble", Properties: p, Phase: phase, Records: records, Operations: Give[int64](2000), Threads: 2}
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
	if _, err := Run(context.Background(), Spec{Binding: "basic", Properties: p, Records: 10, Operations: Give[int64](100), Log: &log}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "cannot tell its inserts") {
		t.Errorf("basic, which stores nothing: %s", log.String())
	}
}

// A load with a gap (records 0..499, then 550..1999) and a run of
// recordcount 500 whose inserts go past the gap: cleanupinserts removes
// the inserts that filled the gap and none of the loaded records the run's
// later inserts wrote over (it read only the first insert key and deleted
// every key the run inserted), and says why those stay.
func TestCleanupInsertsKeepsRecordsPastAGap(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "store")
	spec := func(phase Phase, records, ops int64, kv ...string) Spec {
		p := props.New()
		workloads.Load(p, "d")
		p.Set("pebble.dir", dir, "test")
		for i := 0; i+1 < len(kv); i += 2 {
			p.Set(kv[i], kv[i+1], "test")
		}
		return Spec{Binding: "pebble", Properties: p, Phase: phase, Records: records, Operations: Give[int64](ops), Threads: 2}
	}
	if _, err := Run(context.Background(), spec(LoadPhase, 500, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), spec(LoadPhase, 2000, 0, "insertstart", "550", "insertcount", "1450")); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, dir); n != 1950 {
		t.Fatalf("loaded %d records, want 1950", n)
	}
	var log strings.Builder
	sp := spec(RunPhase, 500, 2000, "cleanupinserts", "true", "readproportion", "0.5", "insertproportion", "0.5")
	sp.Log = &log
	res, err := Run(context.Background(), sp)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	if n := countKeys(t, dir); n != 1950 {
		t.Errorf("%d records after the run and its cleanup, want the 1950 loaded", n)
	}
	loaded := append(keysOf(0, 500), keysOf(550, 2000)...)
	if missing := unreadable(t, dir, loaded); len(missing) > 0 {
		t.Errorf("%d loaded records deleted, e.g. %s; log: %s", len(missing), missing[0], log.String())
	}
	if !strings.Contains(log.String(), "removed the 50 keys the run inserted") || !strings.Contains(log.String(), "was there before it") {
		t.Errorf("the run does not say which of its inserts it removed and why the others stay: %s", log.String())
	}
}

// A run whose inserts go past the keys read before it (probeCap) removes
// only those and says that the others stay.
func TestCleanupInsertsBeyondTheProbedKeysStay(t *testing.T) {
	defer func(c int64) { probeCap = c }(probeCap)
	probeCap = 20
	dir := filepath.Join(t.TempDir(), "store")
	spec := func(phase Phase, kv ...string) Spec {
		p := props.New()
		workloads.Load(p, "d")
		p.Set("pebble.dir", dir, "test")
		for i := 0; i+1 < len(kv); i += 2 {
			p.Set(kv[i], kv[i+1], "test")
		}
		return Spec{Binding: "pebble", Properties: p, Phase: phase, Records: 300, Operations: Give[int64](400), Threads: 2}
	}
	if _, err := Run(context.Background(), spec(LoadPhase)); err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	sp := spec(RunPhase, "cleanupinserts", "true", "readproportion", "0", "insertproportion", "1")
	sp.Log = &log
	res, err := Run(context.Background(), sp)
	if err != nil || res.Err != nil {
		t.Fatal(err, res.Err)
	}
	if n := countKeys(t, dir); n != 300+400-20 {
		t.Errorf("%d records after 400 inserts of which the first 20 were read absent before the run, want %d", n, 300+400-20)
	}
	if missing := unreadable(t, dir, keysOf(0, 300)); len(missing) > 0 {
		t.Errorf("%d loaded records deleted", len(missing))
	}
	want := "the run's last 380 of 400 inserts stay: only its first 20 insert keys were read before it, of the 400"
	if !strings.Contains(log.String(), want) || !strings.Contains(log.String(), "removed the 20 keys") {
		t.Errorf("log does not say %q: %s", want, log.String())
	}
}

// A run with no operationcount may insert any number: it reads probeCap
// keys and says that inserts past them stay.
func TestInsertBoundUnknownForATimedRun(t *testing.T) {
	for _, c := range []struct {
		s     Setup
		n     int64
		known bool
	}{
		{Setup{Runner: runnerConfig(1000, 0, 0)}, 1000, true},
		{Setup{Runner: runnerConfig(1000, 50, 0)}, 1050, true},
		{Setup{Runner: runnerConfig(1000, 0, time.Second)}, 0, false},
		{Setup{Runner: runnerConfig(0, 0, 0)}, 0, false},
	} {
		if n, known := c.s.insertBound(); n != c.n || known != c.known {
			t.Errorf("%+v: insertBound %d %v, want %d %v", c.s.Runner, n, known, c.n, c.known)
		}
	}
}

func runnerConfig(ops, warmOps int64, warm time.Duration) runner.Config {
	return runner.Config{OpCount: ops, WarmupOps: warmOps, WarmupTime: warm}
}

// keysOf is the keys of records lo..hi-1 as workload D (hashed, no
// padding) names them.
func keysOf(lo, hi int64) []string {
	var keys []string
	for k := lo; k < hi; k++ {
		keys = append(keys, string(workload.AppendKey(nil, k, 1, false)))
	}
	return keys
}

// unreadable is the keys the Pebble store at dir does not read.
func unreadable(t *testing.T, dir string, keys []string) []string {
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
	var out []string
	for _, k := range keys {
		if err := d.Read(context.Background(), "usertable", k, nil, new(db.Record)); err != nil {
			out = append(out, k)
		}
	}
	return out
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
		return Spec{Binding: "pebble", Properties: p, Phase: phase, Records: 300, Operations: Give[int64](200), Threads: 2}
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
