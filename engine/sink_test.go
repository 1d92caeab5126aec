package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/sink"
)

// A new output is one registration: this one writes the operation count
// to the file test.countfile names, and fails its end when test.countfail
// is set.
func init() {
	sink.Register(sink.Def{Name: "test-count", What: "the count", Properties: []string{"test.countfile", "test.countfail"},
		Read: func(p *props.Props) (sink.Output, error) {
			path := p.String("test.countfile", "")
			fail, err := p.Bool("test.countfail", false)
			if path == "" || err != nil {
				return nil, err
			}
			return countOutput{path, fail}, nil
		}})
}

type countOutput struct {
	path string
	fail bool
}

func (o countOutput) Name() string { return "test-count" }
func (o countOutput) Files() []sink.File {
	return []sink.File{{What: "test.countfile", Path: o.path}}
}
func (o countOutput) Where() sink.Where { return sink.Merged }
func (o countOutput) Open(*sink.Env) (sink.Sink, error) {
	f, err := os.Create(o.path + ".part")
	if err != nil {
		return nil, err
	}
	return &countSink{f: f, path: o.path, fail: o.fail}, nil
}

type countSink struct {
	f    *os.File
	path string
	fail bool
}

func (s *countSink) End(e sink.Ended) error {
	if s.fail {
		return errors.New("count: asked to fail")
	}
	_, err := fmt.Fprintf(s.f, "operations %d\n", e.Doc.Operations)
	return err
}

func (s *countSink) Close(keep bool) error {
	s.f.Close()
	if !keep {
		return os.Remove(s.f.Name())
	}
	return os.Rename(s.f.Name(), s.path)
}

// A registered output is read from the properties, checked against the
// others' files, opened before the run and ended after it, beside the
// built-in ones; one that fails leaves the others written.
func TestRegisteredOutput(t *testing.T) {
	dir := t.TempDir()
	count, res := filepath.Join(dir, "count.txt"), filepath.Join(dir, "r.json")
	spec := specOf(t, "recordcount", "50", "operationcount", "300", "test.countfile", count, "result.file", res)
	s, err := Check(spec)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := sink.Find[countOutput](s.Outputs); !ok {
		t.Fatalf("outputs %v: no test-count", s.Outputs)
	}
	if _, err := s.Execute(context.Background(), Writers{Stdout: io.Discard}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(count)
	d, rerr := result.ReadFile(res)
	if err != nil || rerr != nil || string(b) != fmt.Sprintf("operations %d\n", d.Operations) || d.Operations != 300 {
		t.Errorf("count file %q (%v), result %v", b, err, rerr)
	}

	// One file named by two outputs is refused at Check.
	if _, err := Check(specOf(t, "test.countfile", res, "result.file", res)); err == nil || !strings.Contains(err.Error(), "is named by both") {
		t.Errorf("one file twice: %v", err)
	}
	// A path that cannot be opened fails before the run, as bad input.
	s, err = Check(specOf(t, "recordcount", "50", "operationcount", "300", "test.countfile", filepath.Join(dir, "none", "c.txt")))
	if err != nil {
		t.Fatal(err)
	}
	var se *SpecError
	if r, err := s.Execute(context.Background(), Writers{}); r != nil || !errors.As(err, &se) {
		t.Errorf("unwritable path: result %v, error %v", r != nil, err)
	}
	// An output that fails at the end leaves the others written.
	res2 := filepath.Join(dir, "r2.json")
	s, err = Check(specOf(t, "recordcount", "50", "operationcount", "300", "test.countfile", filepath.Join(dir, "c2.txt"), "test.countfail", "true", "result.file", res2))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Execute(context.Background(), Writers{})
	if r == nil || err == nil || !strings.Contains(err.Error(), "asked to fail") {
		t.Fatalf("failing output: result %v, error %v", r != nil, err)
	}
	if _, err := result.ReadFile(res2); err != nil {
		t.Errorf("the result beside a failing output: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c2.txt")); !os.IsNotExist(err) {
		t.Errorf("the failed output's file: %v", err)
	}
}
