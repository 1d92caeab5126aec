package basic_test

import (
	"testing"

	_ "github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/db/dbtest"
)

// The conformance kit's workloads against basic, which stores nothing:
// every operation of every workload must succeed, in exact counts.
func TestConformance(t *testing.T) {
	dbtest.Workloads(t, "basic", 5000, 2000, 500, "dataintegrity", "false")
}
