package coordinator

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeCommand writes an executable shell script named name in a new
// directory and returns its path; the script's own path is in $0.
func fakeCommand(t *testing.T, name, script string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(f, []byte("#!/bin/sh\n"+script+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return f
}

// overflowScript prints 2 MiB on stream 1 or 2, then notes it went on.
const overflowScript = `head -c 2097152 /dev/zero >&%s; touch "$0.after"`

// An ssh printing more than its bound on its standard output fails the
// action in one line naming the host and ssh, and is stopped there (what
// it would have done after printing is not done); a docker command's
// standard error alike.
func TestCommandOutputBounded(t *testing.T) {
	ssh := fakeCommand(t, "ssh", strings.ReplaceAll(overflowScript, "%s", "1"))
	t.Setenv("PATH", filepath.Dir(ssh)+string(os.PathListSeparator)+os.Getenv("PATH"))
	out, err := (&sshOrch{}).ssh(context.Background(), sshHost{host: "h1"}, "true", nil)
	if err == nil || err.Error() != "host h1: ssh printed more than 1 MiB on its standard output: stopped" {
		t.Errorf("ssh: error %v", err)
	}
	if out != "" {
		t.Errorf("ssh: kept %d bytes", len(out))
	}
	if _, err := os.Stat(ssh + ".after"); err == nil {
		t.Error("ssh was not stopped at the bound")
	}

	bin := fakeCommand(t, "docker", strings.ReplaceAll(overflowScript, "%s", "2")+`; head -c 17000000 /dev/zero >&2`)
	_, _, err = (&docker{bin: bin}).output(context.Background(), nil, "service", "logs")
	if err == nil || err.Error() != "docker service printed more than 16 MiB on its standard error: stopped" {
		t.Errorf("docker: error %v", err)
	}
	if _, err := os.Stat(bin + ".after"); err != nil {
		t.Error("docker was stopped before its bound")
	}
}

// A command that ended, leaving a process of its own holding its output
// (an ssh master that persists), is not waited for past pipeWait: what it
// printed is kept, and it is not an error; the process left behind has
// not ended when the command is done with.
func TestCommandLeftHoldingItsPipes(t *testing.T) {
	old := pipeWait
	pipeWait = 200 * time.Millisecond
	defer func() { pipeWait = old }()
	ended := filepath.Join(t.TempDir(), "ended")
	c := exec.Command("sh", "-c", `sh -c "sleep 30; touch '`+ended+`'" & echo $!`)
	out, _, err := runBounded(c, "sh")
	pid, perr := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || perr != nil {
		t.Fatalf("output %q, %v", out, err)
	}
	defer syscall.Kill(pid, syscall.SIGKILL)
	if _, err := os.Stat(ended); err == nil {
		t.Errorf("the command was waited for until what it left ended")
	}
}

// A client's line of more than 64 KiB in the tasks' logs is passed on,
// and so is every line after it (a Scanner stopped there, the rest lost).
func TestDockerLogsLongLine(t *testing.T) {
	bin := fakeCommand(t, "docker", `head -c 100000 /dev/zero | tr '\0' x | sed 's/^/svc.1@node    | /' >&2; echo >&2; echo "svc.1@node    | after it" >&2`)
	var said bytes.Buffer
	j := &job{stderr: &said, mu: &sync.Mutex{}}
	(&docker{bin: bin}).logs(context.Background(), "svc", j)
	if !strings.Contains(said.String(), "client 1: after it") || !strings.Contains(said.String(), strings.Repeat("x", 100000)) {
		t.Errorf("said %d bytes, ending %q", said.Len(), said.String()[max(0, said.Len()-80):])
	}
}
