package sink

import (
	"bufio"
	"fmt"
	"os"

	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/props"
)

// Raw data lines of measurementtype raw (measurement.raw.output_file),
// appended to the file as YCSB does.
var rawDef = Def{Name: "raw", What: "the raw samples", Properties: []string{"measurement.raw.output_file"}, Read: func(p *props.Props) (Output, error) {
	if path := p.String("measurement.raw.output_file", ""); path != "" {
		return rawOutput(path), nil
	}
	return nil, nil
}}

type rawOutput string

func (o rawOutput) Name() string { return "raw" }
func (o rawOutput) Where() Where { return OneProcess }
func (o rawOutput) Files() []File {
	return []File{{What: "measurement.raw.output_file", Path: string(o)}}
}
func (o rawOutput) Open(env *Env) (Sink, error) {
	// Appended to as YCSB does, through atomicfile's checks: a pipe
	// nobody reads is refused (its open waited for a reader without end).
	f, err := atomicfile.Append(string(o))
	if err != nil {
		return nil, fmt.Errorf("output file: %w", err)
	}
	return &rawSink{f: f, m: env.Measurements}, nil
}

type rawSink struct {
	f *os.File
	m *Options
}

func (s *rawSink) End(e Ended) error {
	bw := bufio.NewWriter(s.f)
	if err := WriteRaw(bw, e, *s.m); err != nil {
		return fmt.Errorf("raw output: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("raw output: %w", err)
	}
	return nil
}

// Close closes the file: what was appended stays, as YCSB's does.
func (s *rawSink) Close(bool) error {
	if err := s.f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", s.f.Name(), err)
	}
	return nil
}
