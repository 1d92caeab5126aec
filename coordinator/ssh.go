package coordinator

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/internal/inputfile"
	"github.com/servbench/servbench/props"
)

// sshOrch runs client i on host i mod H over the user's own ssh command:
// their ~/.ssh/config (or ssh.config), agent, keys and known_hosts, with
// host key checking as they have it (BatchMode: never a prompt). The ssh
// command, not a Go SSH library, because it is the setup users already
// trust and debug: ProxyJump, certificates, hardware keys and
// known_hosts policies work as they do for ssh itself.
//
// Before the common start is set, each host is asked its system and
// architecture and the SHA-256 of the servbench on its PATH (ssh.binary);
// a host without this exact build gets a copy in a directory of its own,
// ~/.servbench/run.XXXXXX, checked by hash, removed at the end. Each
// client is a shell on the host that reads the run's secret from its
// standard input (never an argument: those are visible to every user of
// the host), starts "servbench client" with the coordinator's address
// (where the host's SSH connection comes from, unless coordinator.addr
// names a host), notes its process ID beside the copy and says it. After
// success, failure or Ctrl-C, whatever still runs is killed and the
// copies are removed. A copy that a coordinator killed outright could
// not remove is removed by the next run on that host as that user (see
// sweepScript).
type sshOrch struct {
	hosts  []sshHost
	config string // ssh -F
	binary string // the servbench a host may have (ssh.binary)
	url    string // coordinator.url: where the hosts reach the coordinator ("": see clientScript)
	exe    string // this one
	sum    string // its SHA-256
	size   int64
	mu     sync.Mutex
	dirs   []string       // per host: the directory of its copy ("" none)
	bins   []string       // per host: the servbench it runs
	pids   map[int]string // client → its remote process ID, while it runs
}

// sshHost is one host as given: [user@]host[:port] [identity file].
type sshHost struct {
	user, host, port, key string
}

func (h sshHost) String() string {
	s := h.host
	if h.user != "" {
		s = h.user + "@" + s
	}
	return s
}

// maxHosts bounds a hosts list.
const maxHosts = 10000

func init() {
	register(Orchestrator{Name: "ssh", Help: "client i on host i mod H",
		Properties: []Property{
			{Name: "ssh.hosts", Flag: "hosts", Arg: "H1,H2,... | @FILE", Help: "ssh: the hosts, [user@]host[:port], or a file of one per line with an optional identity file", Only: true},
			{Name: "ssh.config", Help: "an ssh_config file for ssh -F"},
			{Name: "ssh.binary", Help: "a servbench the hosts have already (servbench)"},
		},
		Read: readSSH,
		start: func(ctx context.Context, c Config) (orchestrator, error) {
			return newSSH(ctx, c.Own.(sshConfig), c.URL)
		}})
}

// sshConfig is the ssh orchestrator's configuration: its hosts (ssh.hosts:
// a comma-separated list, or @FILE), an ssh_config file for its ssh
// commands (ssh.config), a servbench the hosts may have already
// (ssh.binary).
type sshConfig struct{ Hosts, Config, Binary string }

func readSSH(p *props.Props, chosen bool) (any, error) {
	c := sshConfig{Hosts: p.String("ssh.hosts", ""), Config: p.String("ssh.config", ""), Binary: p.String("ssh.binary", "servbench")}
	if chosen && c.Hosts == "" { // also for one client: it runs on a host, never here
		return nil, p.Errorf("ssh.hosts", "orchestrator=ssh needs the hosts: --hosts h1,h2,... or --hosts @FILE")
	}
	return c, nil
}

func newSSH(ctx context.Context, c sshConfig, url string) (*sshOrch, error) {
	hosts, err := parseHosts(ctx, c.Hosts)
	if err != nil {
		return nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("ssh: %w", err)
	}
	return &sshOrch{hosts: hosts, config: c.Config, binary: c.Binary, url: url, exe: exe, pids: map[int]string{}}, nil
}

// parseHosts reads ssh.hosts: "h1,user@h2:2222" or "@FILE" with a host a
// line ([user@]host[:port] [identity file]; # comments).
func parseHosts(ctx context.Context, v string) ([]sshHost, error) {
	var lines []string
	where := "ssh.hosts"
	if file, ok := strings.CutPrefix(v, "@"); ok {
		raw, err := inputfile.Read(ctx, file, 1<<20)
		if err != nil {
			return nil, fmt.Errorf("ssh.hosts: %w", err)
		}
		lines, where = strings.Split(string(raw), "\n"), file
	} else {
		lines = strings.Split(v, ",")
	}
	var hosts []sshHost
	for n, l := range lines {
		if i := strings.IndexByte(l, '#'); i >= 0 {
			l = l[:i]
		}
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		at := where
		if where != "ssh.hosts" {
			at = fmt.Sprintf("%s:%d", where, n+1)
		}
		if len(f) > 2 {
			return nil, fmt.Errorf("%s: %q: want [user@]host[:port] [identity file]", at, props.Cut(l, 60))
		}
		h := sshHost{host: f[0]}
		if len(f) == 2 {
			h.key = f[1]
		}
		if u, rest, ok := strings.Cut(h.host, "@"); ok {
			h.user, h.host = u, rest
		}
		if host, port, err := net.SplitHostPort(h.host); err == nil {
			h.host, h.port = host, port
			if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
				return nil, fmt.Errorf("%s: %q: port %q is not 1 to 65535", at, props.Cut(l, 60), props.Cut(port, 10))
			}
		}
		if h.host == "" || strings.HasPrefix(h.host, "-") || strings.HasPrefix(h.user, "-") || strings.ContainsAny(h.host+h.user, " \t'\"\\;&|$`") {
			return nil, fmt.Errorf("%s: %q is not a host", at, props.Cut(l, 60))
		}
		if hosts = append(hosts, h); len(hosts) > maxHosts {
			return nil, fmt.Errorf("%s: more than %d hosts", at, maxHosts)
		}
	}
	if len(hosts) == 0 {
		return nil, fmt.Errorf("%s: no hosts", where)
	}
	return hosts, nil
}

func (s *sshOrch) String() string {
	return fmt.Sprintf("ssh, %d host%s", len(s.hosts), plural(len(s.hosts)))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// lead: a client connects over ssh and starts in about a second.
func (s *sshOrch) lead() time.Duration { return 5 * time.Second }

// listen: loopback when every host is this machine, else every address
// (the clients come from elsewhere; only holders of the secret are served).
func (s *sshOrch) listen() string {
	for _, h := range s.hosts {
		if !loopback(h.host) {
			return ":0"
		}
	}
	return "127.0.0.1:0"
}

// args is the ssh command line that runs script on host h.
func (s *sshOrch) args(h sshHost, script string) []string {
	a := []string{"-T", "-o", "BatchMode=yes", "-o", "ConnectTimeout=15"}
	if s.config != "" {
		a = append(a, "-F", s.config)
	}
	if h.port != "" {
		a = append(a, "-p", h.port)
	}
	if h.user != "" {
		a = append(a, "-l", h.user)
	}
	if h.key != "" {
		a = append(a, "-i", h.key, "-o", "IdentitiesOnly=yes")
	}
	return append(a, "--", h.host, script)
}

// ssh runs script on host h with stdin, and returns its standard output,
// also what it wrote before it failed or was stopped (a copy's directory:
// see prepareHost); its error names the host and says ssh's last line of
// standard error. Its output is bounded (runBounded).
func (s *sshOrch) ssh(ctx context.Context, h sshHost, script string, stdin io.Reader) (string, error) {
	c := exec.CommandContext(ctx, "ssh", s.args(h, script)...)
	c.Stdin = stdin
	out, errb, err := runBounded(c, "ssh")
	var over *overflowError
	switch {
	case errors.As(err, &over):
		return string(out), fmt.Errorf("host %s: %w", h, err)
	case err != nil:
		return string(out), fmt.Errorf("host %s: %s", h, lastLine(string(errb), err))
	}
	return string(out), nil
}

// lastLine is the last non-empty line of an ssh's standard error, or err.
func lastLine(stderr string, err error) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return "ssh: " + format.Printable(props.Cut(l, 200))
	}
	return "ssh: " + err.Error()
}

// quote is s in single quotes for a POSIX shell.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// prepare makes sure every host can run this build: the same system and
// architecture, and this binary (its own, or a copy).
func (s *sshOrch) prepare(ctx context.Context, j *job) error {
	f, err := os.Open(s.exe)
	if err != nil {
		return fmt.Errorf("ssh: %w", err)
	}
	hash := sha256.New()
	s.size, err = io.Copy(hash, f)
	f.Close()
	if err != nil {
		return fmt.Errorf("ssh: %s: %w", s.exe, err)
	}
	s.sum = hex.EncodeToString(hash.Sum(nil))
	used := min(len(s.hosts), j.n)
	s.dirs, s.bins = make([]string, used), make([]string, used)
	errs := make([]error, used)
	var wg sync.WaitGroup
	for i := range used {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = s.prepareHost(ctx, i, j) }()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// A host's check and the binary's copy are bounded: a host that takes the
// connection and never answers does not hold an unattended plan.
const (
	sshProbeTimeout = 30 * time.Second
	sshCopyTimeout  = 10 * time.Minute // 90 MB over a slow link
)

// prepareHost checks host i and copies this binary there when it lacks it.
func (s *sshOrch) prepareHost(ctx context.Context, i int, j *job) error {
	h := s.hosts[i]
	probe := sweepScript + `; uname -s; uname -m; b=$(command -v ` + quote(s.binary) + ` 2>/dev/null) && sha256sum "$b"; true`
	pctx, cancel := context.WithTimeout(ctx, sshProbeTimeout)
	out, err := s.ssh(pctx, h, probe, nil)
	cancel()
	if err != nil {
		return err
	}
	var lines, stale []string
	for _, l := range strings.Split(out, "\n") {
		if d, ok := strings.CutPrefix(l, "stale "); ok {
			stale = append(stale, d)
		} else {
			lines = append(lines, l)
		}
	}
	if len(lines) < 2 {
		return fmt.Errorf("host %s: answered %q, not its system and architecture", h, props.Cut(out, 80))
	}
	goos, goarch := strings.ToLower(strings.TrimSpace(lines[0])), archOf(strings.TrimSpace(lines[1]))
	if len(stale) > 0 { // the host's own text: quoted
		copies := "a copy"
		if len(stale) > 1 {
			copies = strconv.Itoa(len(stale)) + " copies"
		}
		j.mu.Lock()
		fmt.Fprintf(j.stderr, "servbench: host %s: removed %s of servbench left by earlier runs whose coordinator was killed: %s\n", h, copies, props.Cut(fmt.Sprintf("%q", stale), 300))
		j.mu.Unlock()
	}
	if goos != runtime.GOOS || goarch != runtime.GOARCH {
		return fmt.Errorf("host %s is %s/%s and this servbench is built for %s/%s: put a servbench of this version built for it on its PATH (ssh.binary)", h, goos, goarch, runtime.GOOS, runtime.GOARCH)
	}
	if len(lines) > 2 {
		if sum, path, ok := strings.Cut(strings.TrimSpace(lines[2]), "  "); ok && sum == s.sum {
			s.bins[i] = path
			return nil
		}
	}
	j.mu.Lock()
	fmt.Fprintf(j.stderr, "servbench: host %s: copying servbench (%.0f MB)\n", h, float64(s.size)/1e6)
	j.mu.Unlock()
	f, err := os.Open(s.exe)
	if err != nil {
		return err
	}
	defer f.Close()
	copyScript := `mkdir -p "$HOME/` + copiesDir + `" && d=$(mktemp -d "$HOME/` + copiesDir + `/run.XXXXXX") && echo "$d" && cat >"$d/servbench" && chmod 700 "$d/servbench" && sha256sum "$d/servbench"`
	cctx, cancel := context.WithTimeout(ctx, sshCopyTimeout)
	out, err = s.ssh(cctx, h, copyScript, f)
	cancel()
	dir, rest, _ := strings.Cut(out, "\n")
	if dir = strings.TrimSpace(dir); strings.HasPrefix(dir, "/") {
		s.dirs[i] = dir // removed by cleanup, whatever happens next
	}
	if err != nil {
		return err
	}
	if sum, _, _ := strings.Cut(strings.TrimSpace(rest), " "); sum != s.sum || s.dirs[i] == "" {
		return fmt.Errorf("host %s: the copy of servbench does not match this one (SHA-256 %s, want %s)", h, props.Cut(sum, 64), s.sum)
	}
	s.bins[i] = s.dirs[i] + "/servbench"
	return nil
}

// copiesDir is where, under a host's home, the copies of servbench are:
// one directory per run, run.XXXXXX, holding the copy and a file
// pid.I of each client that runs it (its process ID).
const copiesDir = ".servbench"

// staleAfter is how old a copy's directory must be before another run
// may remove it (when no client of it runs): a run that is copying, or
// whose clients are starting, has none running yet.
const staleAfter = 10 * time.Minute

// sweepScript removes the copies earlier runs left on a host (their
// coordinator was killed before it could): a directory under copiesDir
// older than staleAfter none of whose clients runs. It says "stale DIR"
// for each. Only the user's own copies are seen, and a process ID now
// another user's counts as gone.
var sweepScript = `for d in "$HOME/` + copiesDir + `"/run.*; do ` +
	`[ -d "$d" ] && [ -n "$(find "$d" -prune -mmin +` + strconv.Itoa(int(staleAfter/time.Minute)) + ` 2>/dev/null)" ] || continue; ` +
	`live=; for f in "$d"/pid.*; do [ -f "$f" ] || continue; p=$(cat "$f"); case $p in ''|*[!0-9]*) continue;; esac; kill -0 "$p" 2>/dev/null && live=1; done; ` +
	`[ -z "$live" ] && rm -rf "$d" && echo "stale $d"; ` +
	`done; true`

// archOf maps uname -m to Go's GOARCH.
func archOf(m string) string {
	switch m {
	case "x86_64", "amd64":
		return "amd64"
	case "aarch64", "arm64":
		return "arm64"
	case "i386", "i686":
		return "386"
	case "armv7l", "armv6l":
		return "arm"
	}
	return m
}

// clientScript is what runs client i on its host: read the secret, find
// the coordinator, start servbench, say its process ID, and wait.
func (s *sshOrch) clientScript(j *job, i int) string {
	coord := `set -- $SSH_CONNECTION; case "$1" in *:*) h="[$1]";; *) h="$1";; esac; ` +
		URLEnv + `="https://$h:` + strconv.Itoa(j.port) + `"`
	if s.url != "" {
		coord = URLEnv + "=" + quote(s.url)
	} else if host, _, err := net.SplitHostPort(strings.TrimPrefix(j.url, "https://")); err == nil && !net.ParseIP(host).IsUnspecified() && host != "" && !loopback(host) {
		coord = URLEnv + "=" + quote(j.url)
	}
	note := "" // a copy's clients note their process IDs beside it (see sweepScript)
	if d := s.dirs[i%len(s.dirs)]; d != "" {
		note = `echo "$p" >` + quote(d+"/pid."+strconv.Itoa(i)) + `; `
	}
	return `IFS= read -r t || exit 97; IFS= read -r c || exit 97; ` + TokenEnv + `=$t; ` + CertEnv + `=$c; ` + coord + `; ` +
		IndexEnv + `=` + strconv.Itoa(i) + `; export ` + TokenEnv + ` ` + CertEnv + ` ` + URLEnv + ` ` + IndexEnv + `; ` +
		quote(s.bins[i%len(s.bins)]) + ` client </dev/null >/dev/null & p=$!; ` + note + `echo "$p"; ` +
		`trap 'kill -INT $p 2>/dev/null' INT TERM HUP; wait $p`
}

func (s *sshOrch) run(ctx context.Context, j *job) []error {
	ends := make([]error, j.n)
	var wg sync.WaitGroup
	procs := make([]*exec.Cmd, j.n)
	for i := range j.n {
		h := s.hosts[i%len(s.hosts)]
		c := exec.Command("ssh", s.args(h, s.clientScript(j, i))...)
		c.Stdin = strings.NewReader(j.secret(i) + "\n" + j.pin + "\n")
		stdout, err := c.StdoutPipe()
		if err != nil {
			ends[i] = err
			continue
		}
		c.Stderr = &prefixed{say: func(l string) { j.sayAs(fmt.Sprintf("client %d (%s)", i, h), l) }}
		c.WaitDelay = pipeWait
		j.placed(i, "host "+h.String())
		ownGroup(c)
		if err := c.Start(); err != nil {
			ends[i] = fmt.Errorf("host %s: ssh: %w", h, err)
			j.exited(i, ends[i])
			continue
		}
		procs[i] = c
		wg.Add(1)
		go func() {
			defer wg.Done()
			sc := bufio.NewScanner(io.LimitReader(stdout, 1<<10))
			if sc.Scan() {
				if pid := strings.TrimSpace(sc.Text()); isPID(pid) {
					s.mu.Lock()
					s.pids[i] = pid
					s.mu.Unlock()
				}
			}
			// The rest is drained until Wait closes the pipe: a process
			// that outlives ssh holding it (pipeWait) holds nothing here.
			go io.Copy(io.Discard, stdout)
			err := c.Wait()
			c.Stderr.(*prefixed).flush()
			s.mu.Lock()
			delete(s.pids, i)
			s.mu.Unlock()
			if err != nil {
				err = fmt.Errorf("host %s: %w", h, err)
			}
			ends[i] = err
			j.exited(i, err)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done(): // told to stop and still running: killed on the hosts, then here
		s.killRemote(context.WithoutCancel(ctx))
		for _, c := range procs {
			if c != nil {
				c.Process.Kill()
			}
		}
		<-done
	}
	return ends
}

func isPID(s string) bool {
	n, err := strconv.Atoi(s)
	return err == nil && n > 1
}

// killRemote kills every client still running, on its host.
func (s *sshOrch) killRemote(ctx context.Context) {
	s.mu.Lock()
	byHost := map[int][]string{}
	for i, pid := range s.pids {
		byHost[i%len(s.hosts)] = append(byHost[i%len(s.hosts)], pid)
	}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for hi, pids := range byHost {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			s.ssh(ctx, s.hosts[hi], "kill -KILL "+strings.Join(pids, " ")+" 2>/dev/null; true", nil)
		}()
	}
	wg.Wait()
}

// cleanup kills what still runs and removes the copies.
func (s *sshOrch) cleanup(ctx context.Context, j *job) {
	s.killRemote(ctx)
	var wg sync.WaitGroup
	for i, dir := range s.dirs {
		if dir == "" {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			// The copies' directory goes too when no other run has one there.
			if _, err := s.ssh(ctx, s.hosts[i], "rm -rf "+quote(dir)+" && { rmdir "+quote(path.Dir(dir))+" 2>/dev/null; true; }", nil); err != nil {
				j.mu.Lock()
				fmt.Fprintf(j.stderr, "servbench: %v: %s is left there\n", err, dir)
				j.mu.Unlock()
			}
		}()
	}
	wg.Wait()
}
