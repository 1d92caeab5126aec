package mongodb

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// MaxEmptyBatches bounds the empty batches in a row a scan or query
// takes from a cursor its server keeps open: the driver's Next asks for
// another (getMore) again and again, and a server answering empty ones
// without end kept a scan going until Ctrl-C. A find's batches hold its
// documents, an empty one but rarely.
const MaxEmptyBatches = 100

// batches follows a cursor as the driver's Next does, a batch at a time,
// failing past MaxEmptyBatches empty ones in a row.
type batches struct {
	cur *mongo.Cursor
	err error
}

// next moves to the cursor's next document, false at its end or on an
// error (Err).
func (b *batches) next(ctx context.Context) bool {
	for empty := 0; ; empty++ {
		if b.cur.TryNext(ctx) {
			return true
		}
		if b.cur.Err() != nil || b.cur.ID() == 0 {
			return false
		}
		if empty == MaxEmptyBatches {
			b.err = fmt.Errorf("the server answered %d empty batches in a row, its cursor left open (getMore without end)", MaxEmptyBatches)
			return false
		}
	}
}

// Err is why next returned false, nil at the cursor's end.
func (b *batches) Err() error {
	if b.err != nil {
		return b.err
	}
	return b.cur.Err()
}
