package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/result"
)

// The SSH hosts scripts/servers starts (ssh): an sshd each on 127.0.0.2..4,
// each letting in a user of its own, named in the ssh_config the script
// prints (SERVBENCH_SSH_URL).
var sshHosts = []struct{ name, user string }{
	{"servbench-host1", "servbench-ssh1"}, {"servbench-host2", "servbench-ssh2"}, {"servbench-host3", "servbench-ssh3"},
}

var (
	sshExeOnce sync.Once
	sshExe     string
	sshExeErr  error
)

// sshSetup returns the hosts' ssh_config, a servbench built from this
// checkout (the clients run it: it is copied to each host), and Redis.
func sshSetup(t *testing.T) (config, exe, redisURL string) {
	config = dbtest.ServerURL(t, "SERVBENCH_SSH_URL")
	redisURL = dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	sshExeOnce.Do(func() {
		dir, err := os.MkdirTemp("", "servbench-ssh-test-")
		if err != nil {
			sshExeErr = err
			return
		}
		sshExe = filepath.Join(dir, "servbench")
		out, err := exec.Command("go", "build", "-o", sshExe, "../cmd/servbench").CombinedOutput()
		if err != nil {
			sshExeErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if sshExeErr != nil {
		t.Fatal(sshExeErr)
	}
	return config, sshExe, redisURL
}

// sshArgs is a phase on 3 clients over the 3 hosts, the coordinator on
// loopback.
func sshArgs(cmd, config, redisURL string, more ...string) []string {
	var hosts []string
	for _, h := range sshHosts {
		hosts = append(hosts, h.name)
	}
	a := []string{cmd, "redis", "-w", "c", "-p", "redis.url=" + redisURL, "-p", "recordcount=3000", "-threads", "3", "--clients", "3",
		"--orchestrator", "ssh", "--hosts", strings.Join(hosts, ","), "-p", "ssh.config=" + config, "-p", "coordinator.addr=127.0.0.1:0"}
	return append(a, more...)
}

// hostState is what is on the hosts: each user's processes and the files
// in its home.
func hostState(t *testing.T) (procs, files []string) {
	t.Helper()
	for _, h := range sshHosts {
		out, _ := exec.Command("ps", "-u", h.user, "-o", "pid=,args=").Output()
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if l != "" {
				procs = append(procs, h.user+": "+strings.TrimSpace(l))
			}
		}
		home, err := os.UserHomeDir()
		if out, err2 := exec.Command("getent", "passwd", h.user).Output(); err2 == nil {
			f := strings.Split(strings.TrimSpace(string(out)), ":")
			if len(f) > 5 {
				home, err = f[5], nil
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		filepath.WalkDir(home, func(p string, _ os.DirEntry, _ error) error {
			files = append(files, p)
			return nil
		})
	}
	return procs, files
}

// nothingLeftOnHosts waits (bounded) for the users' processes to end, and
// checks that their homes hold what they held before.
func nothingLeftOnHosts(t *testing.T, filesBefore []string) {
	t.Helper()
	var procs, files []string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if procs, files = hostState(t); len(procs) == 0 || time.Now().After(deadline) {
			break
		}
	}
	if len(procs) > 0 {
		t.Errorf("processes left on the hosts: %q", procs)
	}
	if !slices.Equal(files, filesBefore) {
		t.Errorf("files left on the hosts: %q, before %q", files, filesBefore)
	}
}

// servbenchProc runs the servbench binary, its standard error read line by
// line; started is closed at the first line holding want.
type servbenchProc struct {
	cmd     *exec.Cmd
	mu      sync.Mutex
	stderr  strings.Builder
	done    chan struct{}
	started chan struct{}
}

func startServbench(t *testing.T, exe, want string, args ...string) *servbenchProc {
	t.Helper()
	p := &servbenchProc{cmd: exec.Command(exe, args...), done: make(chan struct{}), started: make(chan struct{})}
	p.cmd.Stdout = io.Discard
	r, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.cmd.Process.Kill(); <-p.done })
	go func() {
		sc := bufio.NewScanner(r)
		seen := false
		for sc.Scan() {
			p.mu.Lock()
			p.stderr.WriteString(sc.Text() + "\n")
			p.mu.Unlock()
			if !seen && want != "" && strings.Contains(sc.Text(), want) {
				seen = true
				close(p.started)
			}
		}
		p.cmd.Wait()
		close(p.done)
	}()
	return p
}

// wait returns the exit code and standard error, within a bound.
func (p *servbenchProc) wait(t *testing.T) (int, string) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(3 * time.Minute): // a safety net, not a measurement
		t.Fatal("servbench did not end")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd.ProcessState.ExitCode(), p.stderr.String()
}

func (p *servbenchProc) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-p.started:
	case <-p.done:
		_, e := p.wait(t)
		t.Fatalf("servbench ended first: %s", e)
	case <-time.After(3 * time.Minute):
		t.Fatal("the clients did not start measuring")
	}
}

// Three clients on three SSH hosts, each logged in as a user of its own,
// load and run against Redis: the merged results are exact (every
// operation of every client, each verified), each client's lines are on
// the coordinator's standard error by index and host, and nothing is
// left on any host: no process, no file (the copied servbench is gone).
func TestSSHClients(t *testing.T) {
	config, exe, url := sshSetup(t)
	_, before := hostState(t)
	dir := t.TempDir()
	p := startServbench(t, exe, "", sshArgs("load", config, url, "-p", "dataintegrity=true", "-o", filepath.Join(dir, "l.json"))...)
	if code, e := p.wait(t); code != ExitOK {
		t.Fatalf("load: exit %d: %s", code, e)
	}
	out := filepath.Join(dir, "r.json")
	p = startServbench(t, exe, "", sshArgs("run", config, url, "-p", "operationcount=9001", "-p", "dataintegrity=true", "-o", out)...)
	code, e := p.wait(t)
	if code != ExitOK {
		t.Fatalf("run: exit %d: %s", code, e)
	}
	mergedVerified(t, out, 3, 9001)
	for i, h := range sshHosts {
		if !strings.Contains(e, fmt.Sprintf("client %d (%s): servbench: ran workload C on redis", i, h.name)) {
			t.Errorf("client %d's lines are not on stderr by host:\n%s", i, e)
		}
		if !strings.Contains(e, "host "+h.name+": copying servbench") {
			t.Errorf("%s: not copied:\n%s", h.name, e)
		}
	}
	nothingLeftOnHosts(t, before)
}

// A client killed on its host mid-run fails the phase, named by index and
// host; the others are stopped and nothing is left on any host.
func TestSSHClientKilled(t *testing.T) {
	config, exe, url := sshSetup(t)
	_, before := hostState(t)
	p := startServbench(t, exe, "servbench: 3 clients, ", sshArgs("run", config, url, "-p", "operationcount=0", "--duration", "300",
		"-target", "300", "-p", "status.interval=1", "-o", filepath.Join(t.TempDir(), "r.json"))...)
	p.waitStarted(t)
	if out, err := exec.Command("pkill", "-KILL", "-u", sshHosts[1].user, "-x", "servbench").CombinedOutput(); err != nil {
		t.Fatalf("pkill: %v %s", err, out)
	}
	code, e := p.wait(t)
	if code != ExitFailure || !strings.Contains(e, "client 1 of 3 (host servbench-host2) ended (") || !strings.Contains(e, "without sending its result: no merged result") {
		t.Errorf("exit %d: %s", code, e)
	}
	nothingLeftOnHosts(t, before)
}

// Ctrl-C at the coordinator stops every client on every host, which sends
// what it measured: the merged result says it was interrupted; nothing is
// left on any host.
func TestSSHInterrupted(t *testing.T) {
	config, exe, url := sshSetup(t)
	_, before := hostState(t)
	out := filepath.Join(t.TempDir(), "r.json")
	p := startServbench(t, exe, "servbench: 3 clients, ", sshArgs("run", config, url, "-p", "operationcount=0", "--duration", "300",
		"-target", "300", "-p", "status.interval=1", "-o", out)...)
	p.waitStarted(t)
	p.cmd.Process.Signal(syscall.SIGINT)
	code, e := p.wait(t)
	if code != ExitInterrupted {
		t.Fatalf("exit %d: %s", code, e)
	}
	m, err := result.ReadFile(out)
	if err != nil || m.Clients != 3 || m.Stop != result.Interrupted || m.Operations == 0 {
		t.Errorf("merged result %v: %+v", err, m)
	}
	nothingLeftOnHosts(t, before)
}

// A host whose key is not the one known_hosts has is refused by ssh, and
// the run fails naming it before any client starts; the hosts that were
// prepared keep nothing.
func TestSSHWrongHostKey(t *testing.T) {
	config, exe, url := sshSetup(t)
	_, before := hostState(t)
	dir := t.TempDir()
	raw, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	known := filepath.Join(filepath.Dir(config), "known_hosts")
	kh, err := os.ReadFile(known)
	if err != nil {
		t.Fatal(err)
	}
	key := filepath.Join(dir, "other")
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v %s", err, out)
	}
	pub, _ := os.ReadFile(key + ".pub")
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(kh)), "\n") {
		if strings.HasPrefix(l, "[127.0.0.4]") { // servbench-host3's: another key
			f := strings.Fields(string(pub))
			l = "[127.0.0.4]:2222 " + f[0] + " " + f[1]
		}
		lines = append(lines, l)
	}
	wrongKnown := filepath.Join(dir, "known_hosts")
	os.WriteFile(wrongKnown, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	wrongConfig := filepath.Join(dir, "ssh_config")
	os.WriteFile(wrongConfig, []byte(strings.ReplaceAll(string(raw), known, wrongKnown)), 0o644)
	p := startServbench(t, exe, "", sshArgs("run", wrongConfig, url, "-p", "operationcount=300")...)
	code, e := p.wait(t)
	if code != ExitFailure || !strings.Contains(e, "host servbench-host3: ssh: Host key verification failed.") || strings.Contains(e, "starting together") {
		t.Errorf("exit %d: %s", code, e)
	}
	nothingLeftOnHosts(t, before)
}

// Hosts from a file, each with its user, port and identity file, and a
// servbench already on the hosts (ssh.binary, the same build by SHA-256):
// nothing is copied; 3 clients on 2 hosts (client 2 on the first) merge
// exactly.
func TestSSHHostsFileAndInstalledBinary(t *testing.T) {
	config, exe, url := sshSetup(t)
	dir := filepath.Dir(config)
	shared, err := os.MkdirTemp("", "servbench-installed-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	installed := filepath.Join(shared, "servbench")
	raw, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(installed, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shared, 0o755) // the hosts' users run it
	_, before := hostState(t)
	tmp := t.TempDir()
	key := filepath.Join(dir, "client_key")
	hosts := filepath.Join(tmp, "hosts")
	os.WriteFile(hosts, []byte("# two of the test hosts\nservbench-ssh1@127.0.0.2:2222 "+key+"\n\nservbench-ssh2@127.0.0.3:2222   "+key+"  # the second\n"), 0o644)
	sshConfig := filepath.Join(tmp, "ssh_config")
	os.WriteFile(sshConfig, []byte("Host *\n  UserKnownHostsFile "+filepath.Join(dir, "known_hosts")+"\n  StrictHostKeyChecking yes\n"), 0o644)
	out := filepath.Join(tmp, "r.json")
	args := []string{"run", "redis", "-w", "c", "-p", "redis.url=" + url, "-p", "recordcount=3000", "-p", "operationcount=3001", "-threads", "3",
		"--clients", "3", "--orchestrator", "ssh", "--hosts", "@" + hosts, "-p", "ssh.config=" + sshConfig, "-p", "ssh.binary=" + installed,
		"-p", "coordinator.addr=127.0.0.1:0", "-o", out}
	if code, e := startServbench(t, exe, "", "load", "redis", "-w", "c", "-p", "redis.url="+url, "-p", "recordcount=3000").wait(t); code != ExitOK {
		t.Fatalf("load: exit %d: %s", code, e)
	}
	code, e := startServbench(t, exe, "", args...).wait(t)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, e)
	}
	if strings.Contains(e, "copying servbench") {
		t.Errorf("copied although the hosts have this build:\n%s", e)
	}
	for i, h := range []string{"servbench-ssh1@127.0.0.2", "servbench-ssh2@127.0.0.3", "servbench-ssh1@127.0.0.2"} {
		if !strings.Contains(e, fmt.Sprintf("client %d (%s): servbench: ran workload C", i, h)) {
			t.Errorf("client %d not on %s:\n%s", i, h, e)
		}
	}
	if m, err := result.ReadFile(out); err != nil || m.Clients != 3 || m.Operations != 3001 || m.OKOperations != 3001 {
		t.Errorf("merged %v: %+v", err, m)
	}
	nothingLeftOnHosts(t, before)
}
