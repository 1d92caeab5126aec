package coordinator

import (
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
)

// Config is how a spread phase's clients are started and watched, read
// from the phase's properties once, when the engine checks them (an
// engine.Extension): a typo here is refused with every other property's.
type Config struct {
	// Orchestrator starts the clients: local, ssh, docker or kubernetes
	// (property orchestrator; Orchestrators lists them).
	Orchestrator string
	// Addr is where the coordinator serves its clients (coordinator.addr;
	// the orchestrator's choice when empty); URL is that address as the
	// clients reach it, when not where it listens (coordinator.url).
	Addr, URL string
	// Timeout bounds how long a client may send nothing before the
	// coordinator fails the phase naming it (coordinator.timeout, seconds;
	// default 30).
	Timeout time.Duration
	// Image is the container image of docker and kubernetes (docker.image).
	Image string
	// Hosts are the ssh orchestrator's hosts (ssh.hosts: a comma-separated
	// list, or @FILE); SSHConfig an ssh_config file for its ssh commands
	// (ssh.config); SSHBinary a servbench the hosts may have already
	// (ssh.binary).
	Hosts, SSHConfig, SSHBinary string
	// Claim and Name are the Kubernetes volume claim for the results and
	// the Job's name (kubernetes.claim, kubernetes.name); Kubeconfig,
	// KubeContext and Namespace where it goes (kubernetes.kubeconfig,
	// kubernetes.context, kubernetes.namespace; the kubeconfig's when not
	// given).
	Claim, Name, Kubeconfig, KubeContext, Namespace string
}

// extension is the name the engine keeps a phase's Config under.
const extension = "coordinator"

func init() {
	engine.RegisterExtension(extension, func(p *props.Props, c engine.Client) (any, error) { return readConfig(p, c) })
}

// ConfigOf is the Config the engine read for setup.
func ConfigOf(setup *engine.Setup) Config {
	c, _ := setup.Extension(extension).(Config)
	return c
}

// An orchestrator's constructor; ctx bounds reading what it needs (a
// hosts file that is a pipe nobody writes).
type newOrch func(ctx context.Context, c Config) (orchestrator, error)

// orchestrators are the registered orchestrators by name (register).
var orchestrators = map[string]newOrch{}

// register adds an orchestrator under name, from its file's init.
func register(name string, f newOrch) { orchestrators[name] = f }

// indexReaders read, for the orchestrators that start clients from one
// template (a Swarm service, an Indexed Job, manifests applied by hand),
// a client's index from the environment it was started with.
var indexReaders = map[string]func(getenv func(string) string) (int, error){}

// IndexFromEnv is the index of a client the orchestrator from started
// from one template, read from its environment (getenv).
func IndexFromEnv(from string, getenv func(string) string) (int, error) {
	read, ok := indexReaders[from]
	if !ok {
		names := slices.Sorted(maps.Keys(indexReaders))
		return 0, fmt.Errorf("--client-index-from %q: want %s", props.Cut(from, 40), strings.Join(names, " or "))
	}
	return read(getenv)
}

// Orchestrators are the names of the registered orchestrators, sorted.
func Orchestrators() []string {
	names := make([]string, 0, len(orchestrators))
	for n := range orchestrators {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// newOrchestrator is the orchestrator c names.
func newOrchestrator(ctx context.Context, c Config) (orchestrator, error) {
	f, ok := orchestrators[c.Orchestrator]
	if !ok {
		return nil, fmt.Errorf("orchestrator %q: want one of %s", props.Cut(c.Orchestrator, 40), strings.Join(Orchestrators(), ", "))
	}
	return f(ctx, c)
}

func readConfig(p *props.Props, cl engine.Client) (Config, error) {
	var c Config
	var err error
	c.Orchestrator = cl.Orchestrator // the engine's reading of the property
	if orchestrators[c.Orchestrator] == nil {
		return c, p.Errorf("orchestrator", "%q is not one of %s", props.Cut(c.Orchestrator, 40), strings.Join(Orchestrators(), ", "))
	}
	c.Image = p.String("docker.image", "servbench")
	c.Claim = p.String("kubernetes.claim", "")
	c.Name = p.String("kubernetes.name", "")
	if c.Name != "" && !dnsLabel(c.Name) {
		return c, p.Errorf("kubernetes.name", "%q is not a Kubernetes name: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters", props.Cut(c.Name, 70))
	}
	c.Addr = p.String("coordinator.addr", "")
	c.Hosts, c.SSHConfig, c.SSHBinary = p.String("ssh.hosts", ""), p.String("ssh.config", ""), p.String("ssh.binary", "servbench")
	c.Kubeconfig, c.KubeContext, c.Namespace = p.String("kubernetes.kubeconfig", ""), p.String("kubernetes.context", ""), p.String("kubernetes.namespace", "")
	if c.Namespace != "" && !dnsLabel(c.Namespace) {
		return c, p.Errorf("kubernetes.namespace", "%q is not a Kubernetes namespace name", props.Cut(c.Namespace, 70))
	}
	if c.URL = p.String("coordinator.url", ""); c.URL != "" {
		if u, err := url.Parse(c.URL); err != nil || u.Scheme != "https" || u.Host == "" || u.Path != "" && u.Path != "/" {
			return c, p.Errorf("coordinator.url", "want https://host:port, not %q", props.Cut(c.URL, 60))
		}
		c.URL = strings.TrimSuffix(c.URL, "/")
	}
	switch {
	case c.Orchestrator == "ssh" && c.Hosts == "": // also for one client: it runs on a host, never here
		return c, p.Errorf("ssh.hosts", "orchestrator=ssh needs the hosts: --hosts h1,h2,... or --hosts @FILE")
	case c.Orchestrator != "ssh" && c.Hosts != "": // the hosts asked for, and every client run elsewhere
		return c, p.Errorf("ssh.hosts", "the hosts are the ssh orchestrator's: give --orchestrator ssh, or leave the hosts out (orchestrator=%s)", c.Orchestrator)
	}
	timeout, err := p.FloatRange("coordinator.timeout", 30, 1, 86400)
	if err != nil {
		return c, err
	}
	c.Timeout = time.Duration(timeout * float64(time.Second))
	return c, nil
}

// dnsLabel reports whether s is an RFC 1123 label, as Kubernetes wants the
// names of Jobs (and of the pods and labels made from them).
func dnsLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
