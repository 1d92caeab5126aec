package mongodb

import (
	"errors"
	"fmt"
	"testing"

	"github.com/servbench/servbench/db"
)

// retryablePool stands for the driver's unexported poolClearedError: what
// the operations waiting on a server's connections get when one of them
// finds the server dead.
type retryablePool struct{ retry bool }

func (e retryablePool) Error() string   { return "connection pool for 127.0.0.1:27017 was cleared" }
func (e retryablePool) Retryable() bool { return e.retry }

func TestDeadServerErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want db.Status
	}{
		{retryablePool{true}, db.ServiceUnavailable},
		{fmt.Errorf("insert: %w", retryablePool{true}), db.ServiceUnavailable},
		{retryablePool{false}, db.Error},
		{errors.New("something else"), db.Error},
	} {
		if got := db.Classify(wrap("read", "k", c.err), false); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
}
