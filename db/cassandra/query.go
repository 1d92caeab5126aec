package cassandra

import (
	"context"
	"fmt"
	"strings"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
)

// Cassandra's SAI indexes columns, not paths inside a JSON text, so a
// query on a nested field (address.country) needs a data-model change:
// every write of the table also writes the field's value into a column of
// its own, address_country, which the index covers. CQL has no OFFSET: a
// query reads OFFSET+LIMIT rows (paged by the driver) and drops the first
// OFFSET. A top-level field is indexed in its own column.

type queryIndex struct {
	table  string
	field  string
	path   []string
	column string
}

// flattened returns the flattened column and value of values, when the
// table is the queried one and the field is nested.
func (st *Store) flattened(table string, values *db.Record) (string, string, bool) {
	if st.qix == nil || st.qix.table != table || len(st.qix.path) == 1 {
		return "", "", false
	}
	v, ok := jsondoc.FieldValue(values, st.qix.path)
	if !ok {
		return "", "", false
	}
	return st.qix.column, string(v), true
}

// Index declares the queried field, adds its flattened column when
// missing and, when asked, creates the SAI index query1 on it.
func (st *Store) Index(ctx context.Context, table string, ix db.Index) (string, error) {
	col := strings.Join(ix.Path, "_")
	if !validName(col) {
		return "", fmt.Errorf("cassandra: %q cannot name a column", col)
	}
	st.qix = &queryIndex{table: table, field: ix.Field, path: ix.Path, column: col}
	note := fmt.Sprintf("native: SAI index on column %s", col)
	if len(ix.Path) > 1 {
		note = fmt.Sprintf("data-model change: a flattened column %s holding %s (CQL indexes columns, not JSON paths), "+
			"SAI index on it; OFFSET by reading and dropping the first OFFSET rows", col, ix.Field)
		var n int
		err := st.s.Query("SELECT count(*) FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ? AND column_name = ?",
			st.keyspace, table, col).ScanContext(ctx, &n)
		if err != nil {
			return "", wrap("index", col, err)
		}
		if n == 0 {
			if err := st.s.Query(fmt.Sprintf("ALTER TABLE %s ADD %s varchar", st.table(table), col)).ExecContext(ctx); err != nil {
				return "", wrap("add column", col, err)
			}
		}
	}
	if ix.Create {
		ddl := fmt.Sprintf("CREATE CUSTOM INDEX IF NOT EXISTS %s_query1 ON %s (%s) USING 'StorageAttachedIndex'", table, st.table(table), col)
		if err := st.s.Query(ddl).ExecContext(ctx); err != nil {
			return "", wrap("create index on", col, err)
		}
	}
	return note, nil
}

// Query runs SELECT y_id FROM t WHERE <column> = ? LIMIT offset+limit and
// keeps the rows after the first offset.
func (st *Store) Query(ctx context.Context, table string, q *db.Query, dst *db.RecordSet) error {
	if st.qix == nil || st.qix.table != table || st.qix.field != q.Field {
		return fmt.Errorf("cassandra: query %s: no index declared on %s", q.Value, q.Field)
	}
	var r *row
	if q.Documents {
		r = st.newRow(nil)
	} else {
		r = newRow(nil, 1)
	}
	sel := "y_id"
	if q.Documents {
		sel = r.selectList()
	}
	it := st.s.Query(fmt.Sprintf("SELECT %s FROM %s WHERE %s = ? LIMIT ?", sel, st.table(table), st.qix.column), q.Value, q.Offset+q.Limit).
		Consistency(st.read).IterContext(ctx)
	for n := 0; !dst.Over(); n++ { // gocql pages on by itself: left at the row past the limit
		if r.ready(); !it.Scan(r.dest...) {
			break
		}
		if n < q.Offset {
			continue
		}
		row := dst.Next()
		r.addTo(row)
		row.JSON = q.Documents && st.documents
	}
	if err := it.Close(); err != nil {
		return wrap("query", q.Value, err)
	}
	return nil
}
