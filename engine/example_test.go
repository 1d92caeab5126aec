package engine_test

import (
	"context"
	"fmt"

	_ "github.com/servbench/servbench/db/pebble" // registers "pebble"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workloads"
)

// Workload A on the embedded Pebble store: with no pebble.dir the store is
// temporary, so the engine loads the records before the run.
func ExampleRun() {
	p := props.New()
	if err := workloads.Load(p, "a"); err != nil {
		panic(err)
	}
	p.Set("recordcount", "1000", "example")
	p.Set("operationcount", "5000", "example")
	res, err := engine.Run(context.Background(), engine.Spec{Binding: "pebble", Properties: p, Threads: 2})
	if err != nil {
		panic(err)
	}
	all, ok := res.Total.ClientOps()
	fmt.Printf("%s: %d operations, %d ok\n", res.Reason, all, ok)
	// Output: completed: 5000 operations, 5000 ok
}
