package cassandra_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/cassandra"
	"github.com/servbench/servbench/db/dbtest"
)

// openErr opens the binding with the properties and returns its error
// (nil: it connected; it is closed again).
func openErr(kv ...string) error {
	b, _ := db.Lookup("cassandra")
	d, err := b.Open(context.Background(), dbtest.Props(kv...), db.Options{Threads: 1, Schema: db.Schema{Fields: []string{"field0"}}})
	if err == nil {
		d.Close()
	}
	return err
}

// The test server takes TLS on its one native port beside plain
// connections, a TLS client showing a certificate its CA signed: a record
// written over TLS reads back, the virtual tables are sampled over the
// same TLS, and the bytes on the wire are counted.
func TestTLS(t *testing.T) {
	addr := dbtest.ServerURL(t, "SERVBENCH_CASSANDRA_TLS_URL")
	certs := dbtest.TLSCerts(t)
	host, port, _ := strings.Cut(addr, ":")
	dropKeyspace(t, host, port, "sbtls")
	client := []string{"cassandra.tls.ca", certs.CA, "cassandra.tls.cert", certs.ClientCert, "cassandra.tls.key", certs.ClientKey}
	d := dbtest.Open(t, "cassandra", append([]string{"cassandra.url", "cassandra://" + addr + "/sbtls", "fieldcount", "1"}, client...)...)
	ctx := context.Background()
	if err := d.(db.Preparer).Prepare(ctx, "usertable", true); err != nil {
		t.Fatal(err)
	}
	dbtest.OverTLS(t, d, "usertable", "k1")
	// YCSB's hosts and port with cassandra.tls=true, the name verified
	// another the certificate carries.
	if err := openErr(append([]string{"hosts", host, "port", port, "cassandra.keyspace", "sbtls", "cassandra.tls", "true",
		"cassandra.tls.servername", "localhost"}, client...)...); err != nil {
		t.Errorf("hosts, port, cassandra.tls=true: %v", err)
	}
}

// Without a client certificate, with one another CA signed, against a CA
// that did not sign the server's certificate or a name it is not for, the
// connection is refused in one line that names the property to set.
func TestTLSRefused(t *testing.T) {
	addr := dbtest.ServerURL(t, "SERVBENCH_CASSANDRA_TLS_URL")
	certs := dbtest.TLSCerts(t)
	for _, c := range dbtest.TLSRefusals("cassandra", certs) {
		err := openErr(append([]string{"cassandra.url", "cassandra://" + addr + "/sbtls"}, c.KV...)...)
		dbtest.TLSRefused(t, c.Name, err, certs, c.Want...)
	}
}

// The TLS properties are read as every binding reads them: a conflict
// among them is refused naming both, and a CA file that is not there is
// named with its property.
func TestTLSConflicts(t *testing.T) {
	b, _ := db.Lookup("cassandra")
	o := db.Options{Threads: 1, CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}}
	for _, c := range []struct {
		kv   []string
		want []string
	}{
		{[]string{"cassandra.tls", "false", "cassandra.tls.ca", "ca.pem"}, []string{"cassandra.tls", "cassandra.tls.ca"}},
		{[]string{"cassandra.tls.cert", "c.pem"}, []string{"cassandra.tls.cert", "cassandra.tls.key"}},
		{[]string{"cassandra.tls.insecure", "true", "cassandra.tls.servername", "db"}, []string{"cassandra.tls.insecure", "cassandra.tls.servername"}},
		{[]string{"cassandra.tls.ca", "/nonexistent/ca.pem"}, []string{"cassandra.tls.ca", "/nonexistent/ca.pem"}},
	} {
		_, err := b.Open(context.Background(), dbtest.Props(c.kv...), o)
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %v, want an error naming %s", c.kv, err, w)
			}
		}
	}
	if _, err := b.Open(context.Background(), dbtest.Props("cassandra.tls", "true"), o); err != nil {
		t.Errorf("cassandra.tls=true: %v", err)
	}
}

// A port that takes the connection and never answers the TLS handshake
// (a server speaking another protocol, waiting for more) fails the
// connection in one line within the connect timeout: gocql's handshake
// waited without end, past Ctrl-C.
func TestTLSSilentServer(t *testing.T) {
	saved := cassandra.SetConnectTimeout(200 * time.Millisecond)
	defer cassandra.SetConnectTimeout(saved)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	done := make(chan error, 1)
	go func() { done <- openErr("hosts", host, "port", port, "cassandra.tls.insecure", "true") }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "TLS: no answer to the handshake within 200ms") || strings.Contains(err.Error(), "\n") {
			t.Errorf("a server silent at the handshake: %v", err)
		}
	case <-time.After(25 * time.Second):
		t.Fatal("a server silent at the handshake: no answer within 25s")
	}
}

// Ctrl-C while connecting to a server that accepts and never answers
// stops the connection at once: gocql's CreateSession takes no context,
// and held it for its 10 s connect timeout.
func TestConnectStoppable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			select {
			case accepted <- struct{}{}:
			default:
			}
		}
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-accepted; cancel() }()
	done := make(chan error, 1)
	go func() {
		b, _ := db.Lookup("cassandra")
		d, err := b.Open(ctx, dbtest.Props("hosts", host, "port", port), db.Options{Threads: 1, Schema: db.Schema{Fields: []string{"field0"}}})
		if err == nil {
			d.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "\n") {
			t.Errorf("stopped while connecting: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("not stopped a minute after Ctrl-C")
	}
}

// A server that accepts and never answers is said with the wait it was
// given, the connect timeout (gocql said "within timeout" after 10 s,
// beside cassandra.readtimeoutmillis).
func TestConnectTimeoutSaid(t *testing.T) {
	saved := cassandra.SetConnectTimeout(200 * time.Millisecond)
	defer cassandra.SetConnectTimeout(saved)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(io.Discard, c); c.Close() }()
		}
	}()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	done := make(chan error, 1)
	go func() { done <- openErr("hosts", host, "port", port, "cassandra.readtimeoutmillis", "50") }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "no answer within 200ms (the connect timeout)") || strings.Contains(err.Error(), "\n") {
			t.Errorf("a silent server: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a silent server: no answer within a minute")
	}
}
