package cli

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// latch is a stream that takes no write until it is opened.
type latch struct {
	open chan struct{}
	mu   sync.Mutex
	got  bytes.Buffer
}

func (g *latch) Write(b []byte) (int, error) {
	<-g.open
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.got.Write(b)
}

// A standard error that takes nothing: writes return at once, what does
// not fit the queue is dropped whole, and said once the stream takes
// writes again; Flush gives up on a stream that does not move. The
// writer may take a full queue and wait on the stream while the queue
// fills again behind it (a busy machine): then each drop is said after the
// lines written before it, and all that is said adds up to what was not
// written.
func TestQueuedNeverWaits(t *testing.T) {
	t.Parallel()
	line := strings.Repeat("y", 1023) + "\n"
	full := queueBytes / len(line)
	for _, c := range []struct {
		name          string
		first, behind int // lines written before the writer runs, and while it holds them
		wantLines     int
		wantSaid      []int // bytes said dropped, in order
	}{
		{"dropped after a full queue", 3 * full, 0, full, []int{2 * full * len(line)}},
		{"the queue filled again behind the writer", full + 7, full, 2 * full, []int{7 * len(line)}},
		{"dropped on both sides", full + 7, full + 5, 2 * full, []int{7 * len(line), 5 * len(line)}},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := &latch{open: make(chan struct{})}
			q := &queued{w: g, wake: make(chan struct{}, 1), written: make(chan struct{})}
			write := func(k int) {
				for range k {
					if k, err := q.Write([]byte(line)); k != len(line) || err != nil {
						t.Fatalf("write: %d, %v", k, err)
					}
				}
			}
			write(c.first)
			go q.run()
			if c.behind > 0 {
				for { // until the writer holds the queue, waiting on the stream
					q.mu.Lock()
					held := q.writing && len(q.buf) == 0
					q.mu.Unlock()
					if held {
						break
					}
					runtime.Gosched()
				}
				write(c.behind)
			}
			q.Flush(10 * time.Millisecond) // returns though nothing was written
			close(g.open)
			q.Flush(time.Minute)
			q.Write([]byte("last\n"))
			q.Flush(time.Minute)
			g.mu.Lock()
			defer g.mu.Unlock()
			out := g.got.String()
			if lines := strings.Count(out, line); lines != c.wantLines {
				t.Errorf("%d lines written, want %d", lines, c.wantLines)
			}
			if !strings.HasSuffix(out, "\nlast\n") {
				t.Fatalf("want the last line last: ...%q", out[max(0, len(out)-300):])
			}
			var said []int
			for _, m := range strings.SplitAfter(strings.ReplaceAll(strings.TrimSuffix(out, "last\n"), line, ""), "\n") {
				if m == "" {
					continue
				}
				var k int
				if _, err := fmt.Sscanf(m, "servbench: %d bytes of messages were dropped: standard error was not read\n", &k); err != nil {
					t.Fatalf("written besides the lines: %q (%v)", m, err)
				}
				said = append(said, k)
			}
			if fmt.Sprint(said) != fmt.Sprint(c.wantSaid) {
				t.Errorf("said dropped: %v bytes, want %v", said, c.wantSaid)
			}
			if i := strings.Index(out, "servbench:"); i != full*len(line) {
				t.Errorf("the first drop said after %d bytes, want after the %d lines before it", i, full)
			}
		})
	}
}

// A message longer than maxMessage, to a stream that reads it at once, is
// cut and said so, not dropped (a server's error of 3 MB was dropped whole
// and standard error blamed for it).
func TestQueuedCutsALongMessage(t *testing.T) {
	g := &latch{open: make(chan struct{})}
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
