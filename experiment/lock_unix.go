//go:build unix

package experiment

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/servbench/servbench/internal/atomicfile"
)

// lockDir takes DIR/.lock for this process, without waiting: a second
// servbench on one directory is refused while the first runs. The lock is
// the kernel's (flock), so it goes with the process, however it ends.
func lockDir(dir string) (release func(), err error) {
	path := filepath.Join(dir, ".lock")
	// Never through a link (a link planted there to a user's file had it
	// emptied), and only a regular file.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o644)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("lock %s: a symbolic link, not the plan's lock: remove it, or give another -o", path)
		}
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = atomicfile.Regular(st)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %v: remove it, or give another -o", path, err)
	}
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	// A lock this process released can stay held for a moment by a child
	// forked meanwhile (another goroutine starting a command): the child
	// shares the lock until it execs. The holder named in the file being
	// this process, try again for a little while.
	for i := 0; errors.Is(err, syscall.EWOULDBLOCK) && i < 200 && holder(path) == os.Getpid(); i++ {
		time.Sleep(5 * time.Millisecond)
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	}
	if err != nil {
		pid := holder(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := "another servbench"
			if pid > 0 {
				holder += fmt.Sprintf(" (pid %d)", pid)
			}
			return nil, fmt.Errorf("%s is in use by %s: wait for it to end, or give another -o", dir, holder)
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	f.Truncate(0)
	f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() { f.Close() }, nil
}

// holder is the pid the lock file names, 0 when none: its first 32
// bytes read, never more (a 3 GB lock file was read whole), never
// through a link, never a pipe.
func holder(path string) int {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return 0
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return 0
	}
	b := make([]byte, 32)
	n, _ := io.ReadFull(f, b)
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	return pid
}

// openOwn opens path, a file of the plan's directory that bench writes,
// for writing (flag: os.O_APPEND, or 0 to be emptied), made when it is
// not there (atomicfile.OpenOwn): never through a link to a file, never a
// pipe; a character device is written in place, as every output's is.
func openOwn(path string, flag int) (*os.File, error) {
	return atomicfile.OpenOwn(path, atomicfile.Own{What: "a file bench writes", Append: flag&os.O_APPEND != 0})
}
