package cassandra

import (
	"errors"
	"fmt"
	"io"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/servbench/servbench/db"
)

// A node killed while operations wait for its answers: the fault tests
// meet these errors only when the kill lands inside an operation.
func TestDeadServerErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want db.Status
	}{
		{gocql.ErrConnectionClosed, db.ServiceUnavailable},
		{gocql.ErrNoConnections, db.ServiceUnavailable},
		{fmt.Errorf("gocql: failed to read uncompressed frame, err: %w", io.ErrUnexpectedEOF), db.ServiceUnavailable},
		{gocql.ErrTimeoutNoResponse, db.Timeout},
		{gocql.ErrNotFound, db.NotFound},
		{errors.New("line 1:7 no viable alternative"), db.Error},
	} {
		if got := db.Classify(wrap("read", "k", c.err), false); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
}
