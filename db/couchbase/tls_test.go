package couchbase

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/couchbase/gocb/v2"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/internal/testcert"
)

// rest stands in front of CouchbaseMock's REST port (8091) and records
// the path and basic authentication of each request.
type rest struct {
	addr string // host:port
	mu   sync.Mutex
	seen []string // "path user:password"
}

func newREST(t *testing.T) *rest {
	t.Helper()
	u, err := url.Parse(dbtest.ServerURL(t, "SERVBENCH_COUCHBASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	r := &rest{}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: "http", Host: net.JoinHostPort(u.Hostname(), "8091")})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		user, password, _ := req.BasicAuth()
		r.mu.Lock()
		r.seen = append(r.seen, req.URL.Path+" "+user+":"+password)
		r.mu.Unlock()
		proxy.ServeHTTP(w, req)
	}))
	t.Cleanup(srv.Close)
	r.addr = srv.Listener.Addr().String()
	return r
}

func (r *rest) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.seen...)
}

// managerOf is the cluster manager's client the binding's properties
// make (as Open does, without the key-value connection, which
// CouchbaseMock cannot serve over TLS).
func managerOf(t *testing.T, kv ...string) (*manager, error) {
	t.Helper()
	p := dbtest.Props(kv...)
	c, err := readConnection(p)
	if err != nil {
		return nil, err
	}
	tc, err := c.tls.Config(context.Background(), p)
	if err != nil {
		return nil, err
	}
	c.mgmt.secure(tc)
	return c.mgmt, nil
}

func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// Over couchbases:// the bucket's statistics and the version are asked
// over https on the management port, with the connection's CA and the
// bucket's password; another CA, a certificate for another name and a
// server that asks for a client certificate are refused in one line.
func TestSampleOverTLS(t *testing.T) {
	r := newREST(t)
	certs, err := testcert.Make(t.TempDir(), "servbench")
	if err != nil {
		t.Fatal(err)
	}
	secure := dbtest.TLSProxy(t, r.addr, certs, false)
	m, err := managerOf(t, "couchbase.url", "couchbases://127.0.0.1", "couchbase.tls.ca", certs.CA,
		"couchbase.managementport", port(secure), "couchbase.password", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	if m.base.Scheme != "https" {
		t.Errorf("management API over %s", m.base.Scheme)
	}
	s, err := m.sample(context.Background())
	if err != nil || len(s.Missing) != 1 || !strings.HasPrefix(s.Missing[0], "bucket statistics") {
		t.Errorf("sample over TLS: %+v, %v: want CouchbaseMock's answer (it has no statistics)", s, err)
	}
	if v, err := m.version(context.Background()); err != nil || !strings.HasPrefix(v, "CouchbaseMock") {
		t.Errorf("version over TLS: %q, %v", v, err)
	}
	if got := r.requests(); len(got) != 2 || got[0] != "/pools/default/buckets/default/stats default:s3cret" || got[1] != "/pools :" {
		t.Errorf("requests %q: want the statistics with the bucket's credentials, then /pools without", got)
	}

	// A client certificate authenticates instead of the password.
	mutual := dbtest.TLSProxy(t, r.addr, certs, true)
	m, err = managerOf(t, "couchbase.url", "couchbases://127.0.0.1", "couchbase.tls.ca", certs.CA,
		"couchbase.managementport", port(mutual), "couchbase.tls.cert", certs.ClientCert, "couchbase.tls.key", certs.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.sample(context.Background()); err != nil {
		t.Errorf("sample with a client certificate: %v", err)
	}
	if got := r.requests(); len(got) != 3 || got[2] != "/pools/default/buckets/default/stats :" {
		t.Errorf("requests %q: want the statistics without a password", got)
	}

	wrong := certs
	wrong.ServerCert, wrong.ServerKey = certs.WrongName, certs.WrongNameKey
	wrongName := dbtest.TLSProxy(t, r.addr, wrong, false)
	for _, c := range []struct {
		name string
		kv   []string
		want string
	}{
		{"other CA", []string{"couchbase.tls.ca", certs.OtherCA, "couchbase.managementport", port(secure)}, "TLS: the server's certificate is not signed by the CAs of couchbase.tls.ca"},
		{"wrong name", []string{"couchbase.tls.ca", certs.CA, "couchbase.managementport", port(wrongName)}, "(couchbase.tls.servername names the one to verify)"},
		{"no client certificate", []string{"couchbase.tls.ca", certs.CA, "couchbase.managementport", port(mutual)}, "TLS: the server asks for a client certificate: set couchbase.tls.cert and couchbase.tls.key"},
	} {
		m, err := managerOf(t, append([]string{"couchbase.url", "couchbases://127.0.0.1", "couchbase.password", "s3cret"}, c.kv...)...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.sample(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
	}
	if got := r.requests(); len(got) != 3 {
		t.Errorf("requests %q: a refused handshake let a request through", got)
	}
}

// Over couchbase:// with a password the statistics are not asked (the
// password would cross in clear): one line says why and how; without a
// password (YCSB's bucket name and empty password, CouchbaseMock's) they
// are asked over http.
func TestSamplePlain(t *testing.T) {
	r := newREST(t)
	m, err := managerOf(t, "couchbase.url", "couchbase://127.0.0.1", "couchbase.managementport", port(r.addr), "couchbase.password", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.sample(context.Background())
	if err == nil || !strings.Contains(err.Error(), "couchbase.password would cross the network in clear; connect with couchbases://") || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("plain with a password: %v", err)
	}
	if got := r.requests(); len(got) != 0 {
		t.Errorf("requests %q: the password went over plain http", got)
	}
	m, err = managerOf(t, "couchbase.url", "couchbase://127.0.0.1", "couchbase.managementport", port(r.addr))
	if err != nil {
		t.Fatal(err)
	}
	if s, err := m.sample(context.Background()); err != nil || len(s.Missing) != 1 {
		t.Errorf("plain without a password: %+v, %v", s, err)
	}
	if m.base.Scheme != "http" || port(m.base.Host) != port(r.addr) {
		t.Errorf("management API at %s", m.base.String())
	}
}

// A service that keeps its management port from its users (Capella): a
// port that refuses the connection, or an API that refuses the
// credentials, is said in one line naming why.
func TestSampleHidden(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	denied := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Forbidden", http.StatusForbidden)
	}))
	defer denied.Close()
	for _, c := range []struct {
		addr, want string
	}{
		{closed, "the cluster manager's port does not answer"},
		{dbtest.SilentServer(t), "the cluster manager's port does not answer"},
		{denied.Listener.Addr().String(), "403 Forbidden: the cluster manager does not let couchbase.username and couchbase.password read them"},
	} {
		m, err := managerOf(t, "couchbase.url", "couchbase://127.0.0.1", "couchbase.managementport", port(c.addr))
		if err != nil {
			t.Fatal(err)
		}
		// Bounded as the sampler bounds each sample.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		_, err = m.sample(ctx)
		cancel()
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Capella") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.addr, err, c.want)
		}
	}
}

// The URL and the TLS properties must agree, and what gocb cannot do is
// refused, each in one line naming the property; the TLS properties map
// to gocb's security configuration.
func TestTLSProperties(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"couchbase.url", "couchbase://127.0.0.1", "couchbase.tls.ca", "ca.pem"}, "couchbase.url"},
		{[]string{"couchbase.url", "couchbases://127.0.0.1", "couchbase.tls", "false"}, "couchbase.tls"},
		{[]string{"couchbase.url", "couchbases://127.0.0.1", "couchbase.tls.servername", "db.example"}, "couchbase.tls.servername"},
		{[]string{"couchbase.url", "couchbases://127.0.0.1", "couchbase.tls.cert", "c.pem", "couchbase.tls.key", "c.key", "couchbase.password", "x"}, "couchbase.tls.cert"},
		{[]string{"couchbase.managementport", "70000"}, "couchbase.managementport"},
		// gocb takes no credentials from the URL: they are not dropped
		// silently, nor printed.
		{[]string{"couchbase.url", "couchbases://admin:pw-secret1@127.0.0.1"}, "couchbase.url: gocb takes no credentials from the URL"},
	} {
		if _, err := readConnection(dbtest.Props(c.kv...)); err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "pw-secret1") {
			t.Errorf("%v: %v, want an error naming %s", c.kv, err, c.want)
		}
	}
	// The cluster manager is asked on the first host of a list.
	for url, want := range map[string]string{
		"couchbases://db1.example,db2.example":          "https://db1.example:18091",
		"couchbase://10.0.0.1:11210,10.0.0.2:11210?a=b": "http://10.0.0.1:8091",
		"couchbases://[::1]:11207":                      "https://[::1]:18091",
	} {
		if c, err := readConnection(dbtest.Props("couchbase.url", url)); err != nil || c.mgmt.base.String() != want || strings.Contains(c.host, ",") {
			t.Errorf("%s: management %v (host %q), %v; want %s", url, c.mgmt, c.host, err, want)
		}
	}
	// couchbase.host with a TLS property connects with couchbases://, the
	// management API on 18091.
	c, err := readConnection(dbtest.Props("couchbase.host", "db.example", "couchbase.tls", "true"))
	if err != nil || c.url != "couchbases://db.example" || c.mgmt.base.String() != "https://db.example:18091" {
		t.Errorf("host with TLS: %q, management %v, %v", c.url, c.mgmt, err)
	}

	certs, err := testcert.Make(t.TempDir(), "servbench")
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][]string{
		{"couchbase.url", "couchbases://127.0.0.1", "couchbase.tls.ca", certs.CA, "couchbase.password", "x"},
		{"couchbase.url", "couchbases://127.0.0.1", "couchbase.tls.ca", certs.CA, "couchbase.tls.cert", certs.ClientCert, "couchbase.tls.key", certs.ClientKey},
		{"couchbase.url", "couchbase://127.0.0.1", "couchbase.password", "x"},
	} {
		p := dbtest.Props(kv...)
		c, err := readConnection(p)
		if err != nil {
			t.Fatal(err)
		}
		tc, err := c.tls.Config(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		o := clusterOptions(c.tls, tc, c.user, c.password)
		_, isCert := o.Authenticator.(gocb.CertificateAuthenticator)
		switch {
		case tc == nil && (o.SecurityConfig.TLSRootCAs != nil || isCert):
			t.Errorf("%v: plain, but %+v", kv, o.SecurityConfig)
		case tc != nil && o.SecurityConfig.TLSRootCAs == nil:
			t.Errorf("%v: the CA of couchbase.tls.ca is not gocb's", kv)
		case isCert != (c.tls.Cert != ""):
			t.Errorf("%v: authenticator %T", kv, o.Authenticator)
		}
	}
}
