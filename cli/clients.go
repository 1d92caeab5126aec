package cli

import (
	"strconv"

	"github.com/servbench/servbench/coordinator"
)

// indexFromEnv sets the clientindex of a client that an orchestrator
// started, from the environment it gave the client (getenv), and names
// the client's result and metrics port by it as the coordinator expects:
// -o r.json becomes r.client-I.json; on Docker's host network client I
// serves metrics on the port given plus I (on Kubernetes each pod has an
// address of its own).
func indexFromEnv(pa *phaseArgs, getenv func(string) string) error {
	i, err := coordinator.IndexFromEnv(pa.indexFrom, getenv)
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
