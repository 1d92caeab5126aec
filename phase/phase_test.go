package phase

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	_ "github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

func check(t *testing.T, kv ...string) *engine.Setup {
	t.Helper()
	p := props.New()
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test")
	}
	s, err := engine.Check(engine.Spec{Binding: "basic", Workload: "c", Properties: p})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A phase runs on clients when it is spread or an orchestrator runs its
// one client elsewhere; a process that is one client runs it here.
func TestElsewhere(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		want bool
	}{
		{nil, false},
		{[]string{"clients", "2", "threadcount", "2"}, true},
		{[]string{"clients", "2", "threadcount", "2", "clientindex", "1"}, false},
		{[]string{"orchestrator", "docker"}, true},
	} {
		if got := Elsewhere(check(t, c.kv...)); got != c.want {
			t.Errorf("%v: %v, want %v", c.kv, got, c.want)
		}
	}
}

// A phase run here writes its result and says how it ended in one
// Ending (spread phases go through the command line's tests: their
// clients are servbench processes); interrupted first, it measured
// nothing and says so.
func TestPhaseHere(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "r.json")
	o, err := Run(context.Background(), check(t, "recordcount", "100", "operationcount", "200", "result.file", out), engine.Writers{})
	if err != nil || o.Doc == nil || o.Interrupted || o.Failed != nil || o.Unwritten != nil {
		t.Fatalf("here: %+v, %v", o, err)
	}
	if d, err := result.ReadFile(out); err != nil || d.Operations != 200 || d.ID != o.Doc.ID || o.Doc.Operations != 200 {
		t.Errorf("here: the result %v, %v; the Ending's %v", d, err, o.Doc)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o, err = Run(ctx, check(t, "recordcount", "100", "operationcount", "200", "result.file", filepath.Join(dir, "i.json")), engine.Writers{})
	if o != nil && !o.Interrupted || o == nil && !errors.Is(err, engine.ErrInterruptedBeforeMeasuring) {
		t.Errorf("interrupted first: %+v, %v", o, err)
	}
}
