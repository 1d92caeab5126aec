package inputfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A file within the bound is read whole; one over it is refused; a pipe
// that never ends is cut at the bound; a pipe with no writer gives way to
// the context.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	os.WriteFile(small, []byte("recordcount=5\n"), 0o644)
	if b, err := Read(context.Background(), small, 100); err != nil || string(b) != "recordcount=5\n" {
		t.Errorf("small: %q %v", b, err)
	}
	if _, err := Read(context.Background(), small, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the bound: %v", err)
	}
	if zero := filepath.Join(dir, "zero"); syscall.Mknod(zero, syscall.S_IFCHR|0o666, (1<<8)|5) == nil {
		if _, err := Read(context.Background(), zero, 1<<20); !errors.Is(err, ErrTooLarge) {
			t.Errorf("a device that never ends: %v", err)
		}
	}
	if _, err := Read(context.Background(), dir, 100); err == nil || strings.Contains(err.Error(), dir) {
		t.Errorf("a directory: %v, want an error that does not repeat the path", err)
	}
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o644)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, fifo, 100); !errors.Is(err, context.Canceled) {
		t.Errorf("a pipe with no writer and a cancelled context: %v", err)
	}
	// Let the read left behind end.
	if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}
