package couchdb_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/servbench/servbench/cli"
	"github.com/servbench/servbench/result"
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
	out := filepath.Join(t.TempDir(), "r.json")
	var stderr strings.Builder
	code := cli.MainContext(context.Background(), []string{"run", "couchdb", "-w", "c", "-p", "couchdb.url=" + url,
		"-threads", "1", "-p", "operationcount=20", "-p", "recordcount=10", "-p", "couchdb.timeout=20000", "-o", out}, io.Discard, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var d result.Doc
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatal(err)
	}
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
