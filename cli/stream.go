package cli

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// queued is standard error as the process writes to it: a write never
// waits on the stream. What is written is queued, up to queueBytes, and
// one goroutine writes it out in order; while the reader does not read (a
// pager on its first screen, a wrapper that reads only once the process
// ended, a stalled ssh session) the queue fills, what does not fit is
// dropped, and how much is said once the stream takes writes again. So a
// run never stops measuring, a signal never goes unheard and a result
// never goes unwritten because of a standard error nobody reads.
type queued struct {
	w io.Writer

	mu      sync.Mutex
	buf     []byte // queued, not yet taken by the writer
	dropped int64  // bytes dropped since the last that were written
	writing bool   // the writer holds bytes it has not written yet
	wake    chan struct{}
	written chan struct{} // closed and made anew each time the writer wrote
}

// queueBytes bounds what standard error holds for a reader that is
// behind; maxMessage one write (a line: a server's error of megabytes is
// cut, its start kept).
const (
	queueBytes = 1 << 20
	maxMessage = 64 << 10
)

func newQueued(w io.Writer) *queued {
	q := &queued{w: w, wake: make(chan struct{}, 1), written: make(chan struct{})}
	go q.run()
	return q
}

// Write queues b whole (cut past maxMessage, said), or drops it whole
// when it does not fit; it never fails and never waits for the stream.
func (q *queued) Write(b []byte) (int, error) {
	n := len(b)
	if n > maxMessage {
		b = fmt.Appendf(b[:maxMessage:maxMessage], "... (%d bytes more, cut)\n", n-maxMessage)
	}
	q.mu.Lock()
	if len(q.buf)+len(b) > queueBytes {
		q.dropped += int64(len(b))
	} else {
		q.buf = append(q.buf, b...)
	}
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return n, nil
}

func (q *queued) run() {
	var out []byte
	for range q.wake {
		for {
			q.mu.Lock()
			if len(q.buf) == 0 && q.dropped == 0 {
				q.writing = false
				q.mu.Unlock()
				break
			}
			// What was dropped came after what is queued: the queue
			// was full.
			out, q.buf = q.buf, out[:0]
			dropped := q.dropped
			q.dropped = 0
			q.writing = true
			q.mu.Unlock()
			q.w.Write(out) // a failed write is pipeWatch's to see
			if dropped > 0 {
				fmt.Fprintf(q.w, "servbench: %d bytes of messages were dropped: standard error was not read\n", dropped)
			}
			q.mu.Lock()
			close(q.written)
			q.written = make(chan struct{})
			q.mu.Unlock()
		}
	}
}

// Flush waits until what was queued is written, as long as the stream
// takes each write within stall: a reader that does not read loses what
// is left, the process does not wait for it.
func (q *queued) Flush(stall time.Duration) {
	t := time.NewTimer(stall)
	defer t.Stop()
	for {
		q.mu.Lock()
		if len(q.buf) == 0 && q.dropped == 0 && !q.writing {
			q.mu.Unlock()
			return
		}
		written := q.written
		q.mu.Unlock()
		select {
		case <-written:
			t.Reset(stall)
		case <-t.C:
			return
		}
	}
}
