package engine

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/spread"
)

// Client says which of a spread phase's clients a setup runs: Index of
// Count (0-based), from the properties clients and clientindex. A phase
// that is not spread is client 0 of 1.
type Client struct {
	Index, Count int
	// One is set when the setup is one client of its phase (given its
	// clientindex: by the coordinator, an orchestrator's template or by
	// hand): it runs its share here. Otherwise a spread setup is the whole
	// phase, whose caller starts the clients.
	One bool
	// StartAt is the wall-clock time the clients start measuring together
	// (property startat, RFC 3339); zero: at once.
	StartAt time.Time

	// Orchestrator names where the clients run (property orchestrator:
	// "local", this machine, unless another is given); the coordinator
	// reads and checks the rest of how it starts them (an Extension).
	Orchestrator string
	// OwnKeys is set when each client of a run phase reads and updates
	// only the keys it loaded (property clientkeys=own); by default each
	// draws from the whole key space, as clients given one workload file
	// do (clientkeys=all).
	OwnKeys bool
	// CoordinatorID is the spread phase's identity, random, which its
	// coordinator gives every client (coordinator.id) and finds again in
	// their results: no other run's result is ever merged.
	CoordinatorID string
}

// maxStartAhead bounds how far ahead startat may be.
const maxStartAhead = 24 * time.Hour

// Spread reports whether the phase is one client's share of a larger one.
func (c Client) Spread() bool { return c.Count > 1 }

func (c Client) String() string { return fmt.Sprintf("client %d of %d", c.Index, c.Count) }

// readClient reads clients, clientindex, startat, coordinator.id and
// orchestrator.
func readClient(p *props.Props) (Client, error) {
	n, err := p.Int64Min("clients", 1, 1)
	if err != nil {
		return Client{}, err
	}
	if n > 10000 {
		return Client{}, p.Errorf("clients", "%d clients is more than 10,000", n)
	}
	c := Client{Count: int(n)}
	if v, ok := p.Get("startat"); ok {
		if c.StartAt, err = time.Parse(time.RFC3339Nano, v); err != nil {
			return Client{}, p.Errorf("startat", "want a time as 2026-11-23T15:04:05.5Z (RFC 3339), not %q", props.Cut(v, 40))
		}
	}
	if !c.StartAt.IsZero() && time.Until(c.StartAt) > maxStartAhead {
		return Client{}, p.Errorf("startat", "%s is more than a day ahead: a coordinator starts its clients seconds ahead", c.StartAt.UTC().Format(time.RFC3339))
	}
	keys, err := p.OneOf("clientkeys", "all", "all", "own")
	if err != nil {
		return Client{}, err
	}
	c.OwnKeys = keys == "own"
	c.CoordinatorID = p.String("coordinator.id", "")
	c.Orchestrator = p.String("orchestrator", "local")
	_, c.One = p.Get("clientindex")
	i, err := p.Int64Min("clientindex", 0, 0)
	if err != nil {
		return Client{}, err
	}
	if i >= n {
		return Client{}, p.Errorf("clientindex", "%d: want 0 to %d for clients=%d", i, n-1, n)
	}
	c.Index = int(i)
	return c, nil
}

// takeShare checks that a phase spread over clients divides among them
// and, for client i of n > 1 (given its clientindex), replaces the whole
// phase's threads, target (and stages' rates), operation and warmup
// counts and seed in the checked configurations by the client's share
// (package spread), recording them in s.given. A load's clients insert
// disjoint ranges of the keys (insertstart, insertcount); a run's clients
// each draw from the whole key space, as clients given one workload file
// do, and insert keys no other client inserts (workload.Config.Clients),
// unless clientkeys=own keeps each in the range it loaded. With
// clients > 1 and no clientindex, the setup is the whole phase, left as it
// is: the caller starts the clients.
func (s *Setup) takeShare(p *props.Props) error {
	c, rc, wc := s.Client, &s.Runner, s.Workload
	if c.Count == 1 {
		return nil
	}
	part, err := spread.Split(spread.Part{Threads: rc.Threads, Rate: rc.Rate, OpCount: rc.OpCount, WarmupOps: rc.WarmupOps,
		InsertStart: wc.InsertStart, InsertCount: wc.InsertCount, Seed: rc.Seed}, c.Index, c.Count)
	if err != nil {
		return p.Errorf("clients", "%v", err)
	}
	if !c.One {
		return nil // the whole phase, checked: the caller starts the clients
	}
	src := c.String()
	set := func(key string, v int64) { s.given.Set(key, strconv.FormatInt(v, 10), src) }
	set("threadcount", int64(part.Threads))
	rc.Threads = part.Threads
	if part.Rate > 0 {
		if len(rc.Stages) == 0 {
			s.given.Set("target", strconv.FormatFloat(part.Rate, 'g', -1, 64), src)
		}
		for i := range rc.Stages { // a stage's rate is over every thread
			rc.Stages[i].Rate *= part.Rate / rc.Rate
		}
		rc.Rate = part.Rate
	}
	if _, ok := p.Get("operationcount"); ok || rc.OpCount > 0 {
		set("operationcount", part.OpCount)
		// A share of 0 of a count is none (fewer operations than
		// clients), not operationcount=0's "no limit".
		rc.None = rc.OpCount > 0 && part.OpCount == 0
		rc.OpCount, wc.OperationCount = part.OpCount, part.OpCount
	}
	if rc.WarmupOps > 0 {
		set("warmupoperationcount", part.WarmupOps)
		rc.WarmupOps = part.WarmupOps
	}
	if s.Spec.Phase == LoadPhase || c.OwnKeys {
		set("insertstart", part.InsertStart)
		set("insertcount", part.InsertCount)
		wc.InsertStart, wc.InsertCount = part.InsertStart, part.InsertCount
	} else {
		wc.Clients, wc.Client = c.Count, c.Index
	}
	if part.Seed != 0 {
		s.given.Set("randomseed", strconv.FormatInt(int64(part.Seed), 10), src)
		rc.Seed = part.Seed
	}
	return nil
}

// waitForStart sleeps until the common start, if any (start: startat, or
// sooner when every client was ready); false when ctx ended first. A
// client that arrives late starts at once and says by how much. offset is
// the coordinator's clock minus this one's (0 when not measured).
func (c Client) waitForStart(ctx context.Context, start time.Time, offset time.Duration, logf func(string, ...any)) bool {
	if start.IsZero() {
		return true
	}
	d := time.Until(start.Add(-offset))
	if d > 5*time.Second {
		logf("%s: waiting %s for the common start (%s); Ctrl-C stops", c, d.Round(time.Second), start.UTC().Format(time.RFC3339))
	}
	if d <= 0 {
		if d < -100*time.Millisecond {
			logf("%s started %s after the common start", c, (-d).Round(time.Millisecond))
		}
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
