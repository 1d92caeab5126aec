package couchbase

import (
	"errors"
	"io"
	"testing"

	"github.com/couchbase/gocb/v2"
	"github.com/servbench/servbench/db"
)

// A server killed under the SDK's feet: the operation on the broken
// connection ends with the connection's EOF inside the SDK's error.
func TestDeadServerErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want db.Status
	}{
		{&gocb.KeyValueError{InnerError: io.EOF, DocumentID: "k"}, db.ServiceUnavailable},
		{&gocb.KeyValueError{InnerError: gocb.ErrDocumentNotFound}, db.NotFound},
		{&gocb.KeyValueError{InnerError: gocb.ErrUnambiguousTimeout}, db.Timeout},
		{gocb.ErrServiceNotAvailable, db.ServiceUnavailable},
		{errors.New("something else"), db.Error},
	} {
		if got := db.Classify(wrap("update", "k", c.err), false); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
}
