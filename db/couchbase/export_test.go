package couchbase

import (
	"context"

	"github.com/servbench/servbench/db"
)

// GetAll is a scan's reading of the ids it found (getAll), for the tests
// against CouchbaseMock, which has no query engine to find them.
func GetAll(ctx context.Context, d db.DB, table string, ids, fields []string, dst *db.RecordSet) error {
	return d.(*Store).getAll(ctx, table, ids, fields, dst)
}
