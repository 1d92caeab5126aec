//go:build unix

package experiment

import (
	"os/exec"
	"syscall"
)

// ownGroup puts a shell step in a process group of its own, killed whole
// when the plan is stopped.
func ownGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}
