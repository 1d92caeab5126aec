package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	restclient "k8s.io/client-go/rest"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/internal/relay"
)

// CredentialCommand is the command servbench runs a kubeconfig's exec
// credential plugin through (users: exec: in a kubeconfig, EKS' aws eks
// get-token, GKE's gke-gcloud-auth-plugin), in place of client-go: the
// plugin's output is bounded at maxCredential (client-go read it whole:
// `yes` filled memory), its time at credentialTimeout (client-go waited
// for ever, and no context reached it), and it ends with the command
// (client-go left it running when the process ended). client-go runs
// it as it ran the plugin, with the same environment (KUBERNETES_EXEC_INFO)
// and stdin, caching and refreshing its credentials as before.
//
//	servbench kube-credential PARENT_PID -- COMMAND [ARG...]
const CredentialCommand = "kube-credential"

const (
	// maxCredential bounds what a credential plugin prints: its
	// ExecCredential is a token or a certificate and key, a few KB.
	maxCredential = 1 << 20
	// credentialTimeout bounds a plugin's time; a plugin that asks for a
	// login in a browser is given it.
	credentialTimeout = time.Minute
)

// boundExec makes the kubeconfig's exec credential plugin, if any, run
// through CredentialCommand; when ctx ends (the first signal), the ones
// running then are told to stop (SIGTERM), and the directory they note
// themselves in is removed.
// done removes the directory (the orchestrator's cleanup).
func boundExec(ctx context.Context, rest *restclient.Config) (done func(), err error) {
	if rest.ExecProvider == nil {
		return func() {}, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("kubernetes: the kubeconfig's exec credential plugin: %w", err)
	}
	dir, err := os.MkdirTemp("", "servbench-credential-")
	if err != nil {
		return nil, fmt.Errorf("kubernetes: the kubeconfig's exec credential plugin: %w", err)
	}
	finished := make(chan struct{})
	var once sync.Once
	done = func() { once.Do(func() { close(finished); os.RemoveAll(dir) }) }
	go func() {
		select {
		case <-ctx.Done():
		case <-finished:
			return
		}
		os.WriteFile(filepath.Join(dir, stopping), nil, 0o600)
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
				syscall.Kill(pid, syscall.SIGTERM)
			}
		}
	}()
	e := *rest.ExecProvider
	e.Args = append([]string{CredentialCommand, strconv.Itoa(os.Getpid()), "--", e.Command}, e.Args...)
	e.Command = exe
	e.Env = append(slices.Clone(e.Env), clientcmdapi.ExecEnvVar{Name: CredentialDirEnv, Value: dir})
	rest.ExecProvider = &e
	return done, nil
}

// Credential is CredentialCommand: it runs the plugin args name,
// passing on what it prints when it ends well within the bounds, and
// returns the exit status (the plugin's when it failed). Why it stopped a
// plugin is said in one line on stderr, which client-go passes on; what
// the plugin says there is passed on too (relay.Stderr: bounded, its
// secrets hidden, its control characters escaped). It ends when its parent does, and the
// plugin with it (what the plugin started too, when it ends first: its
// process group is killed; a process the plugin puts in a session of its
// own is its own), and when its parent stops (CredentialDirEnv).
func Credential(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintf(stderr, "servbench %s: usage: servbench %s PARENT_PID -- COMMAND [ARG...]\n", CredentialCommand, CredentialCommand)
		return 2
	}
	parent, err := strconv.Atoi(args[0])
	if err != nil {
		fmt.Fprintf(stderr, "servbench %s: parent %q is not a process id\n", CredentialCommand, format.Printable(args[0]))
		return 2
	}
	if err := dieWithParent(parent); err != nil {
		fmt.Fprintf(stderr, "servbench %s: %v\n", CredentialCommand, err)
		return 1
	}
	timeout := credentialTimeout
	if dir := os.Getenv(CredentialDirEnv); dir != "" {
		f := filepath.Join(dir, strconv.Itoa(os.Getpid()))
		if os.WriteFile(f, nil, 0o600) == nil {
			defer os.Remove(f)
		}
		if _, err := os.Stat(filepath.Join(dir, stopping)); err == nil {
			timeout = stoppingTimeout // the cleanup of a stopped command
		}
	}
	name := args[2]
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The plugin is killed when the thread that started it ends
	// (Pdeathsig): the thread is this goroutine's until the plugin ended.
	runtime.LockOSThread()
	cmd := exec.CommandContext(ctx, name, args[3:]...)
	out := &boundedBuffer{max: maxCredential}
	cmd.Env = os.Environ()
	says := relay.New(stderr, "the kubeconfig's exec credential plugin "+format.Printable(name), args[2:], cmd.Env)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, out, says
	pluginGroup(cmd)
	out.over = func() { killGroup(cmd) }
	// A process the plugin left behind holding its output does not hold
	// the answer: a second after the plugin ends, its pipes are closed.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "servbench: the kubeconfig's exec credential plugin %s: %v\n", format.Printable(name), err)
		return 1
	}
	werr := cmd.Wait()
	killGroup(cmd) // what the plugin left running in its group ends with it
	says.End()
	say := func(why string) int {
		fmt.Fprintf(stderr, "servbench: the kubeconfig's exec credential plugin %s %s\n", format.Printable(name), why)
		return 1
	}
	var exit *exec.ExitError
	switch {
	case out.overflowed:
		return say(fmt.Sprintf("printed more than %s, more than credentials: stopped", format.Bytes(maxCredential)))
	case ctx.Err() == context.DeadlineExceeded:
		return say(fmt.Sprintf("gave no credentials within %s: stopped", timeout))
	case ctx.Err() != nil:
		return say("stopped (interrupted)")
	case errors.As(werr, &exit):
		return exit.ExitCode()
	case werr != nil && !errors.Is(werr, exec.ErrWaitDelay):
		return say(fmt.Sprintf("failed: %v", werr))
	}
	stdout.Write(out.b)
	return 0
}

// CredentialDirEnv names the directory where each CredentialCommand
// running for this process notes its process id, so that the process's
// first signal stops the plugins it waits for (client-go's wait for one
// takes no context).
const CredentialDirEnv = "SERVBENCH_CREDENTIAL_DIR"

// stopping is the file in the CredentialDirEnv directory that says the
// command is stopping: a plugin started then (for the cleanup) is given
// stoppingTimeout.
const (
	stopping        = "stopping"
	stoppingTimeout = 10 * time.Second
)
