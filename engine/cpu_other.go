//go:build !unix

package engine

import "time"

// CPUTime is not measured here: the saturation warning is left out.
func CPUTime() time.Duration { return 0 }

// MaxRSS is not measured here.
func MaxRSS() int64 { return 0 }
