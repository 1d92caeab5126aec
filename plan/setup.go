package plan

import (
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Step is one setup step (setup: of a deployment or of a workload): a
// statement in the deployment's own administrative language, run through
// its binding (a SQL, CQL or SQL++ statement, a MongoDB command as JSON, a
// Redis command, DynamoDB's UpdateTable of capacity as JSON), or a shell
// command for everything else. {table} in a statement stands for the
// data set's table.
type Step struct {
	Statement string
	Shell     string
	// Before is when the step runs: BeforeLoad (once before each data
	// set's load), BeforeEach (before each workload's runs), or a
	// workload's name (before that workload's runs).
	Before string
	// Binding, in a workload's setup, is the binding whose deployments
	// run the statement (a shell step with none runs on every one).
	Binding string
	Line    int
}

// When a step runs.
const (
	BeforeLoad = "load"
	BeforeEach = "each workload"
)

// Text is the step as its log names it: "statement: CREATE INDEX ...".
func (s *Step) Text() string {
	if s.Shell != "" {
		return "shell: " + s.Shell
	}
	return "statement: " + s.Statement
}

// maxStepBytes bounds a step's text.
const maxStepBytes = 64 << 10

// parseSteps reads a setup: list. In a workload's entry (workload true)
// a step has no before: and a statement names its binding.
func parseSteps(v *yaml.Node, errf errFunc, workload bool) ([]Step, error) {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return nil, errf(v.Line, "setup: want a list of steps ({statement: ...} or {shell: ...}, with before: load, each workload or a workload's name)")
	}
	var steps []Step
	for _, n := range v.Content {
		st := Step{Line: n.Line}
		if !workload {
			st.Before = BeforeLoad
		}
		if n.Kind != yaml.MappingNode {
			return nil, errf(n.Line, "a setup step is a mapping: {statement: ...} or {shell: ...}")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			var dst *string
			switch k.Value {
			case "statement":
				dst = &st.Statement
			case "shell":
				dst = &st.Shell
			case "before":
				if workload {
					return nil, errf(k.Line, "a workload's setup step runs before that workload: it has no before:")
				}
				dst = &st.Before
			case "binding":
				if !workload {
					return nil, errf(k.Line, "a deployment's setup step runs with its binding: it has no binding:")
				}
				dst = &st.Binding
			default:
				return nil, errf(k.Line, "setup step: unknown key %q (known: statement, shell, %s)", short(k.Value), map[bool]string{false: "before", true: "binding"}[workload])
			}
			if val.Kind != yaml.ScalarNode || val.Tag == "!!null" {
				return nil, errf(val.Line, "setup step %s: want text", k.Value)
			}
			*dst = val.Value
			if len(val.Value) > maxStepBytes {
				return nil, errf(val.Line, "setup step %s: %d bytes, at most %d", k.Value, len(val.Value), maxStepBytes)
			}
		}
		switch {
		case (st.Statement == "") == (st.Shell == ""):
			return nil, errf(n.Line, "a setup step has a statement or a shell command, one of them")
		case workload && st.Statement != "" && st.Binding == "":
			return nil, errf(n.Line, "a workload's setup statement names the binding whose deployments run it (binding: ...)")
		case strings.TrimSpace(st.Statement+st.Shell) == "":
			return nil, errf(n.Line, "a setup step is blank")
		}
		steps = append(steps, st)
	}
	return steps, nil
}

// checkSteps requires each deployment step's before: to be load, each
// workload or a workload of the plan.
func (p *Plan) checkSteps(errf errFunc) error {
	for _, t := range p.Deployments {
		for _, st := range t.Setup {
			if st.Before == BeforeLoad || st.Before == BeforeEach {
				continue
			}
			if p.workloadNamed(st.Before) == nil {
				return errf(st.Line, "setup step before %q: use load, each workload or one of the plan's workloads", short(st.Before))
			}
		}
	}
	return nil
}

// workloadNamed finds a workload by its name as written or its base name.
func (p *Plan) workloadNamed(name string) *Workload {
	for i := range p.Workloads {
		if w := &p.Workloads[i]; w.Name == name || filepath.Base(w.Name) == name {
			return w
		}
	}
	return nil
}

// StepsBefore are the steps deployment t runs before workload w's runs,
// in order: its own (before each workload, or before w), then w's for
// its binding.
func (p *Plan) StepsBefore(t *Deployment, w *Workload) []Step {
	var out []Step
	for _, st := range t.Setup {
		if st.Before == BeforeEach || (st.Before != BeforeLoad && p.workloadNamed(st.Before) == w) {
			out = append(out, st)
		}
	}
	for _, st := range w.Setup {
		if st.Binding == "" || st.Binding == t.Binding {
			out = append(out, st)
		}
	}
	return out
}

// StepsBeforeLoad are the steps deployment t runs before each load.
func (t *Deployment) StepsBeforeLoad() []Step {
	var out []Step
	for _, st := range t.Setup {
		if st.Before == BeforeLoad {
			out = append(out, st)
		}
	}
	return out
}
