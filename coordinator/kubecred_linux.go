package coordinator

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// dieWithParent has the kernel send this process SIGTERM when its parent
// ends (the command stops as on Ctrl-C: the plugin's group is killed),
// and checks that the parent is still the one given.
func dieWithParent(parent int) error {
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0); e != 0 {
		return fmt.Errorf("cannot be tied to its parent: %v", e)
	}
	if os.Getppid() != parent {
		return fmt.Errorf("its parent %d has ended", parent)
	}
	return nil
}

// pluginGroup puts a credential plugin in a process group of its own,
// killed when it is to stop, and the plugin itself when the thread that
// started it ends.
func pluginGroup(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	c.Cancel = func() error { return killGroup(c) }
}

// killGroup kills c's process group.
func killGroup(c *exec.Cmd) error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
