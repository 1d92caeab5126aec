package mongodb_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// The pool's size is bounded before the driver is given it.
func TestSizeBounded(t *testing.T) {
	dbtest.SizeBounded(t, "mongodb", []string{"mongodb.poolsize"})
}

// The counts mongodb.url names are bounded as mongodb.poolsize is
// (maxConnecting=100000000 took 2.4 GB).
func TestURLSizeBounded(t *testing.T) {
	dbtest.URLSizeBounded(t, "mongodb", "mongodb.url", "mongodb://127.0.0.1:1/?%s", []string{"maxPoolSize", "minPoolSize", "maxConnecting"})
}
