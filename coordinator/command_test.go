package coordinator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	_, _, err = (&docker{bin: bin}).output(context.Background(), "service", "logs")
	if err == nil || err.Error() != "docker service printed more than 16 MiB on its standard error: stopped" {
		t.Errorf("docker: error %v", err)
	}
	if _, err := os.Stat(bin + ".after"); err != nil {
		t.Error("docker was stopped before its bound")
	}
}
