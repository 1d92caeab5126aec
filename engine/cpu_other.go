//go:build !unix

package engine

import "time"

// cpuTime is not measured here: the saturation warning is left out.
func cpuTime() time.Duration { return 0 }
