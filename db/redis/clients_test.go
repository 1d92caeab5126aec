package redis_test

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/servbench/servbench/cli"
	"github.com/servbench/servbench/db/dbtest"
)

// The test binary doubles as servbench for the clients of a spread phase.
func TestMain(m *testing.M) {
	if os.Getenv("SERVBENCH_TEST_CLI") == "1" {
		os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// One phase on 1, 2 and 4 clients against a real Redis: the load by 2
// clients inserts every record once, and each run's merged result has
// every operation of the clients, all answered, with the clients' own
// results adding up to it. (At a rate: a second, so that the clients'
// runs overlap whatever the machine is doing.)
func TestClients(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	flush(t, url, false)
	t.Setenv("SERVBENCH_TEST_CLI", "1")
	ctx := context.Background()
	code, load, stderr := runCLI(ctx, t, "load", "redis", "-w", "c", "-p", "redis.url="+url, "-p", "recordcount=4000",
		"--clients", "2", "-threads", "4", "-p", "dataintegrity=true")
	if code != cli.ExitOK || load.Operations != 4000 || load.OKOperations != 4000 || load.Clients != 2 {
		t.Fatalf("load on 2 clients: exit %d, %d records (%d ok): %s", code, load.Operations, load.OKOperations, stderr)
	}
	for _, n := range []int{1, 2, 4} {
		code, run, stderr := runCLI(ctx, t, "run", "redis", "-w", "c", "-p", "redis.url="+url, "-p", "recordcount=4000",
			"-p", "operationcount=8002", "--clients", fmt.Sprint(n), "-threads", "4", "-target", "8000", "-p", "dataintegrity=true")
		if code != cli.ExitOK {
			t.Fatalf("%d clients: exit %d: %s", n, code, stderr)
		}
		verified := int64(0)
		for _, op := range run.Ops {
			if op.Name == "VERIFY" {
				verified = op.Outcomes["OK"]
			}
		}
		if run.Operations != 8002 || run.OKOperations != 8002 || verified != 8002 {
			t.Errorf("%d clients: %d operations, %d ok, %d verified; want 8002", n, run.Operations, run.OKOperations, verified)
		}
		if n > 1 && run.Clients != n {
			t.Errorf("%d clients merged, want %d", run.Clients, n)
		}
	}
}
