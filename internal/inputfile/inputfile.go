// Package inputfile reads the files a user names as input (property files,
// plans, plan indexes) bounded in size and stoppable: a file that never
// ends (/dev/zero, a pipe fed by yes) is refused at the bound, and one that
// never answers (a named pipe with no writer) gives way when the caller's
// context ends, so Ctrl-C and SIGTERM always stop the command.
package inputfile

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/servbench/servbench/internal/format"
)

// ErrTooLarge is returned for a file over the bound.
var ErrTooLarge = errors.New("too large")

// Read reads path whole, at most limit bytes: a larger file is refused
// with an error wrapping ErrTooLarge (from its size when it is a regular
// file, before anything is read). When ctx ends first, Read returns
// ctx's error at once; the read left behind ends with the process. Its
// errors do not repeat the path: the caller names the file as it calls it
// ("property file X: no such file or directory").
func Read(ctx context.Context, path string, limit int64) ([]byte, error) {
	type answer struct {
		b   []byte
		err error
	}
	done := make(chan answer, 1)
	go func() {
		b, err := read(path, limit)
		done <- answer{b, err}
	}()
	select {
	case a := <-done:
		return a.b, a.err
	case <-ctx.Done():
		return nil, fmt.Errorf("stopped while reading: %w", ctx.Err())
	}
}

func read(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			return nil, pe.Err
		}
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() > limit {
		return nil, fmt.Errorf("%w: %d bytes, more than %s", ErrTooLarge, st.Size(), format.Bytes(limit))
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) { // a directory: "read DIR: is a directory"
			return nil, pe.Err
		}
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("%w: more than %s", ErrTooLarge, format.Bytes(limit))
	}
	return b, nil
}
