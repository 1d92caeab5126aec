package cli

import (
	"strings"
	"testing"

	"github.com/servbench/servbench/props"
)

// A job's tasks as docker inspect writes them (taskFormat): slot 0 and
// exit code 0 come out empty, a failed client is retried by Swarm, and the
// first failure ends the job.
func TestParseTasks(t *testing.T) {
	for _, c := range []struct {
		name, out string
		ended     bool
		states    []string // each client's state
		err       string
	}{
		{"starting", "|node|pending||\n1|node|running||\n", false, []string{"pending", "running"}, ""},
		{"not all listed", "1|node|complete||\n", false, []string{"", "complete"}, ""},
		{"all complete", "<no value>|node|complete|<no value>|<no value>\n1|node|complete||\n", true, []string{"complete", "complete"}, ""},
		{"one failed, retried", "1|node|pending||\n1|node|failed|1|task: non-zero exit (1)\n|node|running||\n", true, []string{"running", "failed"}, ""},
		{"a retry after completing", "1|node|complete||\n1|node|failed|1|x\n|node|complete||\n", true, []string{"complete", "complete"}, ""},
		{"rejected", "|node|rejected||No such image\n1|node|running||\n", true, []string{"rejected", "running"}, ""},
		{"bad slot", "7|node|running||\n", false, nil, "task slot \"7\""},
		{"bad line", "what\n", false, nil, "unexpected line"},
	} {
		states, ended, err := parseTasks(c.out, 2)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || ended != c.ended {
			t.Errorf("%s: ended %v, %v; want %v", c.name, ended, err, c.ended)
			continue
		}
		for i, want := range c.states {
			got := ""
			if states[i] != nil {
				got = states[i].state
			}
			if got != want {
				t.Errorf("%s: client %d %q, want %q", c.name, i, got, want)
			}
		}
	}
}

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
		{"docker", map[string]string{dockerSlotEnv: "2", dockerNodeEnv: "abc"}, "2", "/results/r.client-2.json", "127.0.0.1:9466", ""},
		{"docker", map[string]string{dockerSlotEnv: "abc", dockerNodeEnv: "abc"}, "0", "/results/r.client-0.json", "127.0.0.1:9464", ""},
		{"kubernetes", map[string]string{kubernetesIndexEnv: "3"}, "3", "/results/r.client-3.json", "127.0.0.1:9464", ""},
		{"docker", map[string]string{}, "", "", "", "SERVBENCH_SLOT is not set"},
		{"docker", map[string]string{dockerSlotEnv: "x", dockerNodeEnv: "abc"}, "", "", "", "not a task slot"},
		{"kubernetes", map[string]string{kubernetesIndexEnv: "-1"}, "", "", "", "not a completion index"},
		{"nomad", nil, "", "", "", "want docker or kubernetes"},
	} {
		p := props.New()
		p.Set("metrics.addr", "127.0.0.1:9464", "test")
		p.Set("result.file", "/results/r.json", "test")
		pa := &phaseArgs{props: p, indexFrom: c.from}
		err := indexFromEnv(pa, func(k string) string { return c.env[k] })
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
