package cli

import (
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"sync/atomic"
	"time"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/format"
)

// memoryGuard stops the command, as a first signal does, when the
// process's live heap passes its bound, and ends it, as a second does,
// past half as much again: what was measured is written, and the process
// exits 1 saying why rather than being killed out of memory with nothing
// written. The bound is a quarter of the memory the process could take
// when it started (engine.AvailableMemory: the machine's available, its
// cgroup's, its address space's), above what the phase's threads were
// found to need (engine.ExpectedMemory): a run the thread-memory check
// let through is not stopped for what it was let to hold.
//
// Every size servbench reads is bounded where it is read; the guard is for
// what a driver reads that no hook reaches (gocbcore's streamed cluster
// configuration, kept whole by a JSON decoder; gocql's list of a cluster's
// nodes, kept before any filter sees it). It samples the heap every
// memoryEvery: an allocation faster than that can pass it. A quarter,
// because a buffer that doubles as it grows (a JSON decoder's) holds half
// again what it held at its last doubling and asks for twice as much at
// its next: the guard must see the one before the one that cannot be had.
type memoryGuard struct {
	bound uint64
	need  func() uint64 // added to bound: what the phase's threads need
	heap  func() uint64
	tick  <-chan time.Time
	sigs  chan<- os.Signal
	out   io.Writer
	fired atomic.Bool
}

// memoryEvery is how often the guard samples the heap.
const memoryEvery = 100 * time.Millisecond

// minMemoryBound is the least bound a guard is given, whatever the
// machine says it has.
const minMemoryBound = 256 << 20

// watch samples the heap until done is closed.
func (g *memoryGuard) watch(done <-chan struct{}) {
	sent := 0
	for {
		select {
		case <-done:
			return
		case <-g.tick:
		}
		bound := g.bound + g.need()
		h := g.heap()
		if sent == 0 && h > bound || sent == 1 && h > bound+bound/2 {
			sent++
			if sent == 1 {
				g.fired.Store(true)
				fmt.Fprintf(g.out, "servbench: the process holds %s, past its bound of %s (a quarter of the memory it could take, above what its threads need): stopping as on Ctrl-C; an answer of a server's or a file without end?\n",
					format.Bytes(int64(h)), format.Bytes(int64(bound)))
			}
			select {
			case g.sigs <- memorySignal{}:
			default: // signals are there already
			}
			if sent == 2 {
				return
			}
		}
	}
}

// memorySignal is what the guard sends among the process's signals.
type memorySignal struct{}

func (memorySignal) String() string { return "memory past its bound" }
func (memorySignal) Signal()        {}

// heapBytes is the heap's live objects as the last collection found them
// (garbage not yet collected, up to as much again, is not counted).
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// memoryBound is a quarter of the memory the process may take (0: not
// known, no guard), at least minMemoryBound.
func memoryBound() uint64 {
	avail := engine.AvailableMemory()
	if avail <= 0 {
		return 0
	}
	return max(uint64(avail)/4, minMemoryBound)
}

// expectedMemory is what the phase's threads need (engine.ExpectedMemory).
func expectedMemory() uint64 { return uint64(max(engine.ExpectedMemory(), 0)) }
