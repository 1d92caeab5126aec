package engine

import (
	"errors"
	"strings"
	"testing"
	"time"

	_ "github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workloads"
)

func specOf(t *testing.T, kv ...string) Spec {
	t.Helper()
	p := props.New()
	if err := workloads.Load(p, "a"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test")
	}
	return Spec{Binding: "basic", Properties: p}
}

// The typed fields win over the properties they stand for, and the
// caller's properties are left as they were.
func TestCheckTypedFields(t *testing.T) {
	spec := specOf(t, "threadcount", "3", "target", "100")
	spec.Threads, spec.Rate, spec.Duration, spec.Warmup = 7, 2500, 90*time.Second, 1500*time.Millisecond
	s, err := Check(spec)
	if err != nil {
		t.Fatal(err)
	}
	if s.Runner.Threads != 7 || s.Runner.Rate != 2500 || s.Runner.MaxExecution != 90*time.Second {
		t.Errorf("runner config %+v", s.Runner)
	}
	if v, _ := spec.Properties.Get("threadcount"); v != "3" {
		t.Errorf("the spec's properties changed: threadcount %q", v)
	}
}

// Bad input is a *SpecError naming what is wrong.
func TestCheckBadInput(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Binding: "nosuch", Properties: specOf(t).Properties}, `unknown binding "nosuch"`},
		{specOf(t, "requestdistribution", "zipfan"), "requestdistribution"},
		{specOf(t, "recordcunt", "5"), "did you mean recordcount?"},
		{specOf(t, "measurementtype", "nope"), "measurementtype"},
		{Spec{Binding: "basic", Threads: -1}, "negative"},
	} {
		_, err := Check(c.spec)
		var se *SpecError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check: %v, want a SpecError saying %q", err, c.want)
		}
	}
}

// Another binding's property is a warning, not an error: YCSB files often
// carry several bindings' settings.
func TestCheckOtherBindingsProperties(t *testing.T) {
	s, err := Check(specOf(t, "redis.timeout", "5", "measurement.trackjvm", "true"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "measurement.trackjvm, redis.timeout") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// Check validates without building the key generators: a zipfian over
// 10^15 keys would spend days computing ζ. A plan's --dry-run relies on it.
func TestCheckBuildsNoGenerators(t *testing.T) {
	s, err := Check(specOf(t, "recordcount", "1000000000000000", "operationcount", "1000000000000000"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload.RecordCount != 1e15 || s.Workload.RequestDist != "zipfian" {
		t.Errorf("workload %+v", s.Workload)
	}
}
