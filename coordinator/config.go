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
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
)

// Config is how a spread phase's clients are started and watched, read
// from the phase's properties once, when the engine checks them (an
// engine.Extension): a typo here is refused with every other property's.
type Config struct {
	// Orchestrator starts the clients (property orchestrator; Orchestrators
	// lists them).
	Orchestrator string
	// Addr is where the coordinator serves its clients (coordinator.addr;
	// the orchestrator's choice when empty); URL is that address as the
	// clients reach it, when not where it listens (coordinator.url).
	Addr, URL string
	// Timeout bounds how long a client may send nothing before the
	// coordinator fails the phase naming it (coordinator.timeout, seconds;
	// default 30).
	Timeout time.Duration
	// ExitGrace is how long the clients may take to end once every
	// result is in, before whatever still runs is killed and its
	// orchestrator's logs given up (coordinator.exitgrace, seconds;
	// default 5).
	ExitGrace time.Duration
	// Own is the orchestrator's own configuration, as its Read made it
	// (its type is the orchestrator's).
	Own any
}

// An Orchestrator starts the clients of a phase spread over them,
// somewhere. Each is one file of this package that registers it from its
// init (register): its own typed configuration, the properties it reads
// with their help (the command's help and flags are made from them), its
// checks, and how it starts and stops the clients.
type Orchestrator struct {
	// Name is its value of the property orchestrator.
	Name string
	// Help says where it runs the clients, in the command's help.
	Help string
	// Properties are those it reads. Every orchestrator's are known to
	// every phase, read and checked whichever runs it; one that is Only
	// its orchestrator's is refused under another.
	Properties []Property
	// Read reads its properties into its configuration (Config.Own);
	// chosen is true when it runs the phase (its checks that hold only
	// then). Its errors name the property (props.Errorf).
	Read func(p *props.Props, chosen bool) (any, error)
	// IndexEnv, for an orchestrator that starts every client from one
	// template (a Swarm service, an Indexed Job), reads a client's index
	// from the environment it gave it (--client-index-from NAME).
	IndexEnv func(getenv func(string) string) (int, error)
	// HostNetwork is set when such clients share their machine's network
	// (Docker's host network): client i serves its metrics on the port
	// given plus i. Otherwise each has an address of its own (a pod's).
	HostNetwork bool
	// Emit, when not nil, is the orchestrator's manifests of a phase, to
	// be applied by the user's own tools instead of run (--emit DIR).
	Emit func(setup *engine.Setup, c Config) ([]Manifest, error)
	// start makes it for a phase; ctx bounds reading what it needs (a
	// hosts file that is a pipe nobody writes).
	start func(ctx context.Context, c Config) (orchestrator, error)
}

// A Property is one an orchestrator reads.
type Property struct {
	// Name is the property's; Flag its command-line flag (--Flag ARG) if
	// it has one.
	Name, Flag, Arg string
	// Help is what the command's help says of it.
	Help string
	// Only refuses it under another orchestrator: given, it says where
	// the clients run (ssh's hosts).
	Only bool
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

// orchestrators are the registered orchestrators by name (register).
var orchestrators = map[string]Orchestrator{}

// register adds an orchestrator, from its file's init.
func register(o Orchestrator) {
	if o.Name == "" || o.Read == nil || o.start == nil || orchestrators[o.Name].Name != "" {
		panic(fmt.Sprintf("coordinator: register %q: empty, without Read or start, or twice", o.Name))
	}
	orchestrators[o.Name] = o
}

// Lookup is the orchestrator registered as name.
func Lookup(name string) (Orchestrator, bool) {
	o, ok := orchestrators[name]
	return o, ok
}

// All are the registered orchestrators, by name.
func All() []Orchestrator {
	var all []Orchestrator
	for _, n := range Orchestrators() {
		all = append(all, orchestrators[n])
	}
	return all
}

// IndexFromEnv is the index of a client the orchestrator from started
// from one template, read from its environment (getenv).
func IndexFromEnv(from string, getenv func(string) string) (int, error) {
	o, ok := orchestrators[from]
	if !ok || o.IndexEnv == nil {
		return 0, fmt.Errorf("--client-index-from %q: want %s", props.Cut(from, 40), strings.Join(Templated(), " or "))
	}
	return o.IndexEnv(getenv)
}

// Templated are the names of the orchestrators that start their clients
// from one template (those --client-index-from takes).
func Templated() []string { return namesOf(func(o Orchestrator) bool { return o.IndexEnv != nil }) }

// Emitting are the orchestrators that write manifests (Emit), by name.
func Emitting() []string { return namesOf(func(o Orchestrator) bool { return o.Emit != nil }) }

// namesOf are the names of the orchestrators keep is true of, in All's
// order.
func namesOf(keep func(Orchestrator) bool) []string {
	var names []string
	for _, o := range All() {
		if keep(o) {
			names = append(names, o.Name)
		}
	}
	return names
}

// Orchestrators are the names of the registered orchestrators, sorted.
func Orchestrators() []string {
	return slices.Sorted(maps.Keys(orchestrators))
}

// newOrchestrator is the orchestrator c names.
func newOrchestrator(ctx context.Context, c Config) (orchestrator, error) {
	o, ok := orchestrators[c.Orchestrator]
	if !ok {
		return nil, fmt.Errorf("orchestrator %q: want one of %s", props.Cut(c.Orchestrator, 40), strings.Join(Orchestrators(), ", "))
	}
	return o.start(ctx, c)
}

// readConfig reads the coordinator's properties and every orchestrator's
// (each is checked whichever runs the phase), keeping the chosen one's.
func readConfig(p *props.Props, cl engine.Client) (Config, error) {
	var c Config
	c.Orchestrator = cl.Orchestrator // the engine's reading of the property
	if _, ok := orchestrators[c.Orchestrator]; !ok {
		return c, p.Errorf("orchestrator", "%q is not one of %s", props.Cut(c.Orchestrator, 40), strings.Join(Orchestrators(), ", "))
	}
	c.Addr = p.String("coordinator.addr", "")
	if c.URL = p.String("coordinator.url", ""); c.URL != "" {
		if u, err := url.Parse(c.URL); err != nil || u.Scheme != "https" || u.Host == "" || u.Path != "" && u.Path != "/" {
			return c, p.Errorf("coordinator.url", "want https://host:port, not %q", props.Cut(c.URL, 60))
		}
		c.URL = strings.TrimSuffix(c.URL, "/")
	}
	timeout, err := p.FloatRange("coordinator.timeout", 30, 1, 86400)
	if err != nil {
		return c, err
	}
	c.Timeout = time.Duration(timeout * float64(time.Second))
	exit, err := p.FloatRange("coordinator.exitgrace", 5, 0.1, 3600)
	if err != nil {
		return c, err
	}
	c.ExitGrace = time.Duration(exit * float64(time.Second))
	for _, o := range All() {
		chosen := o.Name == c.Orchestrator
		own, err := o.Read(p, chosen)
		if err != nil {
			return c, err
		}
		if chosen {
			c.Own = own
			continue
		}
		for _, pr := range o.Properties {
			if _, given := p.Get(pr.Name); given && pr.Only {
				return c, p.Errorf(pr.Name, "only the %s orchestrator reads it: give --orchestrator %s, or leave it out (orchestrator=%s)", o.Name, o.Name, c.Orchestrator)
			}
		}
	}
	return c, nil
}

// Help is the command's help of the orchestrators: --orchestrator's, and
// each property's that has a flag, in the layout of the command's flags
// (a column of 29).
func Help() string {
	var b strings.Builder
	var names []string
	for _, o := range All() {
		names = append(names, o.Name+" ("+o.Help+")")
	}
	flag(&b, "--orchestrator NAME", "where the clients run: "+strings.Join(names, ", ")+" (property orchestrator)")
	seen := map[string]bool{}
	for _, o := range All() {
		for _, pr := range o.Properties {
			if pr.Flag == "" || seen[pr.Flag] {
				continue
			}
			seen[pr.Flag] = true
			flag(&b, "--"+pr.Flag+" "+pr.Arg, pr.Help+" ("+pr.Name+")")
		}
	}
	flag(&b, "--emit DIR", strings.Join(Emitting(), ", ")+": instead of running, write the orchestrator's manifests to DIR, for its own tools to apply")
	flag(&b, "--client-index-from NAME", "read the index from the environment "+strings.Join(Templated(), " or ")+" gives each client")
	return b.String()
}

// PropertyNames are the names of every orchestrator's properties, sorted.
func PropertyNames() []string {
	seen := map[string]bool{}
	for _, o := range All() {
		for _, pr := range o.Properties {
			seen[pr.Name] = true
		}
	}
	return slices.Sorted(maps.Keys(seen))
}

// flag writes one flag's help: its name in a column of 29, the text
// wrapped at 80.
func flag(b *strings.Builder, name, text string) {
	b.WriteString(format.Wrap("  "+name, text, 29, 80))
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
