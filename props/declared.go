package props

import "sync"

// A SecretFinder returns the secrets in the value of the property key
// that no general rule of this package finds (nil: none), each as it
// would be written: the whole value of a property that is itself a
// credential, the password inside a connection string of a form only
// its binding knows (Oracle's user/password@host, a driver's own DSN).
// It is called for every property a Redactor is given, so it looks at
// the key first and returns at once for keys not its own.
type SecretFinder func(key, value string) []string

// declared are the finders parts of the program declared (a binding
// declares its own when it is registered: db.Register), asked for every
// property a Redactor learns (Known, KnownMap): what they return is then
// hidden wherever it stands, in every writer.
var declared struct {
	mu    sync.RWMutex
	finds []SecretFinder
}

// DeclareSecrets adds find to the finders every Redactor asks.
func DeclareSecrets(find SecretFinder) {
	declared.mu.Lock()
	defer declared.mu.Unlock()
	declared.finds = append(declared.finds, find)
}

// KnownDeclared adds to r the secrets the declared finders find in the
// property key=value: for a reader of properties written elsewhere than
// in a Props (a plan's mappings).
func (r *Redactor) KnownDeclared(key, value string) {
	declared.mu.RLock()
	finds := declared.finds
	declared.mu.RUnlock()
	for _, find := range finds {
		for _, v := range find(key, value) {
			r.Add(v)
		}
	}
}
