package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/atomicfile"
)

// emit writes, for orchestrator=kubernetes, the manifests of a phase spread
// over n clients into pa.emit: a ConfigMap of the phase's properties, a
// Secret of those that hold credentials (none in the ConfigMap), and an
// Indexed Job of n completions, all running at once, each pod client
// JOB_COMPLETION_INDEX of n writing its result to the volume claim the
// user names (kubernetes.claim) as result.client-I.json, for servbench
// merge. servbench applies nothing: kubectl apply -f DIR does, with the
// user's own context.
func emit(cmd string, pa *phaseArgs, setup *engine.Setup, stdout io.Writer) (int, error) {
	c := coordinator.ConfigOf(setup)
	if c.Orchestrator != "kubernetes" {
		return ExitUsage, badf("%s: --emit writes Kubernetes manifests: give --orchestrator kubernetes (orchestrator is %s)", cmd, c.Orchestrator)
	}
	if c.Claim == "" {
		return ExitUsage, usageError{pa.props.Errorf("kubernetes.claim", "name the PersistentVolumeClaim the clients write their results to")}
	}
	if c.Name == "" {
		c.Name = "servbench-" + cmd
	}
	m, err := coordinator.Manifests(setup, c)
	if err != nil {
		return ExitUsage, usageError{err}
	}
	if err := os.MkdirAll(pa.emit, 0o755); err != nil {
		return ExitUsage, badf("%s: --emit: %v", cmd, err)
	}
	// Every manifest is written whatever became of the others; each that
	// failed is named.
	secret := false
	var failed []string
	for _, f := range m {
		path := filepath.Join(pa.emit, f.Name)
		mode := os.FileMode(0o644)
		if f.Secret {
			mode, secret = 0o600, true // never readable by others, not even while written
		}
		if err := atomicfile.WriteFileMode(path, mode, func(w io.Writer) error { _, err := w.Write(f.Text); return err }); err != nil {
			failed = append(failed, fmt.Sprintf("write %s: %v", path, err))
			continue
		}
		fmt.Fprintln(stdout, path)
	}
	if failed != nil {
		return ExitFailure, errors.New(strings.Join(failed, "; "))
	}
	if !secret { // an earlier emit's credentials must not be applied with these manifests
		old := filepath.Join(pa.emit, coordinator.SecretFile)
		if err := os.Remove(old); err == nil {
			fmt.Fprintf(stdout, "removed %s (this phase has no credentials)\n", old)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return ExitFailure, fmt.Errorf("remove %s: %w", old, err)
		}
	}
	return ExitOK, nil
}
