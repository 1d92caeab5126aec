package dbtest

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"os"
	"testing"

	"github.com/servbench/servbench/internal/testcert"
)

// echo is a plain server that sends back what it reads.
func echo(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
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
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	return l.Addr().String()
}

func TestTLSProxy(t *testing.T) {
	certs, err := testcert.Make(t.TempDir(), "servbench")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(certs.CA)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(b)
	backend := echo(t)
	exchange := func(addr string, c *tls.Config) error {
		conn, err := tls.Dial("tcp", addr, c)
		if err != nil {
			return err
		}
		defer conn.Close()
		if _, err := conn.Write([]byte("ping")); err != nil {
			return err
		}
		got := make([]byte, 4)
		if _, err := io.ReadFull(conn, got); err != nil {
			return err
		}
		if string(got) != "ping" {
			t.Errorf("echoed %q", got)
		}
		return nil
	}
	open := TLSProxy(t, backend, certs, false)
	if err := exchange(open, &tls.Config{RootCAs: pool}); err != nil {
		t.Errorf("through the proxy: %v", err)
	}
	mutual := TLSProxy(t, backend, certs, true)
	if err := exchange(mutual, &tls.Config{RootCAs: pool}); err == nil {
		t.Error("a proxy that requires a client certificate took a client without one")
	}
	pair, err := tls.LoadX509KeyPair(certs.ClientCert, certs.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	if err := exchange(mutual, &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}}); err != nil {
		t.Errorf("with a client certificate: %v", err)
	}
	wrong := certs
	wrong.ServerCert, wrong.ServerKey = certs.WrongName, certs.WrongNameKey
	if err := exchange(TLSProxy(t, backend, wrong, false), &tls.Config{RootCAs: pool}); err == nil {
		t.Error("the wrong name's certificate was taken for 127.0.0.1")
	}
}
