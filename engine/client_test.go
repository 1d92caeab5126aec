package engine

import (
	"strings"
	"testing"
)

// Client 1 of 4 runs its share of the phase: 3 of 10 threads at 3/10 of
// the target, 250 of 1,001 operations, a seed of its own, and draws keys
// from the whole key space, inserting every fourth key after it from the
// second, as four clients given one workload file draw (YCSB's parallel
// clients); its properties say where each value came from.
func TestClientShare(t *testing.T) {
	s, err := Check(specOf(t, "clients", "4", "clientindex", "1", "threadcount", "10", "target", "100",
		"recordcount", "1000", "operationcount", "1001", "randomseed", "7"))
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Client; c.Index != 1 || c.Count != 4 || c.Orchestrator != "local" || !c.Spread() {
		t.Errorf("client %+v", s.Client)
	}
	r, w := s.Runner, s.Workload
	if r.Threads != 3 || r.Rate != 30 || r.OpCount != 250 || w.InsertStart != 0 || w.InsertCount != 1000 || w.Clients != 4 || w.Client != 1 || r.Seed == 7 || r.Seed == 0 {
		t.Errorf("threads %d, rate %v, ops %d, keys %d+%d, inserts as client %d of %d, seed %d", r.Threads, r.Rate, r.OpCount, w.InsertStart, w.InsertCount, w.Client, w.Clients, r.Seed)
	}
	// Its load inserts keys 250 to 499; with clientkeys=own, its run
	// reads and updates those only.
	for _, spec := range []Spec{
		func() Spec {
			sp := specOf(t, "clients", "4", "clientindex", "1", "threadcount", "10", "recordcount", "1000")
			sp.Phase = LoadPhase
			return sp
		}(),
		specOf(t, "clients", "4", "clientindex", "1", "threadcount", "10", "recordcount", "1000", "clientkeys", "own"),
	} {
		s, err := Check(spec)
		if err != nil {
			t.Fatal(err)
		}
		if w := s.Workload; w.InsertStart != 250 || w.InsertCount != 250 || w.Clients != 0 {
			t.Errorf("%s: keys %d+%d, clients %d", spec.Phase, w.InsertStart, w.InsertCount, w.Clients)
		}
		if v, _ := s.Properties().Get("insertstart"); v != "250" {
			t.Errorf("%s: insertstart recorded %q", spec.Phase, v)
		}
	}
	if src := s.Properties().Source("threadcount"); src != "client 1 of 4" {
		t.Errorf("threadcount set by %q", src)
	}
	if v, _ := s.Props.Get("threadcount"); v != "10" {
		t.Errorf("the properties were changed: threadcount %q", v)
	}
	// The whole phase, without an index, is left as it is.
	s, err = Check(specOf(t, "clients", "4", "threadcount", "10"))
	if err != nil || s.Runner.Threads != 10 || s.Client.Index != 0 || s.Client.Count != 4 {
		t.Errorf("whole phase: %+v, %v", s, err)
	}
}

// A client's share of stages is its threads' share of each stage's rate
// (a client was given the whole phase's target beside the stages, which
// it refused).
func TestClientShareOfStages(t *testing.T) {
	s, err := Check(specOf(t, "clients", "2", "clientindex", "1", "threadcount", "4", "stages", "10:100,10:400:step", "operationcount", "0"))
	if err != nil {
		t.Fatal(err)
	}
	if st := s.Runner.Stages; len(st) != 2 || st[0].Rate != 50 || st[1].Rate != 200 || !st[1].Step || s.Runner.Rate != 125 || s.Runner.Threads != 2 {
		t.Errorf("stages %+v, rate %v, threads %d", st, s.Runner.Rate, s.Runner.Threads)
	}
	if _, set := s.Properties().Get("target"); set {
		t.Error("target recorded beside stages")
	}
}

func TestClientRefused(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"clients", "4", "clientindex", "4", "threadcount", "8"}, "want 0 to 3"},
		{[]string{"clients", "0"}, "clients"},
		{[]string{"clients", "4", "clientindex", "0", "threadcount", "2"}, "2 threads for 4 clients"},
		{[]string{"clients", "4", "clientindex", "-1", "threadcount", "8"}, "clientindex"},
		{[]string{"clients", "4", "threadcount", "2"}, "2 threads for 4 clients"}, // the whole phase is checked before any client starts
		{[]string{"clients", "2", "startat", "tomorrow"}, "startat"},
		{[]string{"clients", "2", "startat", "2099-01-01T00:00:00Z"}, "more than a day ahead"},
	} {
		_, err := Check(specOf(t, c.kv...))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.kv, err, c.want)
		}
	}
}

// A client whose share of a count is none does none: its run's count of
// 0 is not operationcount=0's "no limit"; a share of a whole with no
// limit stays without one.
func TestClientShareOfNone(t *testing.T) {
	s, err := Check(specOf(t, "clients", "2", "clientindex", "1", "threadcount", "2", "operationcount", "1"))
	if err != nil {
		t.Fatal(err)
	}
	if r := s.Runner; r.OpCount != 0 || !r.None {
		t.Errorf("1 operation, client 1 of 2: %d operations, none %v", r.OpCount, r.None)
	}
	res, err := s.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := res.Total.ClientOps(); n != 0 || res.Reason != "completed" {
		t.Errorf("a share of none: %d operations, ended %s", n, res.Reason)
	}
	s, err = Check(specOf(t, "clients", "2", "clientindex", "1", "threadcount", "2", "operationcount", "0", "maxexecutiontime", "1"))
	if err != nil || s.Runner.None {
		t.Errorf("operationcount=0 shared: none %v, %v", s.Runner.None, err)
	}
}
