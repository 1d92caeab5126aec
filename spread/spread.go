// Package spread divides one phase among the clients that run it together,
// as YCSB users divide a run by hand: client i of n gets its share of the
// threads, the target rate, the operation count and the warmup operations,
// and its own range of keys to load (insertstart, insertcount), so the
// clients' loads never collide (a run's clients read the whole key space:
// the engine uses the range for a load, or with clientkeys=own). Shares
// are exact: they add up to the whole, and no two differ by more than one
// (the first clients take the remainder).
//
// The split is a pure function of the whole and (i, n); the engine applies
// it to a client's checked configuration.
package spread

import "fmt"

// Share returns client i of n's part of total items numbered from 0: its
// first item and how many.
func Share(total int64, i, n int) (start, count int64) {
	q, r := total/int64(n), total%int64(n)
	ii := int64(i)
	start = ii*q + min(ii, r)
	count = q
	if ii < r {
		count++
	}
	return start, count
}

// Part is the part of a phase one client runs (or the whole phase).
type Part struct {
	Threads     int
	Rate        float64 // ops/s, 0 = as fast as possible
	OpCount     int64   // 0 = until the time limit; a share of 0 of a count is none
	WarmupOps   int64
	InsertStart int64
	InsertCount int64
	Seed        uint64 // 0 = random
}

// Split returns client i of n's part of whole. The rate is shared in
// proportion to the threads, so every thread of every client keeps the
// same pace; a fixed seed gives each client a distinct one derived from
// it.
func Split(whole Part, i, n int) (Part, error) {
	switch {
	case n < 1:
		return Part{}, fmt.Errorf("%d clients: want at least 1", n)
	case i < 0 || i >= n:
		return Part{}, fmt.Errorf("client index %d: want 0 to %d", i, n-1)
	case whole.Threads < n:
		return Part{}, fmt.Errorf("%d thread%s for %d clients: each client needs one", whole.Threads, plural(whole.Threads), n)
	case whole.InsertCount < int64(n):
		return Part{}, fmt.Errorf("%d keys to insert for %d clients: each client needs one", whole.InsertCount, n)
	}
	p := whole
	_, threads := Share(int64(whole.Threads), i, n)
	p.Threads = int(threads)
	p.Rate = whole.Rate * float64(threads) / float64(whole.Threads)
	_, p.OpCount = Share(whole.OpCount, i, n)
	_, p.WarmupOps = Share(whole.WarmupOps, i, n)
	start, count := Share(whole.InsertCount, i, n)
	p.InsertStart, p.InsertCount = whole.InsertStart+start, count
	if whole.Seed != 0 {
		p.Seed = whole.Seed + uint64(i)*0x9e3779b97f4a7c15 // distinct for distinct i
		if p.Seed == 0 {
			p.Seed = 1
		}
	}
	return p, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
