//go:build !unix

package experiment

// lockDir does not lock where flock is missing.
func lockDir(dir string) (release func(), err error) { return func() {}, nil }
