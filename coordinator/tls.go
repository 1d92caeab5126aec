package coordinator

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"fmt"
	"math/big"
	"net/http"
	"time"
)

// The coordinator's channel is TLS with a certificate made for the run:
// self-signed, its SHA-256 fingerprint handed to the clients with the
// secret (CertEnv), and a client trusts only a coordinator showing that
// certificate. So neither the secret nor the phase's credentials cross a
// network in the clear, and no certificate authority is needed.

// CertEnv is where a client finds the fingerprint of its coordinator's
// certificate (hex SHA-256 of its DER form).
const CertEnv = "SERVBENCH_COORDINATOR_CERT"

// newIdentity makes the run's certificate and its fingerprint.
func newIdentity() (tls.Certificate, string, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, "", err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: "servbench coordinator"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, "", err
	}
	sum := sha256.Sum256(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, hex.EncodeToString(sum[:]), nil
}

// HTTPClient is a client of the coordinator: every request carries the
// client's secret, over TLS only (a request to another scheme fails
// before it is sent, and redirects are not followed), and only a server
// whose certificate has the fingerprint pin is trusted ("" : the system's
// roots, as for any HTTPS).
func HTTPClient(token, pin string) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if pin != "" {
		want, _ := hex.DecodeString(pin)
		tr.TLSClientConfig = &tls.Config{
			InsecureSkipVerify: true, // the fingerprint below is the verification
			VerifyConnection: func(cs tls.ConnectionState) error {
				if len(cs.PeerCertificates) == 0 {
					return &certError{"the coordinator showed no certificate"}
				}
				got := sha256.Sum256(cs.PeerCertificates[0].Raw)
				if len(want) != len(got) || !bytes.Equal(got[:], want) {
					return &certError{fmt.Sprintf("the coordinator's certificate is not this run's (SHA-256 %x…)", got[:8])}
				}
				return nil
			},
		}
	}
	return &http.Client{Transport: bearer{token: token, next: tr},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// certError is a coordinator whose certificate is not the run's: final,
// not worth asking again.
type certError struct{ msg string }

func (e *certError) Error() string { return e.msg }

// bearer adds the secret to every request, which must be https.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	if b.token == "" {
		return b.next.RoundTrip(r)
	}
	if r.URL.Scheme != "https" {
		if r.Body != nil {
			r.Body.Close()
		}
		return nil, &certError{fmt.Sprintf("%s://%s: the secret is sent over https only", r.URL.Scheme, r.URL.Host)}
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}
