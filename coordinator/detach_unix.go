//go:build unix

package coordinator

import (
	"os/exec"
	"syscall"
)

// ownGroup puts a client in a process group of its own: Ctrl-C at the
// terminal reaches the coordinator only, which passes one interrupt on
// (two would make a client abandon its operations at once).
func ownGroup(c *exec.Cmd) { c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
