package main

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// The key-value port comes from the first node of the bucket's REST
// answer; an answer naming none, a server error or a non-JSON body is an
// error that names the address asked.
func TestCarrierPort(t *testing.T) {
	for _, c := range []struct {
		status int
		body   string
		want   int
		err    string
	}{
		{200, `{"nodes":[{"hostname":"127.0.0.1:8091","ports":{"direct":38429,"proxy":0}}]}`, 38429, ""},
		{200, `{"nodes":[]}`, 0, "names no node"},
		{404, `Requested resource not found.`, 0, "404"},
		{200, `<html>`, 0, "buckets/default"},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/pools/default/buckets/default" {
				http.NotFound(w, r)
				return
			}
			w.WriteHeader(c.status)
			w.Write([]byte(c.body))
		}))
		host, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
		servers.couchbase = "couchbase://" + host + "?bootstrap_on=http"
		got, err := carrierPort(context.Background(), port)
		srv.Close()
		if got != c.want || (c.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("%d %q: %d, %v; want %d, an error with %q", c.status, c.body, got, err, c.want, c.err)
		}
	}
}

func TestCPUCount(t *testing.T) {
	for list, want := range map[string]int{"0": 1, "0-2": 3, "0-2,5": 4, "1,3": 2, "x": 1, "3-1": 1} {
		if got := cpuCount(list); got != want {
			t.Errorf("%q: %d CPUs, want %d", list, got, want)
		}
	}
}

// A load case is a server's name and -load; anything else is not one.
func TestLoadCase(t *testing.T) {
	c, ok := loadCase("postgres-load", 16, 1000)
	if !ok || !c.Load || c.DB != "postgres" || c.Threads != 16 || c.Properties[0] != "recordcount=1000" || c.One[0] != "recordcount=1" {
		t.Errorf("postgres-load: %+v, %v", c, ok)
	}
	for _, bad := range []string{"postgres", "couchdb-load", "-load", "redis-loads"} {
		if _, ok := loadCase(bad, 16, 1000); ok {
			t.Errorf("%q taken for a load case", bad)
		}
	}
}
