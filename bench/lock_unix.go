//go:build unix

package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockDir takes DIR/.lock for this process, without waiting: a second
// servbench on one directory is refused while the first runs. The lock is
// the kernel's (flock), so it goes with the process, however it ends.
func lockDir(dir string) (release func(), err error) {
	path := filepath.Join(dir, ".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		b, _ := os.ReadFile(path)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := "another servbench"
			if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
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
