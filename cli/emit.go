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

// emit writes the manifests of a phase spread over clients into pa.emit,
// for an orchestrator that has them (coordinator.Orchestrator.Emit:
// kubernetes' ConfigMap of the phase's properties, Secret of those that
// hold credentials and Indexed Job, whose pods write their results to the
// volume claim the user names, for servbench merge). servbench applies
// nothing: the orchestrator's own tools do (kubectl apply -f DIR), with
// the user's own credentials.
func emit(cmd string, pa *phaseArgs, setup *engine.Setup, stdout io.Writer) (int, error) {
	c := coordinator.ConfigOf(setup)
	o, _ := coordinator.Lookup(c.Orchestrator)
	if o.Emit == nil {
		return ExitUsage, badf("%s: --emit writes the manifests of an orchestrator that has them: give --orchestrator %s (orchestrator is %s)", cmd, strings.Join(coordinator.Emitting(), " or "), c.Orchestrator)
	}
	m, err := o.Emit(setup, c)
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
		if !emitted(old) {
			if _, err := os.Lstat(old); err == nil {
				fmt.Fprintf(stdout, "left %s: not one servbench wrote (kubectl apply -f %s applies it too)\n", old, pa.emit)
			}
			return ExitOK, nil
		}
		if err := os.Remove(old); err == nil {
			fmt.Fprintf(stdout, "removed %s (this phase has no credentials)\n", old)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return ExitFailure, fmt.Errorf("remove %s: %w", old, err)
		}
	}
	return ExitOK, nil
}

// emitted reports whether path is a manifest an earlier --emit wrote: a
// regular file of at most 1 MiB labelled as servbench's (a user's own
// secret.yaml there is not removed).
func emitted(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 1<<20 {
		return false
	}
	b, err := os.ReadFile(path)
	return err == nil && strings.Contains(string(b), "app.kubernetes.io/name: servbench")
}
