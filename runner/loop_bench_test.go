package runner

import (
	"context"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workload"
	"github.com/servbench/servbench/workloads"
)

// nop is a binding that does nothing: what is left is the runner's own
// cost per operation.
type nop struct{}

func (nop) Read(context.Context, string, string, []string, *db.Record) error { return nil }
func (nop) Scan(context.Context, string, string, int, []string, *db.RecordSet) error {
	return nil
}
func (nop) Update(context.Context, string, string, *db.Record) error { return nil }
func (nop) Insert(context.Context, string, string, *db.Record) error { return nil }
func (nop) Delete(context.Context, string, string) error             { return nil }
func (nop) Close() error                                             { return nil }

// BenchmarkLoopUnpaced is one thread's operations of workload C against a
// binding that does nothing, unpaced: the runner's and workload's cost per
// operation (schedule, measurement, key choice).
func BenchmarkLoopUnpaced(b *testing.B) {
	p := props.New()
	if err := workloads.Load(p, "c"); err != nil {
		b.Fatal(err)
	}
	p.Set("recordcount", "1000", "bench")
	p.Set("operationcount", "0", "bench")
	w, err := workload.New(p, true)
	if err != nil {
		b.Fatal(err)
	}
	p.Set("operationcount", "1", "bench")
	cfg, err := ParseConfig(p, false)
	if err != nil {
		b.Fatal(err)
	}
	cfg.OpCount = int64(b.N)
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := Run(context.Background(), cfg, w, nop{}, nil); err != nil {
		b.Fatal(err)
	}
}
