package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/props"
)

// A client started by an orchestrator reads its index from the
// environment the orchestrator gives it: Docker's slot (slot 0 reads as
// the node's ID) or Kubernetes' completion index; its result file and, on
// Docker's shared host network, its metrics port follow the index.
func TestIndexFromEnv(t *testing.T) {
	for _, c := range []struct {
		from      string
		env       map[string]string
		index     string
		out, addr string
		err       string
	}{
		{"docker", map[string]string{coordinator.DockerSlotEnv: "2", coordinator.DockerNodeEnv: "abc"}, "2", "/results/r.client-2.json", "127.0.0.1:9466", ""},
		{"docker", map[string]string{coordinator.DockerSlotEnv: "abc", coordinator.DockerNodeEnv: "abc"}, "0", "/results/r.client-0.json", "127.0.0.1:9464", ""},
		{"kubernetes", map[string]string{coordinator.KubernetesIndexEnv: "3"}, "3", "/results/r.client-3.json", "127.0.0.1:9464", ""},
		{"docker", map[string]string{}, "", "", "", "SERVBENCH_SLOT is not set"},
		{"docker", map[string]string{coordinator.DockerSlotEnv: "x", coordinator.DockerNodeEnv: "abc"}, "", "", "", "not a task slot"},
		{"kubernetes", map[string]string{coordinator.KubernetesIndexEnv: "-1"}, "", "", "", "not a completion index"},
		{"no-such", nil, "", "", "", "want " + strings.Join(coordinator.Templated(), " or ")},
	} {
		p := props.New()
		p.Set("metrics.addr", "127.0.0.1:9464", "test")
		p.Set("result.file", "/results/r.json", "test")
		pa := &phaseArgs{props: p, indexFrom: c.from}
		err := coordinator.ClientFromTemplate(pa.props, pa.indexFrom, func(k string) string { return c.env[k] })
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %v: %v, want %q", c.from, c.env, err, c.err)
			}
			continue
		}
		i, _ := p.Get("clientindex")
		addr, _ := p.Get("metrics.addr")
		out, _ := p.Get("result.file")
		if err != nil || i != c.index || out != c.out || addr != c.addr {
			t.Errorf("%s %v: index %q, -o %q, metrics %q, %v", c.from, c.env, i, out, addr, err)
		}
	}
}

// A docker that hangs once the clients sent their results (service logs,
// service rm: a swarm node gone) holds nothing measured: the clients'
// results are merged and written, the logs given up when the clients are
// killed, and the service removed after the result is written (a stand-in
// docker that runs the tasks as local clients: testdata/standin/docker).
func TestDockerHangingAfterTheResults(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := filepath.Abs("testdata/standin")
	if err != nil {
		t.Fatal(err)
	}
	st, out := t.TempDir(), filepath.Join(t.TempDir(), "r.json")
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("STUB_STATE", st)
	t.Setenv("STUB_RESULT", out)
	t.Setenv("SERVBENCH_TEST_EXE", exe)
	defer os.WriteFile(filepath.Join(st, "release"), nil, 0o600) // whatever fails: the stand-in ends
	type ending struct {
		code           int
		stdout, stderr string
	}
	ended := make(chan ending, 1)
	go func() {
		var o, e bytes.Buffer
		code := MainContext(context.Background(), []string{"run", "basic", "-w", "a", "-threads", "2", "--clients", "2",
			"--orchestrator", "docker", "--image", "servbench:test", "-p", "operationcount=200", "-p", "stopgrace=0.1", "-p", "coordinator.exitgrace=0.2", "-o", out}, &o, &e)
		ended <- ending{code, o.String(), e.String()}
	}()
	var end *ending
	for end == nil { // until the result is written, or the command ends
		if _, err := os.Stat(out); err == nil {
			break
		}
		select {
		case e := <-ended:
			end = &e
		case <-time.After(20 * time.Millisecond):
		}
	}
	if end != nil {
		t.Fatalf("exit %d before the result was written: %s", end.code, end.stderr)
	}
	os.WriteFile(filepath.Join(st, "release"), nil, 0o600)
	e := <-ended
	if e.code != ExitOK {
		t.Fatalf("exit %d: %s", e.code, e.stderr)
	}
	m := readDoc(t, out)
	if len(m.ClientRuns) != 2 || m.Operations != 200 {
		t.Errorf("merged: %d clients, %d operations", len(m.ClientRuns), m.Operations)
	}
	if _, err := os.Stat(filepath.Join(st, "rm-after-result")); err != nil {
		calls, _ := os.ReadFile(filepath.Join(st, "calls"))
		t.Errorf("the service was not removed after the result was written (%v); docker was called:\n%s", err, calls)
	}
}

// A docker whose error quotes the service's environment (the run's key)
// with escape sequences: the failure is said in one line, the key hidden,
// the escapes shown escaped.
func TestDockerErrorQuotingTheKey(t *testing.T) {
	bin, err := filepath.Abs("testdata/standin")
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	st := t.TempDir()
	os.WriteFile(filepath.Join(st, "release"), nil, 0o600) // nothing hangs
	t.Setenv("STUB_STATE", st)
	t.Setenv("STUB_MODE", "escerr")
	code, _, stderr := servbench(t, "run", "basic", "-w", "a", "-threads", "2", "--clients", "2",
		"--orchestrator", "docker", "--image", "servbench:test", "-p", "operationcount=200", "-o", filepath.Join(t.TempDir(), "r.json"))
	if code != ExitFailure || !strings.Contains(stderr, "Error response from daemon") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(stderr, "\x1b\x07") {
		t.Errorf("escapes reach the terminal: %q", stderr)
	}
	key := regexp.MustCompile(coordinator.KeyEnv + `=([^\s)]+)`).FindStringSubmatch(stderr)
	if key == nil || key[1] != props.Redacted {
		t.Errorf("the run's key: %q", stderr)
	}
}
