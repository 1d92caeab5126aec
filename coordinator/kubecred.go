package coordinator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"

	restclient "k8s.io/client-go/rest"

	"github.com/servbench/servbench/internal/format"
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
// through CredentialCommand.
func boundExec(rest *restclient.Config) error {
	if rest.ExecProvider == nil {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("kubernetes: the kubeconfig's exec credential plugin: %w", err)
	}
	e := *rest.ExecProvider
	e.Args = append([]string{CredentialCommand, strconv.Itoa(os.Getpid()), "--", e.Command}, e.Args...)
	e.Command = exe
	rest.ExecProvider = &e
	return nil
}

// Credential is CredentialCommand: it runs the plugin args name,
// passing on what it prints when it ends well within the bounds, and
// returns the exit status (the plugin's when it failed). Why it stopped a
// plugin is said in one line on stderr, which client-go passes on. It
// ends when its parent does, and the plugin with it (what the plugin
// started too, when it ends first: its process group is killed).
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
	name := args[2]
	ctx, cancel := context.WithTimeout(ctx, credentialTimeout)
	defer cancel()
	// The plugin is killed when the thread that started it ends
	// (Pdeathsig): the thread is this goroutine's until the plugin ended.
	runtime.LockOSThread()
	cmd := exec.CommandContext(ctx, name, args[3:]...)
	cmd.Env, cmd.Stdin, cmd.Stderr = os.Environ(), os.Stdin, stderr
	pluginGroup(cmd)
	cmd.WaitDelay = time.Second
	out, err := cmd.StdoutPipe()
	if err == nil {
		err = cmd.Start()
	}
	if err != nil {
		fmt.Fprintf(stderr, "servbench: the kubeconfig's exec credential plugin %s: %v\n", format.Printable(name), err)
		return 1
	}
	b, rerr := io.ReadAll(io.LimitReader(out, maxCredential+1))
	if len(b) > maxCredential {
		killGroup(cmd)
	}
	werr := cmd.Wait()
	say := func(why string) int {
		fmt.Fprintf(stderr, "servbench: the kubeconfig's exec credential plugin %s %s\n", format.Printable(name), why)
		return 1
	}
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return say(fmt.Sprintf("gave no credentials within %s: stopped", credentialTimeout))
	case ctx.Err() != nil:
		return say("stopped (interrupted)")
	case len(b) > maxCredential:
		return say(fmt.Sprintf("printed more than %s, more than credentials: stopped", format.Bytes(maxCredential)))
	case rerr != nil:
		return say(fmt.Sprintf("could not be read: %v", rerr))
	case errors.As(werr, &exit):
		return exit.ExitCode()
	case werr != nil:
		return say(fmt.Sprintf("failed: %v", werr))
	}
	stdout.Write(b)
	return 0
}
