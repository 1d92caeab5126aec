package coordinator

import (
	"strings"
	"testing"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
)

// How a spread phase's clients are started is read once, by the engine's
// Check (this package's extension), and refused there with every other
// property: an unknown orchestrator, a name Kubernetes refuses, hosts
// without ssh.
func TestConfigReadByCheck(t *testing.T) {
	check := func(kv ...string) (*engine.Setup, error) {
		p := props.New()
		for i := 0; i+1 < len(kv); i += 2 {
			p.Set(kv[i], kv[i+1], "test")
		}
		return engine.Check(engine.Spec{Binding: "basic", Properties: p})
	}
	s, err := check("clients", "2", "threadcount", "2", "orchestrator", "docker", "docker.image", "img", "coordinator.timeout", "7", "coordinator.exitgrace", "0.5")
	if err != nil {
		t.Fatal(err)
	}
	if c := ConfigOf(s); c.Orchestrator != "docker" || c.Own != (dockerConfig{Image: "img"}) || c.Timeout.Seconds() != 7 || c.ExitGrace.Seconds() != 0.5 {
		t.Errorf("config %+v", c)
	}
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"clients", "2", "threadcount", "2", "orchestrator", "swarm"}, `property orchestrator: "swarm" is not one of ` + strings.Join(Orchestrators(), ", ")},
		{[]string{"clients", "2", "threadcount", "2", "kubernetes.name", "Bench_1"}, "kubernetes.name"},
		{[]string{"clients", "2", "threadcount", "2", "ssh.hosts", "127.0.0.1"}, "property ssh.hosts: only the ssh orchestrator reads it: give --orchestrator ssh"},
		{[]string{"clients", "2", "threadcount", "2", "coordinator.url", "http://127.0.0.1:1"}, "want https://host:port"},
		{[]string{"clients", "2", "threadcount", "2", "coordinator.timout", "5"}, "did you mean coordinator.timeout?"},
		{[]string{"clients", "2", "threadcount", "2", "coordinator.exitgrace", "0"}, "property coordinator.exitgrace: 0 is outside 0.1..3600"},
	} {
		if _, err := check(c.kv...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.kv, err, c.want)
		}
	}
}
