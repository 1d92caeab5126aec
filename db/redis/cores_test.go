package redis_test

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
)

// A client whose server is on this machine (127.0.0.1) takes half the
// cores while it runs (client.cores=auto), says so, and records it;
// client.cores=all keeps every one; GOMAXPROCS is as it was afterwards.
func TestClientCoresBesideItsServer(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	if runtime.NumCPU() < 2 {
		t.Skip("one core: nothing to share")
	}
	before := runtime.GOMAXPROCS(0)
	run := func(kv ...string) (gomaxprocs int, log string) {
		t.Helper()
		var lg bytes.Buffer
		res, err := engine.Run(context.Background(), engine.Spec{Binding: "redis", Workload: "c", Records: 10, Operations: engine.Give(int64(20)),
			Threads: 1, Log: &lg, Properties: props.Of(append([]string{"redis.url", url, "table", "cores_test"}, kv...)...)})
		if err != nil {
			t.Fatal(err)
		}
		return res.Doc().Environment.GOMAXPROCS, lg.String()
	}
	if n, lg := run(); n != max(1, runtime.NumCPU()/2) || !strings.Contains(lg, "the server is on this machine") {
		t.Errorf("auto: GOMAXPROCS %d during the run; log %q", n, lg)
	}
	if n, lg := run(engine.CoresProperty, "all"); n != before || strings.Contains(lg, "the server is on this machine") {
		t.Errorf("all: GOMAXPROCS %d during the run, want %d; log %q", n, before, lg)
	}
	if n, _ := run(engine.CoresProperty, "1"); n != 1 {
		t.Errorf("1: GOMAXPROCS %d during the run", n)
	}
	if g := runtime.GOMAXPROCS(0); g != before {
		t.Errorf("GOMAXPROCS %d after the runs, was %d", g, before)
	}
}
