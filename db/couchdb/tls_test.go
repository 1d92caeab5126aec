package couchdb_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/internal/testcert"
)

// tlsURL puts a TLS-terminating proxy in front of the test server and
// returns its https URL and the certificates.
func tlsURL(t *testing.T, requireClientCert, wrongName bool) (string, testcert.Set) {
	t.Helper()
	plain := dbtest.ServerURL(t, "SERVBENCH_COUCHDB_URL")
	u, err := url.Parse(plain)
	if err != nil {
		t.Fatal(err)
	}
	certs, err := testcert.Make(t.TempDir(), "servbench")
	if err != nil {
		t.Fatal(err)
	}
	presented := certs
	if wrongName {
		presented.ServerCert, presented.ServerKey = certs.WrongName, certs.WrongNameKey
	}
	return "https://" + dbtest.TLSProxy(t, u.Host, presented, requireClientCert) + "/", certs
}

// openErr opens the binding and returns its error (nil: opened and closed).
func openErr(kv ...string) error {
	b, _ := db.Lookup("couchdb")
	d, err := b.Open(context.Background(), dbtest.Props(append(kv, "couchdb.timeout", "5000")...), db.Options{Threads: 1})
	if err == nil {
		d.Close()
	}
	return err
}

// Over https with the CA that signed the server's certificate, every
// operation and the sampler go through TLS, and the bytes on the wire are
// counted.
func TestTLS(t *testing.T) {
	u, certs := tlsURL(t, false, false)
	destroy(t, dbtest.ServerURL(t, "SERVBENCH_COUCHDB_URL"), "sbtls")
	d := dbtest.Open(t, "couchdb", "couchdb.url", u, "couchdb.tls.ca", certs.CA)
	dbtest.Operations(t, d, "sbtls", true)
	s, err := d.(db.Sampler).Sample(context.Background())
	if err != nil || (len(s.Stats) == 0 && len(s.Missing) == 0) {
		t.Errorf("sample over TLS: %+v, %v", s, err)
	}
	if sent, received := d.(db.TrafficCounter).Traffic(); sent == 0 || received == 0 {
		t.Errorf("traffic over TLS: %d sent, %d received", sent, received)
	}
	// The name verified can be another the certificate carries.
	if err := openErr("couchdb.url", u, "couchdb.tls.ca", certs.CA, "couchdb.tls.servername", "localhost"); err != nil {
		t.Errorf("servername localhost: %v", err)
	}
}

// A server that asks for a client certificate takes the one its CA
// signed; without one, or with another CA's, the connection is refused
// in one line that names the properties to set.
func TestTLSClientCertificate(t *testing.T) {
	u, certs := tlsURL(t, true, false)
	d := dbtest.Open(t, "couchdb", "couchdb.url", u, "couchdb.tls.ca", certs.CA, "couchdb.tls.cert", certs.ClientCert, "couchdb.tls.key", certs.ClientKey)
	if _, err := d.(db.Sampler).Sample(context.Background()); err != nil {
		t.Errorf("sample with a client certificate: %v", err)
	}
	for _, c := range []struct {
		name string
		kv   []string
		want string
	}{
		{"no client certificate", nil, "TLS: the server asks for a client certificate: set couchdb.tls.cert and couchdb.tls.key"},
		{"another CA's certificate", []string{"couchdb.tls.cert", certs.OtherCert, "couchdb.tls.key", certs.OtherKey}, "TLS: the server refused the client certificate of couchdb.tls.cert"},
	} {
		err := openErr(append([]string{"couchdb.url", u, "couchdb.tls.ca", certs.CA}, c.kv...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), certs.OtherKey) {
			t.Errorf("%s: the error names the key file: %v", c.name, err)
		}
	}
}

// A server whose certificate another CA signed, or that is for another
// name, is refused in one line that says which property to set.
func TestTLSRefused(t *testing.T) {
	u, certs := tlsURL(t, false, false)
	wrong, _ := tlsURL(t, false, true)
	for _, c := range []struct {
		name string
		kv   []string
		want string
	}{
		{"other CA", []string{"couchdb.url", u, "couchdb.tls.ca", certs.OtherCA}, "TLS: the server's certificate is not signed by the CAs of couchdb.tls.ca (couchdb.tls.ca names the file of the CA that signed it)"},
		{"wrong name", []string{"couchdb.url", wrong, "couchdb.tls.ca", certs.CA}, "(couchdb.tls.servername names the one to verify)"},
		{"wrong servername", []string{"couchdb.url", u, "couchdb.tls.ca", certs.CA, "couchdb.tls.servername", "elsewhere.invalid"}, "(couchdb.tls.servername names the one to verify)"},
		{"plain server", []string{"couchdb.url", strings.Replace(dbtest.ServerURL(t, "SERVBENCH_COUCHDB_URL"), "http:", "https:", 1)}, "TLS: the server does not speak TLS at this address (set couchdb.tls=false, or the address of its TLS port)"},
	} {
		err := openErr(c.kv...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
	}
}

// The URL and the TLS properties must agree: a conflict is refused before
// any connection, naming the properties.
func TestTLSConflicts(t *testing.T) {
	b, _ := db.Lookup("couchdb")
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"couchdb.url", "http://127.0.0.1:5984/", "couchdb.tls.ca", "ca.pem"}, "couchdb.url"},
		{[]string{"couchdb.url", "http://127.0.0.1:5984/", "couchdb.tls", "true"}, "couchdb.url"},
		{[]string{"couchdb.url", "https://127.0.0.1:6984/", "couchdb.tls", "false"}, "couchdb.tls"},
		{[]string{"couchdb.url", "https://127.0.0.1:6984/", "couchdb.tls.cert", "client.pem"}, "couchdb.tls.cert"},
		// A password whose / is not percent-encoded: the host would be
		// what follows its @ (looked up, printed).
		{[]string{"couchdb.url", "https://admin:x@pw/secret1@127.0.0.1:6984/"}, "couchdb.url: an @ after the host"},
	} {
		_, err := b.Open(context.Background(), dbtest.Props(c.kv...), db.Options{Threads: 1, CheckOnly: true})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "pw/secret1") {
			t.Errorf("%v: %v, want an error naming %s", c.kv, err, c.want)
		}
	}
	// A missing CA file is named with its property where the phase runs.
	_, err := b.Open(context.Background(), dbtest.Props("couchdb.url", "https://127.0.0.1:1/", "couchdb.tls.ca", "/nonexistent/ca.pem"), db.Options{Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "couchdb.tls.ca") || !strings.Contains(err.Error(), "/nonexistent/ca.pem") {
		t.Errorf("missing CA file: %v", err)
	}
}

// A server that accepts and never answers is said with the wait it was
// given (it said "context deadline exceeded (Client.Timeout exceeded
// while awaiting headers)").
func TestSilentServerSaid(t *testing.T) {
	addr := dbtest.SilentServer(t)
	err := dbtest.OpenErr(t, context.Background(), "couchdb", "couchdb.url", "http://"+addr, "couchdb.timeout", "200")
	if err == nil || !strings.Contains(err.Error(), "no answer within 200ms (couchdb.timeout)") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a silent server: %v", err)
	}
}
