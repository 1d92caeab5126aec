// Package testcert makes the certificates the TLS tests use, in a
// directory of the test's: a CA, a server certificate it signed for
// 127.0.0.1 and localhost, a client certificate it signed, and a second CA
// that signed nothing the servers present (with a client certificate of
// its own), each as PEM files. Keys are ECDSA P-256; certificates are
// valid from an hour ago for a day. Only tests import it.
package testcert

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Set names the files Make wrote.
type Set struct {
	Dir                     string
	CA                      string // the CA that signed the server's and the client's certificates
	ServerCert, ServerKey   string // for 127.0.0.1, ::1 and localhost
	ClientCert, ClientKey   string // CN is the client name given to Make
	OtherCA                 string // a CA that signed neither
	OtherCert, OtherKey     string // a client certificate the other CA signed
	WrongName, WrongNameKey string // a server certificate the CA signed for "elsewhere.invalid" only
}

// Make writes a Set into dir; client is the client certificate's common
// name (a user name where the server maps certificates to users).
func Make(dir, client string) (Set, error) {
	s := Set{Dir: dir}
	ca, caKey, err := authority("servbench test CA")
	if err != nil {
		return s, err
	}
	other, otherKey, err := authority("servbench other CA")
	if err != nil {
		return s, err
	}
	w := func(name string, b []byte) (string, error) {
		p := filepath.Join(dir, name)
		return p, os.WriteFile(p, b, 0o600)
	}
	files := []struct {
		cert, key *string
		name      string
		tmpl      *x509.Certificate
		by        *x509.Certificate
		byKey     *ecdsa.PrivateKey
	}{
		{&s.ServerCert, &s.ServerKey, "server", leaf("127.0.0.1", []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, x509.ExtKeyUsageServerAuth), ca, caKey},
		{&s.ClientCert, &s.ClientKey, "client", leaf(client, nil, nil, x509.ExtKeyUsageClientAuth), ca, caKey},
		{&s.OtherCert, &s.OtherKey, "other-client", leaf(client, nil, nil, x509.ExtKeyUsageClientAuth), other, otherKey},
		{&s.WrongName, &s.WrongNameKey, "wrong-name", leaf("elsewhere.invalid", []string{"elsewhere.invalid"}, nil, x509.ExtKeyUsageServerAuth), ca, caKey},
	}
	if s.CA, err = w("ca.pem", pemOf("CERTIFICATE", ca.Raw)); err != nil {
		return s, err
	}
	if s.OtherCA, err = w("other-ca.pem", pemOf("CERTIFICATE", other.Raw)); err != nil {
		return s, err
	}
	for _, f := range files {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return s, err
		}
		der, err := x509.CreateCertificate(rand.Reader, f.tmpl, f.by, &key.PublicKey, f.byKey)
		if err != nil {
			return s, fmt.Errorf("%s certificate: %w", f.name, err)
		}
		kb, err := x509.MarshalPKCS8PrivateKey(key)
		if err != nil {
			return s, err
		}
		if *f.cert, err = w(f.name+".pem", pemOf("CERTIFICATE", der)); err != nil {
			return s, err
		}
		if *f.key, err = w(f.name+".key", pemOf("PRIVATE KEY", kb)); err != nil {
			return s, err
		}
	}
	return s, nil
}

var serial int64 = time.Now().UnixNano()

func next() *big.Int { serial++; return big.NewInt(serial) }

func authority(name string) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	t := &x509.Certificate{
		SerialNumber: next(), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, t, t, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	c, err := x509.ParseCertificate(der)
	return c, key, err
}

func leaf(cn string, dns []string, ips []net.IP, use x509.ExtKeyUsage) *x509.Certificate {
	return &x509.Certificate{
		SerialNumber: next(), Subject: pkix.Name{CommonName: cn}, DNSNames: dns, IPAddresses: ips,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{use},
	}
}

func pemOf(kind string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der})
}
