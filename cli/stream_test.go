package cli

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// gate is a stream that takes no write until it is opened.
type gate struct {
	open chan struct{}
	mu   sync.Mutex
	got  bytes.Buffer
}

func (g *gate) Write(b []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.got.Write(b)
}

// A standard error that takes nothing: writes return at once, what does
// not fit the queue is dropped whole, and said once the stream takes
// writes again; Flush gives up on a stream that does not move.
func TestQueuedNeverWaits(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	q := newQueued(g)
	line := strings.Repeat("y", 1023) + "\n"
	n := 3 * queueBytes / len(line)
	for range n {
		if k, err := q.Write([]byte(line)); k != len(line) || err != nil {
			t.Fatalf("write: %d, %v", k, err)
		}
	}
	q.Flush(10 * time.Millisecond) // returns though nothing was written
	close(g.open)
	q.Flush(time.Minute)
	q.Write([]byte("last\n"))
	q.Flush(time.Minute)
	g.mu.Lock()
	defer g.mu.Unlock()
	out := g.got.String()
	lines := strings.Count(out, line)
	if lines >= n || lines < queueBytes/len(line)-1 {
		t.Errorf("%d of %d lines written, want the queue's %d or so", lines, n, queueBytes/len(line))
	}
	want := fmt.Sprintf("servbench: %d bytes of messages were dropped: standard error was not read\nlast\n", (n-lines)*len(line))
	if !strings.HasSuffix(out, line+want) || len(out) != lines*len(line)+len(want) {
		t.Errorf("want the lines, then how much was dropped and the last line: ...%q", out[max(0, len(out)-300):])
	}
}

// A message longer than maxMessage, to a stream that reads it at once, is
// cut and said so, not dropped (a server's error of 3 MB was dropped whole
// and standard error blamed for it).
func TestQueuedCutsALongMessage(t *testing.T) {
	g := &gate{open: make(chan struct{})}
	close(g.open)
	q := newQueued(g)
	long := strings.Repeat("e", 3<<20) + "\n"
	if n, err := q.Write([]byte(long)); n != len(long) || err != nil {
		t.Fatalf("write: %d, %v", n, err)
	}
	q.Write([]byte("next\n"))
	q.Flush(time.Minute)
	g.mu.Lock()
	defer g.mu.Unlock()
	want := long[:maxMessage] + fmt.Sprintf("... (%d bytes more, cut)\nnext\n", len(long)-maxMessage)
	if out := g.got.String(); out != want {
		t.Errorf("written: %d bytes ending %q, want %d ending %q", len(out), out[max(0, len(out)-60):], len(want), want[len(want)-60:])
	}
}
