package phase

import (
	"errors"
	"fmt"
	"testing"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/sink"
)

// An ending says which outputs were not written by their names, from a
// run here (sink.NotWritten) and from a spread phase's merged outputs
// (coordinator.OutputError), also wrapped: the plan runner enters a run
// whose result file ("json") was not written as failed, not done.
func TestEndingNotWrittenByName(t *testing.T) {
	here := &sink.NotWritten{Names: []string{"json"}, Errs: []error{errors.New("disk full")}}
	spread := (&coordinator.OutputError{}).Add("the report", errors.New("disk full"))
	spread.Merged = sink.NotWritten{Names: []string{"text"}, Errs: []error{errors.New("disk full")}}
	for _, c := range []struct {
		err        error
		json, text bool
	}{
		{nil, false, false},
		{here, true, false},
		{fmt.Errorf("run: %w", here), true, false},
		{spread, false, true},
		{errors.New("another"), false, false},
	} {
		o := &Ending{Unwritten: c.err}
		if o.NotWritten("json") != c.json || o.NotWritten("text") != c.text {
			t.Errorf("%v: json %v text %v, want %v %v", c.err, o.NotWritten("json"), o.NotWritten("text"), c.json, c.text)
		}
	}
}
