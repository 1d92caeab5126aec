package couchdb

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	kivik "github.com/go-kivik/kivik/v4"

	"github.com/servbench/servbench/db"
)

// Index creates a Mango index on the queried field when asked (design
// document and index both named query1). CouchDB builds an index when a
// query first needs it, so Index then runs one query on it and waits
// (without a time limit) until the server has indexed what is loaded: the
// run measures queries, not the index build.
func (s *Store) Index(ctx context.Context, table string, ix db.Index) (string, error) {
	if ix.Create {
		err := s.c.DB(table).CreateIndex(ctx, "query1", "query1", map[string]any{"fields": []string{ix.Field}})
		if err != nil {
			return "", wrap("create index on", ix.Field, err)
		}
	}
	rows := s.slow.DB(table).Find(ctx, map[string]any{
		"selector": map[string]any{ix.Field: ""}, "limit": 1, "fields": []string{"_id"},
	})
	for rows.Next() {
	}
	if err := rows.Err(); err != nil && kivik.HTTPStatus(err) != http.StatusNotFound {
		return "", wrap("build index on", ix.Field, err)
	}
	rows.Close()
	return fmt.Sprintf("native: Mango index on %s, _find with skip and limit", ix.Field), nil
}

// Query runs _find with the selector {field: value}, skip, limit and, for
// ids only, fields ["_id"].
func (s *Store) Query(ctx context.Context, table string, q *db.Query, dst *db.RecordSet) error {
	find := map[string]any{
		"selector": map[string]any{q.Field: q.Value},
		"skip":     q.Offset,
		"limit":    q.Limit,
	}
	if !q.Documents {
		find["fields"] = []string{"_id"}
	}
	rows := s.c.DB(table).Find(ctx, find)
	defer rows.Close()
	for rows.Next() {
		var doc json.RawMessage
		if err := rows.ScanDoc(&doc); err != nil {
			return wrap("query", q.Value, err)
		}
		var id struct {
			ID string `json:"_id"`
		}
		if err := json.Unmarshal(doc, &id); err != nil {
			return fmt.Errorf("couchdb: query %s: %w", q.Value, err)
		}
		r := dst.Next()
		r.SetKey([]byte(id.ID))
		if q.Documents {
			if err := addDoc(r, doc, nil); err != nil {
				return fmt.Errorf("couchdb: query %s: %w", q.Value, err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return wrap("query", q.Value, err)
	}
	return nil
}
