package dynamodb_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workloads"
)

// throttler stands in front of DynamoDB Local, which never throttles, as a
// provisioned table over its capacity does: it answers a share of the data
// requests with DynamoDB's ProvisionedThroughputExceededException (HTTP
// 400): every 8th first attempt and every 2nd second attempt of one (the
// SDK numbers its attempts in amz-sdk-request), never a third, so that
// every operation succeeds within YCSB's 3 retries.
type throttler struct {
	*httptest.Server
	first, second, throttled atomic.Int64
}

func newThrottler(t *testing.T, endpoint string) *throttler {
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	th := &throttler{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	th.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		op := strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.")
		data := strings.Contains("GetItem PutItem UpdateItem DeleteItem BatchWriteItem Query Scan", op) && op != ""
		attempt := r.Header.Get("amz-sdk-request")
		throttle := false
		switch {
		case !data:
		case strings.HasPrefix(attempt, "attempt=1;"):
			throttle = th.first.Add(1)%8 == 0
		case strings.HasPrefix(attempt, "attempt=2;"):
			throttle = th.second.Add(1)%2 == 0
		}
		if !throttle {
			proxy.ServeHTTP(w, r)
			return
		}
		io.Copy(io.Discard, r.Body)
		th.throttled.Add(1)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		w.Header().Set("X-Amzn-Errortype", "ProvisionedThroughputExceededException")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"__type":"com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException","message":"The level of configured provisioned throughput for the table was exceeded. Consider increasing your provisioning level with the UpdateTable API."}`)
	}))
	t.Cleanup(th.Close)
	return th
}

// A load and a run against a throttling table complete with every record
// and every operation: throttled requests are retried as YCSB's binding
// retries them, and the retries are counted, each throttled answer once,
// apart from failures (there are none).
func TestThrottledLoadAndRunComplete(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	const table, records, ops = "sbthrottle", 400, 400
	dropTables(t, endpoint, table)
	th := newThrottler(t, endpoint)
	for _, phase := range []engine.Phase{engine.LoadPhase, engine.RunPhase} {
		p := props.New()
		workloads.Load(p, "a")
		for k, v := range map[string]string{"dynamodb.endpoint": th.URL, "table": table, "recordcount": "400", "operationcount": "400",
			"dynamodb.consistentreads": "true", "dataintegrity": "true"} {
			p.Set(k, v, "test")
		}
		before := th.throttled.Load()
		res, err := engine.Run(context.Background(), engine.Spec{Binding: "dynamodb", Properties: p, Phase: phase, Threads: 8})
		if err != nil {
			t.Fatalf("%s: %v", phase, err)
		}
		d := res.Doc()
		throttled := th.throttled.Load() - before
		want := int64(records)
		if phase == engine.RunPhase {
			want = ops
		}
		if d.Operations != want || d.OKOperations != want || res.Err != nil {
			t.Errorf("%s: %d operations, %d ok, want %d: %v %v", phase, d.Operations, d.OKOperations, want, res.Err, d.Ops)
		}
		src := d.ServerSide.Find(result.SourceBinding, "dynamodb")
		if src == nil {
			t.Fatalf("%s: no server-side source", phase)
		}
		if got := dbtest.Total(t, src, "throttled_retries"); throttled < 10 || got != float64(throttled) {
			t.Errorf("%s: %v throttled retries counted, the proxy throttled %d", phase, got, throttled)
		}
		if got := dbtest.Total(t, src, "retries"); got < float64(throttled) {
			t.Errorf("%s: %v retries counted, fewer than the %d throttled", phase, got, throttled)
		}
	}
	out, err := client(t, endpoint).Scan(context.Background(), &ddb.ScanInput{TableName: aws.String(table), Select: types.SelectCount, ConsistentRead: aws.Bool(true)})
	if err != nil || out.Count < records {
		t.Errorf("the table holds %v items (%v), want at least %d", out, err, records)
	}
}
