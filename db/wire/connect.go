package wire

import (
	"context"
	"fmt"
)

// Connect runs connect, a driver's connection that takes no context
// (gocql's CreateSession), until ctx ends: then it returns at once an
// error wrapping ctx's, so that Ctrl-C is not held for the driver's own
// timeout, and the connection, if it is made after all, is given to drop
// (closed) when it is.
func Connect[T any](ctx context.Context, connect func() (T, error), drop func(T)) (T, error) {
	type answer struct {
		v   T
		err error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := connect()
		done <- answer{v, err}
	}()
	select {
	case a := <-done:
		return a.v, a.err
	case <-ctx.Done():
		go func() {
			if a := <-done; a.err == nil {
				drop(a.v)
			}
		}()
		var zero T
		return zero, fmt.Errorf("stopped while connecting: %w", ctx.Err())
	}
}
