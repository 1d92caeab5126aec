//go:build unix

package experiment

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// A lock released while another goroutine starts commands is taken again
// at once: a child forked in between shares the lock until it execs, and
// the second lockDir waits that moment out instead of calling the
// directory in use (seen as a failure of the command-line tests, which
// start commands in parallel).
func TestLockAgainWhileForking(t *testing.T) {
	dir := t.TempDir()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					exec.Command("true").Run()
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait() }()
	for i := range 100 {
		release, err := lockDir(dir)
		if err != nil {
			t.Fatalf("lock %d: %v", i, err)
		}
		release()
	}
}

// The files of a plan's directory bench writes in place (a run's log,
// setup.log) and its lock are never written through a link of either
// kind: a user's file linked there keeps what it held, and the plan says
// which path in one line.
func TestPlanFilesNotWrittenThroughLinks(t *testing.T) {
	users := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(users, []byte("the user's own"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	hard, soft := filepath.Join(dir, "hard.log"), filepath.Join(dir, "soft.log")
	if err := os.Link(users, hard); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(users, soft); err != nil {
		t.Fatal(err)
	}
	paths := []string{hard, soft}
	// A block device's node (made here, numbers of a loop device), and a
	// link to it: refused, as every output refuses one (it was written).
	if err := syscall.Mknod(filepath.Join(dir, "blk.log"), syscall.S_IFBLK|0o600, 7<<8|255); err == nil {
		os.Symlink(filepath.Join(dir, "blk.log"), filepath.Join(dir, "to-blk.log"))
		paths = append(paths, filepath.Join(dir, "blk.log"), filepath.Join(dir, "to-blk.log"))
	}
	for _, p := range paths {
		for _, flag := range []int{0, os.O_APPEND} {
			if f, err := openOwn(p, flag); err == nil {
				f.Close()
				t.Errorf("%s (flag %d): opened", p, flag)
			}
		}
	}
	if b, _ := os.ReadFile(users); string(b) != "the user's own" {
		t.Errorf("the user's file: %q", b)
	}
	lockDirOf := t.TempDir()
	if err := os.Link(users, filepath.Join(lockDirOf, ".lock")); err != nil {
		t.Fatal(err)
	}
	if _, err := lockDir(lockDirOf); err == nil || !strings.Contains(err.Error(), "hard link") {
		t.Errorf("a hard-linked lock: %v", err)
	}
	if b, _ := os.ReadFile(users); string(b) != "the user's own" {
		t.Errorf("the user's file after the lock: %q", b)
	}
	own := filepath.Join(dir, "run.log")
	f, err := openOwn(own, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x")
	f.Close()
}
