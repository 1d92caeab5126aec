//go:build unix

package engine

import "syscall"

// addressSpaceLeft is what the process's address-space limit (ulimit -v,
// prlimit --as) leaves past its present size, in bytes (0: no limit).
func addressSpaceLeft() int64 {
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &r); err != nil || r.Cur == ^uint64(0) || r.Cur > 1<<62 {
		return 0
	}
	return max(int64(r.Cur)-kbField("/proc/self/status", "VmSize:"), 1)
}
