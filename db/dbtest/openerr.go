package dbtest

import (
	"context"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
)

// OpenErr opens the binding with ctx and the properties and returns its
// error (nil: it connected, and is closed again). An Open still running
// after a minute fails the test: a safety net, not a timing.
func OpenErr(t testing.TB, ctx context.Context, binding string, kv ...string) error {
	t.Helper()
	b, err := db.Lookup(binding)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		d, err := b.Open(ctx, Props(kv...), db.Options{Threads: 1, Schema: db.Schema{Fields: []string{"field0"}}})
		if err == nil {
			d.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("%s: Open(%v) still running after a minute", binding, kv)
	}
	return nil
}
