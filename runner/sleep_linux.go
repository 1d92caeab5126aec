package runner

import (
	"syscall"
	"time"
)

// fineSleep sleeps d with the kernel's precision (tens of µs). Go's timers
// wake at about 1 ms granularity on Linux, which would add up to 1 ms of
// harness lateness to every scheduled operation's response time.
func fineSleep(d time.Duration) {
	ts := syscall.NsecToTimespec(int64(d))
	for syscall.Nanosleep(&ts, &ts) == syscall.EINTR {
	}
}
