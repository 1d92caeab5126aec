package couchbase_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// The counts couchbase.url names, which gocbcore gives memory to, are
// bounded as the properties' pool sizes are (kv_pool_size=100000000 took
// 1.8 GB).
func TestURLSizeBounded(t *testing.T) {
	dbtest.URLSizeBounded(t, "couchbase", "couchbase.url", "couchbase://127.0.0.1:1?%s", []string{"kv_pool_size", "max_queue_size", "max_idle_http_connections", "max_perhost_idle_http_connections", "max_perhost_http_connections", "orphaned_response_logging_sample_size"})
}
