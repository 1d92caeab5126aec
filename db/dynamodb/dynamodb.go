// Package dynamodb is the Amazon DynamoDB binding (aws-sdk-go-v2), issuing
// the calls YCSB's binding and the 2023 study used: GetItem (eventually or
// strongly consistent), UpdateItem with the PUT attribute action, PutItem,
// DeleteItem, and scans as a table Scan with ExclusiveStartKey and Limit
// (DynamoDB has no key order across partitions); batched loads with
// BatchWriteItem.
package dynamodb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/props"
)

// regionName is what an AWS region's name is made of (a local endpoint
// takes any such name).
var regionName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// Name is the binding's name: engine.Spec{Binding: dynamodb.Name} runs it (and
// the import that names it registers it).
const Name = "dynamodb"

func init() { db.Register(Name, binding{}) }

type binding struct{}

func (binding) Summary() string {
	return "Amazon DynamoDB through aws-sdk-go-v2 (dynamodb.endpoint, dynamodb.region, dynamodb.profile, dynamodb.role.arn, dynamodb.tls.*, dynamodb.primarykey, dynamodb.consistentreads)"
}

// Location is where the server is and who the client is to it
// (db.Located): a rehearsal's URL goes to the first.
func (binding) Location() []string {
	return []string{"dynamodb.endpoint", "dynamodb.region", "dynamodb.accesskey", "dynamodb.secretkey", "dynamodb.sessiontoken", "dynamodb.profile", "dynamodb.configfile", "dynamodb.credentialsfile", "dynamodb.role.", "dynamodb.sts.", "dynamodb.tls", "dynamodb.tls."}
}

// Store is a DynamoDB client.
type Store struct {
	traffic    wire.Traffic // the bytes its connections sent and received
	c          *ddb.Client
	pk         string
	consistent bool
	endpoint   string
	region     string
	create     bool
	billing    types.BillingMode
	rcu, wcu   int64
	maxUnits   int64      // dynamodb.maxcapacity; 0: none
	retries    int        // dynamodb.retries: also how often a batch's unprocessed items are sent again
	retried    retryCount // the requests sent again (see Sample)
	qix        *queryIndex
	capacity   capacity // the units DynamoDB says this client consumed (see Sample)
	tls        wire.TLS
	asked      wire.CertAsked // what a server asking for a client certificate was given
}

// Open reads the dynamodb.* properties and the AWS credentials, and
// makes the client they describe.
//
// Long: reads the binding's properties one after another, each checked
// where it is read, up to o.CheckOnly; then builds the AWS client from
// them step by step, in the order the SDK's options take.
func (binding) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	s := &Store{}
	var err error
	// The region given, else the AWS configuration's (a profile's,
	// AWS_REGION), else us-east-1.
	s.region = p.String("dynamodb.region", "")
	s.pk = p.String("dynamodb.primarykey", "y_id")
	if s.consistent, err = p.Bool("dynamodb.consistentreads", false); err != nil {
		return nil, err
	}
	if s.create, err = p.Bool("dynamodb.createtable", true); err != nil {
		return nil, err
	}
	mode, err := p.OneOf("dynamodb.billingmode", "ondemand", "ondemand", "provisioned")
	if err != nil {
		return nil, err
	}
	s.billing = types.BillingModePayPerRequest
	if mode == "provisioned" {
		s.billing = types.BillingModeProvisioned
	}
	if s.rcu, err = p.Int64Min("dynamodb.readcapacity", 1000, 1); err != nil {
		return nil, err
	}
	if s.wcu, err = p.Int64Min("dynamodb.writecapacity", 1000, 1); err != nil {
		return nil, err
	}
	// dynamodb.maxcapacity: the most capacity units a table is given each
	// way, a plan's or a statement's more cut to it (an account's quota
	// below a plan's, or DynamoDB Local's fixed 40,000 a table in a
	// rehearsal); the answer of a statement so cut says so.
	if s.maxUnits, err = p.Int64Min("dynamodb.maxcapacity", 0, 0); err != nil {
		return nil, err
	}
	s.rcu, s.wcu = s.capped(s.rcu), s.capped(s.wcu)
	// Retried as YCSB's binding retries (retry.go): 3 times at most, with
	// the AWS SDK for Java's delays; 0 counts each throttled call once.
	retries, err := p.Int64Min("dynamodb.retries", ycsbRetries, 0)
	if err != nil {
		return nil, err
	}
	if retries > 100 {
		return nil, p.Errorf("dynamodb.retries", "%d is more than 100", retries)
	}
	s.retries = int(retries)
	ms, err := p.Int64Min("dynamodb.timeout", 10000, 1)
	if err != nil {
		return nil, err
	}
	cr, err := readCredentials(p)
	if err != nil {
		return nil, err
	}
	if e := p.String("dynamodb.endpoint", ""); e != "" {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, p.Errorf("dynamodb.endpoint", "want http(s)://host:port")
		}
		s.endpoint = u.Scheme + "://" + u.Host
	}
	// An https endpoint is TLS, and so is Amazon's (no endpoint); the TLS
	// properties refine it, and refuse an http:// endpoint.
	if s.tls, err = wire.ReadTLS(p, Name); err != nil {
		return nil, err
	}
	if s.endpoint == "" && s.tls.Explicit && !s.tls.On {
		return nil, p.Errorf("dynamodb.tls", "false, but Amazon DynamoDB (no dynamodb.endpoint) is reached over https only")
	}
	if s.tls, err = s.tls.Agree(p, "dynamodb.endpoint", s.endpoint == "" || strings.HasPrefix(s.endpoint, "https:")); err != nil {
		return nil, err
	}
	if o.CheckOnly {
		return nil, nil
	}
	// The files are read where the phase runs (a spread phase's clients).
	if err := cr.files(p); err != nil {
		return nil, err
	}
	if err := cr.checkFiles(p); err != nil {
		return nil, err
	}
	if err := cr.checkSSOCache(ctx, s.endpoint != ""); err != nil {
		return nil, err
	}
	tc, err := s.tls.Config(ctx, p)
	if err != nil {
		return nil, err
	}
	tc = s.asked.Watch(tc)
	// One kept-alive connection per client thread.
	hc := awshttp.NewBuildableClient().WithTimeout(time.Duration(ms) * time.Millisecond).
		WithTransportOptions(func(tr *http.Transport) {
			tr.MaxIdleConnsPerHost = max(o.Threads, 1) + 2
			if tr.DialContext != nil { // TLS runs over it: the bytes on the wire
				tr.DialContext = s.traffic.Dialer(tr.DialContext)
			}
			if tc != nil {
				tr.TLSClientConfig = tc
			}
		})
	opts := []func(*config.LoadOptions) error{
		config.WithRetryer(func() aws.Retryer { return newRetryer(int(retries), &s.retried) }),
		config.WithHTTPClient(hc),
		// Every answer on the way to credentials (a container's or the
		// instance's endpoint, STS, SSO) is bounded; DynamoDB's client
		// takes the run's bound in its place.
		config.WithAPIOptions([]func(*middleware.Stack) error{boundAnswers{max: maxCredentialsAnswer, named: true}.addBound}),
		// The SDK's own warnings (a response body it could not close
		// cleanly, say of a server cut short) would be printed on the
		// run's standard error once per operation; what fails is counted,
		// with its first error, in the results.
		config.WithLogger(logging.Nop{}),
	}
	if s.region != "" {
		opts = append(opts, config.WithRegion(s.region))
	}
	opts = append(opts, cr.load(s.endpoint != "")...)
	if cmd := cr.process(ctx, s.endpoint != ""); cmd != "" {
		// The SDK's own runs it without a bound on its output, and
		// leaves it running on Ctrl-C.
		opts = append(opts, config.WithCredentialsProvider(aws.NewCredentialsCache(processCreds{ctx: ctx, command: cmd})))
	}
	cfg, err := loadConfig(ctx, opts)
	if err != nil {
		return nil, cr.explain(p, err)
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if !regionName.MatchString(cfg.Region) {
		if _, given := p.Get("dynamodb.region"); given {
			return nil, p.Errorf("dynamodb.region", "%q is not a region's name (us-east-1, eu-west-3, ...)", props.Cut(cfg.Region, 40))
		}
		return nil, &db.InputError{Err: fmt.Errorf("dynamodb: the AWS configuration's region (AWS_REGION, AWS_DEFAULT_REGION or a profile's region) %q is not a region's name (us-east-1, eu-west-3, ...)", props.Cut(cfg.Region, 40))}
	}
	s.region = cfg.Region
	if cr.role != "" {
		cfg.Credentials = cr.assumeRole(cfg, time.Duration(ms)*time.Millisecond)
	}
	answers := boundAnswers{max: wire.MaxHTTPAnswer + o.AnswerBytes, budget: wire.NewAnswerBudget(o.Memory)}
	s.c = ddb.NewFromConfig(cfg, func(o *ddb.Options) {
		o.APIOptions = append(o.APIOptions, answers.addBound)
		if s.endpoint != "" {
			o.BaseEndpoint = aws.String(s.endpoint)
		}
	})
	// One try: a server that never answers is said after its wait, not
	// after dynamodb.retries more of them (four waits of 10 s, unsaid).
	wait := time.Duration(ms) * time.Millisecond
	if _, err := s.c.ListTables(ctx, &ddb.ListTablesInput{Limit: aws.Int32(1)}, func(o *ddb.Options) {
		o.Retryer = retry.AddWithMaxAttempts(o.Retryer, 1)
	}); err != nil {
		var ne net.Error
		if ctx.Err() == nil && errors.As(err, &ne) && ne.Timeout() {
			err = fmt.Errorf("no answer within %s (dynamodb.timeout): %w", wait, err)
		}
		return nil, redacted{fmt.Errorf("dynamodb: connect %s: %w", s.where(), s.asked.Explain(s.tls, err))}
	}
	return s, nil
}

func (s *Store) where() string {
	if s.endpoint != "" {
		return s.endpoint
	}
	return "region " + s.region
}

// Prepare creates the table (hash key dynamodb.primarykey) when missing and
// waits until it is active.
func (s *Store) Prepare(ctx context.Context, table string, _ bool) error {
	if !s.create {
		return nil
	}
	_, err := s.c.DescribeTable(ctx, &ddb.DescribeTableInput{TableName: aws.String(table)})
	var nf *types.ResourceNotFoundException
	if err == nil || !errors.As(err, &nf) {
		return wrapErr("describe table", table, err)
	}
	in := &ddb.CreateTableInput{
		TableName:            aws.String(table),
		AttributeDefinitions: []types.AttributeDefinition{{AttributeName: aws.String(s.pk), AttributeType: types.ScalarAttributeTypeS}},
		KeySchema:            []types.KeySchemaElement{{AttributeName: aws.String(s.pk), KeyType: types.KeyTypeHash}},
		BillingMode:          s.billing,
	}
	if s.billing == types.BillingModeProvisioned {
		in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(s.rcu), WriteCapacityUnits: aws.Int64(s.wcu)}
	}
	if _, err := s.c.CreateTable(ctx, in); err != nil {
		var inUse *types.ResourceInUseException
		if !errors.As(err, &inUse) {
			return wrapErr("create table", table, err)
		}
	}
	w := ddb.NewTableExistsWaiter(s.c)
	return wrapErr("create table", table, w.Wait(ctx, &ddb.DescribeTableInput{TableName: aws.String(table)}, 2*time.Minute))
}

// throttleCodes are the errors the 2023 study's DynamoDB charts count as
// throttled requests.
var throttleCodes = map[string]bool{
	"ProvisionedThroughputExceededException": true,
	"ThrottlingException":                    true,
	"RequestLimitExceeded":                   true,
}

// wrapErr maps an SDK error to an outcome-carrying error (nil stays nil).
func wrapErr(op, key string, err error) error {
	if err == nil {
		return nil
	}
	var ae smithy.APIError
	if errors.As(err, &ae) {
		switch {
		case throttleCodes[ae.ErrorCode()]:
			return fmt.Errorf("dynamodb: %s %s: %w: %v", op, key, db.ErrThrottled, err)
		case ae.ErrorCode() == "ResourceNotFoundException":
			return fmt.Errorf("dynamodb: %s %s: %w: %v", op, key, db.ErrBadRequest, err)
		case ae.ErrorCode() == "InternalServerError" || ae.ErrorCode() == "ServiceUnavailable":
			return fmt.Errorf("dynamodb: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
		}
	}
	var oe *smithy.OperationError
	if errors.As(err, &oe) && oe.Err != nil && isNetwork(oe.Err) {
		return fmt.Errorf("dynamodb: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	}
	return fmt.Errorf("dynamodb: %s %s: %w", op, key, err)
}

func isNetwork(err error) bool {
	var ue *url.Error
	return errors.As(err, &ue) && !ue.Timeout()
}

func (s *Store) key(k string) map[string]types.AttributeValue {
	return map[string]types.AttributeValue{s.pk: &types.AttributeValueMemberS{Value: k}}
}

// projection builds "#f0, #f1" with its name map (field names may be
// reserved words).
func projection(fields []string) (*string, map[string]string) {
	if fields == nil {
		return nil, nil
	}
	names := make(map[string]string, len(fields))
	expr := ""
	for i, f := range fields {
		ph := "#f" + strconv.Itoa(i)
		names[ph] = f
		if i > 0 {
			expr += ", "
		}
		expr += ph
	}
	return &expr, names
}

func (s *Store) Read(ctx context.Context, table, key string, fields []string, dst *db.Record) error {
	pe, names := projection(fields)
	out, err := s.c.GetItem(ctx, &ddb.GetItemInput{
		TableName: aws.String(table), Key: s.key(key), ConsistentRead: aws.Bool(s.consistent),
		ProjectionExpression: pe, ExpressionAttributeNames: names, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
	})
	if err != nil {
		return wrapErr("read", key, err)
	}
	s.capacity.read(out.ConsumedCapacity)
	if len(out.Item) == 0 {
		return fmt.Errorf("dynamodb: read %s: %w", key, db.ErrNotFound)
	}
	if err := s.addItem(dst, out.Item); err != nil {
		return fmt.Errorf("dynamodb: read %s: %w", key, err)
	}
	return nil
}

// Scan is a table Scan from after startKey with Limit, as YCSB's binding:
// DynamoDB returns items in hash order, not key order.
func (s *Store) Scan(ctx context.Context, table, start string, count int, fields []string, dst *db.RecordSet) error {
	pe, names := projection(fields)
	if pe != nil { // the key is needed to report each row's key
		*pe += ", #pk"
		names["#pk"] = s.pk
	}
	// As YCSB's binding scans: DynamoDB's scan starts after its start
	// key, so the start key's record is read first (GetItem), then Scan
	// is called from it, and again from where each call ended, until
	// count records were asked for.
	got, err := s.c.GetItem(ctx, &ddb.GetItemInput{TableName: aws.String(table), Key: s.key(start), ProjectionExpression: pe,
		ExpressionAttributeNames: names, ConsistentRead: aws.Bool(s.consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		return wrapErr("scan", start, err)
	}
	s.capacity.read(got.ConsumedCapacity)
	if err := s.addScanned(dst, start, got.Item); err != nil {
		return err
	}
	from := s.key(start)
	for n, pages := 1, 0; n < count; pages++ {
		if err := endlessPaging("scan", start, pages, n, count); err != nil {
			return err
		}
		out, err := s.c.Scan(ctx, &ddb.ScanInput{
			TableName: aws.String(table), Limit: aws.Int32(int32(count - n)), ExclusiveStartKey: from,
			ProjectionExpression: pe, ExpressionAttributeNames: names, ConsistentRead: aws.Bool(s.consistent), ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal,
		})
		if err != nil {
			return wrapErr("scan", start, err)
		}
		s.capacity.read(out.ConsumedCapacity)
		for _, item := range out.Items {
			if err := s.addScanned(dst, start, item); err != nil {
				return err
			}
		}
		n += max(int(out.Count), len(out.Items))
		if from = out.LastEvaluatedKey; len(from) == 0 || dst.Over() {
			break // the table's end (YCSB's would scan again from its start)
		}
	}
	return nil
}

// maxEmptyPages bounds the pages a scan or query reads beyond one an
// item it asks for: without a filter, every page but the last holds one
// at least, and a server that pages without end, empty page after empty
// page, kept an operation going until Ctrl-C.
const maxEmptyPages = 100

// endlessPaging fails op (of key) past its pages' bound, maxEmptyPages
// beyond one an item of the want asked for, got of them read.
func endlessPaging(op, key string, pages, got, want int) error {
	if pages <= want+maxEmptyPages {
		return nil
	}
	return fmt.Errorf("dynamodb: %s %s: the server answered %d pages with %d of the %d items asked (every page but the last holds one): paging without end", op, key, pages, got, want)
}

// addScanned adds a scanned item (none: nothing) to dst.
func (s *Store) addScanned(dst *db.RecordSet, start string, item map[string]types.AttributeValue) error {
	if len(item) == 0 {
		return nil
	}
	r := dst.Next()
	if k, ok := item[s.pk].(*types.AttributeValueMemberS); ok {
		r.SetKey([]byte(k.Value))
	}
	if err := s.addItem(r, item); err != nil {
		return fmt.Errorf("dynamodb: scan %s: %w", start, err)
	}
	return nil
}

// Update is UpdateItem with the PUT action per attribute (an upsert).
func (s *Store) Update(ctx context.Context, table, key string, values *db.Record) error {
	upd := make(map[string]types.AttributeValueUpdate, values.Len()+1)
	for _, f := range values.Fields() {
		v, err := attribute(values, f.Value)
		if err != nil {
			return fmt.Errorf("dynamodb: update %s: field %s: %w", key, f.Name, err)
		}
		upd[f.Name] = types.AttributeValueUpdate{Action: types.AttributeActionPut, Value: v}
	}
	if name, v, ok := s.flattened(table, values); ok {
		upd[name] = types.AttributeValueUpdate{Action: types.AttributeActionPut, Value: v}
	}
	out, err := s.c.UpdateItem(ctx, &ddb.UpdateItemInput{TableName: aws.String(table), Key: s.key(key), AttributeUpdates: upd, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		return wrapErr("update", key, err)
	}
	s.capacity.write(out.ConsumedCapacity)
	return nil
}

func (s *Store) Insert(ctx context.Context, table, key string, values *db.Record) error {
	item, err := s.item(table, key, values)
	if err != nil {
		return err
	}
	out, err := s.c.PutItem(ctx, &ddb.PutItemInput{TableName: aws.String(table), Item: item, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		return wrapErr("insert", key, err)
	}
	s.capacity.write(out.ConsumedCapacity)
	return nil
}

func (s *Store) item(table, key string, values *db.Record) (map[string]types.AttributeValue, error) {
	item := make(map[string]types.AttributeValue, values.Len()+2)
	item[s.pk] = &types.AttributeValueMemberS{Value: key}
	for _, f := range values.Fields() {
		v, err := attribute(values, f.Value)
		if err != nil {
			return nil, fmt.Errorf("dynamodb: insert %s: field %s: %w", key, f.Name, err)
		}
		item[f.Name] = v
	}
	if name, v, ok := s.flattened(table, values); ok {
		item[name] = v
	}
	return item, nil
}

// batchWriteMax is BatchWriteItem's limit: 25 items per request.
const batchWriteMax = 25

// BatchInsert writes a batch of records (batchsize) with BatchWriteItem,
// 25 per request. Items DynamoDB leaves unprocessed (throttled) are sent
// again dynamodb.retries times at most, after the delays of a throttled
// request (retry.go), each counted as a throttled retry; any still left
// make the batch THROTTLED, saying how many, as a *db.BatchError naming
// them: the items written count as done, only those left as failed (a
// batch of 25 with one left counted 25 failed). A request that fails
// fails its items and those after it; those of the requests before were
// written.
func (s *Store) BatchInsert(ctx context.Context, table string, keys []string, values []*db.Record) error {
	// failedFrom fails the items left of the request from start (their
	// indices in keys) and every item after end, with err.
	failedFrom := func(start, end int, left []int, err error) error {
		failed := append(left, seq(end, len(keys))...)
		if start == 0 && len(failed) == len(keys) {
			return err
		}
		return &db.BatchError{Failed: failed, Err: err}
	}
	for start := 0; start < len(keys); start += batchWriteMax {
		end := min(start+batchWriteMax, len(keys))
		reqs := make([]types.WriteRequest, 0, end-start)
		for i := start; i < end; i++ {
			item, err := s.item(table, keys[i], values[i])
			if err != nil {
				return failedFrom(start, start, nil, err)
			}
			reqs = append(reqs, types.WriteRequest{PutRequest: &types.PutRequest{Item: item}})
		}
		pending := map[string][]types.WriteRequest{table: reqs}
		for attempt := 0; ; attempt++ {
			out, err := s.c.BatchWriteItem(ctx, &ddb.BatchWriteItemInput{RequestItems: pending, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				return failedFrom(start, end, s.indices(keys, start, end, pending[table]), wrapErr("batch insert", keys[start], err))
			}
			for i := range out.ConsumedCapacity {
				s.capacity.write(&out.ConsumedCapacity[i])
			}
			left := len(out.UnprocessedItems[table])
			if left == 0 {
				break
			}
			if attempt >= s.retries {
				err := fmt.Errorf("dynamodb: batch insert from %s: %d of %d items unprocessed: %w", keys[start], left, end-start, db.ErrThrottled)
				return failedFrom(start, end, s.indices(keys, start, end, out.UnprocessedItems[table]), err)
			}
			s.retried.all.Add(1)
			s.retried.throttled.Add(1)
			select {
			case <-time.After(ycsbDelay(attempt, true, rand.Float64())):
			case <-ctx.Done():
				return failedFrom(start, end, s.indices(keys, start, end, out.UnprocessedItems[table]), ctx.Err())
			}
			pending = out.UnprocessedItems
		}
	}
	return nil
}

// indices are the indices in keys[start:end] of the items reqs put,
// ascending; every one of them when an item's key is not among them (an
// answer naming items it was not sent).
func (s *Store) indices(keys []string, start, end int, reqs []types.WriteRequest) []int {
	at := make(map[string]int, end-start)
	for i := start; i < end; i++ {
		at[keys[i]] = i
	}
	var idx []int
	for _, r := range reqs {
		var k *types.AttributeValueMemberS
		if r.PutRequest != nil {
			k, _ = r.PutRequest.Item[s.pk].(*types.AttributeValueMemberS)
		}
		i, ok := 0, false
		if k != nil {
			i, ok = at[k.Value]
		}
		if !ok {
			return seq(start, end)
		}
		if !slices.Contains(idx, i) {
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	return idx
}

// seq is the indices from a to b.
func seq(a, b int) []int {
	var idx []int
	for i := a; i < b; i++ {
		idx = append(idx, i)
	}
	return idx
}

func (s *Store) Delete(ctx context.Context, table, key string) error {
	out, err := s.c.DeleteItem(ctx, &ddb.DeleteItemInput{TableName: aws.String(table), Key: s.key(key), ReturnValues: types.ReturnValueAllOld, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
	if err != nil {
		return wrapErr("delete", key, err)
	}
	s.capacity.write(out.ConsumedCapacity)
	if len(out.Attributes) == 0 {
		return fmt.Errorf("dynamodb: delete %s: %w", key, db.ErrNotFound)
	}
	return nil
}

// ServerVersion names the endpoint: the DynamoDB API reports no server
// version, so a local endpoint is labelled as such, never as Amazon's.
func (s *Store) ServerVersion(context.Context) (string, error) {
	if s.endpoint != "" {
		return "DynamoDB API at " + s.endpoint + " (not Amazon DynamoDB)", nil
	}
	return "Amazon DynamoDB (" + s.region + ")", nil
}

// Close has nothing to release.
func (s *Store) Close() error { return nil }

// Driver names the client library.
func (s *Store) Driver() string {
	return db.DriverName("AWS SDK for Go v2, dynamodb", "github.com/aws/aws-sdk-go-v2/service/dynamodb")
}

// AdminLanguage: a setup statement is UpdateTable's capacity as JSON.
func (binding) AdminLanguage() string {
	return `UpdateTable as JSON ({"read_capacity_units": R, "write_capacity_units": W} or {"billing_mode": "PAY_PER_REQUEST"}, "table" optional)`
}

// tableUpdate is a setup statement: the capacity to provision, or the
// billing mode.
type tableUpdate struct {
	Table       string `json:"table"`
	Read        int64  `json:"read_capacity_units"`
	Write       int64  `json:"write_capacity_units"`
	BillingMode string `json:"billing_mode"`
}

// Admin changes the table's provisioned capacity or billing mode
// (UpdateTable), as the 2023 reports did per workload, and waits until
// the table is active again. The table is the data set's unless the
// statement names one. A capacity the table has already is no change.
func (s *Store) Admin(ctx context.Context, table, statement string) (string, error) {
	var u tableUpdate
	dec := json.NewDecoder(strings.NewReader(statement))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&u); err != nil {
		return "", fmt.Errorf("dynamodb: a setup statement is %s: %w", binding{}.AdminLanguage(), err)
	}
	if u.Table != "" {
		table = u.Table
	}
	in := &ddb.UpdateTableInput{TableName: aws.String(table)}
	switch {
	case u.BillingMode == string(types.BillingModePayPerRequest) && u.Read == 0 && u.Write == 0:
		in.BillingMode = types.BillingModePayPerRequest
	case u.BillingMode != "" && u.BillingMode != string(types.BillingModeProvisioned):
		return "", fmt.Errorf("dynamodb: billing_mode %q: use PROVISIONED (with capacity units) or PAY_PER_REQUEST (without)", props.Cut(u.BillingMode, 40))
	case u.Read <= 0 || u.Write <= 0:
		return "", errors.New("dynamodb: give read_capacity_units and write_capacity_units, both above 0")
	default:
		if u.BillingMode != "" {
			in.BillingMode = types.BillingModeProvisioned
		}
		in.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(s.capped(u.Read)), WriteCapacityUnits: aws.Int64(s.capped(u.Write))}
	}
	answer := "updated"
	if _, err := s.c.UpdateTable(ctx, in); err != nil {
		var ae smithy.APIError
		if !errors.As(err, &ae) || ae.ErrorCode() != "ValidationException" || !unchanged(ae.ErrorMessage()) {
			return "", wrapErr("update table", table, err)
		}
		answer = "unchanged"
	}
	if in.ProvisionedThroughput != nil && (s.capped(u.Read) < u.Read || s.capped(u.Write) < u.Write) {
		answer += fmt.Sprintf(" (read %d and write %d asked, cut to dynamodb.maxcapacity %d)", u.Read, u.Write, s.maxUnits)
	}
	w := ddb.NewTableExistsWaiter(s.c)
	out, err := w.WaitForOutput(ctx, &ddb.DescribeTableInput{TableName: aws.String(table)}, 5*time.Minute)
	if err != nil {
		return "", wrapErr("update table", table, err)
	}
	t := out.Table
	if t.BillingModeSummary != nil && t.BillingModeSummary.BillingMode == types.BillingModePayPerRequest {
		return fmt.Sprintf("%s: %s on demand, %s", answer, table, t.TableStatus), nil
	}
	if pt := t.ProvisionedThroughput; pt != nil {
		return fmt.Sprintf("%s: %s read %d, write %d capacity units, %s", answer, table, aws.ToInt64(pt.ReadCapacityUnits), aws.ToInt64(pt.WriteCapacityUnits), t.TableStatus), nil
	}
	return fmt.Sprintf("%s: %s %s", answer, table, t.TableStatus), nil
}

// capped is units, at most dynamodb.maxcapacity.
func (s *Store) capped(units int64) int64 {
	if s.maxUnits > 0 {
		return min(units, s.maxUnits)
	}
	return units
}

// unchanged reports whether UpdateTable refused a capacity the table has
// already: DynamoDB says it "will not change", DynamoDB Local that it
// "equals the current value".
func unchanged(msg string) bool {
	return strings.Contains(msg, "will not change") || strings.Contains(msg, "equals the current value")
}

// Traffic is the bytes this client's connections sent and received.
func (s *Store) Traffic() (sent, received int64) { return s.traffic.Bytes() }

// Peers implements db.Peered.
func (s *Store) Peers() (local, remote int) { return s.traffic.Peers() }
