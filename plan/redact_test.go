package plan

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	in := `deployments:
  - label: atlas
    binding: mongodb
    properties:
      mongodb.url: mongodb://bench:s3cret@127.0.0.1:27017/?authSource=admin
      couchbase.password: hunter2
      dynamodb.secretkey: "abc"
      redis.url: redis://127.0.0.1:6379
  - {label: x, binding: postgres, properties: {postgres.url: "postgres://u:pw@127.0.0.1/db"}}
  - {label: y, binding: postgres, properties: {postgres.password: hunter3, postgres.user: bob}}
  - label: z
    binding: postgres
    properties:
      postgres.url: "host=127.0.0.1 user=postgres password=hunter4 dbname=ycsb"
      redis.url: redis://bo#b:hunter5@127.0.0.1:6379
      couchbase.password: 'it''s hunter6'
    setup:
      - {statement: "CREATE USER bench WITH PASSWORD 'hunter7'"}
      - {statement: 'CONFIG SET requirepass hunter8'}
      - {shell: 'redis-cli -a hunter9 AUTH hunter10 PING'}   # no auth needed here
`
	out := Redact(in)
	for _, secret := range []string{"s3cret", "hunter2", "abc", ":pw@", "hunter3", "hunter4", "hunter5", "hunter6", "hunter7", "hunter8", "hunter10"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q left in:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"mongodb://bench:REDACTED@127.0.0.1:27017", "couchbase.password: REDACTED", "redis://127.0.0.1:6379", "label: atlas", "postgres.user: bob}}", "user=postgres password=REDACTED dbname=ycsb", "redis://bo#b:REDACTED@127.0.0.1:6379", "WITH PASSWORD REDACTED", "requirepass REDACTED", "# no auth needed here"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q missing:\n%s", kept, out)
		}
	}
}
