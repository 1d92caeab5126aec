package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/inputfile"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/props"
)

// hiddenIn reports whether kept is raw with some of its words hidden
// (each props.Redacted standing for a piece of one line), and returns the
// pieces hidden. A word is matched at its first place after the piece
// before it.
func hiddenIn(kept, raw string) ([]string, bool) {
	parts := strings.Split(kept, props.Redacted)
	if len(parts) < 2 || !strings.HasPrefix(raw, parts[0]) {
		return nil, false
	}
	var hidden []string
	pos := len(parts[0])
	for _, next := range parts[1:] {
		end := len(raw)
		if next != "" {
			if pos+1 > len(raw) {
				return nil, false
			}
			i := strings.Index(raw[pos+1:], next) // a hidden piece is never empty
			if i < 0 {
				return nil, false
			}
			end = pos + 1 + i
		}
		v := raw[pos:end]
		if v == "" || strings.ContainsAny(v, "\n") {
			return nil, false
		}
		hidden = append(hidden, v)
		pos = end + len(next)
	}
	if pos != len(raw) {
		return nil, false
	}
	return hidden, true
}

// learned makes the secrets red knows the plan's: when red hides more of
// the plan's text than DIR/plan.yaml does (a setup step's output showed a
// value that stood in its command, or in another step, in clear), the copy
// of the plan, the setup log and its text are written again with them
// hidden, and every later writer hides them too.
func (r *Runner) learned(ctx context.Context, red *props.Redactor, log *plan.SetupLog) error {
	known := r.secrets.Count()
	r.secrets.Merge(red) // known from here on, wherever they are written
	if r.secrets.Count() == known {
		return nil
	}
	if text := red.HideKnown(r.kept); text != r.kept {
		if err := atomicfile.WriteFile(filepath.Join(r.dir, "plan.yaml"), func(w io.Writer) error { _, err := io.WriteString(w, text); return err }); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		r.kept = text
	}
	// What the runs and loads wrote before (a result's properties, its
	// text report and log) is written again with them hidden.
	for _, sub := range []string{"runs", "loads"} {
		err := filepath.WalkDir(filepath.Join(r.dir, sub), func(path string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
				return nil
			}
			return hideIn(ctx, path, r.secrets)
		})
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	for i := range log.Steps {
		e := &log.Steps[i]
		e.Text, e.Answer, e.Error = red.HideKnown(e.Text), red.HideKnown(e.Answer), red.HideKnown(e.Error)
	}
	if err := plan.WriteSetup(r.dir, log); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	path := filepath.Join(r.dir, "setup.log")
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return hideIn(ctx, path, r.secrets)
}

// hideIn writes path again with every secret red knows hidden, when it
// holds one: at most 512 MiB of it read (a result's bound).
func hideIn(ctx context.Context, path string, red *props.Redactor) error {
	b, err := inputfile.Read(ctx, path, 512<<20)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	text := red.HideKnown(string(b))
	if text == string(b) {
		return nil
	}
	return atomicfile.WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, text); return err })
}

// checkInputs fails when a file the plan reads (the plan, its workload
// files, its reference) is one DIR's writers write: the plan's copy, the
// index, the setup logs, the reference's copy, or a file under runs/ or
// data/. DIR/plan.yaml given as the plan would be written over with its
// secrets hidden; a workload file DIR/setup.log would grow with the log.
func (r *Runner) checkInputs() error {
	inputs := []string{r.pl.File, r.pl.Reference}
	for _, w := range r.pl.Workloads {
		inputs = append(inputs, w.File)
	}
	outputs := []string{"plan.yaml", "index.json", plan.SetupFile, "setup.log", plan.ReferenceFile}
	for i, o := range outputs {
		outputs[i] = filepath.Join(r.dir, o)
	}
	if i, j, dup := atomicfile.Collide(outputs, inputs); dup && j >= len(outputs) {
		return fmt.Errorf("bench: %s is among the files bench writes in %s (%s): give the plan's own files, or another -o", inputs[j-len(outputs)], r.dir, filepath.Base(outputs[i]))
	}
	for _, sub := range []string{"runs", "data", "loads"} {
		d := atomicfile.Target(filepath.Join(r.dir, sub))
		for _, in := range inputs {
			if in != "" && strings.HasPrefix(atomicfile.Target(in), d+string(filepath.Separator)) {
				return fmt.Errorf("bench: %s is under %s, where bench writes its runs: give the plan's own files, or another -o", in, d)
			}
		}
	}
	return nil
}
