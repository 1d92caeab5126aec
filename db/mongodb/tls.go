package mongodb

import (
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/url"
	"os"
	"strings"

	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/props"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"
)

// uriTLS is what a connection string says about TLS: its options (names
// lower-cased, as the driver reads them in any case) and whether it asks
// for TLS (tls=true, ssl=true, mongodb+srv://) or says plain (tls=false).
type uriTLS struct {
	opts    map[string]string
	said    bool // the string says TLS or plain
	tls     bool
	files   string // the first TLS file option it names: tlsCAFile, tlsCertificateKeyFile, ...
	noCheck string // the first option that turns verification off
	raw     []wire.Option
}

// tlsFiles are the driver's options that name a TLS file (its
// connstring's), lower-cased, as said.
var tlsFiles = map[string]string{"tlscafile": "tlsCAFile", "sslcertificateauthorityfile": "sslCertificateAuthorityFile",
	"tlscertificatekeyfile": "tlsCertificateKeyFile", "sslclientcertificatekeyfile": "sslClientCertificateKeyFile",
	"tlscertificatefile": "tlsCertificateFile", "tlsprivatekeyfile": "tlsPrivateKeyFile"}

// notFiles are options whose values are never a file's path (names a
// directory could have); every other option naming a file is checked.
var notFiles = map[string]bool{"appname": true, "authsource": true, "replicaset": true, "authmechanism": true}

func readURITLS(uri string) uriTLS {
	u := uriTLS{opts: map[string]string{}}
	if _, q, ok := strings.Cut(uri, "?"); ok {
		for _, kv := range strings.Split(q, "&") {
			k, v, _ := strings.Cut(kv, "=")
			if uv, err := url.QueryUnescape(v); err == nil {
				v = uv
			}
			u.opts[strings.ToLower(k)] = v
			if !notFiles[strings.ToLower(k)] && v != "" {
				u.raw = append(u.raw, wire.Option{Name: k, Value: v})
			}
		}
	}
	if strings.HasPrefix(uri, "mongodb+srv://") { // TLS unless the string says otherwise
		u.said, u.tls = true, true
	}
	for _, k := range []string{"tls", "ssl"} {
		if v, ok := u.opts[k]; ok {
			u.said, u.tls = true, strings.EqualFold(v, "true")
		}
	}
	for _, k := range []string{"tlscafile", "sslcertificateauthorityfile", "tlscertificatekeyfile", "sslclientcertificatekeyfile", "tlscertificatefile", "tlsprivatekeyfile"} {
		if _, ok := u.opts[k]; ok && u.files == "" {
			u.files = tlsFiles[k]
		}
	}
	for _, k := range []string{"tlsinsecure", "tlsallowinvalidcertificates", "tlsallowinvalidhostnames"} {
		if v, ok := u.opts[k]; ok && strings.EqualFold(v, "true") && u.noCheck == "" {
			u.noCheck = map[string]string{"tlsinsecure": "tlsInsecure", "tlsallowinvalidcertificates": "tlsAllowInvalidCertificates",
				"tlsallowinvalidhostnames": "tlsAllowInvalidHostnames"}[k]
		}
	}
	if (u.files != "" || u.noCheck != "") && !u.said { // a TLS option asks for TLS, as the driver reads it
		u.said, u.tls = true, true
	}
	return u
}

// connTLS is the connection's security: the shared properties
// (mongodb.tls, mongodb.tls.ca, ...) agreed with the connection string.
type connTLS struct {
	wire.TLS
	// own: the properties make the connection's TLS configuration;
	// otherwise the driver does as the connection string says.
	own bool
	// files: the TLS files the connection string names, which the
	// driver reads (tlsCAFile, tlsCertificateKeyFile), "" for none.
	files string
}

// readTLS reads the TLS properties and agrees them with the connection
// string (mongodb.url): one that says plain (tls=false) beside a TLS
// property, or TLS (tls=true, ssl=true, mongodb+srv://, a TLS option)
// beside mongodb.tls=false, is refused naming both; so are a file or a
// verification the string sets beside the property that sets it too
// (tlsCAFile and mongodb.tls.ca, tlsInsecure and mongodb.tls.ca, ...).
func readTLS(p *props.Props, uri string) (connTLS, error) {
	t, err := wire.ReadTLS(p, "mongodb")
	if err != nil {
		return connTLS{}, err
	}
	u := readURITLS(uri)
	// The driver reads the files the string names, whole and without a
	// bound: a named pipe with no writer would hold the run without end,
	// a file without end fill memory. Every option is checked, whatever
	// file the driver reads next.
	// MONGODB-AWS and OIDC read a token file the environment names.
	files := u.raw
	for _, k := range []string{"AWS_WEB_IDENTITY_TOKEN_FILE", "AZURE_FEDERATED_TOKEN_FILE"} {
		files = append(files, wire.Option{Name: k + " (environment)", Value: os.Getenv(k)})
	}
	if err := wire.OptionFiles(p, "mongodb.url", files); err != nil {
		return connTLS{}, err
	}
	switch {
	case u.files != "" && (t.CA != "" || t.Cert != "" || t.ServerName != "" || t.Insecure):
		return connTLS{}, p.Errorf(tlsProperty(p, false), "given, and mongodb.url names %s: give the TLS settings in one of them", u.files)
	case u.noCheck != "" && t.Given():
		return connTLS{}, p.Errorf(tlsProperty(p, false), "given, and mongodb.url sets %s=true: give the TLS settings in one of them", u.noCheck)
	}
	if u.said {
		if t, err = t.Agree(p, "mongodb.url", u.tls); err != nil {
			return connTLS{}, err
		}
	}
	// mongodb.tls=true beside a string that says TLS adds nothing: the
	// driver does as the string says.
	return connTLS{TLS: t, own: t.On && (t.Given() || !u.said), files: u.files}, nil
}

// tlsProperty is the first TLS property given (beyond mongodb.tls
// unless withOn).
func tlsProperty(p *props.Props, withOn bool) string {
	keys := []string{"mongodb.tls.ca", "mongodb.tls.cert", "mongodb.tls.key", "mongodb.tls.servername", "mongodb.tls.insecure"}
	if withOn {
		keys = append([]string{"mongodb.tls"}, keys...)
	}
	for _, k := range keys {
		if _, ok := p.Get(k); ok {
			return k
		}
	}
	return "mongodb.tls"
}

// config is the TLS configuration the properties make, nil when the
// driver is to do as the connection string says.
func (c connTLS) config(ctx context.Context, p *props.Props, asked *wire.CertAsked) (*tls.Config, error) {
	if !c.own {
		return nil, nil
	}
	tc, err := c.Config(ctx, p)
	return asked.Watch(tc), err
}

// explain says a failed connection in one line where TLS failed: the
// driver keeps each server's last error in its server selection error
// (the connection's own error), which wire.TLS.Explain reads. A server
// that closed the connection at once is one that speaks TLS where the
// client did not, or the other way round.
func (c connTLS) explain(err error, asked *wire.CertAsked) (error, bool) {
	var sse topology.ServerSelectionError
	if !errors.As(err, &sse) {
		return err, false
	}
	for _, s := range sse.Desc.Servers {
		last := s.LastError
		if last == nil {
			continue
		}
		e := asked.Explain(c.TLS, last)
		var te *wire.TLSError
		switch {
		case errors.As(e, &te):
			return e, true
		case c.On && asked.Line(c.TLS) == "" && errors.Is(last, io.EOF) && last.Error() == io.EOF.Error():
			// the handshake's first read: the server closed
			return &tlsLine{"TLS: the server closed the connection at the handshake: a server that does not speak TLS at this address? (set mongodb.tls=false, or the address of its TLS port)", last}, true
		case !c.On && strings.Contains(last.Error(), "connection closed unexpectedly"):
			return &tlsLine{"the server closed the connection at once: one that takes TLS connections only? (set mongodb.tls.ca, or tls=true in mongodb.url)", last}, true
		}
	}
	return err, false
}

// filesError says why the driver refused the TLS files the connection
// string names (it reads them before connecting), the key file's path
// hidden as its password.
func filesError(p *props.Props, uri string, err error) error {
	var r props.Redactor
	r.Hidden(uri)
	for k, v := range readURITLS(uri).opts { // decoded: tlsCertificateKeyFile, tlsPrivateKeyFile, their passwords
		if props.IsSecretKey(k) {
			r.Add(v)
		}
	}
	return p.Errorf("mongodb.url", "the TLS files it names (tlsCAFile, tlsCertificateKeyFile) cannot be used: %s", r.Redact(err.Error()))
}

// tlsLine is a failed connection said in one line; Unwrap gives the
// driver's error.
type tlsLine struct {
	msg string
	err error
}

func (e *tlsLine) Error() string { return e.msg }
func (e *tlsLine) Unwrap() error { return e.err }
