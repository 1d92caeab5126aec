//go:build unix

package experiment

import (
	"os/exec"
	"sync"
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
