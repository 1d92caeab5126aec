package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/workloads"
)

// A second servbench on a directory in use is refused in one line naming
// the holder, and leaves the first one's files alone; the lock goes with
// its holder.
func TestDirectoryLock(t *testing.T) {
	dir := t.TempDir()
	release, err := lockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	pf := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(pf, []byte("deployments: [{binding: basic}]\nworkloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\n"), 0o644)
	pl, err := plan.Load(pf, func(n string) bool { return slices.Contains(workloads.Names(), n) })
	if err != nil {
		t.Fatal(err)
	}
	err = New(pl, dir, io.Discard).Run(context.Background())
	if want := fmt.Sprintf("%s is in use by another servbench (pid %d)", dir, os.Getpid()); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("a second run on a locked directory: %v, want %q", err, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "plan.yaml")); !os.IsNotExist(err) {
		t.Errorf("the refused run wrote into the directory: %v", err)
	}
	release()
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatalf("after the first released it: %v", err)
	}
}
