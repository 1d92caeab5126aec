package sink

import (
	"fmt"
	"io"

	"github.com/servbench/servbench/internal/atomicfile"
)

// Process is an output of the process itself rather than of the phase:
// a record of the client's own work (the command line's --cpuprofile, a
// CPU profile, and --trace, an execution trace), started when the
// phase's outputs are opened and stopped when they end. It is one of the
// phase's outputs (Read's extra), so its file is checked with theirs (two
// outputs naming one file are refused, a pipe nobody reads too) and a
// write that fails, one its recorder drops too (a full disk or device),
// fails it by name while the others are written. A phase spread over
// clients refuses it (Where: OneProcess). flag names it in messages.
func Process(flag, path string, start func(io.Writer) error, stop func()) Output {
	return &processOutput{flag: flag, path: path, start: start, stop: stop}
}

type processOutput struct {
	flag, path string
	start      func(io.Writer) error
	stop       func()
}

func (o *processOutput) Name() string  { return o.flag }
func (o *processOutput) Files() []File { return []File{{What: o.flag, Path: o.path}} }
func (o *processOutput) Where() Where  { return OneProcess }

func (o *processOutput) Open(*Env) (Sink, error) {
	f, err := atomicfile.Create(o.path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.flag, err)
	}
	if err := o.start(f); err != nil {
		f.Abort()
		return nil, fmt.Errorf("%s %s: %w", o.flag, o.path, err)
	}
	return &processSink{o: o, f: f}, nil
}

type processSink struct {
	o       *processOutput
	f       *atomicfile.File
	stopped bool
}

// End stops the record: what it wrote is complete.
func (s *processSink) End(Ended) error {
	s.halt()
	return nil
}

func (s *processSink) halt() {
	if !s.stopped {
		s.stopped = true
		s.o.stop()
	}
}

func (s *processSink) Close(keep bool) error {
	s.halt()
	if !keep {
		s.f.Abort()
		return nil
	}
	if err := s.f.Commit(); err != nil {
		return fmt.Errorf("%s %s: %w", s.o.flag, s.o.path, err)
	}
	return nil
}
