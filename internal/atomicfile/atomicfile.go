// Package atomicfile writes a file whole or not at all: the content goes
// to a temporary file beside the final path and is renamed into place when
// complete, so the path holds either what it held before or the whole new
// content, never an empty or half-written file.
package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
)

// File is a file being written; Commit puts it in place, Abort drops it.
type File struct {
	*os.File
	path string
	done bool
}

// Create starts a file for path. A directory at path is refused now, not
// after the content was written.
func Create(path string) (*File, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, &os.PathError{Op: "create", Path: path, Err: errIsDir}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &File{File: f, path: path}, nil
}

var errIsDir = errors.New("is a directory")

// Path is the final path.
func (f *File) Path() string { return f.path }

// Commit syncs the content to disk and renames it into place; on failure
// the temporary file is removed and the path keeps what it held.
func (f *File) Commit() error {
	if f.done {
		return nil
	}
	f.done = true
	err := f.Chmod(0o644)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), f.path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// Abort drops the content: the path keeps what it held. It does nothing
// after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.Close()
	os.Remove(f.Name())
}

// WriteFile writes path whole or not at all with the content write makes.
func WriteFile(path string, write func(io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}
