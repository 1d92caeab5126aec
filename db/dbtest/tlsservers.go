package dbtest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/internal/testcert"
)

// TLSCerts is the certificates scripts/servers started its TLS servers
// with (tools/testcert's files in SERVBENCH_TLS_DIR). Without the
// variable the test is skipped, as ServerURL does.
func TLSCerts(t testing.TB) testcert.Set {
	t.Helper()
	dir := ServerURL(t, "SERVBENCH_TLS_DIR")
	f := func(name string) string { return filepath.Join(dir, name) }
	s := testcert.Set{Dir: dir, CA: f("ca.pem"), ServerCert: f("server.pem"), ServerKey: f("server.key"),
		ClientCert: f("client.pem"), ClientKey: f("client.key"), OtherCA: f("other-ca.pem"),
		OtherCert: f("other-client.pem"), OtherKey: f("other-client.key"), WrongName: f("wrong-name.pem"), WrongNameKey: f("wrong-name.key")}
	if _, err := os.Stat(s.CA); err != nil {
		t.Fatalf("SERVBENCH_TLS_DIR: %v (scripts/servers start makes the certificates)", err)
	}
	return s
}

// TLSRefused checks that a refused connection's error is one line that
// holds each of want (the properties to set), and names no key file nor
// quotes a key: what a user sees when the TLS of a connection fails.
func TLSRefused(t testing.TB, what string, err error, certs testcert.Set, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: connected, want a refusal", what)
		return
	}
	msg := err.Error()
	t.Logf("%s: %s", what, msg)
	if strings.Contains(msg, "\n") {
		t.Errorf("%s: %d lines, want one: %s", what, strings.Count(msg, "\n")+1, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: %s\nwant it to say %q", what, msg, w)
		}
	}
	for _, key := range []string{certs.ClientKey, certs.OtherKey, certs.ServerKey} {
		if strings.Contains(msg, key) || strings.Contains(msg, filepath.Base(key)) {
			t.Errorf("%s: the error names a key file: %s", what, msg)
		}
		if b, err := os.ReadFile(key); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if len(line) > 20 && !strings.HasPrefix(line, "-----") && strings.Contains(msg, line) {
					t.Errorf("%s: the error quotes a key: %s", what, msg)
				}
			}
		}
	}
}

// TLSRefusal is one way a binding's TLS connection is refused, and what
// its one line must say.
type TLSRefusal struct {
	Name string
	KV   []string // the binding's properties, besides its server's address
	Want []string // what the line must hold
}

// TLSRefusals are the refusals every binding whose server asks for a
// client certificate is tested with (b is the binding's name, its
// properties' prefix): no client certificate, one another CA signed, a
// server certificate the CA given did not sign, and a name the server's
// certificate is not for.
func TLSRefusals(b string, certs testcert.Set) []TLSRefusal {
	client := []string{b + ".tls.cert", certs.ClientCert, b + ".tls.key", certs.ClientKey}
	return []TLSRefusal{
		{"no client certificate", []string{b + ".tls.ca", certs.CA},
			[]string{"TLS: the server asks for a client certificate: set " + b + ".tls.cert and " + b + ".tls.key"}},
		{"another CA's client certificate", []string{b + ".tls.ca", certs.CA, b + ".tls.cert", certs.OtherCert, b + ".tls.key", certs.OtherKey},
			[]string{"TLS: the server refused the client certificate of " + b + ".tls.cert"}},
		{"other CA", append([]string{b + ".tls.ca", certs.OtherCA}, client...),
			[]string{"TLS: the server's certificate is not signed by the CAs of " + b + ".tls.ca"}},
		{"wrong name", append([]string{b + ".tls.ca", certs.CA, b + ".tls.servername", "elsewhere.invalid"}, client...),
			[]string{"TLS: the server's certificate is", "elsewhere.invalid", b + ".tls.servername"}},
	}
}

// OverTLS writes a record of one field into table under key over d's TLS
// connection and reads it back, samples the server over the same
// connection (when d is a sampler), and checks that the bytes on the wire
// were counted.
func OverTLS(t testing.TB, d db.DB, table, key string) {
	t.Helper()
	ctx := context.Background()
	in := &db.Record{}
	in.Add("field0", []byte("over TLS"))
	if err := d.Insert(ctx, table, key, in); err != nil {
		t.Fatalf("insert over TLS: %v", err)
	}
	out := &db.Record{}
	if err := d.Read(ctx, table, key, nil, out); err != nil {
		t.Fatalf("read over TLS: %v", err)
	}
	if f := out.Fields(); len(f) != 1 || !bytes.Equal(f[0].Value, []byte("over TLS")) {
		t.Errorf("read back %v", f)
	}
	if sm, ok := d.(db.Sampler); ok {
		if s, err := sm.Sample(ctx); err != nil || len(s.Stats) == 0 {
			t.Errorf("sample over TLS: %+v, %v", s, err)
		}
	}
	if sent, received := d.(db.TrafficCounter).Traffic(); sent == 0 || received == 0 {
		t.Errorf("traffic over TLS: %d sent, %d received", sent, received)
	}
}
