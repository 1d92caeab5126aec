package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/servbench/servbench/db"
)

// filterExpr is the SQL expression of a query field: in the JSONB layout
// doc->'address'->>'country' (the text at the path), in the column layout
// the column itself. The index is created on exactly this expression, so
// the planner can use it.
func (s *Store) filterExpr(path []string) (string, error) {
	if s.columns {
		if len(path) != 1 {
			return "", fmt.Errorf("the column layout has no nested field %s", strings.Join(path, "."))
		}
		return ident(path[0]), nil
	}
	var b strings.Builder
	b.WriteString("doc")
	for i, p := range path {
		if i == len(path)-1 {
			b.WriteString("->>")
		} else {
			b.WriteString("->")
		}
		b.WriteString("'" + strings.ReplaceAll(p, "'", "''") + "'")
	}
	return "(" + b.String() + ")", nil
}

// Index creates the expression index on the queried field when asked:
//
//	CREATE INDEX IF NOT EXISTS <table>_query1 ON <table> ((doc->'address'->>'country'))
func (s *Store) Index(ctx context.Context, table string, ix db.Index) (string, error) {
	expr, err := s.filterExpr(ix.Path)
	if err != nil {
		return "", err
	}
	if ix.Create {
		ddl := fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)", ident(table+"_query1"), ident(table), expr)
		if _, err := s.pool.Exec(ctx, ddl); err != nil {
			return "", fmt.Errorf("postgres: create index on %s: %w", expr, err)
		}
		if _, err := s.pool.Exec(ctx, "ANALYZE "+ident(table)); err != nil {
			return "", fmt.Errorf("postgres: analyze %s: %w", table, err)
		}
	}
	return "native: B-tree expression index on " + expr, nil
}

// Query runs SELECT ycsb_key FROM t WHERE <expr> = $1 OFFSET $2 LIMIT $3
// (with doc when documents are asked for).
func (s *Store) Query(ctx context.Context, table string, q *db.Query, dst *db.RecordSet) error {
	expr, err := s.filterExpr(q.Path)
	if err != nil {
		return fmt.Errorf("postgres: query: %w", err)
	}
	sel := "ycsb_key"
	if q.Documents {
		sel = "ycsb_key, doc"
		if s.columns {
			sel = "*"
		}
	}
	// A server that answers past LIMIT is cut off: cancelled, the query's
	// connection is closed rather than read to its end.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rows, _ := s.pool.Query(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE %s = $1 OFFSET $2 LIMIT $3", sel, ident(table), expr), q.Value, q.Offset, q.Limit)
	defer rows.Close()
	n := 0
	for rows.Next() {
		if n++; n > q.Limit { // a server that ignores LIMIT would be kept row by row, without end
			cancel()
			return fmt.Errorf("postgres: query %s: the server answered more than the %d rows asked (LIMIT)", q.Value, q.Limit)
		}
		r := dst.Next()
		switch {
		case !q.Documents:
			var key []byte
			if err := rows.Scan(&key); err != nil {
				return wrap("query", q.Value, err)
			}
			r.SetKey(key)
		case s.columns:
			vals, err := values(rows)
			if err != nil {
				return wrap("query", q.Value, err)
			}
			for i, fd := range rows.FieldDescriptions() {
				if fd.Name == "ycsb_key" {
					k, ok := vals[i].(string)
					if !ok {
						return wrap("query", q.Value, fmt.Errorf("the server answered ycsb_key as %T, not text", vals[i]))
					}
					r.SetKey([]byte(k))
				}
			}
			addRow(r, rows.FieldDescriptions(), vals)
		default:
			var key, doc []byte
			if err := rows.Scan(&key, &doc); err != nil {
				return wrap("query", q.Value, err)
			}
			r.SetKey(key)
			if err := addDoc(r, doc); err != nil {
				return fmt.Errorf("postgres: query %s: %w", q.Value, err)
			}
		}
	}
	if err := rows.Err(); err != nil {
		return wrap("query", q.Value, err)
	}
	return nil
}
