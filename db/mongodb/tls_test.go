package mongodb_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/internal/testcert"
)

// openErr opens the binding with the properties and returns its error
// (nil: it connected; it is closed again).
func openErr(kv ...string) error {
	b, _ := db.Lookup("mongodb")
	d, err := b.Open(context.Background(), dbtest.Props(append([]string{"mongodb.connecttimeout", "3000"}, kv...)...), db.Options{Threads: 1})
	if err == nil {
		d.Close()
	}
	return err
}

// The TLS server (scripts/servers' mongodb-tls: FerretDB's TLS listener,
// asking every client for a certificate its CA signed) takes the client
// certificate: a document written over TLS reads back, serverStatus is
// sampled over the same TLS, and the bytes on the wire are counted. The
// URL's own options (tlsCAFile, tlsCertificateKeyFile) work as before.
func TestTLS(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_MONGODB_TLS_URL")
	certs := dbtest.TLSCerts(t)
	client := []string{"mongodb.tls.ca", certs.CA, "mongodb.tls.cert", certs.ClientCert, "mongodb.tls.key", certs.ClientKey}
	d := dbtest.Open(t, "mongodb", append([]string{"mongodb.url", url, "mongodb.database", "sbtls"}, client...)...)
	ctx := context.Background()
	d.Delete(ctx, "sbtls", "k1")
	dbtest.OverTLS(t, d, "sbtls", "k1")
	// The properties with a URL that says nothing of TLS; the URL's
	// options alone (the driver reads its key and certificate from one
	// file).
	plainForm := strings.TrimSuffix(url, "?tls=true")
	bundle := filepath.Join(t.TempDir(), "client-bundle.pem")
	var both []byte
	for _, f := range []string{certs.ClientCert, certs.ClientKey} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		both = append(both, b...)
	}
	if err := os.WriteFile(bundle, both, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, kv := range [][]string{
		append([]string{"mongodb.url", plainForm, "mongodb.tls.servername", "localhost"}, client...),
		{"mongodb.url", url + "&tlsCAFile=" + certs.CA + "&tlsCertificateKeyFile=" + bundle},
		{"mongodb.url", plainForm + "?tlsCAFile=" + certs.CA + "&tlsCertificateKeyFile=" + bundle, "mongodb.tls", "true"},
	} {
		if err := openErr(kv...); err != nil {
			t.Errorf("%v: %v", kv, err)
		}
	}
}

// Without a client certificate, with one another CA signed, against a CA
// that did not sign the server's certificate or a name it is not for, the
// connection is refused in one line that names the property to set.
func TestTLSRefused(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_MONGODB_TLS_URL")
	certs := dbtest.TLSCerts(t)
	for _, c := range dbtest.TLSRefusals("mongodb", certs) {
		dbtest.TLSRefused(t, c.Name, openErr(append([]string{"mongodb.url", url}, c.KV...)...), certs, c.Want...)
	}
	// A plain server asked for TLS, and the TLS server asked for none.
	plain := dbtest.ServerURL(t, "SERVBENCH_MONGODB_URL")
	dbtest.TLSRefused(t, "plain server", openErr("mongodb.url", plain, "mongodb.tls.ca", certs.CA), certs,
		"TLS: the server closed the connection at the handshake", "mongodb.tls=false")
	dbtest.TLSRefused(t, "plain client", openErr("mongodb.url", strings.TrimSuffix(url, "?tls=true")), certs,
		"one that takes TLS connections only?", "mongodb.tls.ca")
}

// The connection string and the TLS properties must agree: a conflict is
// refused before any connection, naming both.
func TestTLSConflicts(t *testing.T) {
	b, _ := db.Lookup("mongodb")
	const u = "mongodb://127.0.0.1:27017/"
	certs, err := testcert.Make(t.TempDir(), "servbench")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kv   []string
		want []string
	}{
		{[]string{"mongodb.url", u + "?tls=false", "mongodb.tls.ca", "ca.pem"}, []string{"mongodb.url", "mongodb.tls.ca"}},
		{[]string{"mongodb.url", u + "?ssl=false", "mongodb.tls", "true"}, []string{"mongodb.url", "mongodb.tls"}},
		{[]string{"mongodb.url", u + "?tls=true", "mongodb.tls", "false"}, []string{"mongodb.tls", "mongodb.url"}},
		{[]string{"mongodb.url", "mongodb+srv://db.example/", "mongodb.tls", "false"}, []string{"mongodb.tls", "mongodb.url"}},
		{[]string{"mongodb.url", u + "?tlsCAFile=/x/ca.pem", "mongodb.tls.ca", "ca.pem"}, []string{"mongodb.tls.ca", "mongodb.url", "tlsCAFile"}},
		{[]string{"mongodb.url", u + "?tlsCertificateKeyFile=/x/c.pem", "mongodb.tls.cert", "c.pem", "mongodb.tls.key", "c.key"}, []string{"mongodb.tls.cert", "mongodb.url", "tlsCertificateKeyFile"}},
		{[]string{"mongodb.url", u + "?tlsInsecure=true", "mongodb.tls.ca", "ca.pem"}, []string{"mongodb.tls.ca", "mongodb.url", "tlsInsecure"}},
	} {
		_, err := b.Open(context.Background(), dbtest.Props(c.kv...), db.Options{Threads: 1, CheckOnly: true})
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %v, want an error naming %s", c.kv, err, w)
			}
		}
	}
	// What worked before still does: the URL's TLS options alone, and
	// mongodb+srv:// (checked offline).
	for _, kv := range [][]string{
		{"mongodb.url", u + "?tls=true"},
		{"mongodb.url", u + "?ssl=true&tlsInsecure=true"},
		{"mongodb.url", u + "?tls=true", "mongodb.tls", "true"},
		{"mongodb.url", "mongodb+srv://user:pw@db.example/"},
		{"mongodb.url", "mongodb+srv://db.example/", "mongodb.tls.ca", certs.CA},
		{"mongodb.url", u, "mongodb.tls", "false"},
	} {
		if _, err := b.Open(context.Background(), dbtest.Props(kv...), db.Options{Threads: 1, CheckOnly: true}); err != nil {
			t.Errorf("%v: %v", kv, err)
		}
	}
}

// The files the URL names (tlsCAFile, tlsCertificateKeyFile,
// tlsCertificateFile, tlsPrivateKeyFile and the ssl names), which the
// driver reads itself, whole (a file over 4 MiB is refused: a 3 GB one
// took 3.2 GB): one it cannot use is said naming mongodb.url, the
// key file without its path (the driver's error repeated it), passwords
// neither; a named pipe with no writer is refused at once (the driver's
// read of it never ended).
func TestURLFiles(t *testing.T) {
	b, _ := db.Lookup("mongodb")
	dir := t.TempDir()
	certs, err := testcert.Make(dir, "servbench")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe-client.pem")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	missing := filepath.Join(dir, "missing-client.pem")
	garbage := filepath.Join(dir, "garbage-client.pem")
	os.WriteFile(garbage, []byte("not a PEM file\n"), 0o600)
	big := filepath.Join(dir, "big-ca.pem") // sparse: no disk taken
	if f, err := os.Create(big); err == nil {
		f.Truncate(5 << 20)
		f.Close()
	}
	const u = "mongodb://u:hunter2x@127.0.0.1:1/?tls=true&tlsCertificateKeyFilePassword=hunter3x"
	for _, c := range []struct {
		name, url string
		want      []string
	}{
		{"a CA in a pipe, ssl's name", u + "&sslCertificateAuthorityFile=" + fifo, []string{"mongodb.url", "sslCertificateAuthorityFile: the file it names: a named pipe"}},
		{"a certificate in a pipe", u + "&tlsCertificateFile=" + fifo + "&tlsPrivateKeyFile=" + garbage, []string{"mongodb.url", "tlsCertificateFile " + fifo + ": a named pipe"}},
		{"a private key in a pipe", u + "&tlsCertificateFile=" + certs.ClientCert + "&tlsPrivateKeyFile=" + fifo, []string{"mongodb.url", "tlsPrivateKeyFile: the key file: a named pipe"}},
		{"a key file in a pipe, ssl's name", u + "&sslClientCertificateKeyFile=" + fifo, []string{"mongodb.url", "sslClientCertificateKeyFile: the key file: a named pipe"}},
		{"a CA without end", u + "&tlsCAFile=" + big, []string{"mongodb.url", "tlsCAFile " + big + ": 5242880 bytes, more than 4 MiB"}},
		{"a key file without end", u + "&tlsCertificateKeyFile=" + big, []string{"mongodb.url", "tlsCertificateKeyFile: the key file: 5242880 bytes, more than 4 MiB"}},
		{"a missing key file", u + "&tlsCAFile=" + certs.CA + "&tlsCertificateKeyFile=" + missing, []string{"mongodb.url", "cannot be used", "no such file"}},
		{"a key file of no PEM", u + "&tlsCertificateKeyFile=" + garbage, []string{"mongodb.url", "cannot be used"}},
		{"a key file in a pipe", u + "&tlsCertificateKeyFile=" + fifo, []string{"mongodb.url", "tlsCertificateKeyFile: the key file: a named pipe"}},
		{"a CA in a pipe", u + "&tlsCAFile=" + fifo, []string{"mongodb.url", "tlsCAFile " + fifo + ": a named pipe"}},
		{"a missing private key file", u + "&tlsCertificateFile=" + certs.CA + "&tlsPrivateKeyFile=" + missing, []string{"no such file"}},
		{"a missing client key file", u + "&sslClientCertificateKeyFile=" + missing, []string{"no such file"}},
	} {
		done := make(chan error, 1)
		go func() {
			d, err := b.Open(context.Background(), dbtest.Props("mongodb.url", c.url, "mongodb.connecttimeout", "1000"), db.Options{Threads: 1})
			if err == nil {
				d.Close()
			}
			done <- err
		}()
		var err error
		select {
		case err = <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no answer within 5s", c.name)
		}
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		msg := err.Error()
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %s\nwant it to say %q", c.name, msg, w)
			}
		}
		for _, secret := range []string{missing, garbage, "hunter2x", "hunter3x", "big-ca"} {
			if secret == "big-ca" && c.name == "a CA without end" {
				continue
			}
			if strings.Contains(msg, secret) {
				t.Errorf("%s: the error shows %s: %s", c.name, secret, msg)
			}
		}
		if !strings.Contains(strings.Join(c.want, " "), fifo) && strings.Contains(msg, fifo) {
			t.Errorf("%s: the error names the key file: %s", c.name, msg)
		}
	}
}
