package wire_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"testing"

	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/internal/testcert"
)

// closingServer asks each client for a certificate its CA signed (taking
// none too), completes the handshake and closes the connection at once,
// as a TLS 1.3 server that refuses the client's certificate does before
// the client reads its alert. It returns its address.
func closingServer(t *testing.T, certs testcert.Set) string {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(certs.ServerCert, certs.ServerKey)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(certs.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(b)
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{pair}, ClientCAs: pool, ClientAuth: tls.VerifyClientCertIfGiven})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	return l.Addr().String()
}

// A connection that broke after the server asked for a client
// certificate says what the client gave: none, none the server accepts,
// or one it refused. Where the server did not ask, the error is left as
// it is.
func TestCertAsked(t *testing.T) {
	certs, err := testcert.Make(t.TempDir(), "servbench")
	if err != nil {
		t.Fatal(err)
	}
	addr := closingServer(t, certs)
	for _, c := range []struct {
		name  string
		kv    []string
		want  string
		asked bool
	}{
		{"none", nil, "TLS: the server asks for a client certificate: set x.tls.cert and x.tls.key", true},
		{"another CA's", []string{"x.tls.cert", certs.OtherCert, "x.tls.key", certs.OtherKey}, "TLS: the server refused the client certificate of x.tls.cert: it asks for one signed by a CA it trusts", true},
		{"the CA's", []string{"x.tls.cert", certs.ClientCert, "x.tls.key", certs.ClientKey}, "TLS: the server refused the client certificate of x.tls.cert", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := propsOf(append([]string{"x.tls.ca", certs.CA}, c.kv...)...)
			tl, err := wire.ReadTLS(p, "x")
			if err != nil {
				t.Fatal(err)
			}
			tc, err := tl.Config(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			var asked wire.CertAsked
			raw, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			conn, err := wire.TLSClient(context.Background(), raw, addr, asked.Watch(tc))
			if err != nil {
				t.Fatalf("handshake: %v", err)
			}
			defer conn.Close()
			_, err = io.ReadFull(conn, make([]byte, 1))
			if err == nil {
				t.Fatal("read from a closed connection")
			}
			got := asked.Explain(tl, err)
			var te *wire.TLSError
			if !errors.As(got, &te) || got.Error() != c.want {
				t.Errorf("%v\nwant %q", got, c.want)
			}
			if strings.Contains(got.Error(), certs.OtherKey) || strings.Contains(got.Error(), certs.ClientKey) {
				t.Errorf("names a key file: %v", got)
			}
			// An HTTP client's request written on the connection its
			// reader closed on the server's refusal.
			closed := fmt.Errorf("Post \"https://%s/\": %w", addr, &net.OpError{Op: "write", Net: "tcp", Err: net.ErrClosed})
			if got := asked.Explain(tl, closed); got.Error() != c.want {
				t.Errorf("written on the closed connection: %v\nwant %q", got, c.want)
			}
		})
	}
	// Not asked: the error stays.
	var asked wire.CertAsked
	tl, _ := wire.ReadTLS(propsOf("x.tls", "true"), "x")
	if got := asked.Explain(tl, io.EOF); got != io.EOF {
		t.Errorf("not asked: %v", got)
	}
	if asked.Watch(nil) != nil {
		t.Error("Watch(nil) is not nil")
	}
}
