package couchdb_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/servbench/servbench/db/couchdb"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
)

// endlessServer stands in for CouchDB on 127.0.0.1: its first two reads
// of a document answer one that never ends; the others find nothing.
func endlessServer(t *testing.T) (string, *atomic.Int64) {
	var reads atomic.Int64
	chunk := []byte(strings.Repeat("x", 64<<10))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.URL.Path == "/":
			io.WriteString(w, `{"couchdb":"Welcome","version":"3.3.3"}`)
		case r.Method == http.MethodGet && strings.Count(r.URL.Path, "/") == 2 && !strings.Contains(r.URL.Path, "/_"):
			if reads.Add(1) > 2 {
				w.WriteHeader(http.StatusNotFound)
				io.WriteString(w, `{"error":"not_found","reason":"missing"}`)
				return
			}
			io.WriteString(w, `{"_id":"k","_rev":"1-a","field0":"`)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case r.Method == http.MethodPut:
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"ok":true}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			io.WriteString(w, `{"error":"not_found","reason":"missing"}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &reads
}

// An answer that never ends fails its operation as a server error at the
// bound (kivik read it whole: 3.2 GB until the timeout, or the process's
// end); the run goes on and writes its results.
func TestEndlessAnswerFailsItsOperation(t *testing.T) {
	url, reads := endlessServer(t)
	res, err := engine.Run(context.Background(), engine.Spec{Binding: couchdb.Name, Workload: "c", Records: 10,
		Operations: engine.Give(int64(20)), Threads: 1, Properties: props.Of("couchdb.url", url, "couchdb.timeout", "20000")})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Doc()
	if reads.Load() < 3 {
		t.Fatalf("the server answered %d reads", reads.Load())
	}
	var read bool
	for _, op := range d.Ops {
		if op.Name == "READ" {
			read = true
			if op.Count != 20 || op.Outcomes["ERROR"] != 2 || op.Outcomes["NOT_FOUND"] != 18 {
				t.Errorf("READ: %d operations, outcomes %v: want 2 ERROR (the endless answers) and 18 NOT_FOUND", op.Count, op.Outcomes)
			}
		}
	}
	if !read {
		t.Errorf("no READ in the result: %+v", d.Ops)
	}
}
