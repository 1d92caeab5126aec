package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/runner"
)

// stopSignals are the signals that stop a command: Ctrl-C, SIGTERM, a
// hangup (the terminal or ssh session gone) and SIGQUIT (Ctrl-\\), all
// as Ctrl-C: no stack dump, no exit status of bad input.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// ending is how the process ends on signals, the one mechanism every
// command is under. The first signal cancels the command's context: a
// run stops and writes what it measured, a read or a connection gives
// way (within the binding's timeouts where a driver takes no context).
// The second closes the abandon channel (runner.WithAbandon: nothing
// waits for operations in flight any more) and gives the command grace
// to end; if it has not by then (blocked in a driver's call, the open of
// a named pipe, a handshake no context reaches), the process exits with
// ExitInterrupted whatever is blocked, after an output being written
// (atomicfile.Writing) has had up to writeGrace more, and with every
// output's temporary file and lock file (.NAME.lock) removed: each path
// keeps what it held. A third signal exits at once, the same way.
type ending struct {
	grace, writeGrace time.Duration
	exit              func(int) // os.Exit
	stderr            io.Writer
	writeWait         func() // called when the exit waits for a write (tests)
	flush             func() // lets stderr take the last line, briefly (nil: none)

	mu   sync.Mutex
	done bool // the command returned: no exit of ours
}

// Time given after the second signal: to end, then to finish writing an
// output being written; and how long the exit waits for standard error
// to take its last line (it may not be read at all).
const (
	secondGrace = time.Second
	writeGrace  = time.Second
	endFlush    = 200 * time.Millisecond
)

// run runs the command under the signals that sigs receives.
func (e *ending) run(sigs <-chan os.Signal, command func(context.Context) int) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	abandon := make(chan struct{})
	finished := make(chan struct{})
	go e.watch(sigs, cancel, abandon, finished)
	code := command(runner.WithAbandon(ctx, abandon))
	e.mu.Lock()
	e.done = true
	e.mu.Unlock()
	close(finished)
	return code
}

func (e *ending) watch(sigs <-chan os.Signal, cancel func(), abandon chan struct{}, finished <-chan struct{}) {
	select {
	case <-sigs:
	case <-finished:
		return
	}
	cancel()
	select {
	case <-sigs:
	case <-finished:
		return
	}
	close(abandon)
	grace := time.NewTimer(e.grace)
	defer grace.Stop()
	fmt.Fprintf(e.stderr, "servbench: second signal: abandoning the operations in flight; ending within %s\n", e.grace)
	select {
	case <-finished:
		return
	case <-sigs:
		e.end("third signal")
		return
	case <-grace.C:
	}
	if atomicfile.Writing() {
		if e.writeWait != nil {
			e.writeWait()
		}
		deadline := time.NewTimer(e.writeGrace)
		defer deadline.Stop()
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
	wait:
		for atomicfile.Writing() {
			select {
			case <-finished:
				return
			case <-sigs:
				break wait
			case <-deadline.C:
				break wait
			case <-tick.C:
			}
		}
	}
	e.end(fmt.Sprintf("still blocked %s after the second signal", e.grace))
}

// end exits the process as interrupted, unless the command returned
// first, its temporary files removed.
func (e *ending) end(why string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.done {
		return
	}
	atomicfile.RemoveTemporary()
	fmt.Fprintf(e.stderr, "servbench: %s (in a driver's call, a file or a connection): exiting without waiting\n", why)
	if e.flush != nil {
		e.flush()
	}
	e.exit(ExitInterrupted)
}

// errStopped is said of a command stopped while reading its inputs.
var errStopped = errors.New("stopped while reading")

// readStoppable runs read, which reads the files a command is given (a
// result, a plan's directory), until ctx ends: then it returns at once an
// error wrapping errStopped and ctx's, naming what, and the read left
// behind (a named pipe nobody writes, held in its open) ends with the
// process. A pipe is a file a result may come from (/dev/stdin, a
// shell's <(...)): it is read, and Ctrl-C stops the wait for it.
func readStoppable[T any](ctx context.Context, what string, read func() (T, error)) (T, error) {
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := read()
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		return a.v, a.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("%w %s: %w", errStopped, what, ctx.Err())
	}
}
