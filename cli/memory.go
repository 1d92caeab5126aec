package cli

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/servbench/servbench/internal/format"
)

// memoryGuard stops the command, as a first signal does, when the
// process's heap passes its bound, and ends it, as a second does, past
// half as much again: what was measured is written, and the process exits
// 1 saying why rather than being killed out of memory with nothing written.
//
// Every size servbench reads is bounded where it is read; the guard is for
// what a driver reads that no hook reaches (gocbcore's streamed cluster
// configuration, kept whole by a JSON decoder; gocql's list of a cluster's
// nodes, kept before any filter sees it). It samples the heap every
// memoryEvery: an allocation faster than that can pass it.
type memoryGuard struct {
	bound uint64
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
	second := g.bound + g.bound/2
	sent := 0
	for {
		select {
		case <-done:
			return
		case <-g.tick:
		}
		h := g.heap()
		if sent == 0 && h > g.bound || sent == 1 && h > second {
			sent++
			if sent == 1 {
				g.fired.Store(true)
				fmt.Fprintf(g.out, "servbench: the process holds %s, past its bound of %s (a quarter of the memory it may have): stopping as on Ctrl-C; a server's answer without end?\n",
					format.Bytes(int64(h)), format.Bytes(int64(g.bound)))
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

// heapBytes is the memory the heap's objects take, live or not yet swept.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// memoryBound is a quarter of the memory the process may have: the least
// of the machine's (MemTotal), its cgroup's (memory.max) and half its
// address space's limit (RLIMIT_AS: Go reserves address space well past
// the heap it holds); 0 when none is known (no guard). A quarter, because
// a buffer that doubles as it grows (a JSON decoder's) holds half again
// what it held at its last doubling and asks for twice as much at its
// next: the guard must see the one before the one that cannot be had.
func memoryBound() uint64 {
	var most uint64
	less := func(v uint64) {
		if v > 0 && (most == 0 || v < most) {
			most = v
		}
	}
	less(memTotal("/proc/meminfo"))
	less(cgroupMax("/sys/fs/cgroup/memory.max"))
	less(addressSpace() / 2)
	if most == 0 {
		return 0
	}
	return max(most/4, minMemoryBound)
}

// memTotal reads MemTotal (kB) from a meminfo file; 0 if it cannot.
func memTotal(path string) uint64 {
	b, err := readSmall(path)
	if err != nil {
		return 0
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) >= 2 && string(f[0]) == "MemTotal:" {
			kb, err := strconv.ParseUint(string(f[1]), 10, 64)
			if err != nil || kb > 1<<44 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// cgroupMax reads a cgroup's memory.max; 0 for "max" or if it cannot.
func cgroupMax(path string) uint64 {
	b, err := readSmall(path)
	if err != nil {
		return 0
	}
	v, err := strconv.ParseUint(string(bytes.TrimSpace(b)), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// readSmall reads a file of the kernel's, refusing more than 64 KiB.
func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<10+1))
	if err == nil && len(b) > 64<<10 {
		err = fmt.Errorf("%s: over 64 KiB", path)
	}
	return b, err
}

// addressSpace is the process's soft RLIMIT_AS; 0 for none.
func addressSpace() uint64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur == ^uint64(0) {
		return 0
	}
	return uint64(r.Cur)
}
