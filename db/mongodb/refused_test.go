package mongodb

import (
	"errors"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"
)

// A server that keeps serverStatus from the user (Atlas without the
// clusterMonitor role answers Unauthorized, code 13) or does not run it is
// said in one line; other errors are left as they are.
func TestStatusRefused(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{mongo.CommandError{Code: 13, Name: "Unauthorized", Message: "not authorized on admin to execute command { serverStatus: 1 }"}, "refused to this user"},
		{mongo.CommandError{Code: 59, Name: "CommandNotFound", Message: "no such command: 'serverStatus'"}, "does not run serverStatus"},
		{mongo.CommandError{Code: 115, Name: "CommandNotSupported", Message: "Command serverStatus not supported"}, "does not run serverStatus"},
	} {
		got := statusRefused(c.err)
		if !strings.Contains(got.Error(), c.want) || strings.Contains(got.Error(), "\n") {
			t.Errorf("%v: %v, want one line with %q", c.err, got, c.want)
		}
	}
	other := errors.New("connection reset")
	if got := statusRefused(other); got != other {
		t.Errorf("another error became %v", got)
	}
}
