package dynamodb_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

func client(t *testing.T, endpoint string) *ddb.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(context.Background(), config.WithRegion("us-east-1"),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	if err != nil {
		t.Fatal(err)
	}
	return ddb.NewFromConfig(cfg, func(o *ddb.Options) { o.BaseEndpoint = aws.String(endpoint) })
}

func dropTables(t *testing.T, endpoint string, names ...string) {
	c := client(t, endpoint)
	for _, n := range names {
		_, err := c.DeleteTable(context.Background(), &ddb.DeleteTableInput{TableName: aws.String(n)})
		var nf *types.ResourceNotFoundException
		if err != nil && !errors.As(err, &nf) {
			t.Fatal(err)
		}
	}
}

func TestDynamoDBLocal(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	dropTables(t, endpoint, "sbdirect", "usertable")
	d := dbtest.Open(t, "dynamodb", "dynamodb.endpoint", endpoint)
	dbtest.Operations(t, d, "sbdirect", false)
	if v, _ := d.(db.Describer).ServerVersion(context.Background()); !strings.Contains(v, "not Amazon DynamoDB") {
		t.Errorf("server version %q must not pass for Amazon DynamoDB", v)
	}
	// DynamoDB Local once cut a scan's response short on a loaded machine
	// (the body failed its CRC32 and its connection was closed): two SDK
	// retries keep one such answer from failing the whole check, which
	// is about what the binding sends and reads, not about DynamoDB
	// Local's robustness. Retries are off by default (dynamodb.retries).
	dbtest.Workloads(t, "dynamodb", 10000, 2000, 500, "dynamodb.endpoint", endpoint, "dynamodb.consistentreads", "true", "dynamodb.retries", "2")
}

// batchsize=100 loads with BatchWriteItem, 25 items per request; every
// record reads back intact.
func TestBatchedLoad(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	dropTables(t, endpoint, "sbbatch")
	dbtest.BatchLoad(t, "dynamodb", "sbbatch", 2000, "dynamodb.endpoint", endpoint, "dynamodb.consistentreads", "true",
		"dynamodb.retries", "2")
}

func TestProvisionedTable(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	dropTables(t, endpoint, "sbprov")
	d := dbtest.Open(t, "dynamodb", "dynamodb.endpoint", endpoint, "dynamodb.billingmode", "provisioned",
		"dynamodb.readcapacity", "5", "dynamodb.writecapacity", "7")
	if err := d.(db.Preparer).Prepare(context.Background(), "sbprov", true); err != nil {
		t.Fatal(err)
	}
	out, err := client(t, endpoint).DescribeTable(context.Background(), &ddb.DescribeTableInput{TableName: aws.String("sbprov")})
	if err != nil {
		t.Fatal(err)
	}
	pt := out.Table.ProvisionedThroughput
	if pt == nil || aws.ToInt64(pt.ReadCapacityUnits) != 5 || aws.ToInt64(pt.WriteCapacityUnits) != 7 {
		t.Errorf("provisioned throughput %+v", pt)
	}
}

func TestPagination(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	dropTables(t, endpoint, "customer")
	d := dbtest.Open(t, "dynamodb", "dynamodb.endpoint", endpoint)
	// Two SDK retries, as in TestDynamoDBLocal: DynamoDB Local on a busy
	// machine now and then cuts an answer short (a CRC32 mismatch).
	r := dbtest.Pagination(t, d, "dynamodb", 3000, 1000, "dynamodb.endpoint", endpoint, "dynamodb.consistentreads", "true", "dynamodb.retries", "2")
	if !strings.HasPrefix(r.QueryModel, "data-model change") {
		t.Errorf("query model %q does not say the data model changed", r.QueryModel)
	}
	out, err := client(t, endpoint).DescribeTable(context.Background(), &ddb.DescribeTableInput{TableName: aws.String("customer")})
	if err != nil {
		t.Fatal(err)
	}
	if g := out.Table.GlobalSecondaryIndexes; len(g) != 1 || aws.ToString(g[0].IndexName) != "query1" ||
		aws.ToString(g[0].KeySchema[0].AttributeName) != "address_country" {
		t.Errorf("global secondary indexes %+v", g)
	}
	// Documents keep their nested attributes (address is a map).
	item, err := client(t, endpoint).GetItem(context.Background(), &ddb.GetItemInput{TableName: aws.String("customer"),
		Key: map[string]types.AttributeValue{"y_id": &types.AttributeValueMemberS{Value: "user6284781860667377211"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := item.Item["address"].(*types.AttributeValueMemberM); !ok {
		t.Errorf("address is stored as %T, not a map", item.Item["address"])
	}
}

// A setup statement changes the table's capacity (UpdateTable, as the
// 2023 reports did per workload) and waits for it; the same capacity
// again is no change; bad statements are refused in one line.
func TestAdmin(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	dropTables(t, endpoint, "sbadmin")
	got := dbtest.Admin(t, "dynamodb", []string{
		`{"read_capacity_units": 11, "write_capacity_units": 13}`,
		`{"read_capacity_units": 11, "write_capacity_units": 13}`,
		`{"read_capacity_units": 11}`,
	}, "dynamodb.endpoint", endpoint, "table", "sbadmin", "dynamodb.billingmode", "provisioned", "dynamodb.readcapacity", "5", "dynamodb.writecapacity", "7")
	if len(got) != 3 || got[0] != "updated: sbadmin read 11, write 13 capacity units, ACTIVE" || got[1] != "unchanged: sbadmin read 11, write 13 capacity units, ACTIVE" ||
		got[2] != "error: dynamodb: give read_capacity_units and write_capacity_units, both above 0" {
		t.Errorf("answers %q", got)
	}
	out, err := client(t, endpoint).DescribeTable(context.Background(), &ddb.DescribeTableInput{TableName: aws.String("sbadmin")})
	if err != nil || aws.ToInt64(out.Table.ProvisionedThroughput.ReadCapacityUnits) != 11 || aws.ToInt64(out.Table.ProvisionedThroughput.WriteCapacityUnits) != 13 {
		t.Errorf("described: %v", err)
	}
	got = dbtest.Admin(t, "dynamodb", []string{`{"read": 1}`}, "dynamodb.endpoint", endpoint, "table", "sbadmin")
	if len(got) != 1 || !strings.Contains(got[0], `unknown field "read"`) {
		t.Errorf("unknown field: %q", got)
	}
}

// dynamodb.maxcapacity cuts a plan's capacities to it, at the table's
// creation and in a setup statement, which says so: DynamoDB Local
// refuses more than 40,000 units a table, as AWS's default quota does,
// where S1's plan asks 53,315 (and 271,580 for E).
func TestMaxCapacity(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	dropTables(t, endpoint, "sbcap")
	kv := []string{"dynamodb.endpoint", endpoint, "table", "sbcap", "dynamodb.billingmode", "provisioned",
		"dynamodb.readcapacity", "5000", "dynamodb.writecapacity", "53315"}
	statement := []string{`{"read_capacity_units": 47470, "write_capacity_units": 900}`}
	d := dbtest.Open(t, "dynamodb", kv...)
	err := d.(db.Preparer).Prepare(context.Background(), "sbcap", true)
	if err == nil || !strings.Contains(err.Error(), "40,000 units") {
		t.Fatalf("without a cut, 53,315 units: %v, want the server's refusal", err)
	}
	dropTables(t, endpoint, "sbcap")
	got := dbtest.Admin(t, "dynamodb", statement, append(kv, "dynamodb.maxcapacity", "1000")...)
	want := "updated (read 47470 and write 900 asked, cut to dynamodb.maxcapacity 1000): sbcap read 1000, write 900 capacity units, ACTIVE"
	if len(got) != 1 || got[0] != want {
		t.Errorf("answers %q, want %q", got, want)
	}
	dropTables(t, endpoint, "sbcap")
}
