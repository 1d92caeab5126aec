package coordinator

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/sink"
)

// testOutput is an output registered from outside package sink, as a
// new one would be: a file whose Where the test chooses.
type testOutput struct {
	name, path string
	where      sink.Where
}

func (o testOutput) Name() string { return o.name }
func (o testOutput) Files() []sink.File {
	return []sink.File{{What: o.name, Path: o.path}}
}
func (o testOutput) Where() sink.Where                 { return o.where }
func (o testOutput) Open(*sink.Env) (sink.Sink, error) { return nil, nil }

func init() {
	for _, d := range []struct {
		name, prop string
		where      sink.Where
	}{{"test-merged", "test.merged.file", sink.Merged}, {"test-oneprocess", "test.oneprocess.file", sink.OneProcess}} {
		sink.Register(sink.Def{Name: d.name, What: d.name, Properties: []string{d.prop}, Read: func(p *props.Props) (sink.Output, error) {
			if v, ok := p.Get(d.prop); ok {
				return testOutput{d.name, v, d.where}, nil
			}
			return nil, nil
		}})
	}
}

func spreadSetup(t *testing.T, kv ...string) *engine.Setup {
	t.Helper()
	p := props.New()
	p.Set("clients", "2", "test")
	p.Set("threadcount", "2", "test")
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test")
	}
	setup, err := engine.Check(engine.Spec{Binding: "basic", Workload: "a", Properties: p})
	if err != nil {
		t.Fatal(err)
	}
	return setup
}

// A spread phase's output policy is each output's own (its Where): an
// output registered outside package sink that the coordinator writes from
// the merge has its property left out of what every client is given, by
// Run and by the Kubernetes manifests alike, with no list to add it to;
// one of one process is refused by both.
func TestSpreadOutputPolicyIsTheOutputs(t *testing.T) {
	dir := t.TempDir()
	setup := spreadSetup(t, "test.merged.file", dir+"/m.txt", "exportfile", dir+"/e.txt", "result.file", dir+"/r.json", "timeseries.file", dir+"/t.csv")
	cp := ClientProps(setup)
	for _, k := range []string{"test.merged.file", "exportfile", "result.file", "timeseries.file"} {
		if v, ok := cp.Get(k); ok {
			t.Errorf("every client is given %s=%s", k, v)
		}
	}
	if v, _ := cp.Get("threadcount"); v != "2" {
		t.Errorf("threadcount %q", v)
	}
	if err := CheckOutputs(setup); err != nil {
		t.Errorf("merged outputs refused: %v", err)
	}
	m, err := Manifests(setup, Config{Orchestrator: "kubernetes", Own: kubeConfig{Name: "x", Image: "i", Claim: "c"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m {
		if strings.Contains(string(f.Text), "test.merged.file") || strings.Contains(string(f.Text), "exportfile") {
			t.Errorf("%s gives the clients a merged output:\n%s", f.Name, f.Text)
		}
	}

	one := spreadSetup(t, "test.oneprocess.file", dir+"/o.txt")
	if err := CheckOutputs(one); err == nil || !strings.Contains(err.Error(), "test.oneprocess.file") {
		t.Errorf("CheckOutputs: %v", err)
	}
	if _, err := Manifests(one, Config{Orchestrator: "kubernetes", Own: kubeConfig{Name: "x", Image: "i", Claim: "c"}}); err == nil || !strings.Contains(err.Error(), "test.oneprocess.file") {
		t.Errorf("Manifests: %v", err)
	}
}

// A spread phase's clients' results go beside its result file, never
// beside a name of the kernel's (/dev/stdout, /dev/fd/1: standard output
// redirected to a file is a regular file there), which wrote
// /dev/stdout.client-0.json into /dev.
func TestClientResultsNeverInDev(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "stdout")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fd := strconv.Itoa(int(f.Fd())) // a regular file, as standard output redirected to one
	for _, out := range []string{"/dev/stdout", "/dev/fd/" + fd, "/proc/self/fd/" + fd} {
		if p := clientResultPaths(out, 2); p != nil {
			t.Errorf("%s: %v", out, p)
		}
	}
	out := filepath.Join(t.TempDir(), "r.json")
	if p := clientResultPaths(out, 2); len(p) != 2 || filepath.Dir(p[0]) != filepath.Dir(out) {
		t.Errorf("%s: %v", out, p)
	}
}
