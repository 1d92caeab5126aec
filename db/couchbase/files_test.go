package couchbase_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

// A file couchbase.url's options name (ca_cert_path), which gocb reads
// whole, is checked first: a named pipe (its read held the run without
// end) or a file over 4 MiB is refused in one line.
func TestURLFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "ca.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	big := filepath.Join(dir, "big.pem")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(5 << 20) // sparse: no disk taken
	f.Close()
	b, _ := db.Lookup("couchbase")
	for _, c := range []struct{ path, want string }{
		{fifo, "ca_cert_path " + fifo + ": a named pipe"},
		{big, "ca_cert_path " + big + ": 5242880 bytes, more than 4 MiB"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := b.Open(context.Background(), dbtest.Props("couchbase.url", "couchbases://127.0.0.1?ca_cert_path="+c.path),
				db.Options{Threads: 1, CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}})
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "property couchbase.url: "+c.want) {
				t.Errorf("%v, want it to say %q", err, c.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("no answer within 5 s")
		}
	}
}
