package pebble

import (
	"context"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/cockroachdb/pebble/vfs"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workloads"
)

// fullDisk is the disk with room for budget bytes of Pebble's log: then
// every write of it fails with ENOSPC, as on a full file system.
type fullDisk struct {
	vfs.FS
	budget atomic.Int64
}

func (d *fullDisk) Create(name string) (vfs.File, error) {
	f, err := d.FS.Create(name)
	if err != nil || !strings.HasSuffix(name, ".log") {
		return f, err
	}
	return &fullFile{File: f, disk: d}, nil
}

type fullFile struct {
	vfs.File
	disk *fullDisk
}

func (f *fullFile) Write(p []byte) (int, error) {
	if f.disk.budget.Add(-int64(len(p))) < 0 {
		return 0, syscall.ENOSPC
	}
	return f.File.Write(p)
}

// A full disk is a failed run with a clear message and the results
// measured so far, not a panic: Pebble panics when its log cannot be
// written, and the binding turns that into db.ErrFatal, which ends the run.
func TestFullDisk(t *testing.T) {
	disk := &fullDisk{FS: vfs.Default}
	disk.budget.Store(256 << 10)
	testFS = disk
	defer func() { testFS = nil }()
	p := props.New()
	if err := workloads.Load(p, "a"); err != nil {
		t.Fatal(err)
	}
	p.Set("recordcount", "100000", "test")
	p.Set("pebble.dir", t.TempDir(), "test")
	p.Set("stopgrace", "0.2", "test") // threads waiting on Pebble's locked pipeline are left behind
	res, err := engine.Run(context.Background(), engine.Spec{Binding: "pebble", Properties: p, Phase: engine.LoadPhase, Threads: 4})
	if err != nil {
		t.Fatal(err)
	}
	all, ok := res.Total.ClientOps()
	if res.Reason != result.Failed || res.Err == nil || !strings.Contains(res.Err.Error(), "no space left on device: the store cannot go on") {
		t.Errorf("stop %s, error %v; want failed, no space left", res.Reason, res.Err)
	}
	if ok == 0 || all == ok {
		t.Errorf("%d operations, %d ok: want the inserts before the disk filled, and a failure", all, ok)
	}
	if d := res.Doc(); d.Stop != result.Failed || d.Operations != all {
		t.Errorf("the result document says %s, %d operations", d.Stop, d.Operations)
	}
}
