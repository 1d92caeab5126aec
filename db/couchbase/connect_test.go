package couchbase

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/internal/testcert"
)

// silent accepts connections on 127.0.0.1 and never answers; accepted
// receives a value at each connection.
func silent(t *testing.T) (addr string, accepted <-chan struct{}) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
			select {
			case ch <- struct{}{}:
			default:
			}
		}
	}()
	return ln.Addr().String(), ch
}

// openAll opens the binding with ctx and the properties; the failsafe
// minute is no timing.
func openAll(t *testing.T, ctx context.Context, kv ...string) error {
	t.Helper()
	done := make(chan error, 1)
	go func() {
		d, err := binding{}.Open(ctx, dbtest.Props(kv...), db.Options{Threads: 1})
		if err == nil {
			d.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Minute):
		t.Fatalf("Open(%v) still running after a minute", kv)
	}
	return nil
}

// A couchbases:// server that accepts and never answers the TLS handshake
// is said in one line within the connect timeout: gocbcore's handshake
// has no deadline, and closing the cluster waited for it without end
// (590 s seen, past Ctrl-C).
func TestTLSSilentServer(t *testing.T) {
	saved := connectTimeout
	connectTimeout = 200 * time.Millisecond
	defer func() { connectTimeout = saved }()
	addr, _ := silent(t)
	certs, err := testcert.Make(t.TempDir(), "u")
	if err != nil {
		t.Fatal(err)
	}
	err = openAll(t, context.Background(), "couchbase.url", "couchbases://"+addr, "couchbase.tls.ca", certs.CA)
	if err == nil || !strings.Contains(err.Error(), "no answer to the handshake within 200ms") || !strings.Contains(err.Error(), "couchbase.url") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a server silent at the handshake: %v", err)
	}
}

// Ctrl-C while connecting to a server that accepts and never answers
// stops the connection at once (gocb's wait for the cluster took no
// context: 10 s).
func TestConnectStoppable(t *testing.T) {
	addr, accepted := silent(t)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-accepted; cancel() }()
	if err := openAll(t, ctx, "couchbase.url", "couchbase://"+addr); !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "\n") {
		t.Errorf("stopped while connecting: %v", err)
	}
}

// A server that accepts and never answers is said with the wait it was
// given, the connect timeout: it was said as gocb's "unambiguous timeout"
// beside couchbase.kvtimeout (2.5 s), after 10 s.
func TestConnectTimeoutSaid(t *testing.T) {
	saved := connectTimeout
	connectTimeout = 200 * time.Millisecond
	defer func() { connectTimeout = saved }()
	addr, _ := silent(t)
	err := openAll(t, context.Background(), "couchbase.url", "couchbase://"+addr, "couchbase.kvtimeout", "50")
	if err == nil || !strings.Contains(err.Error(), "no answer within 200ms (the connect timeout)") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a silent server: %v", err)
	}
}
