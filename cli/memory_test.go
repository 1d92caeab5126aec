package cli

import (
	"os"
	"path/filepath"
	"strings"
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
	g := &memoryGuard{bound: 1000, heap: func() uint64 { return <-heaps }, tick: tick, sigs: sigs, out: &out}
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

// The bound is a quarter of the least of the machine's memory, its
// cgroup's and half its address space, read from the kernel's files, a
// file that says nothing usable giving no bound of its own.
func TestMemoryBoundFromTheKernel(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if got := memTotal(write("meminfo", "MemFree: 5 kB\nMemTotal:       24576000 kB\n")); got != 24576000<<10 {
		t.Errorf("MemTotal: %d", got)
	}
	for _, bad := range []string{"MemTotal: lots kB\n", "", "MemTotal: 99999999999999999999 kB\n"} {
		if got := memTotal(write("bad", bad)); got != 0 {
			t.Errorf("%q: %d", bad, got)
		}
	}
	if got := cgroupMax(write("max", "max\n")); got != 0 {
		t.Errorf("memory.max of max: %d", got)
	}
	if got := cgroupMax(write("limited", "1073741824\n")); got != 1<<30 {
		t.Errorf("memory.max: %d", got)
	}
	if got := memTotal(filepath.Join(dir, "none")); got != 0 {
		t.Errorf("no file: %d", got)
	}
	if b := memoryBound(); b != 0 && b < minMemoryBound {
		t.Errorf("this machine's bound %d is below the least, %d", b, minMemoryBound)
	}
}
