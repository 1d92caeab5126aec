package wire

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"
	"syscall"
)

// CertAsked notes whether a server asked for a client certificate and
// what the client gave it: none configured, none the server accepts (its
// CA is not among those the server names), or one. Under TLS 1.3 the
// client's handshake completes before the server checks its certificate;
// the server's refusal (an alert, then the connection closed) often
// reaches the client's first request as a reset connection, its alert
// unread, so the error alone cannot say why. The zero value is ready to
// use.
type CertAsked struct{ state atomic.Int32 }

// What a server asking for a client certificate was given.
const (
	notAsked int32 = iota
	askedNone
	askedNoneAccepted
	askedSent
)

// Watch returns c to dial with: a copy that notes a server's asking for
// a client certificate and answers as c would (the first of its
// certificates the server accepts, else none). A nil c is returned as it
// is, and so is one that chooses its certificate itself.
func (a *CertAsked) Watch(c *tls.Config) *tls.Config {
	if c == nil || c.GetClientCertificate != nil {
		return c
	}
	c = c.Clone()
	certs := c.Certificates
	c.Certificates = nil
	c.GetClientCertificate = func(cri *tls.CertificateRequestInfo) (*tls.Certificate, error) {
		for i := range certs {
			if cri.SupportsCertificate(&certs[i]) == nil {
				a.state.Store(askedSent)
				return &certs[i], nil
			}
		}
		if len(certs) > 0 {
			a.state.Store(askedNoneAccepted)
		} else {
			a.state.Store(askedNone)
		}
		return &tls.Certificate{}, nil
	}
	return c
}

// Explain is t.Explain(err); where that finds nothing to say, a
// connection that broke after a server asked for a client certificate is
// said in one line naming the properties to set.
func (a *CertAsked) Explain(t TLS, err error) error {
	e := t.Explain(err)
	var te *TLSError
	if e == nil || errors.As(e, &te) || !broken(err) {
		return e
	}
	if msg := a.Line(t); msg != "" {
		return &TLSError{msg, err}
	}
	return e
}

// NoneAccepted reports whether a server asked for a client certificate
// and none of the client's was signed by a CA it names (none was sent).
func (a *CertAsked) NoneAccepted() bool { return a.state.Load() == askedNoneAccepted }

// Line says what a server that asked for a client certificate was given,
// for a connection it refused: none, none it accepts, or one ("" when no
// server asked).
func (a *CertAsked) Line(t TLS) string {
	switch a.state.Load() {
	case askedNone:
		return fmt.Sprintf("TLS: the server asks for a client certificate: set %s.tls.cert and %s.tls.key", t.Prefix, t.Prefix)
	case askedNoneAccepted:
		return fmt.Sprintf("TLS: the server refused the client certificate of %s.tls.cert: it asks for one signed by a CA it trusts", t.Prefix)
	case askedSent:
		return fmt.Sprintf("TLS: the server refused the client certificate of %s.tls.cert", t.Prefix)
	}
	return ""
}

// broken reports whether err is a connection the server closed or reset
// (drivers that flatten errors are read by their words).
func broken(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, net.ErrClosed) {
		return true
	}
	s := err.Error()
	return strings.Contains(s, "connection reset by peer") || strings.Contains(s, "broken pipe") || strings.HasSuffix(s, "EOF")
}
