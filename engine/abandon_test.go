package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

var registerStalling sync.Once

// stallingNow is the stalling binding's latest database (one test at a
// time uses it).
var stallingNow struct {
	sync.Mutex
	d *stallingDB
}

// stalling is a binding whose server stops answering after the run
// begins: its sampling (a server-side source) answers the baseline, then
// never again, whatever its context; closing it never ends either.
type stalling struct{}

func (stalling) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	b, _ := db.Lookup("basic")
	d, err := b.Open(ctx, p, o)
	if err != nil || d == nil {
		return d, err
	}
	s := &stallingDB{DB: d, stalled: make(chan struct{}), release: make(chan struct{})}
	stallingNow.Lock()
	stallingNow.d = s
	stallingNow.Unlock()
	return s, nil
}

func (stalling) Summary() string { return "stops answering its sampling and its close" }

type stallingDB struct {
	db.DB
	mu      sync.Mutex
	samples int
	stalled chan struct{} // closed when a sample is stuck
	release chan struct{} // closed by the test: everything stuck ends
}

func (s *stallingDB) Sample(context.Context) (db.Sample, error) {
	s.mu.Lock()
	s.samples++
	n := s.samples
	if n == 2 {
		close(s.stalled)
	}
	s.mu.Unlock()
	if n > 1 {
		<-s.release // no context reaches it
	}
	return db.Sample{}, nil
}

func (s *stallingDB) Close() error {
	<-s.release
	return s.DB.Close()
}

// A run whose server stalls on every connection, its server-side sampling
// and its close included, is cancelled (a first Ctrl-C) and abandoned (a
// second): its result is written at once, nothing waiting on the server
// any more, the last sample cut short said and not counted as failed.
func TestAbandonedRunWritesWhatItMeasured(t *testing.T) {
	registerStalling.Do(func() { db.Register("engine-test-stalling", stalling{}) })
	defer func(g time.Duration) { stopGraceSample = g }(stopGraceSample)
	stopGraceSample = time.Hour // only the abandon ends the wait for the last sample
	out := filepath.Join(t.TempDir(), "r.json")
	spec := specOf(t, "recordcount", "10", "operationcount", "0", "server.interval", "0.1", "result.file", out)
	spec.Binding, spec.Duration = "engine-test-stalling", Give(time.Hour)
	log := &lockedLog{}
	spec.Log = log
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	abandon := make(chan struct{})
	type answer struct {
		res *Result
		err error
	}
	done := make(chan answer, 1)
	ended := finalSeen(make(chan struct{}))
	go func() {
		res, err := Run(runner.WithAbandon(ctx, abandon), spec, ended)
		done <- answer{res, err}
	}()
	var d *stallingDB
	for d == nil {
		stallingNow.Lock()
		d = stallingNow.d
		stallingNow.Unlock()
		time.Sleep(time.Millisecond)
	}
	defer close(d.release)
	<-d.stalled
	cancel() // the first signal: the run stops, its threads end
	<-ended  // the measurement ended: now the last sample waits
	close(abandon)
	var a answer
	select {
	case a = <-done:
	case <-time.After(30 * time.Second): // generous: the abandoned run waits for nothing
		t.Fatal("the abandoned run still waits for its server (the last sample or the close)")
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.res.StuckThreads != 0 || a.res.CloseErr != nil {
		t.Errorf("%d threads stuck, close %v: want none, and the close left unfinished said, not an error", a.res.StuckThreads, a.res.CloseErr)
	}
	if a.res.Reason != result.Interrupted {
		t.Errorf("reason %q, want interrupted", a.res.Reason)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the result is not written: %v", err)
	}
	if !strings.Contains(string(b), `"server_side"`) {
		t.Errorf("the result has no server side: %s", b)
	}
	for _, src := range a.res.Doc().ServerSide.Sources {
		if src.Error != "" || src.Failed != 0 {
			t.Errorf("source %s: %d failed (%q): a sample cut short by the abandon is not a failure", src.Name, src.Failed, src.Error)
		}
	}
	said := log.String()
	for _, want := range []string{"cut short: the run was abandoned", "closing left unfinished"} {
		if !strings.Contains(said, want) {
			t.Errorf("not said %q:\n%s", want, said)
		}
	}
}

// finalSeen is closed when the run's last interval is observed.
type finalSeen chan struct{}

func (f finalSeen) Interval(p runner.Progress) {
	if p.Final {
		close(f)
	}
}

// lockedLog is a run's log, read by the test.
type lockedLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
