package db

import (
	"fmt"
	"slices"
	"sync"

	"github.com/servbench/servbench/props"
)

var (
	regMu    sync.RWMutex
	registry = map[string]Binding{}
)

// Register makes a binding available under name, and the secrets it
// declares (SecretDeclarer) known to every redaction. It panics on a
// duplicate, which is a programming error caught by any test.
func Register(name string, b Binding) {
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("db: binding registered twice: " + name)
	}
	registry[name] = b
	if d, ok := b.(SecretDeclarer); ok {
		props.DeclareSecrets(d.Secrets)
	}
}

// Lookup returns the binding registered under name.
func Lookup(name string) (Binding, error) {
	regMu.RLock()
	defer regMu.RUnlock()
	b, ok := registry[name]
	if !ok {
		return nil, fmt.Errorf("unknown binding %q (known: %v)", name, namesLocked())
	}
	return b, nil
}

// Names returns the registered binding names, sorted.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	return namesLocked()
}

func namesLocked() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
