package mongodb_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// The pool's size is bounded before the driver is given it.
func TestSizeBounded(t *testing.T) {
	dbtest.SizeBounded(t, "mongodb", []string{"mongodb.poolsize"})
}
