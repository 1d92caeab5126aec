package db

import (
	"context"
	"strings"
)

// Query asks for the records whose Field equals Value, skipping the first
// Offset matches and returning at most Limit: the Pagination workload's
// "filter field = value OFFSET o LIMIT l" on a secondary index.
type Query struct {
	// Field is a dotted path into the document ("address.country"); Path
	// is the same split at the dots.
	Field string
	Path  []string
	Value string
	// Offset and Limit page through the matches in the order the
	// database's index gives them.
	Offset, Limit int
	// Documents asks for whole documents in the results; otherwise each
	// result row carries only its key (the studies fetched ids only).
	Documents bool
}

// NewQuery returns a query on field (a dotted path) with its Path split.
func NewQuery(field string) *Query {
	return &Query{Field: field, Path: strings.Split(field, ".")}
}

// Querier is implemented by bindings that answer queries. Query fills dst
// with the matching rows, each with its Key set (and its fields when
// q.Documents is set). No match is not an error: dst stays empty.
type Querier interface {
	Query(ctx context.Context, table string, q *Query, dst *RecordSet) error
}

// Index describes the secondary index a workload's queries need.
type Index struct {
	Field string   // dotted path, as in Query
	Path  []string // Field split at the dots
	// Create asks the binding to create the database's index now (the load
	// phase with createindexes=true). Without it the binding only learns
	// which field is queried (to maintain an emulated index on writes, or
	// to flatten it into a top-level attribute).
	Create bool
}

// Indexer is implemented by bindings that need to know the queried field
// before the first write, or that can create the database's index. The
// runner calls Index once per phase, before any thread starts, whenever the
// workload has a query field.
//
// The returned note says how the binding answers the query when it is not
// the database's own secondary index on the document field ("a sorted set
// per value, maintained on writes"): a data-model change or an emulation
// is recorded with the results, so unlike things are not compared silently.
type Indexer interface {
	Index(ctx context.Context, table string, ix Index) (note string, err error)
}
