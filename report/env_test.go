package report

import (
	"strings"
	"testing"
)

func TestRedactPlan(t *testing.T) {
	in := `targets:
  - label: atlas
    binding: mongodb
    properties:
      mongodb.url: mongodb://bench:s3cret@127.0.0.1:27017/?authSource=admin
      couchbase.password: hunter2
      dynamodb.secretkey: "abc"
      redis.url: redis://127.0.0.1:6379
  - {label: x, binding: postgres, properties: {postgres.url: "postgres://u:pw@127.0.0.1/db"}}
`
	out := RedactPlan(in)
	for _, secret := range []string{"s3cret", "hunter2", "abc", ":pw@"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q left in:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"mongodb://bench:REDACTED@127.0.0.1:27017", "couchbase.password: REDACTED", "redis://127.0.0.1:6379", "label: atlas"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q missing:\n%s", kept, out)
		}
	}
}
