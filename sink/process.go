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

// Caller is a file the caller writes itself beside the phase's outputs
// (a plan's run: its text report and its log): one of the phase's outputs
// for their checks alone (no other output may name it, a second run
// writing it at once is refused), written by the caller, not by its Sink.
func Caller(what, path string) Output { return callerOutput{what: what, path: path} }

type callerOutput struct{ what, path string }

func (o callerOutput) Name() string            { return o.what }
func (o callerOutput) Files() []File           { return []File{{What: o.what, Path: o.path}} }
func (o callerOutput) Where() Where            { return Merged }
func (o callerOutput) Open(*Env) (Sink, error) { return callerSink{}, nil }

type callerSink struct{}

func (callerSink) End(Ended) error  { return nil }
func (callerSink) Close(bool) error { return nil }
