package engine

import (
	"runtime"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// CoresProperty says how many of the machine's cores the client takes
// (GOMAXPROCS while a phase runs): auto (the default) takes half of them
// when every connection the binding opened reached a server on this
// machine, and all of them otherwise; all takes every one; a number takes
// that many. A Go client given every core of a machine it shares with its
// server spends some of the server's time looking for work (its idle
// threads spin before they sleep): beside Redis on two cores, one core
// gave 1.22-1.68x YCSB's throughput where two gave 1.01-1.29x, with a
// lower p99 (docs/performance.md).
const CoresProperty = "client.cores"

const (
	coresAuto = 0
	coresAll  = -1
)

// readCores reads client.cores.
func readCores(p *props.Props) (int, error) {
	switch v := p.String(CoresProperty, "auto"); v {
	case "auto":
		return coresAuto, nil
	case "all":
		return coresAll, nil
	}
	n, err := p.Int64Min(CoresProperty, 1, 1)
	if err != nil {
		return 0, p.Errorf(CoresProperty, "want auto, all or a number of cores (1 or more)")
	}
	return int(min(n, 1<<16)), nil
}

// takeCores sets GOMAXPROCS for the phase, after the binding opened (its
// connections say where its server is), and returns what restores it.
// An embedded store runs in this process: it keeps every core.
func (s *Setup) takeCores(d db.DB, embedded bool) (restore func()) {
	n := s.cores
	switch {
	case n == coresAll || (n == coresAuto && embedded):
		return func() {}
	case n == coresAuto:
		pd, ok := d.(db.Peered)
		if !ok {
			return func() {}
		}
		local, remote := pd.Peers()
		if local == 0 || remote > 0 {
			return func() {}
		}
		n = max(1, runtime.NumCPU()/2)
		if n >= runtime.GOMAXPROCS(0) {
			return func() {}
		}
		s.logf("the server is on this machine: the client takes %d of its %d cores, the rest the server's (client.cores=auto; all, or a number, to choose)", n, runtime.NumCPU())
	}
	prev := runtime.GOMAXPROCS(n)
	return func() { runtime.GOMAXPROCS(prev) }
}
