package engine_test

import (
	"context"
	"fmt"

	"github.com/servbench/servbench/db/pebble"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
)

// Workload A on the embedded Pebble store: with no pebble.dir the store is
// temporary, so the engine loads the records before the run.
func ExampleRun() {
	res, err := engine.Run(context.Background(), engine.Spec{
		Binding: pebble.Name, Workload: "a", Records: 1000, Operations: engine.Give(int64(5000)), Threads: 2,
	})
	if err != nil {
		panic(err)
	}
	all, ok := res.Total.ClientOps()
	fmt.Printf("%s: %d operations, %d ok\n", res.Reason, all, ok)
	// Output: completed: 5000 operations, 5000 ok
}

// Properties override the workload's: workload C made half updates.
func ExampleRun_properties() {
	res, err := engine.Run(context.Background(), engine.Spec{
		Binding: pebble.Name, Workload: "c", Records: 500, Operations: engine.Give(int64(1000)),
		Properties: props.Of("readproportion", "0.5", "updateproportion", "0.5", "fieldcount", "3"),
	})
	if err != nil {
		panic(err)
	}
	for _, op := range res.Doc().Ops {
		fmt.Println(op.Name, op.Count > 0)
	}
	// Output:
	// READ true
	// UPDATE true
}
