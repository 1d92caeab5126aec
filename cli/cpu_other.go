//go:build !unix

package cli

import "time"

// cpuTime is not measured here: the saturation warning is left out.
func cpuTime() time.Duration { return 0 }
