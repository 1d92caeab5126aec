package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
)

// DynamoDB indexes only top-level attributes, so a query on a nested field
// (address.country) needs a data-model change: every write of the table
// also writes a flattened copy of the field, address_country, and the
// global secondary index query1 has it as its hash key (keys only). The
// index has no OFFSET: a query reads OFFSET+LIMIT keys, paging through
// LastEvaluatedKey, and drops the first OFFSET. GSI reads are eventually
// consistent.

type queryIndex struct {
	table string
	field string
	path  []string
	attr  string // the flattened attribute: the path joined by "_"
}

const gsiName = "query1"

// flattened returns the flattened attribute of values, when the table is
// the queried one and values carry the field.
func (s *Store) flattened(table string, values *db.Record) (string, types.AttributeValue, bool) {
	if s.qix == nil || s.qix.table != table {
		return "", nil, false
	}
	v, ok := jsondoc.FieldValue(values, s.qix.path)
	if !ok {
		return "", nil, false
	}
	return s.qix.attr, &types.AttributeValueMemberS{Value: string(v)}, true
}

// Index declares the queried field (writes flatten it from now on) and,
// when asked, adds the GSI to the table and waits until it is active.
func (s *Store) Index(ctx context.Context, table string, ix db.Index) (string, error) {
	s.qix = &queryIndex{table: table, field: ix.Field, path: ix.Path, attr: strings.Join(ix.Path, "_")}
	note := fmt.Sprintf("data-model change: a flattened top-level copy %s of %s (DynamoDB indexes only top-level attributes), "+
		"GSI %s on it (keys only, eventually consistent); OFFSET by reading and dropping the first OFFSET keys", s.qix.attr, ix.Field, gsiName)
	if !ix.Create {
		return note, nil
	}
	desc, err := s.c.DescribeTable(ctx, &ddb.DescribeTableInput{TableName: aws.String(table)})
	if err != nil {
		return "", wrapErr("describe table", table, err)
	}
	for _, g := range desc.Table.GlobalSecondaryIndexes {
		if aws.ToString(g.IndexName) == gsiName {
			return note, s.waitIndex(ctx, table)
		}
	}
	create := &types.CreateGlobalSecondaryIndexAction{
		IndexName:  aws.String(gsiName),
		KeySchema:  []types.KeySchemaElement{{AttributeName: aws.String(s.qix.attr), KeyType: types.KeyTypeHash}},
		Projection: &types.Projection{ProjectionType: types.ProjectionTypeKeysOnly},
	}
	if desc.Table.BillingModeSummary == nil || desc.Table.BillingModeSummary.BillingMode != types.BillingModePayPerRequest {
		create.ProvisionedThroughput = &types.ProvisionedThroughput{ReadCapacityUnits: aws.Int64(s.rcu), WriteCapacityUnits: aws.Int64(s.wcu)}
	}
	_, err = s.c.UpdateTable(ctx, &ddb.UpdateTableInput{
		TableName:                   aws.String(table),
		AttributeDefinitions:        []types.AttributeDefinition{{AttributeName: aws.String(s.qix.attr), AttributeType: types.ScalarAttributeTypeS}},
		GlobalSecondaryIndexUpdates: []types.GlobalSecondaryIndexUpdate{{Create: create}},
	})
	if err != nil {
		return "", wrapErr("create index on", s.qix.attr, err)
	}
	return note, s.waitIndex(ctx, table)
}

// waitIndex waits up to 5 minutes for the GSI to become active.
func (s *Store) waitIndex(ctx context.Context, table string) error {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		desc, err := s.c.DescribeTable(ctx, &ddb.DescribeTableInput{TableName: aws.String(table)})
		if err != nil {
			return wrapErr("describe table", table, err)
		}
		for _, g := range desc.Table.GlobalSecondaryIndexes {
			if aws.ToString(g.IndexName) == gsiName && g.IndexStatus == types.IndexStatusActive {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("dynamodb: index %s on %s not active after 5 minutes", gsiName, table)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// Query reads the first OFFSET+LIMIT keys of the value from the GSI and
// keeps the last LIMIT; with documents, their items follow by BatchGetItem.
func (s *Store) Query(ctx context.Context, table string, q *db.Query, dst *db.RecordSet) error {
	if s.qix == nil || s.qix.table != table || s.qix.field != q.Field {
		return fmt.Errorf("dynamodb: query %s: no index declared on %s", q.Value, q.Field)
	}
	want := q.Offset + q.Limit
	in := &ddb.QueryInput{
		TableName:                 aws.String(table),
		IndexName:                 aws.String(gsiName),
		KeyConditionExpression:    aws.String("#a = :v"),
		ExpressionAttributeNames:  map[string]string{"#a": s.qix.attr},
		ExpressionAttributeValues: map[string]types.AttributeValue{":v": &types.AttributeValueMemberS{Value: q.Value}},
		ReturnConsumedCapacity:    types.ReturnConsumedCapacityTotal,
	}
	seen := 0
	for pages := 0; seen < want; pages++ {
		if err := endlessPaging("query", q.Value, pages, seen, want); err != nil {
			return err
		}
		in.Limit = aws.Int32(int32(want - seen))
		out, err := s.c.Query(ctx, in)
		if err != nil {
			return wrapErr("query", q.Value, err)
		}
		s.capacity.read(out.ConsumedCapacity)
		for _, item := range out.Items {
			seen++
			if seen <= q.Offset {
				continue
			}
			if k, ok := item[s.pk].(*types.AttributeValueMemberS); ok {
				dst.Next().SetKey([]byte(k.Value))
			}
		}
		if len(out.LastEvaluatedKey) == 0 {
			break
		}
		in.ExclusiveStartKey = out.LastEvaluatedKey
	}
	if q.Documents && dst.Len() > 0 {
		return s.fetch(ctx, table, q.Value, dst)
	}
	return nil
}

// fetch reads the items of dst's keys with BatchGetItem (100 at most per
// call, unprocessed keys asked again).
func (s *Store) fetch(ctx context.Context, table, what string, dst *db.RecordSet) error {
	pos := make(map[string]int, dst.Len())
	var keys []map[string]types.AttributeValue
	for i := 0; i < dst.Len(); i++ {
		k := string(dst.Row(i).Key)
		pos[k] = i
		keys = append(keys, s.key(k))
	}
	for len(keys) > 0 {
		n := min(len(keys), 100)
		req := map[string]types.KeysAndAttributes{table: {Keys: keys[:n], ConsistentRead: aws.Bool(s.consistent)}}
		keys = keys[n:]
		for len(req) > 0 {
			out, err := s.c.BatchGetItem(ctx, &ddb.BatchGetItemInput{RequestItems: req, ReturnConsumedCapacity: types.ReturnConsumedCapacityTotal})
			if err != nil {
				return wrapErr("query", what, err)
			}
			for i := range out.ConsumedCapacity {
				s.capacity.read(&out.ConsumedCapacity[i])
			}
			for _, item := range out.Responses[table] {
				k, ok := item[s.pk].(*types.AttributeValueMemberS)
				if !ok {
					return errors.New("dynamodb: query: an item without its key")
				}
				if err := s.addItem(dst.Row(pos[k.Value]), item); err != nil {
					return fmt.Errorf("dynamodb: query %s: %s: %w", what, k.Value, err)
				}
			}
			req = out.UnprocessedKeys
		}
	}
	return nil
}
