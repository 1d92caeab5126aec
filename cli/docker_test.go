package cli

import (
	"strings"
	"testing"

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
