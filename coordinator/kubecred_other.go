//go:build !linux

package coordinator

import "os/exec"

func dieWithParent(int) error     { return nil }
func pluginGroup(*exec.Cmd)       {}
func killGroup(c *exec.Cmd) error { return c.Process.Kill() }
