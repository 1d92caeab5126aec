package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/props"
)

// environment lists where and with what every run was measured, and every
// parameter: the plan (credentials hidden) and each deployment's properties in
// force, so the page can be reproduced on its own.
func (s *Set) environment() Section {
	sec := Section{ID: "environment", Title: "Environment and parameters"}
	env := &Table{Name: "environment", Title: "Machines the runs were measured on",
		Header: []string{"runs", "servbench", "commit", "Go", "OS/arch", "kernel", "CPU", "cores", "GOMAXPROCS", "memory GiB", "host"}}
	type row struct {
		cells []string
		n     int
	}
	rows := map[string]*row{}
	var order []string
	for _, r := range s.Runs {
		e := r.Doc.Environment
		cells := []string{e.ServbenchVersion, e.ServbenchCommit, e.GoVersion, e.OS + "/" + e.Arch, e.Kernel, e.CPUModel,
			strconv.Itoa(e.Cores), strconv.Itoa(e.GOMAXPROCS), fmt.Sprintf("%.1f", float64(e.MemoryBytes)/(1<<30)), e.Hostname}
		k := strings.Join(cells, "\x00")
		if rows[k] == nil {
			rows[k] = &row{cells: cells}
			order = append(order, k)
		}
		rows[k].n++
	}
	for _, k := range order {
		env.Rows = append(env.Rows, append([]string{strconv.Itoa(rows[k].n)}, rows[k].cells...))
	}
	deployments := &Table{Name: "deployments", Title: "Deployments", Header: []string{"deployment", "system", "binding", "driver", "server", "server settings (as the plan states them)", "query model", "nodes", "price per hour"}}
	props := &Table{Name: "properties", Title: "Properties in force (first run of each deployment and workload; credentials hidden)", Header: []string{"deployment", "workload", "property", "value"}}
	seen := map[string]bool{}
	for _, r := range s.Runs {
		if !seen[r.Deployment] {
			seen[r.Deployment] = true
			nodes, price := "", ""
			if r.Nodes > 0 {
				nodes = strconv.Itoa(r.Nodes)
			}
			if r.Price > 0 {
				price = strconv.FormatFloat(r.Price, 'f', 4, 64)
			}
			deployments.Rows = append(deployments.Rows, []string{r.Deployment, r.System, r.Binding, r.Doc.Driver, r.Doc.Server, serverSettings(r.Doc.ServerSettings), r.Doc.QueryModel, nodes, price})
		}
		k := r.Deployment + "\x00" + r.Workload
		if seen[k] {
			continue
		}
		seen[k] = true
		keys := make([]string, 0, len(r.Doc.Properties))
		for p := range r.Doc.Properties {
			keys = append(keys, p)
		}
		sort.Strings(keys)
		for _, p := range keys {
			props.Rows = append(props.Rows, []string{r.Deployment, wlName(r.Workload), p, r.Doc.Properties[p]})
		}
	}
	sec.Tables = []*Table{env, deployments, props}
	if s.PlanText != "" {
		sec.Pre = plan.Redact(s.PlanText)
	}
	return sec
}

// serverSettings are a deployment's server settings as "name: value"
// pairs, in name order.
func serverSettings(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + ": " + props.RedactValue(k, m[k]) // as a result of an earlier version may have written it
	}
	return strings.Join(parts, "; ")
}
