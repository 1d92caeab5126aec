package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// Admin runs setup statements through the binding, as a plan's setup
// steps give them: it opens the binding as the load phase would,
// prepares the table (created when the binding creates tables), and runs
// each statement in turn, {table} replaced by the workload's table,
// calling done after each with the server's answer and how long it took.
// It stops at the first statement that fails. The binding must be a
// db.Administrator.
func (s *Setup) Admin(ctx context.Context, statements []string, done func(i int, answer string, took time.Duration, err error)) error {
	name := s.Spec.Binding
	o := s.bindingOptions(false)
	o.Load = true
	d, err := s.Binding.Open(ctx, s.Props, o)
	if err != nil {
		var pe *props.Error
		if errors.As(err, &pe) {
			return bad(err)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	defer d.Close()
	a, ok := d.(db.Administrator)
	if !ok {
		return bad(fmt.Errorf("binding %s runs no statements: give a shell step", name))
	}
	if pr, ok := d.(db.Preparer); ok {
		if err := pr.Prepare(ctx, s.Workload.Table, true); err != nil {
			return fmt.Errorf("%s: prepare: %w", name, err)
		}
	}
	for i, st := range statements {
		t0 := time.Now()
		answer, err := a.Admin(ctx, s.Workload.Table, strings.ReplaceAll(st, "{table}", s.Workload.Table))
		done(i, db.Answer(answer), time.Since(t0), err)
		if err != nil {
			return err
		}
	}
	return nil
}
