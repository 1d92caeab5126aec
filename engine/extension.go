package engine

import (
	"sync"

	"github.com/servbench/servbench/props"
)

// An Extension reads properties of its own beside the engine's when Check
// reads the rest (how a spread phase's clients are started and watched:
// package coordinator), so that a typo there is refused with every other
// property's; what it returns is built once per phase and kept in the
// Setup (Setup.Extension). The engine knows nothing of what it holds.
type Extension func(p *props.Props, c Client) (any, error)

var (
	extMu      sync.RWMutex
	extensions []namedExtension
)

type namedExtension struct {
	name string
	read Extension
}

// RegisterExtension adds an extension under name, from an init function.
// It panics on a duplicate, which is a programming error any test finds.
func RegisterExtension(name string, read Extension) {
	extMu.Lock()
	defer extMu.Unlock()
	for _, e := range extensions {
		if e.name == name {
			panic("engine: extension registered twice: " + name)
		}
	}
	extensions = append(extensions, namedExtension{name, read})
}

// readExtensions runs every extension on the checked properties.
func (s *Setup) readExtensions(p *props.Props) error {
	extMu.RLock()
	defer extMu.RUnlock()
	for _, e := range extensions {
		v, err := e.read(p, s.Client)
		if err != nil {
			return err
		}
		if s.extensions == nil {
			s.extensions = map[string]any{}
		}
		s.extensions[e.name] = v
	}
	return nil
}

// Extension is what the extension registered as name read from this
// setup's properties; nil when none is registered under that name.
func (s *Setup) Extension(name string) any { return s.extensions[name] }
