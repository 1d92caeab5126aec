//go:build !linux

package runner

import "time"

func fineSleep(d time.Duration) { time.Sleep(d) }
