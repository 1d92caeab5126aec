package redis_test

import (
	"context"
	"net"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/props"
)

// openErr opens the binding with the properties and returns its error
// (nil: it connected; it is closed again).
func openErr(kv ...string) error {
	b, _ := db.Lookup("redis")
	d, err := b.Open(context.Background(), dbtest.Props(append([]string{"redis.timeout", "5000"}, kv...)...), db.Options{Threads: 1})
	if err == nil {
		d.Close()
	}
	return err
}

// The TLS server (scripts/servers' redis-tls asks every client for a
// certificate its CA signed) takes the client certificate: a record
// written over TLS reads back, and the bytes on the wire are counted.
func TestTLS(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_TLS_URL")
	certs := dbtest.TLSCerts(t)
	d := dbtest.Open(t, "redis", "redis.url", url, "redis.tls.ca", certs.CA, "redis.tls.cert", certs.ClientCert, "redis.tls.key", certs.ClientKey)
	dbtest.OverTLS(t, d, "usertable", "sbtls1")
	// The name verified may be another that the certificate carries, and
	// redis.host with redis.tls=true is the URL's rediss://.
	host := strings.TrimPrefix(url, "rediss://")
	if err := openErr("redis.host", host, "redis.tls", "true", "redis.tls.ca", certs.CA, "redis.tls.cert", certs.ClientCert,
		"redis.tls.key", certs.ClientKey, "redis.tls.servername", "localhost"); err != nil {
		t.Errorf("redis.host, redis.tls=true, servername localhost: %v", err)
	}
}

// Without a client certificate, with one another CA signed, against a CA
// that did not sign the server's certificate or a name it is not for, the
// connection is refused in one line that names the property to set.
func TestTLSRefused(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_TLS_URL")
	certs := dbtest.TLSCerts(t)
	client := []string{"redis.tls.cert", certs.ClientCert, "redis.tls.key", certs.ClientKey}
	for _, c := range append(dbtest.TLSRefusals("redis", certs),
		dbtest.TLSRefusal{Name: "the system's CAs", KV: client, Want: []string{"not signed by the system's CAs", "redis.tls.ca"}}) {
		dbtest.TLSRefused(t, c.Name, openErr(append([]string{"redis.url", url}, c.KV...)...), certs, c.Want...)
	}
	// A plain server asked for TLS.
	plain := strings.Replace(dbtest.ServerURL(t, "SERVBENCH_REDIS_URL"), "redis://", "rediss://", 1)
	dbtest.TLSRefused(t, "plain server", openErr("redis.url", plain, "redis.tls.ca", certs.CA, "redis.timeout", "1000"), certs,
		"TLS: no answer to the handshake within 1s (redis.timeout)", "use redis://")
	// A plain client at the TLS server.
	dbtest.TLSRefused(t, "plain client", openErr("redis.url", strings.Replace(url, "rediss://", "redis://", 1)), certs,
		"the server closed the connection at once", "use rediss://")
}

// The result's properties hold no key file's path: redis.tls.key is a
// secret by its name.
func TestTLSKeyNotWritten(t *testing.T) {
	if v := props.RedactValue("redis.tls.key", "/x/client.key"); v != props.Redacted {
		t.Errorf("redis.tls.key written as %q", v)
	}
}

// The URL and the TLS properties must agree: a conflict is refused before
// any connection, naming both.
func TestTLSConflicts(t *testing.T) {
	b, _ := db.Lookup("redis")
	for _, c := range []struct {
		kv   []string
		want []string
	}{
		{[]string{"redis.url", "redis://127.0.0.1:6379", "redis.tls", "true"}, []string{"redis.url", "redis.tls", "rediss://"}},
		{[]string{"redis.url", "redis://127.0.0.1:6379", "redis.tls.ca", "ca.pem"}, []string{"redis.url", "redis.tls.ca", "rediss://"}},
		{[]string{"redis.url", "redis://127.0.0.1:6379", "redis.tls.insecure", "true"}, []string{"redis.url", "redis.tls.insecure"}},
		{[]string{"redis.url", "rediss://127.0.0.1:6379", "redis.tls", "false"}, []string{"redis.tls", "redis.url"}},
		{[]string{"redis.url", "rediss://127.0.0.1:6379", "redis.tls.cert", "client.pem"}, []string{"redis.tls.cert", "redis.tls.key"}},
		{[]string{"redis.url", "rediss://127.0.0.1:6379", "redis.tls.insecure", "true", "redis.tls.ca", "ca.pem"}, []string{"redis.tls.insecure", "redis.tls.ca"}},
	} {
		_, err := b.Open(context.Background(), dbtest.Props(c.kv...), db.Options{Threads: 1, CheckOnly: true})
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %v, want an error naming %s", c.kv, err, w)
			}
		}
	}
	// What worked before still does: rediss:// alone, with redis.tls=true
	// or redis.tls.insecure; redis.host with redis.tls=true.
	for _, kv := range [][]string{
		{"redis.url", "rediss://127.0.0.1:6379"},
		{"redis.url", "rediss://127.0.0.1:6379", "redis.tls", "true"},
		{"redis.url", "rediss://127.0.0.1:6379", "redis.tls.insecure", "true"},
		{"redis.host", "127.0.0.1", "redis.tls", "true"},
		{"redis.url", "redis://127.0.0.1:6379", "redis.tls", "false"},
	} {
		if _, err := b.Open(context.Background(), dbtest.Props(kv...), db.Options{Threads: 1, CheckOnly: true}); err != nil {
			t.Errorf("%v: %v", kv, err)
		}
	}
	// A CA file that is not there is named with its property.
	_, err := b.Open(context.Background(), dbtest.Props("redis.url", "rediss://127.0.0.1:1", "redis.tls.ca", "/nonexistent/ca.pem"), db.Options{Threads: 1, CheckOnly: true})
	if err == nil || !strings.Contains(err.Error(), "redis.tls.ca") || !strings.Contains(err.Error(), "/nonexistent/ca.pem") {
		t.Errorf("missing CA file: %v", err)
	}
}

// The server side is sampled over the binding's own TLS connections:
// INFO counts the run's commands.
func TestServerSideTLS(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_TLS_URL")
	certs := dbtest.TLSCerts(t)
	doc, src := dbtest.ServerSide(t, "redis", "a", 500, 1000, "redis.url", url, "redis.tls.ca", certs.CA,
		"redis.tls.cert", certs.ClientCert, "redis.tls.key", certs.ClientKey)
	if got := dbtest.Total(t, src, "commands"); got < float64(doc.Operations) {
		t.Errorf("commands processed grew by %v over a run of %d operations", got, doc.Operations)
	}
	if k := doc.Properties["redis.tls.key"]; k != props.Redacted {
		t.Errorf("the result holds redis.tls.key as %q", k)
	}
	if src.Error != "" || len(src.Missing) != 0 {
		t.Errorf("server side over TLS: error %q, missing %v", src.Error, src.Missing)
	}
}

// A server that closes the connection at once, where TLS said nothing of
// why, is one that speaks TLS where the client did not, or the other way
// round: said in one line naming the URL's form to use (a bare EOF or a
// reset connection before).
func TestClosedAtOnce(t *testing.T) {
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
			c.Close()
		}
	}()
	addr := ln.Addr().String()
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"redis.url", "redis://" + addr}, "the server closed the connection at once: one that takes TLS connections only? (use rediss://"},
		{[]string{"redis.url", "rediss://" + addr, "redis.tls.insecure", "true"}, "TLS: the server closed the connection at the handshake: a server that does not speak TLS at this address? (use redis://"},
	} {
		if err := openErr(c.kv...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.kv, err, c.want)
		}
	}
}

// A server that accepts and never answers is said with the wait it was
// given (it said "context deadline exceeded").
func TestSilentServerSaid(t *testing.T) {
	addr := dbtest.SilentServer(t)
	err := dbtest.OpenErr(t, context.Background(), "redis", "redis.url", "redis://"+addr, "redis.timeout", "200")
	if err == nil || !strings.Contains(err.Error(), "no answer within 200ms (redis.timeout)") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a silent server: %v", err)
	}
}
