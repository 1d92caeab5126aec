// Package atomicfile writes an output path without ever destroying what is
// there.
//
// A regular file (or a path that does not exist yet) is written whole or
// not at all: the content goes to a temporary file beside it and is renamed
// into place when complete, so the path holds either what it held before or
// the whole new content, never an empty or half-written file. A symbolic
// link is followed and its target written the same way; the link stays.
// A character device (/dev/null, a terminal) or a named pipe is written
// directly, as a shell's redirection would, and never replaced; a pipe
// with no reader is refused rather than waited for. Anything else (a
// directory, a socket, a block device) is refused before any content is
// made.
//
// A write that fails is remembered: Commit returns the first such error
// (and a regular file keeps what it held), also when the writer itself
// dropped it (runtime/trace and runtime/pprof do), so that a full disk or
// device, or a pipe whose reader left, always fails the output.
//
// OpenOwn is for a file a process writes as it goes (a log): never through
// a link to a file, never a hard link, a character device in place.
//
// Every file between Create and Commit or Abort is known to the package
// (Writing, RemoveTemporary), so that a process that must end at once (a
// second Ctrl-C) can let an output being written finish, for a bounded
// time, and leave no temporary file behind.
package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

// File is a file being written; Commit puts it in place, Abort drops it.
type File struct {
	*os.File
	path   string
	mode   os.FileMode
	direct bool // a device or pipe written in place: nothing to rename
	done   bool
	err    error // the first write that failed
	// written is set by the first write: the file is then being
	// written (Writing) until Commit or Abort.
	written atomic.Bool
}

// Write writes p, remembering the first error for Commit; from the first
// write on, the file is being written (Writing) until Commit or Abort.
func (f *File) Write(p []byte) (int, error) {
	f.mark()
	n, err := f.File.Write(p)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

// WriteString is Write of a string.
func (f *File) WriteString(s string) (int, error) {
	f.mark()
	n, err := f.File.WriteString(s)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

// ReadFrom copies r into the file, remembering a failed write for Commit.
func (f *File) ReadFrom(r io.Reader) (int64, error) {
	f.mark()
	n, err := f.File.ReadFrom(r)
	if err != nil && f.err == nil {
		f.err = err
	}
	return n, err
}

// unfinished is every File not yet committed or aborted, and every lock
// file held (Lock) not yet released.
var unfinished struct {
	sync.Mutex
	files map[*File]struct{}
	locks map[*os.File]struct{}
}

func track(f *File) *File {
	unfinished.Lock()
	defer unfinished.Unlock()
	if unfinished.files == nil {
		unfinished.files = map[*File]struct{}{}
	}
	unfinished.files[f] = struct{}{}
	return f
}

func untrack(f *File) {
	unfinished.Lock()
	delete(unfinished.files, f)
	unfinished.Unlock()
}

func (f *File) mark() {
	if !f.written.Load() {
		f.written.Store(true)
	}
}

// Writing reports whether a file is being written: written to and not
// yet committed or aborted. A file created but not written yet (an
// output opened before a run) is not.
func Writing() bool {
	unfinished.Lock()
	defer unfinished.Unlock()
	for f := range unfinished.files {
		if f.written.Load() {
			return true
		}
	}
	return false
}

// RemoveTemporary removes the temporary file of every file not yet
// committed, and every lock file held (Lock), for a process about to exit
// without waiting for them: each path keeps what it held (a Commit
// renaming at that moment either happened first, or finds nothing to
// rename and fails), and no .NAME.lock stays beside it. It returns how
// many files it removed.
func RemoveTemporary() int {
	unfinished.Lock()
	defer unfinished.Unlock()
	n := 0
	for f := range unfinished.files {
		if !f.direct && os.Remove(f.Name()) == nil {
			n++
		}
	}
	for f := range unfinished.locks {
		if os.Remove(f.Name()) == nil {
			n++
		}
	}
	return n
}

// Create starts a file for path, readable by everyone once committed
// (0644).
func Create(path string) (*File, error) { return CreateMode(path, 0o644) }

// CreateMode starts a file for path that gets mode perm when committed;
// until then only its owner can read it.
func CreateMode(path string, perm os.FileMode) (*File, error) {
	target, magic, err := resolve(path)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: path, Err: err}
	}
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case st.Mode().IsRegular() && !magic:
	case st.IsDir():
		return nil, &os.PathError{Op: "create", Path: path, Err: errIsDir}
	case st.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0 || magic:
		return openDirect(path, target, st.Mode())
	default:
		return nil, &os.PathError{Op: "create", Path: path, Err: fmt.Errorf("not a regular file, character device or pipe (%s): refused", kind(st.Mode()))}
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return track(&File{File: f, path: target, mode: perm}), nil
}

var errIsDir = errors.New("is a directory")

// resolve follows the symbolic links at path to the file they name (which
// need not exist). A link into /proc (/dev/stdout, /dev/fd/N: its directory
// a link there) names a file the process already has open: magic is then
// true, and it is written where it is.
func resolve(path string) (target string, magic bool, err error) {
	target = path
	for range 40 {
		if inProc(target) {
			return target, true, nil
		}
		st, err := os.Lstat(target)
		if err != nil || st.Mode()&fs.ModeSymlink == 0 {
			return target, false, nil
		}
		l, err := os.Readlink(target)
		if err != nil {
			return "", false, err
		}
		if !filepath.IsAbs(l) {
			l = filepath.Join(filepath.Dir(target), l)
		}
		target = l
	}
	return "", false, errors.New("too many levels of symbolic links")
}

// inProc reports whether path is in /proc, or its directory is once its
// links are followed (/dev/fd is a link to /proc/self/fd: /dev/fd/63's own
// link reads pipe:[N], a name in no directory).
func inProc(path string) bool {
	if strings.HasPrefix(filepath.Clean(path), "/proc/") {
		return true
	}
	d, err := filepath.EvalSymlinks(filepath.Dir(path))
	return err == nil && (d == "/proc" || strings.HasPrefix(d, "/proc/"))
}

// linkTarget is the absolute path abs names once links are followed: its
// last element's chain of links (resolve), then the directories' links.
func linkTarget(abs string) string {
	t, _, err := resolve(abs)
	if err != nil {
		return abs
	}
	if !filepath.IsAbs(t) {
		t = filepath.Join(filepath.Dir(abs), t)
	}
	if d, err := filepath.EvalSymlinks(filepath.Dir(t)); err == nil {
		return filepath.Join(d, filepath.Base(t))
	}
	return filepath.Clean(t)
}

// openDirect opens a device or pipe for writing in place. A pipe is
// opened without waiting: one nobody reads is refused.
func openDirect(path, target string, m fs.FileMode) (*File, error) {
	flags := os.O_WRONLY
	if m&fs.ModeNamedPipe != 0 {
		flags |= syscall.O_NONBLOCK
	} else if m.IsRegular() { // standard output sent to a file: after what is there
		flags |= os.O_APPEND
	}
	f, err := os.OpenFile(target, flags, 0)
	if err != nil {
		if errors.Is(err, syscall.ENXIO) {
			return nil, &os.PathError{Op: "create", Path: path, Err: errors.New("a named pipe that nobody reads")}
		}
		return nil, err
	}
	return track(&File{File: f, path: path, direct: true}), nil
}

func kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return m.Type().String()
}

// Path is the final path.
func (f *File) Path() string { return f.path }

// Commit syncs the content to disk and renames it into place; on failure
// (a write that failed before, even one whose error its writer dropped)
// the temporary file is removed and the path keeps what it held. A device
// or pipe is closed, and a write that failed there is returned.
func (f *File) Commit() error {
	if f.done {
		return f.err
	}
	f.done = true
	defer untrack(f)
	if f.direct {
		if err := f.Close(); f.err == nil {
			f.err = err
		}
		return f.err
	}
	err := f.err
	if err == nil {
		err = f.Chmod(f.mode)
	}
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
	f.err = err
	return err
}

// Abort drops the content: the path keeps what it held (a device or pipe
// keeps what was already written to it). It does nothing after Commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	defer untrack(f)
	f.Close()
	if !f.direct {
		os.Remove(f.Name())
	}
}

// WriteFile writes path whole or not at all with the content write makes.
func WriteFile(path string, write func(io.Writer) error) error {
	return WriteFileMode(path, 0o644, write)
}

// WriteFileMode is WriteFile for a file of mode perm, which no one else
// can read at any moment before it is in place when perm says so.
func WriteFileMode(path string, perm os.FileMode, write func(io.Writer) error) error {
	f, err := CreateMode(path, perm)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// SamePath returns the first two of paths (i < j) that name one file:
// the same absolute path, the same path once links are followed (a link
// to a file not made yet, or through a linked directory, too), or (for
// files that exist) the same file through a hard link; empty paths are
// left out.
func SamePath(paths []string) (i, j int, found bool) {
	return Collide(paths, nil)
}

// Collide is SamePath over outputs followed by inputs, of pairs holding an
// output: an output naming another output or an input (i < j, indices in
// outputs then inputs); inputs naming one file are no collision.
func Collide(outputs, inputs []string) (i, j int, found bool) {
	paths := append(slices.Clip(outputs), inputs...)
	n := len(outputs)
	seen := map[string]int{}
	stats := make([]os.FileInfo, len(paths))
	for j, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			abs = filepath.Clean(p)
		}
		for _, k := range []string{abs, linkTarget(abs)} {
			if i, dup := seen[k]; dup && i != j && i < n {
				return i, j, true
			}
			if _, dup := seen[k]; !dup || j < n {
				seen[k] = j
			}
		}
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			stats[j] = st
			for i, other := range stats[:min(j, n)] {
				if other != nil && os.SameFile(other, st) {
					return i, j, true
				}
			}
		}
	}
	return 0, 0, false
}

// Target is path made absolute with its links followed (a link to a file
// not made yet, or through a linked directory, too): the file a write to
// path reaches.
func Target(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	return linkTarget(abs)
}

// ProcessFile reports whether path names a file the process already has
// open (/dev/stdout, /dev/fd/N, /proc/self/fd/N, or a link to one): it is
// written where it is, and nothing is written beside it.
func ProcessFile(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	_, magic, err := resolve(abs)
	return err == nil && magic
}

// Named reports whether path (links followed) is one of the files named
// prefix + NAME + ext that an output writes as it goes (NAME holding no
// path separator): HdrHistogram logs, one a section.
func Named(prefix, ext, path string) bool {
	if path == "" {
		return false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	pabs, err := filepath.Abs(prefix)
	if err != nil {
		pabs = filepath.Clean(prefix)
	}
	dir, base := filepath.Dir(pabs), filepath.Base(pabs)
	if strings.HasSuffix(prefix, string(filepath.Separator)) || prefix == "" {
		dir, base = pabs, ""
	}
	dirs := []string{dir}
	if d, err := filepath.EvalSymlinks(dir); err == nil {
		dirs = append(dirs, d)
	}
	for _, p := range []string{abs, linkTarget(abs)} {
		name := filepath.Base(p)
		for _, d := range dirs {
			if filepath.Dir(p) == d && len(name) > len(base)+len(ext) && strings.HasPrefix(name, base) && strings.HasSuffix(name, ext) {
				return true
			}
		}
	}
	return false
}

// ErrBusy is the error of Lock for a path another process holds.
var ErrBusy = errors.New("another servbench run is writing it now")

// Lock takes, for the run about to write them, the regular files among
// paths (or paths not made yet; links followed): a lock (flock) on a file
// .NAME.lock beside each, so that a second run writing one of them at the
// same time is refused (a *PathError wrapping ErrBusy) instead of mixing
// its files with the first's. A process exiting without waiting removes
// them with RemoveTemporary. The kernel lets a lock go when its process
// dies: a lock file a killed run left blocks no one. release removes the
// lock files and lets the locks go. A lock file that cannot be made (a
// directory not writable) is left out: the output's own creation says why.
func Lock(paths []string) (release func(), err error) {
	var held []*os.File
	release = func() {
		unfinished.Lock()
		for _, f := range held {
			delete(unfinished.locks, f)
		}
		unfinished.Unlock()
		for _, f := range held {
			os.Remove(f.Name()) // before the lock goes: no one takes a lock on a removed file
			f.Close()
		}
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		target := linkTarget(abs)
		if st, err := os.Stat(target); (err == nil && !st.Mode().IsRegular()) || strings.HasPrefix(target, "/proc/") || seen[target] {
			continue
		}
		seen[target] = true
		f, err := lockFile(filepath.Join(filepath.Dir(target), "."+filepath.Base(target)+".lock"))
		if errors.Is(err, ErrBusy) {
			release()
			return nil, &os.PathError{Op: "lock", Path: p, Err: ErrBusy}
		}
		if err == nil {
			held = append(held, f)
			unfinished.Lock()
			if unfinished.locks == nil {
				unfinished.locks = map[*os.File]struct{}{}
			}
			unfinished.locks[f] = struct{}{} // removed by RemoveTemporary too
			unfinished.Unlock()
		}
	}
	return release, nil
}

// lockFile opens and locks name, again when the file it locked was
// removed meanwhile by the run that held it (its lock then guards nothing).
func lockFile(name string) (*os.File, error) {
	for range 100 {
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, err
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, ErrBusy
			}
			return nil, err
		}
		held, err1 := f.Stat()
		now, err2 := os.Stat(name)
		if err1 == nil && err2 == nil && os.SameFile(held, now) {
			return f, nil
		}
		f.Close() // removed, or replaced, while it was being locked
	}
	return nil, errors.New("lock file replaced again and again")
}

// Append opens path to write after what it holds, as a shell's >> does
// (YCSB's raw samples): a file is created or appended to, a link followed,
// a character device or named pipe written in place. As Create, it
// refuses a pipe nobody reads rather than wait for one (the open of a
// pipe waits for a reader without end, past Ctrl-C), and a directory, a
// socket or a block device.
func Append(path string) (*os.File, error) {
	target, magic, err := resolve(path)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	st, err := os.Stat(target)
	switch {
	case errors.Is(err, fs.ErrNotExist) || err == nil && st.Mode().IsRegular():
		return os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	case err != nil:
		return nil, err
	case st.IsDir():
		return nil, &os.PathError{Op: "open", Path: path, Err: errIsDir}
	case st.Mode()&(fs.ModeCharDevice|fs.ModeNamedPipe) != 0 || magic:
		f, err := openDirect(path, target, st.Mode())
		if err != nil {
			return nil, err
		}
		untrack(f) // the caller's, an *os.File: nothing to commit
		return f.File, nil
	}
	return nil, &os.PathError{Op: "open", Path: path, Err: fmt.Errorf("not a regular file, character device or pipe (%s): refused", kind(st.Mode()))}
}
