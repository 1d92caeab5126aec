package engine

import (
	"context"
	"time"

	"github.com/servbench/servbench/result"
)

// A Gate joins one client of a spread phase to whoever spread it (package
// coordinator's Session): the engine knows no coordinator, only this.
// Before the common start (startat) the run asks the Gate for the phase's
// clock, says it is ready, and starts when every client is (startat at the
// latest); while it runs, the Gate watches that the phase
// goes on, and stops the run when it does not (its coordinator killed, its
// machine gone).
type Gate interface {
	// Clock measures this machine's clock against the phase's: the
	// offset (theirs minus this one's) and the round trip it is within.
	Clock(ctx context.Context) (*result.Clock, error)
	// Ready says this client is ready to measure and returns the phase's
	// common start on the phase's clock, once every client is ready, at
	// the latest latest (startat); zero when the phase sets none.
	Ready(ctx context.Context, latest time.Time) (time.Time, error)
	// Watch calls gone once when the phase's coordinator is gone, and
	// returns when ctx ends.
	Watch(ctx context.Context, gone func())
	// String says where the phase's coordinator is, for messages.
	String() string
}

// clockWarnMs: a client whose clock is further off its phase's says so.
const clockWarnMs = 10
