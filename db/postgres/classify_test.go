package postgres

import (
	"fmt"
	"io"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/servbench/servbench/db"
)

// A server that dies mid-answer leaves pgx with a cut-short read; the
// fault tests meet it only when the kill lands inside an operation, so the
// classification is tested here with the errors pgx returns.
func TestDeadServerErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want db.Status
	}{
		{fmt.Errorf("read message: %w", io.ErrUnexpectedEOF), db.ServiceUnavailable},
		{io.EOF, db.ServiceUnavailable},
		{&net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("connection refused")}, db.ServiceUnavailable},
		{&pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}, db.ServiceUnavailable},
		{&pgconn.PgError{Code: "57014", Message: "canceling statement due to statement timeout"}, db.Timeout},
		{&pgconn.PgError{Code: "42P01", Message: "relation does not exist"}, db.Error},
	} {
		if got := db.Classify(wrap("read", "k", c.err), false); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
}
