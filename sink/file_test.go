package sink

import (
	"errors"
	"io/fs"
	"syscall"
	"testing"
)

// A failed write names the file once: the file's own error names it
// already (write /dev/full: write /dev/full: no space left on device).
func TestWriteErrNamesTheFileOnce(t *testing.T) {
	own := &fs.PathError{Op: "write", Path: "/x/r.csv", Err: syscall.ENOSPC}
	if got := writeErr("/x/r.csv", own).Error(); got != "write /x/r.csv: no space left on device" {
		t.Errorf("the file's own error: %s", got)
	}
	if got := writeErr("/x/r.csv", errors.New("encoding: bad")).Error(); got != "write /x/r.csv: encoding: bad" {
		t.Errorf("another error: %s", got)
	}
}
