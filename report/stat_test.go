package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servbench/servbench/plan"
)

// A reference file that cannot be read (larger than a plan's file may be:
// /dev/zero linked there) is refused naming it.
func TestReferenceNamedWhenRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, plan.ReferenceFile)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(plan.MaxFileBytes + 1)
	f.Close()
	err = (&Set{}).readReference(dir)
	if err == nil || !strings.HasPrefix(err.Error(), "reference "+path+": too large") {
		t.Errorf("%v", err)
	}
}
