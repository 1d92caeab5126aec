package sink

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A record of the process whose writes fail after its start, its errors
// dropped as runtime/trace drops them (a pipe whose reader left, a full
// disk), fails at Close naming its flag and path; the record is stopped
// once, also when the phase ends without End (Drop).
func TestProcessWriteDropped(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "trace")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	var w io.Writer
	stops := 0
	o := Process("--trace", fifo, func(to io.Writer) error { w = to; w.Write([]byte("header")); return nil },
		func() { stops++; w.Write([]byte("the rest")) })
	s, err := o.Open(&Env{})
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader leaves: the record's last writes fail
	s.End(Ended{})
	err = s.Close(true)
	if err == nil || !strings.Contains(err.Error(), "--trace "+fifo) || stops != 1 {
		t.Errorf("a record whose writes failed: %v (stopped %d times)", err, stops)
	}

	path := filepath.Join(dir, "cpu.prof")
	os.WriteFile(path, []byte("old"), 0o644)
	stops = 0
	s, err = Process("--cpuprofile", path, func(to io.Writer) error { return nil }, func() { stops++ }).Open(&Env{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(false); err != nil || stops != 1 {
		t.Errorf("dropped: %v, stopped %d times", err, stops)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("a dropped record replaced the file: %q", b)
	}
	if o.Where() != OneProcess || o.Files()[0].Path != fifo {
		t.Errorf("where %v, files %v", o.Where(), o.Files())
	}
}
