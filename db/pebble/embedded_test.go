package pebble

import (
	"testing"

	"github.com/servbench/servbench/db"
)

// Pebble says itself that it runs inside the client, and where its store
// lives: the engine and the plan runner ask, instead of knowing its name.
func TestEmbedded(t *testing.T) {
	if got := db.EmbeddedDir("pebble"); got != "pebble.dir" {
		t.Errorf("EmbeddedDir(pebble) = %q", got)
	}
	if got := db.EmbeddedDir("nosuchbinding"); got != "" {
		t.Errorf("EmbeddedDir of an unknown binding = %q", got)
	}
}
