package engine

import (
	"context"

	"github.com/servbench/servbench/result"
)

// A Gate joins one client of a spread phase to whoever spread it (package
// coordinator's Session): the engine knows no coordinator, only this.
// Before the common start (startat) the run asks the Gate for the phase's
// clock, and starts on it; while it runs, the Gate watches that the phase
// goes on, and stops the run when it does not (its coordinator killed, its
// machine gone).
type Gate interface {
	// Clock measures this machine's clock against the phase's: the
	// offset (theirs minus this one's) and the round trip it is within.
	Clock(ctx context.Context) (*result.Clock, error)
	// Watch calls gone once when the phase's coordinator is gone, and
	// returns when ctx ends.
	Watch(ctx context.Context, gone func())
	// String says where the phase's coordinator is, for messages.
	String() string
}

// clockWarnMs: a client whose clock is further off its phase's says so.
const clockWarnMs = 10
