package sink

import (
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/servbench/servbench/internal/atomicfile"
)

// wholeFile is the Sink of an output written whole at the end of a
// phase: to its file (atomicfile: whole or not at all), or to the
// writer it falls back to when no file is named.
type wholeFile struct {
	f     *atomicfile.File // nil: writes to w
	w     io.Writer
	write func(w io.Writer, e Ended) error
}

// openWhole creates path now, so that a bad path fails before the phase
// runs; with no path, the output goes to w (nil: nowhere).
func openWhole(path string, w io.Writer, write func(io.Writer, Ended) error) (Sink, error) {
	s := &wholeFile{w: w, write: write}
	if path != "" {
		f, err := atomicfile.Create(path)
		if err != nil {
			return nil, fmt.Errorf("output file: %w", err)
		}
		s.f, s.w = f, f
	}
	if s.w == nil {
		s.w = io.Discard
	}
	return s, nil
}

func (s *wholeFile) End(e Ended) error {
	if err := s.write(s.w, e); err != nil {
		if s.f != nil {
			return writeErr(s.f.Path(), err)
		}
		return err
	}
	return nil
}

func (s *wholeFile) Close(keep bool) error {
	if s.f == nil {
		return nil
	}
	if !keep {
		s.f.Abort()
		return nil
	}
	if err := s.f.Commit(); err != nil {
		return writeErr(s.f.Path(), err)
	}
	return nil
}

// writeErr says that writing path failed, once: an error of the file's
// own (write /dev/full: no space left on device) names it already.
func writeErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return err
	}
	return fmt.Errorf("write %s: %w", path, err)
}

// fileOutput is an output that writes one file, named by one property,
// from the ended phase, and is written from a spread phase's merged
// result too.
type fileOutput struct {
	name, what, path string
	write            func(io.Writer, Ended) error
}

func (o *fileOutput) Name() string { return o.name }
func (o *fileOutput) Files() []File {
	return []File{{What: o.what, Path: o.path}}
}
func (o *fileOutput) Where() Where { return Merged }
func (o *fileOutput) Open(*Env) (Sink, error) {
	return openWhole(o.path, nil, o.write)
}
