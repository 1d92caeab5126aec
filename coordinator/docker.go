package coordinator

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/servbench/servbench/props"
)

// docker runs the clients as a Docker Swarm replicated job: one service of
// n tasks from servbench's image (docker.image), on the host network, each
// a "servbench client" that reaches the coordinator at its address (give
// coordinator.addr one the swarm's nodes reach; the default is this
// machine's loopback, for a swarm of one). It drives the docker command
// the user has (and its DOCKER_HOST or context), so it needs nothing of
// the swarm but what the user can do already. The run's secret is in the
// service's environment: who may inspect the swarm's services may read it.
//
// Each task learns its index from Swarm's templates: its slot, which
// Docker renders as the node's ID for slot 0 (as for a global service), so
// a task whose slot reads as its node is client 0 (see ClientFromTemplate).
type docker struct {
	image string
	bin   string        // the docker command
	poll  time.Duration // how often the tasks' states are read
	grace time.Duration // how long stopped clients have to write their results

	mu      sync.Mutex
	service string // the service this run created, removed by cleanup
}

func init() {
	register(Orchestrator{Name: "docker", Help: "a Docker Swarm replicated job", Properties: []Property{imageProperty},
		Read: func(p *props.Props, _ bool) (any, error) {
			return dockerConfig{Image: p.String("docker.image", "servbench")}, nil
		},
		start: func(_ context.Context, c Config) (orchestrator, error) {
			return newDocker(c.Own.(dockerConfig).Image), nil
		},
		IndexEnv: dockerIndex, HostNetwork: true})
}

// dockerConfig is the docker orchestrator's configuration: the clients'
// image (docker.image).
type dockerConfig struct{ Image string }

// imageProperty is the clients' container image, docker's and
// kubernetes'.
var imageProperty = Property{Name: "docker.image", Flag: "image", Arg: "NAME", Help: "the clients' container image (servbench)"}

// dockerIndex is a task's index, read from Swarm's templates.
func dockerIndex(getenv func(string) string) (int, error) {
	slot, node := getenv(DockerSlotEnv), getenv(DockerNodeEnv)
	if slot == "" {
		return 0, fmt.Errorf("--client-index-from docker: %s is not set (the service sets it to {{.Task.Slot}})", DockerSlotEnv)
	}
	i, err := 0, error(nil)
	if slot != node { // slot 0 reads as the node's ID
		i, err = strconv.Atoi(slot)
	}
	if err != nil || i < 0 {
		return 0, fmt.Errorf("--client-index-from docker: %s=%q is not a task slot", DockerSlotEnv, props.Cut(slot, 40))
	}
	return i, nil
}

func newDocker(image string) *docker {
	return &docker{image: image, bin: "docker", poll: 500 * time.Millisecond, grace: 30 * time.Second}
}

func (d *docker) String() string { return "Docker Swarm, image " + d.image }

// lead: pulling nothing (the image is on the node), a task starts in about
// a second; a swarm of several machines may need more, and a late client
// says so in its result's warnings.
func (d *docker) lead() time.Duration               { return 5 * time.Second }
func (*docker) listen() string                      { return "127.0.0.1:0" }
func (*docker) prepare(context.Context, *job) error { return nil }

// cleanup removes the service this run created and its containers.
func (d *docker) cleanup(ctx context.Context, j *job) {
	d.mu.Lock()
	name := d.service
	d.mu.Unlock()
	if name == "" {
		return
	}
	if err := d.remove(ctx, name); err != nil {
		j.mu.Lock()
		fmt.Fprintf(j.stderr, "servbench: docker: service %s is left: %v\n", name, err)
		j.mu.Unlock()
	}
}

// dockerEnv are the variables a task's index is read from.
const (
	DockerSlotEnv = "SERVBENCH_SLOT"
	DockerNodeEnv = "SERVBENCH_NODE"
)

func (d *docker) run(ctx context.Context, j *job) []error {
	ends := make([]error, j.n)
	fail := func(err error) []error {
		for i := range ends {
			ends[i] = err
		}
		return ends
	}
	name, err := serviceName()
	if err != nil {
		return fail(err)
	}
	args := []string{"service", "create", "--detach", "--quiet", "--name", name,
		"--mode", "replicated-job", "--replicas", strconv.Itoa(j.n), "--max-concurrent", strconv.Itoa(j.n),
		"--restart-condition", "none", "--network", "host", "--stop-grace-period", d.grace.String(),
		"--label", "servbench.phase=" + j.cmd,
		"--env", DockerSlotEnv + "={{.Task.Slot}}", "--env", DockerNodeEnv + "={{.Node.ID}}"}
	// The coordinator's address and the secret (the index is the task's
	// slot) through docker's standard input, never a file (a second
	// signal would leave it) nor its command line, which every user of
	// this machine can read.
	args = append(args, "--env-file", "/dev/stdin", d.image, "client", "--client-index-from", "docker")
	env := strings.NewReader(strings.Join(j.env(j.url, -1), "\n") + "\n")
	d.mu.Lock()
	d.service = name // a create that failed halfway, or timed out, may have made it
	d.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, dockerCallTimeout)
	_, _, err = d.output(cctx, env, args...)
	cancel()
	if err != nil {
		return fail(err)
	}
	states, err := d.wait(ctx, name, j.n)
	if ctx.Err() != nil {
		// Told to stop through the coordinator and still running: the
		// service and its containers are removed (cleanup).
		d.logs(context.WithoutCancel(ctx), name, j)
		return fail(errors.New("stopped: still running after it was told to stop"))
	}
	d.logs(ctx, name, j)
	if err != nil {
		return fail(err)
	}
	for i, st := range states {
		switch {
		case st == nil:
			ends[i] = errors.New("the swarm ran no task for it")
		case st.state == "failed" || st.state == "rejected":
			ends[i] = fmt.Errorf("task %s: %s", st.state, st.err)
		case st.state != "complete":
			ends[i] = fmt.Errorf("task %s", st.state)
		}
	}
	return ends
}

// dockerRemoveTimeout bounds a service's removal whole.
const dockerRemoveTimeout = time.Minute

// dockerCallTimeout bounds each docker command the orchestrator runs but
// the waits for the tasks (the coordinator's timeout bounds those).
const dockerCallTimeout = 30 * time.Second

// remove removes the service and whatever containers of it are left on
// this node: everything the run started. Swarm removes a service's tasks
// in the background (and may be starting a retry meanwhile), so the
// containers are looked for until none is left, for a while at most.
func (d *docker) remove(ctx context.Context, name string) error {
	ctx, cancel := context.WithTimeout(ctx, dockerRemoveTimeout) // a docker that hangs at each call: not 40 times its timeout
	defer cancel()
	call := func(args ...string) (string, error) {
		cctx, cancel := context.WithTimeout(ctx, dockerCallTimeout)
		defer cancel()
		return d.docker(cctx, args...)
	}
	if _, err := call("service", "rm", name); err != nil && ctx.Err() != nil {
		return err
	}
	empty := 0
	for range 40 {
		out, err := call("ps", "--all", "--quiet", "--filter", "label=com.docker.swarm.service.name="+name)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		ids := strings.Fields(out)
		if err == nil && len(ids) == 0 {
			if empty++; empty == 2 { // none twice, a poll apart
				return nil
			}
		} else if len(ids) > 0 {
			empty = 0
			call(append([]string{"rm", "--force"}, ids...)...)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d.poll):
		}
	}
	return nil
}

// taskState is one task as docker inspect tells it.
type taskState struct {
	state, err string
	exit       int
}

// wait polls the service's tasks until n of them have ended, or ctx ends;
// it returns each client's task by index.
func (d *docker) wait(ctx context.Context, name string, n int) ([]*taskState, error) {
	tick := time.NewTicker(d.poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-tick.C:
		}
		ids, err := d.docker(ctx, "service", "ps", "--quiet", "--no-trunc", name)
		if err != nil {
			return nil, err
		}
		fields := strings.Fields(ids)
		if len(fields) < n {
			continue
		}
		out, err := d.docker(ctx, append([]string{"inspect", "--type", "task", "--format",
			taskFormat}, fields...)...)
		if err != nil {
			return nil, err
		}
		states, ended, err := parseTasks(out, n)
		if err != nil {
			return nil, err
		}
		if ended {
			return states, nil
		}
	}
}

// taskFormat has docker inspect write a task as slot|node|state|exit|error;
// a task not yet placed or started lacks some (docker's templates fail on
// a missing key, index does not, and Docker leaves out zero values: slot
// 0, exit code 0).
const taskFormat = `{{index . "Slot"}}|{{index . "NodeID"}}|{{.Status.State}}|{{with index .Status "ContainerStatus"}}{{index . "ExitCode"}}{{end}}|{{index .Status "Err"}}`

// parseTasks reads docker inspect's lines (slot|node|state|exit|error) of
// a job's tasks: each client's, and whether the job is over: every client
// completed, or one failed. Swarm runs a failed task of a job again
// whatever the restart condition, so the first failure of a client is
// its end: the coordinator removes the service then.
func parseTasks(out string, n int) ([]*taskState, bool, error) {
	states := make([]*taskState, n)
	sc := bufio.NewScanner(strings.NewReader(out))
	failed := false
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "|", 5)
		if len(f) != 5 {
			return nil, false, fmt.Errorf("docker inspect: unexpected line %q", props.Cut(sc.Text(), 80))
		}
		for k := range f {
			if f[k] == "<no value>" {
				f[k] = ""
			}
		}
		i, err := 0, error(nil)
		if f[0] != "" {
			i, err = strconv.Atoi(f[0])
		}
		if err != nil || i < 0 || i >= n {
			return nil, false, fmt.Errorf("docker inspect: task slot %q of a job of %d", props.Cut(f[0], 20), n)
		}
		exit, _ := strconv.Atoi(f[3])
		st := &taskState{state: f[2], exit: exit, err: f[4]}
		switch {
		case st.state == "complete":
			states[i] = st
		case st.state == "failed" || st.state == "rejected":
			failed = true
			if states[i] == nil || states[i].state != "complete" {
				states[i] = st
			}
		case states[i] == nil:
			states[i] = st
		}
	}
	if failed {
		return states, true, nil
	}
	for _, st := range states {
		if st == nil || st.state != "complete" {
			return states, false, nil
		}
	}
	return states, true, nil
}

// logs passes the tasks' output on as the clients', by index.
func (d *docker) logs(ctx context.Context, name string, j *job) {
	// The clients' standard error, as a local client's; their standard
	// output is their text report, and their result is what counts.
	ctx, cancel := context.WithTimeout(ctx, dockerCallTimeout)
	defer cancel()
	_, out, err := d.output(ctx, nil, "service", "logs", "--no-task-ids", "--no-trunc", name)
	if err != nil {
		j.say(0, "(the clients' output could not be read: "+err.Error()+")")
		return
	}
	for l := range strings.Lines(out) { // a line of any length (a Scanner stopped at 64 KiB, the rest lost)
		// "NAME.SLOT@NODE    | line"; slot 0 is shown as the node's ID.
		head, line, ok := strings.Cut(strings.TrimRight(l, "\r\n"), "| ")
		if !ok {
			continue
		}
		task, _, _ := strings.Cut(strings.TrimSpace(head), "@")
		i, err := strconv.Atoi(strings.TrimPrefix(task, name+"."))
		if err != nil {
			i = 0
		}
		j.say(i, line)
	}
}

// docker runs the docker command; its error is its standard error's
// first line.
func (d *docker) docker(ctx context.Context, args ...string) (string, error) {
	stdout, _, err := d.output(ctx, nil, args...)
	return stdout, err
}

// output runs the docker command and returns its standard output and
// error, bounded (runBounded).
func (d *docker) output(ctx context.Context, stdin io.Reader, args ...string) (string, string, error) {
	c := exec.CommandContext(ctx, d.bin, args...)
	c.Stdin = stdin
	stdout, stderr, err := runBounded(c, "docker "+args[0])
	var over *overflowError
	if errors.As(err, &over) {
		return "", "", err
	}
	if err != nil {
		msg, _, _ := strings.Cut(strings.TrimSpace(string(stderr)), "\n")
		if msg == "" {
			msg = err.Error()
		}
		return "", "", fmt.Errorf("docker %s: %s", args[0], oneLine(msg))
	}
	return string(stdout), string(stderr), nil
}

// serviceName is a new service's: servbench-<random>.
func serviceName() (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "servbench-" + hex.EncodeToString(b[:]), nil
}
