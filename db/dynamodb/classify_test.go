package dynamodb

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/servbench/servbench/db"
)

// DynamoDB Local never throttles, so the classification is tested with
// the SDK's own error types, wrapped as the SDK wraps them.
func TestThrottlingIsItsOwnOutcome(t *testing.T) {
	op := func(err error) error {
		return &smithy.OperationError{ServiceID: "DynamoDB", OperationName: "GetItem", Err: err}
	}
	for _, c := range []struct {
		err  error
		want db.Status
	}{
		{op(&types.ProvisionedThroughputExceededException{Message: aws.String("slow down")}), db.Throttled},
		{op(&smithy.GenericAPIError{Code: "ThrottlingException"}), db.Throttled},
		{op(&types.RequestLimitExceeded{Message: aws.String("account limit")}), db.Throttled},
		{op(&types.ResourceNotFoundException{Message: aws.String("no table")}), db.BadRequest},
		{op(&smithy.GenericAPIError{Code: "ValidationException"}), db.Error},
		{op(&types.InternalServerError{}), db.ServiceUnavailable},
	} {
		if got := db.Classify(wrapErr("read", "k", c.err), false); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
	if wrapErr("read", "k", nil) != nil {
		t.Error("nil error wrapped")
	}
}
