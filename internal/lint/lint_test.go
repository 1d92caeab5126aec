// Package lint holds tests that keep the code base in shape: the layering
// of packages, and the length of functions (funclen_test.go).
package lint

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/servbench/servbench"

// layers orders servbench's packages from the bottom up. A package may
// import only packages of lower layers: dependencies point one way, along
// the data path workload → runner → binding → measurement → result →
// report. "db/*" stands for every binding folder (bindings never import
// each other). A new package must be given a layer here. Development
// tools (tools/: bench-peers, the test kubelet, YCSB report parsers) sit
// above the product: no product package imports them.
var layers = [][]string{
	{"internal/format", "internal/testcert", "internal/testaws", "internal/browsertest"}, // testcert: the TLS tests' certificates; testaws: the AWS tests' own configuration; browsertest: a headless Chromium for the pages' tests
	{"internal/inputfile"},
	{"result", "props", "generator", "report/chart", "internal/atomicfile", "spread", "stats"}, // depend on nothing of ours
	{"internal/ycsbtext", "internal/relay"},                                                    // reads YCSB's text into a result; relays a helper process's stderr, secrets hidden
	{"db", "workloads", "plan", "history"},                                                     // plan reads plans and results, never runs them; history keeps results
	{"db/jsondoc", "db/wire"},                                                                  // what bindings share: document JSON, counted connections
	{"measure", "workload/customer", "probe"},                                                  // probe samples servers, never operations
	{"db/*", "workload"},
	{"runner"},
	{"sink"},
	{"engine", "report"},
	{"coordinator", "gate"},
	{"phase"}, // one phase, here or on clients: the command line's and the plan runner's
	{"experiment", "db/dbtest"},
	{"cli"},
	{"cmd/servbench"},
	{"internal/lint"},
	{"tools/internal/peers"},
	{"tools/benchpeers", "tools/testkubelet", "tools/testcert"},
}

// layerOf returns the layer of a package path relative to the module, or
// -1 when it has none. A package named in the table is in its layer; one
// that is not, in the layer of its folder's wildcard.
func layerOf(pkg string) int {
	for i, l := range layers {
		if slices.Contains(l, pkg) {
			return i
		}
	}
	for i, l := range layers {
		if slices.Contains(l, path.Dir(pkg)+"/*") {
			return i
		}
	}
	return -1
}

// violations lists the imports of graph (package → its imports, both
// relative to the module) that break the layering.
func violations(graph map[string][]string) []string {
	var out []string
	for pkg, imports := range graph {
		lp := layerOf(pkg)
		if lp < 0 {
			out = append(out, fmt.Sprintf("%s has no layer in internal/lint", pkg))
			continue
		}
		for _, imp := range imports {
			if li := layerOf(imp); li < 0 || li >= lp {
				out = append(out, fmt.Sprintf("%s (layer %d) imports %s (layer %d)", pkg, lp, imp, li))
			}
		}
	}
	slices.Sort(out)
	return out
}

func TestViolations(t *testing.T) {
	for _, c := range []struct {
		graph map[string][]string
		want  int
	}{
		{map[string][]string{"engine": {"runner", "result", "db"}, "runner": {"workload", "measure"}}, 0},
		{map[string][]string{"result": {"runner"}}, 1},            // the result document pulls in the runner
		{map[string][]string{"plan": {"workload"}}, 1},            // checking a plan builds generators
		{map[string][]string{"db/redis": {"db/pebble", "db"}}, 1}, // a binding imports another
		{map[string][]string{"db/dbtest": {"cli"}}, 1},            // the kit goes round through the CLI
		{map[string][]string{"experiment": {"cli", "engine"}}, 1}, // so does the plan runner
		{map[string][]string{"engine": {"coordinator"}}, 1},       // the engine knows no coordinator
		{map[string][]string{"sink": {"engine"}}, 1},              // an output knows the phase only as sink.Ended
		{map[string][]string{"db/wire": {"db/redis"}}, 1},         // the bindings' shared parts know no binding
		{map[string][]string{"db/redis": {"db/wire", "db/jsondoc"}}, 0},
		{map[string][]string{"newpkg": {"result"}}, 1}, // unplaced package
		{map[string][]string{"db/dbtest": {"engine", "db"}}, 0},
	} {
		if got := violations(c.graph); len(got) != c.want {
			t.Errorf("%v: %d violations %q, want %d", c.graph, len(got), got, c.want)
		}
	}
}

// TestLayering checks servbench's own import graph.
func TestLayering(t *testing.T) {
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, module+"/...")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v: %s", err, stderr.String())
	}
	graph := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		pkg, ok := strings.CutPrefix(f[0], module+"/")
		if !ok {
			continue
		}
		graph[pkg] = nil
		for _, imp := range f[1:] {
			if rel, ok := strings.CutPrefix(imp, module+"/"); ok {
				graph[pkg] = append(graph[pkg], rel)
			}
		}
	}
	if len(graph) < 20 {
		t.Fatalf("go list found %d packages", len(graph))
	}
	for _, v := range violations(graph) {
		t.Error(v)
	}
}

// TestReadersLinkNoRunner: what only reads plans and results (report,
// plan, result) links no runner, workload, binding or driver, not even
// through a package it borrows one function from.
func TestReadersLinkNoRunner(t *testing.T) {
	for _, reader := range []string{"report", "plan", "result"} {
		out, err := exec.Command("go", "list", "-deps", module+"/"+reader).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", reader, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			rel, ok := strings.CutPrefix(dep, module+"/")
			if !ok {
				continue
			}
			if slices.Contains([]string{"runner", "workload", "measure", "generator", "db", "engine", "sink"}, rel) || strings.HasPrefix(rel, "db/") {
				t.Errorf("%s links %s", reader, rel)
			}
		}
	}
}

// binary reports why a tracked file's first bytes make it a program or
// other binary, or "" for text: an executable's magic number (ELF,
// Mach-O, PE, a shared object), or a NUL byte, which no text file holds.
func binary(head []byte) string {
	for magic, what := range map[string]string{"\x7fELF": "an ELF executable", "\xcf\xfa\xed\xfe": "a Mach-O executable",
		"\xca\xfe\xba\xbe": "a Mach-O or Java class file"} {
		if bytes.HasPrefix(head, []byte(magic)) {
			return what
		}
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return "binary (a NUL byte)"
	}
	return ""
}

func TestBinary(t *testing.T) {
	for in, want := range map[string]bool{"\x7fELF\x02\x01": true, "MZ\x90\x00": true, "package x\n": false, "a\x00b": true, "": false, "MZ is a name\n": false} {
		if got := binary([]byte(in)) != ""; got != want {
			t.Errorf("binary(%q) = %v, want %v", in, got, want)
		}
	}
}

// No binary is kept in git: programs are built, never committed.
func TestNoBinaryInGit(t *testing.T) {
	root, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	dir := strings.TrimSpace(string(root))
	out, err := exec.Command("git", "-C", dir, "ls-files", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			continue // deleted in the work tree
		}
		head := make([]byte, 8192)
		k, _ := io.ReadFull(fh, head)
		fh.Close()
		n++
		if why := binary(head[:k]); why != "" {
			t.Errorf("%s is %s: build it, do not commit it", f, why)
		}
	}
	if n < 100 {
		t.Errorf("only %d tracked files read", n)
	}
}
