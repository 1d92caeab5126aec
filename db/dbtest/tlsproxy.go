package dbtest

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/servbench/servbench/internal/testcert"
)

// TLSProxy listens on 127.0.0.1 with TLS and passes what each connection
// carries, decrypted, to the plain server at backend (host:port): the TLS
// port of a local server that has none. It presents certs' server
// certificate (a Set whose ServerCert and ServerKey are its WrongName and
// WrongNameKey presents that one); with requireClientCert it asks every
// client for a certificate that certs' CA signed and refuses a
// connection without one. It returns its address (host:port); it is
// closed with the test.
func TLSProxy(t testing.TB, backend string, certs testcert.Set, requireClientCert bool) string {
	t.Helper()
	pair, err := tls.LoadX509KeyPair(certs.ServerCert, certs.ServerKey)
	if err != nil {
		t.Fatalf("TLS proxy: %v", err)
	}
	c := &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	if requireClientCert {
		b, err := os.ReadFile(certs.CA)
		if err != nil {
			t.Fatalf("TLS proxy: %v", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			t.Fatalf("TLS proxy: no certificate in %s", certs.CA)
		}
		c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("TLS proxy: %v", err)
	}
	p := &tlsProxy{conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		for {
			raw, err := l.Accept()
			if err != nil {
				return
			}
			p.wg.Add(1)
			go func() {
				defer p.wg.Done()
				p.serve(tls.Server(raw, c), backend)
			}()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		p.mu.Lock()
		p.closed = true
		for c := range p.conns {
			c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
	return l.Addr().String()
}

type tlsProxy struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool
	wg     sync.WaitGroup
}

// track keeps c to be closed with the proxy; false when the proxy is
// closed already (c is closed then).
func (p *tlsProxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *tlsProxy) untrack(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

// serve completes the handshake (a client the configuration refuses is
// dropped), then copies both ways until either side closes.
func (p *tlsProxy) serve(front *tls.Conn, backend string) {
	if !p.track(front) {
		return
	}
	defer p.untrack(front)
	front.SetDeadline(time.Now().Add(10 * time.Second))
	if err := front.Handshake(); err != nil {
		return
	}
	front.SetDeadline(time.Time{})
	back, err := net.DialTimeout("tcp", backend, 10*time.Second)
	if err != nil {
		return
	}
	if !p.track(back) {
		return
	}
	defer p.untrack(back)
	// Either side's end ends both: the other copy returns once its
	// connection is closed.
	done := make(chan struct{})
	go func() {
		io.Copy(back, front)
		back.Close()
		close(done)
	}()
	io.Copy(front, back)
	front.Close()
	<-done
}
