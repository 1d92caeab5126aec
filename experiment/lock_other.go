//go:build !unix

package experiment

import "os"

// lockDir does not lock where flock is missing.
func lockDir(dir string) (release func(), err error) { return func() {}, nil }

// openOwn opens path for writing (flag: os.O_APPEND, or 0 to be emptied).
func openOwn(path string, flag int) (*os.File, error) {
	if flag&os.O_APPEND == 0 {
		flag |= os.O_TRUNC
	}
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|flag, 0o644)
}
