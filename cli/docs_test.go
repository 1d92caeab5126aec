package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// documentedCommands are the servbench commands shown in the README and
// docs/, in order, each with the document it is in: the lines of code
// blocks (fenced or indented) that start with "servbench " or "go run
// ./cmd/servbench", continuation lines joined, comments cut.
func documentedCommands(t *testing.T, root string) (cmds [][2]string, yamls map[string]string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	files = append([]string{filepath.Join(root, "README.md")}, files...)
	yamls = map[string]string{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(raw), "\n")
		fence, lang, block := false, "", ""
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			if strings.HasPrefix(l, "```") {
				if fence && lang == "yaml" {
					if m := regexp.MustCompile(`(?m)^name: (\S+)`).FindStringSubmatch(block); m != nil {
						yamls[m[1]+".yaml"] = block
					}
				}
				fence, lang, block = !fence, strings.TrimPrefix(l, "```"), ""
				continue
			}
			if fence {
				block += l + "\n"
			}
			if !fence && !strings.HasPrefix(l, "    ") {
				continue
			}
			cmd := strings.TrimSpace(l)
			if !strings.HasPrefix(cmd, "servbench ") && !strings.HasPrefix(cmd, "go run ./cmd/servbench ") {
				continue
			}
			for strings.HasSuffix(cmd, `\`) && i+1 < len(lines) {
				i++
				cmd = strings.TrimSuffix(cmd, `\`) + " " + strings.TrimSpace(lines[i])
			}
			if c, _, found := strings.Cut(cmd, " # "); found {
				cmd = c
			}
			cmds = append(cmds, [2]string{filepath.Base(f), strings.TrimSpace(cmd)})
		}
	}
	return cmds, yamls
}

// servers are the words of a command or plan that need a database server.
var servers = regexp.MustCompile(`\$|redis|mongodb|cassandra|postgres|couchdb|dynamodb|couchbase|--orchestrator|--emit`)

// TestDocumentedCommands runs, in order, every command the README and
// docs/ show that needs no server, in a directory of its own (/tmp/ in a
// command is that directory; a plan shown as YAML is written there under
// its name): each must exit 0. Runs are cut to a second (--duration 1,
// a plan's duration: 1), so the commands are checked, not their timings.
func TestDocumentedCommands(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documented benchmarks")
	}
	root, _ := filepath.Abs(filepath.Join(".."))
	cmds, yamls := documentedCommands(t, root)
	dir := t.TempDir()
	for name, y := range yamls {
		y = regexp.MustCompile(`(?m)^duration: \d+`).ReplaceAllString(y, "duration: 1")
		os.WriteFile(filepath.Join(dir, name), []byte(y), 0o644)
	}
	t.Chdir(dir)
	ran := 0
	var skippedOutputs []string
	for _, c := range cmds {
		doc, cmd := c[0], c[1]
		fields := strings.Fields(strings.ReplaceAll(cmd, "/tmp/", dir+"/"))
		if fields[0] == "go" {
			fields = fields[3:] // go run ./cmd/servbench
		} else {
			fields = fields[1:]
		}
		skip := servers.MatchString(cmd)
		for i, f := range fields {
			if _, err := os.Stat(filepath.Join(root, f)); err == nil && !filepath.IsAbs(f) && strings.Contains(f, "/") {
				fields[i] = filepath.Join(root, f) // a file of the repository: plans/..., workloads/...
				if b, _ := os.ReadFile(fields[i]); servers.Match(b) {
					skip = true
				}
			}
		}
		for _, f := range fields {
			for _, out := range skippedOutputs {
				skip = skip || strings.HasPrefix(f, out)
			}
		}
		if skip { // and so is whatever reads its outputs
			for i, f := range fields {
				if f == "-o" && i+1 < len(fields) {
					skippedOutputs = append(skippedOutputs, fields[i+1])
				}
			}
			continue
		}
		if fields[0] == "run" || fields[0] == "load" {
			fields = append(fields, "--duration", "1")
		}
		ran++
		if code, _, e := servbench(t, fields...); code != ExitOK {
			t.Errorf("%s: %s: exit %d: %s", doc, cmd, code, e)
		}
	}
	if ran < 8 {
		t.Errorf("ran %d documented commands: the documents lost their examples, or the test its way of finding them", ran)
	}
}
