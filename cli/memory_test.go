package cli

import (
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// The guard sends nothing while the heap is within its bound, a first
// signal (and says why) once past it, a second past half as much again,
// and then nothing more.
func TestMemoryGuardSignals(t *testing.T) {
	heaps := make(chan uint64) // the heap each tick samples, given when it samples
	tick := make(chan time.Time)
	sigs := make(chan os.Signal, 3)
	var out strings.Builder
	g := &memoryGuard{bound: 1000, need: func() uint64 { return 0 }, heap: func() uint64 { return <-heaps }, tick: tick, sigs: sigs, out: &out}
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() { g.watch(done); close(ended) }()
	step := func(h uint64) {
		tick <- time.Time{}
		heaps <- h
	}
	for _, h := range []uint64{10, 999, 1000} {
		step(h)
	}
	step(0) // a tick taken: the sample before it dealt with
	if len(sigs) != 0 || g.fired.Load() {
		t.Fatalf("within the bound: %d signals", len(sigs))
	}
	step(1001)
	step(1400)
	step(1500)
	step(0)
	if len(sigs) != 1 || !g.fired.Load() || !strings.Contains(out.String(), "past its bound") {
		t.Fatalf("past the bound: %d signals, said %q", len(sigs), out.String())
	}
	step(1501)
	<-ended // it returns after the second
	if len(sigs) != 2 || strings.Count(out.String(), "\n") != 1 {
		t.Fatalf("past half as much again: %d signals, said %q", len(sigs), out.String())
	}
	close(done)
}

// What the phase's threads were found to need is added to the bound: a
// run the thread-memory check let through is not stopped for holding it.
func TestMemoryGuardAllowsTheThreadsNeed(t *testing.T) {
	heaps := make(chan uint64)
	tick := make(chan time.Time)
	sigs := make(chan os.Signal, 3)
	var need atomic.Uint64
	var out strings.Builder
	g := &memoryGuard{bound: 1000, need: need.Load, heap: func() uint64 { return <-heaps }, tick: tick, sigs: sigs, out: &out}
	done := make(chan struct{})
	defer close(done)
	go g.watch(done)
	step := func(h uint64) {
		tick <- time.Time{}
		heaps <- h
	}
	need.Store(5000)
	step(5999)
	step(0)
	if len(sigs) != 0 {
		t.Fatalf("within the bound and the threads' need: %d signals", len(sigs))
	}
	need.Store(0)
	step(5999)
	step(0)
	if len(sigs) != 1 || !strings.Contains(out.String(), "past its bound of 1000 bytes") {
		t.Fatalf("past the bound: %d signals, said %q", len(sigs), out.String())
	}
}

// This machine's bound is a quarter of what the process could take, at
// least minMemoryBound.
func TestMemoryBound(t *testing.T) {
	if b := memoryBound(); b != 0 && b < minMemoryBound {
		t.Errorf("this machine's bound %d is below the least, %d", b, minMemoryBound)
	}
}
