package couchbase_test

import (
	"context"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

// The counts couchbase.url names, which gocbcore gives memory to, are
// bounded as the properties' pool sizes are (kv_pool_size=100000000 took
// 1.8 GB).
func TestURLSizeBounded(t *testing.T) {
	dbtest.URLSizeBounded(t, "couchbase", "couchbase.url", "couchbase://127.0.0.1:1?%s", []string{"kv_pool_size", "max_queue_size", "max_idle_http_connections", "max_perhost_idle_http_connections", "max_perhost_http_connections", "orphaned_response_logging_sample_size"})
}

// The byte sizes it names are bounded too (kv_buffer_size=100000000000
// ended the process at its first connection: gocbcore allocated it).
func TestURLBufferBounded(t *testing.T) {
	for _, o := range []string{"kv_buffer_size=100000000000", "compression_min_size=100000000000", "kv_buffer_size=-1"} {
		b, _ := db.Lookup("couchbase")
		_, err := b.Open(context.Background(), dbtest.Props("couchbase.url", "couchbase://127.0.0.1:1?"+o), db.Options{Threads: 1, CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}})
		if err == nil || !strings.Contains(err.Error(), "couchbase.url") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", o, err)
		}
	}
}
