package dbtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
)

// SizeBounded checks that a binding's size properties (pool sizes,
// connection counts) are refused past db.MaxConnections, in one line
// naming the property and the bound, when the run is checked: before any
// memory is given to them (mongodb.poolsize=100000000000 ran out of
// memory). kv are the properties the binding needs besides.
func SizeBounded(t *testing.T, binding string, keys []string, kv ...string) {
	t.Helper()
	b, err := db.Lookup(binding)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range keys {
		done := make(chan error, 1)
		go func() {
			_, err := b.Open(context.Background(), Props(append([]string{key, "100000000000"}, kv...)...), db.Options{Threads: 1, CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}})
			done <- err
		}()
		select {
		case err := <-done:
			want := "property " + key + ": 100000000000 is more than 65535"
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s=100000000000: %v, want %q", key, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s=100000000000: no answer within 10 s", key)
		}
		if _, err := b.Open(context.Background(), Props(append([]string{key, "65535"}, kv...)...), db.Options{Threads: 1, CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}}); err != nil {
			t.Errorf("%s=65535: %v", key, err)
		}
	}
}
