package measure

import "time"

var epoch = time.Now()

// Now returns monotonic nanoseconds since the process started. All
// recorded times (actual and intended starts, ends) use this clock.
func Now() int64 { return int64(time.Since(epoch)) }

// Wall converts a Now reading to wall-clock time.
func Wall(ns int64) time.Time { return epoch.Add(time.Duration(ns)) }
