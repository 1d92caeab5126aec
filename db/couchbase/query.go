package couchbase

import (
	"context"
	"fmt"
	"strings"

	"github.com/couchbase/gocb/v2"
	"github.com/servbench/servbench/db"
)

// fieldPath quotes a dotted field path for SQL++: `address`.`country`.
func fieldPath(path []string) string {
	q := make([]string, len(path))
	for i, p := range path {
		q[i] = "`" + strings.ReplaceAll(p, "`", "``") + "`"
	}
	return strings.Join(q, ".")
}

// indexStatement is the study's GSI on the filter field.
func indexStatement(keyspace string, path []string) string {
	return "CREATE INDEX `query1` IF NOT EXISTS ON " + keyspace + "(" + fieldPath(path) + ") USING GSI"
}

// queryStatement is the Altoros fork's query 1 (Couchbase SDK 3): value,
// offset and limit are positional parameters, never spliced into the text.
func queryStatement(keyspace string, path []string) string {
	return "SELECT RAW meta().id FROM " + keyspace + " WHERE " + fieldPath(path) + " = $1 OFFSET $2 LIMIT $3"
}

// Index creates the GSI when asked.
func (s *Store) Index(ctx context.Context, _ string, ix db.Index) (string, error) {
	if ix.Create {
		res, err := s.cluster.Query(indexStatement(s.keyspace, ix.Path), &gocb.QueryOptions{Context: ctx})
		if err != nil {
			return "", wrap("create index on", ix.Field, s.queryErr(ctx, err))
		}
		if err := res.Close(); err != nil {
			return "", wrap("create index on", ix.Field, s.queryErr(ctx, err))
		}
		online, err := s.indexesOnline(ctx)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("native: GSI query1 on %s (%s), SQL++ SELECT RAW meta().id ... OFFSET $2 LIMIT $3", fieldPath(ix.Path), online), nil
	}
	return fmt.Sprintf("native: GSI query1 on %s, SQL++ SELECT RAW meta().id ... OFFSET $2 LIMIT $3", fieldPath(ix.Path)), nil
}

// Query runs the statement and, for whole documents, reads the ids it
// found with key-value gets sent at once (getAll: a document deleted since
// is left out).
func (s *Store) Query(ctx context.Context, table string, q *db.Query, dst *db.RecordSet) error {
	res, err := s.cluster.Query(queryStatement(s.keyspace, q.Path), &gocb.QueryOptions{
		PositionalParameters: []interface{}{q.Value, q.Offset, q.Limit}, Adhoc: false, Context: ctx,
	})
	if err != nil {
		return wrap("query", q.Value, s.queryErr(ctx, err))
	}
	ids, err := readIDs(res, q.Limit)
	if err != nil {
		return wrap("query", q.Value, s.queryErr(ctx, err))
	}
	if q.Documents {
		return s.getAll(ctx, table, ids, nil, dst) // at once, as a scan's
	}
	for _, id := range ids {
		dst.Next().SetKey([]byte(keyOf(table, id)))
	}
	return nil
}
