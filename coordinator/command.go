package coordinator

import (
	"errors"
	"fmt"
	"os/exec"
	"sync"
	"time"

	"github.com/servbench/servbench/internal/format"
)

// The ssh and docker commands' output is kept up to a bound: their
// standard output is a host's system, a copy's directory and sum, task
// IDs and states (a few KB); their standard error a line to quote, or
// the clients' lines (docker service logs). One that printed without
// end filled memory until the process died.
const (
	maxCommandOutput = 1 << 20
	maxCommandErrors = 16 << 20
)

// runBounded runs c, keeping its standard output and error up to
// maxCommandOutput and maxCommandErrors; past either, c is killed and
// the error is an *overflowError naming it as name.
func runBounded(c *exec.Cmd, name string) (stdout, stderr []byte, err error) {
	out := &boundedBuffer{max: maxCommandOutput}
	errb := &boundedBuffer{max: maxCommandErrors}
	kill := func() { c.Process.Kill() }
	out.over, errb.over = kill, kill
	c.Stdout, c.Stderr = out, errb
	if c.WaitDelay == 0 {
		c.WaitDelay = pipeWait
	}
	err = c.Run()
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it ended well; what it left behind holds its pipes
	}
	switch {
	case out.overflowed:
		return nil, nil, &overflowError{name, "output", maxCommandOutput}
	case errb.overflowed:
		return out.b, nil, &overflowError{name, "error", maxCommandErrors}
	}
	return out.b, errb.b, err
}

// pipeWait is how long a command's output is read after it ended (or was
// killed): a process it left behind holding its pipes (an ssh master that
// persists, a ProxyCommand's helper) would hold the coordinator forever.
var pipeWait = 2 * time.Second

// overflowError is a command stopped for printing more than max bytes
// on its standard output or error (stream).
type overflowError struct {
	name, stream string
	max          int
}

func (e *overflowError) Error() string {
	return fmt.Sprintf("%s printed more than %s on its standard %s: stopped", e.name, format.Bytes(int64(e.max)), e.stream)
}

// boundedBuffer keeps at most max bytes; past them it calls over once
// and keeps nothing more.
type boundedBuffer struct {
	mu         sync.Mutex
	b          []byte
	max        int
	overflowed bool
	over       func()
}

func (w *boundedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.overflowed {
		return len(p), nil
	}
	if len(w.b)+len(p) > w.max {
		w.overflowed = true
		w.b = nil
		if w.over != nil {
			w.over()
		}
		return len(p), nil
	}
	w.b = append(w.b, p...)
	return len(p), nil
}
