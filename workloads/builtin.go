// Package workloads ships servbench's built-in workload property files:
// YCSB's standard workloads A to F, unchanged in every property, and the
// update-heavy G and H, and the Pagination workload. The files in this folder are the same ones, so
// "-P workloads/workloada" and "-w a" mean the same thing.
package workloads

import (
	"bufio"
	"embed"
	"fmt"
	"slices"
	"strings"

	"github.com/servbench/servbench/props"
)

//go:embed workload? pagination
var files embed.FS

// Names returns the built-in workload names ("a" ... "h", "pagination").
func Names() []string {
	entries, _ := files.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimPrefix(e.Name(), "workload"))
	}
	slices.Sort(names)
	return names
}

// Load adds the built-in workload name ("a", "workloada", "A") to p.
func Load(p *props.Props, name string) error {
	n := strings.TrimPrefix(strings.ToLower(name), "workload")
	f, err := files.Open(fileName(n))
	if err != nil {
		return fmt.Errorf("unknown workload %q (built in: %s)", name, strings.Join(Names(), ", "))
	}
	defer f.Close()
	return p.Parse(f, "workload "+n)
}

// Title returns the first comment line's description of a workload.
func Title(name string) string {
	f, err := files.Open(fileName(name))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(strings.TrimPrefix(sc.Text(), "#"))
		if strings.HasPrefix(line, "Workload ") {
			_, rest, _ := strings.Cut(line, ": ")
			return rest
		}
	}
	return ""
}

// fileName returns the file of a built-in workload: "workloada" for "a",
// "pagination" for "pagination".
func fileName(name string) string {
	if len(name) == 1 {
		return "workload" + name
	}
	return name
}
