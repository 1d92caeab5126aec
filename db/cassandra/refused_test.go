package cassandra

import (
	"errors"
	"strings"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// unauthorized is the error a server gives a role that may not read a
// table: a request error whose code is Unauthorized.
type unauthorized struct{}

func (unauthorized) Code() int { return gocql.ErrCodeUnauthorized }
func (unauthorized) Message() string {
	return "User sb has no SELECT permission on <table system_views.thread_pools> or any of its parents"
}
func (e unauthorized) Error() string { return e.Message() }

// A role the server keeps its virtual tables from (a managed service's) is
// said in one line; other errors are left as they are.
func TestViewsRefused(t *testing.T) {
	got := viewsRefused(unauthorized{})
	if !strings.Contains(got.Error(), "refused to this role") || !strings.Contains(got.Error(), "system_views") || strings.Contains(got.Error(), "\n") {
		t.Errorf("unauthorized: %v", got)
	}
	other := errors.New("no hosts available")
	if viewsRefused(other) != other {
		t.Errorf("another error became %v", viewsRefused(other))
	}
}
