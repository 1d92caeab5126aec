package cli

import (
	"fmt"
	"strconv"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/props"
)

// indexFromEnv sets the clientindex of a client that an orchestrator
// started, from the environment it gave the client (getenv), and names
// the client's result and metrics port by it as the coordinator expects:
// -o r.json becomes r.client-I.json; on Docker's host network client I
// serves metrics on the port given plus I (on Kubernetes each pod has an
// address of its own).
func indexFromEnv(pa *phaseArgs, getenv func(string) string) error {
	i, err := envIndex(pa.indexFrom, getenv)
	if err != nil {
		return err
	}
	if addr, ok := pa.props.Get("metrics.addr"); ok && pa.indexFrom == "docker" {
		pa.props.Set("metrics.addr", coordinator.ClientMetricsAddr(addr, i), "--client-index-from docker")
	}
	pa.props.Set("clientindex", strconv.Itoa(i), "--client-index-from "+pa.indexFrom)
	if out, ok := pa.props.Get("result.file"); ok {
		pa.props.Set("result.file", coordinator.ClientResultPath(out, i), "--client-index-from "+pa.indexFrom)
	}
	return nil
}

// envIndex is a client's index as the orchestrator from gives it in the
// environment.
func envIndex(from string, getenv func(string) string) (int, error) {
	var i int
	var err error
	switch from {
	case "docker":
		slot, node := getenv(coordinator.DockerSlotEnv), getenv(coordinator.DockerNodeEnv)
		if slot == "" {
			return 0, fmt.Errorf("--client-index-from docker: %s is not set (the service sets it to {{.Task.Slot}})", coordinator.DockerSlotEnv)
		}
		if slot != node { // slot 0 reads as the node's ID
			i, err = strconv.Atoi(slot)
		}
		if err != nil || i < 0 {
			return 0, fmt.Errorf("--client-index-from docker: %s=%q is not a task slot", coordinator.DockerSlotEnv, props.Cut(slot, 40))
		}
	case "kubernetes":
		v := getenv(coordinator.KubernetesIndexEnv)
		if i, err = strconv.Atoi(v); err != nil || i < 0 {
			return 0, fmt.Errorf("--client-index-from kubernetes: %s=%q is not a completion index (the Indexed Job sets it)", coordinator.KubernetesIndexEnv, props.Cut(v, 40))
		}
	default:
		return 0, fmt.Errorf("--client-index-from %q: want docker or kubernetes", props.Cut(from, 40))
	}
	return i, nil
}
