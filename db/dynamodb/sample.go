package dynamodb

import (
	"context"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/servbench/servbench/db"
)

// capacity sums the capacity units DynamoDB reports it consumed for this
// client's requests (ReturnConsumedCapacity TOTAL: no extra request), in
// millionths of a unit so that half units add exactly.
type capacity struct {
	readMicros, writeMicros atomic.Int64
}

func units(c *types.ConsumedCapacity, own *float64) int64 {
	switch {
	case c == nil:
		return 0
	case own != nil:
		return int64(*own*1e6 + 0.5)
	case c.CapacityUnits != nil:
		return int64(*c.CapacityUnits*1e6 + 0.5)
	}
	return 0
}

// read adds a read's units (its read units when DynamoDB splits them, or
// the total).
func (c *capacity) read(cc *types.ConsumedCapacity) {
	if cc != nil {
		c.readMicros.Add(units(cc, cc.ReadCapacityUnits))
	}
}

// write adds a write's units.
func (c *capacity) write(cc *types.ConsumedCapacity) {
	if cc != nil {
		c.writeMicros.Add(units(cc, cc.WriteCapacityUnits))
	}
}

// Sample gives the read and write capacity units this client's requests
// consumed, as DynamoDB reported them in its answers: their rates are the
// read and write units per second the 2023 DBaaS reports give (a
// strongly consistent read of up to 4 KB is one read unit, an eventually
// consistent one half; a write of up to 1 KB one write unit); and the
// requests this client sent again (retries), those of them DynamoDB had
// throttled (throttled_retries), apart from failed operations, which
// count what failed after the last retry.
func (s *Store) Sample(context.Context) (db.Sample, error) {
	return db.Sample{PerClient: true, Stats: []db.Stat{
		{Name: "read_units", Unit: "RU", Counter: true, Value: float64(s.capacity.readMicros.Load()) / 1e6},
		{Name: "write_units", Unit: "WU", Counter: true, Value: float64(s.capacity.writeMicros.Load()) / 1e6},
		{Name: "retries", Unit: "req", Counter: true, Value: float64(s.retried.all.Load())},
		{Name: "throttled_retries", Unit: "req", Counter: true, Value: float64(s.retried.throttled.Load())},
	}}, nil
}
