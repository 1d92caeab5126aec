package dynamodb_test

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/internal/testcert"
)

// An https endpoint with the CA that signed its certificate (and a client
// certificate where it asks for one): the operations go through TLS and
// the bytes on the wire are counted; another CA, a certificate for
// another name or no client certificate are refused in one line naming
// the property to set.
func TestTLS(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	certs, err := testcert.Make(t.TempDir(), "servbench")
	if err != nil {
		t.Fatal(err)
	}
	secure := "https://" + dbtest.TLSProxy(t, u.Host, certs, false)
	dropTables(t, endpoint, "sbtls")
	d := dbtest.Open(t, "dynamodb", "dynamodb.endpoint", secure, "dynamodb.tls.ca", certs.CA)
	dbtest.Operations(t, d, "sbtls", false)
	if sent, received := d.(db.TrafficCounter).Traffic(); sent == 0 || received == 0 {
		t.Errorf("traffic over TLS: %d sent, %d received", sent, received)
	}

	mutual := "https://" + dbtest.TLSProxy(t, u.Host, certs, true)
	dbtest.Open(t, "dynamodb", "dynamodb.endpoint", mutual, "dynamodb.tls.ca", certs.CA,
		"dynamodb.tls.cert", certs.ClientCert, "dynamodb.tls.key", certs.ClientKey)

	wrong := certs
	wrong.ServerCert, wrong.ServerKey = certs.WrongName, certs.WrongNameKey
	wrongName := "https://" + dbtest.TLSProxy(t, u.Host, wrong, false)
	b, _ := db.Lookup("dynamodb")
	for _, c := range []struct {
		name string
		kv   []string
		want string
	}{
		{"other CA", []string{"dynamodb.endpoint", secure, "dynamodb.tls.ca", certs.OtherCA}, "TLS: the server's certificate is not signed by the CAs of dynamodb.tls.ca"},
		{"wrong name", []string{"dynamodb.endpoint", wrongName, "dynamodb.tls.ca", certs.CA}, "(dynamodb.tls.servername names the one to verify)"},
		{"no client certificate", []string{"dynamodb.endpoint", mutual, "dynamodb.tls.ca", certs.CA}, "TLS: the server asks for a client certificate: set dynamodb.tls.cert and dynamodb.tls.key"},
	} {
		_, err := b.Open(context.Background(), dbtest.Props(append(c.kv, "dynamodb.retries", "0")...), db.Options{Threads: 1})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
	}
}

// The endpoint and the TLS properties must agree; Amazon's endpoints are
// https only.
func TestTLSConflicts(t *testing.T) {
	b, _ := db.Lookup("dynamodb")
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"dynamodb.endpoint", "http://127.0.0.1:8000", "dynamodb.tls.ca", "ca.pem"}, "dynamodb.endpoint"},
		{[]string{"dynamodb.endpoint", "https://127.0.0.1:8443", "dynamodb.tls", "false"}, "dynamodb.tls"},
		{[]string{"dynamodb.tls", "false"}, "dynamodb.tls: false, but Amazon DynamoDB"},
	} {
		_, err := b.Open(context.Background(), dbtest.Props(c.kv...), db.Options{Threads: 1, CheckOnly: true})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %s", c.kv, err, c.want)
		}
	}
}
