package wire_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/internal/testcert"
	"github.com/servbench/servbench/props"
)

func propsOf(kv ...string) *props.Props {
	p := props.New()
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test.properties")
	}
	return p
}

func TestReadTLS(t *testing.T) {
	for _, c := range []struct {
		name string
		kv   []string
		on   bool
		err  string // a part of the error, "" for none
	}{
		{"nothing", nil, false, ""},
		{"on", []string{"x.tls", "true"}, true, ""},
		{"a CA asks for TLS", []string{"x.tls.ca", "ca.pem"}, true, ""},
		{"a server name asks for TLS", []string{"x.tls.servername", "db.example"}, true, ""},
		{"insecure asks for TLS", []string{"x.tls.insecure", "true"}, true, ""},
		{"off but a CA", []string{"x.tls", "false", "x.tls.ca", "ca.pem"}, false, "property x.tls: false, but x.tls.ca asks for TLS"},
		{"a certificate without its key", []string{"x.tls.cert", "c.pem"}, false, "property x.tls.cert: a client certificate needs its key"},
		{"a key without its certificate", []string{"x.tls.key", "c.key"}, false, "property x.tls.key: a client key needs its certificate"},
		{"insecure and a CA", []string{"x.tls.insecure", "true", "x.tls.ca", "ca.pem"}, false, "property x.tls.insecure: true turns off"},
		{"not a boolean", []string{"x.tls", "yes please"}, false, "x.tls"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tl, err := wire.ReadTLS(propsOf(c.kv...), "x")
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one with %q", err, c.err)
				}
				if !strings.Contains(err.Error(), "test.properties") {
					t.Errorf("error %q does not say where the property was set", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tl.On != c.on {
				t.Errorf("On = %v, want %v", tl.On, c.on)
			}
		})
	}
}

func TestAgree(t *testing.T) {
	for _, c := range []struct {
		name   string
		kv     []string
		urlTLS bool
		on     bool
		err    []string
	}{
		{"a TLS URL turns it on", nil, true, true, nil},
		{"a plain URL, nothing said", nil, false, false, nil},
		{"a TLS URL with a CA", []string{"x.tls.ca", "ca.pem"}, true, true, nil},
		{"a TLS URL, TLS off", []string{"x.tls", "false"}, true, false, []string{"x.tls", "x.url asks for TLS"}},
		{"a plain URL, a CA", []string{"x.tls.ca", "ca.pem"}, false, false, []string{"x.url", "x.tls.ca asks for TLS"}},
		{"a plain URL, TLS on", []string{"x.tls", "true"}, false, false, []string{"x.url", "x.tls asks for TLS"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := propsOf(append(c.kv, "x.url", "scheme://127.0.0.1")...)
			tl, err := wire.ReadTLS(p, "x")
			if err != nil {
				t.Fatal(err)
			}
			tl, err = tl.Agree(p, "x.url", c.urlTLS)
			if c.err != nil {
				if err == nil {
					t.Fatalf("no error, want one naming %q", c.err)
				}
				for _, s := range c.err {
					if !strings.Contains(err.Error(), s) {
						t.Errorf("error %q does not name %q", err, s)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tl.On != c.on {
				t.Errorf("On = %v, want %v", tl.On, c.on)
			}
		})
	}
}

func certs(t *testing.T) testcert.Set {
	t.Helper()
	s, err := testcert.Make(t.TempDir(), "servbench")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func config(t *testing.T, kv ...string) (*tls.Config, error) {
	t.Helper()
	p := propsOf(kv...)
	tl, err := wire.ReadTLS(p, "x")
	if err != nil {
		t.Fatal(err)
	}
	return tl.Config(context.Background(), p)
}

func TestConfigFiles(t *testing.T) {
	s := certs(t)
	c, err := config(t, "x.tls.ca", s.CA, "x.tls.cert", s.ClientCert, "x.tls.key", s.ClientKey, "x.tls.servername", "db.example")
	if err != nil {
		t.Fatal(err)
	}
	if c.RootCAs == nil || len(c.Certificates) != 1 || c.ServerName != "db.example" || c.MinVersion != tls.VersionTLS12 {
		t.Errorf("config %+v: want the CA, one client certificate, the server name and TLS 1.2 at least", c)
	}
	if c, err := config(t); c != nil || err != nil {
		t.Errorf("no TLS asked: got %v, %v; want nil, nil", c, err)
	}
	if c, err := config(t, "x.tls", "true"); err != nil || c == nil || c.RootCAs != nil {
		t.Errorf("x.tls=true alone: got %v, %v; want the system's CAs", c, err)
	}

	key, err := os.ReadFile(s.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	notPEM := s.Dir + "/not.pem"
	if err := os.WriteFile(notPEM, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		kv   []string
		want string
	}{
		{"no CA file", []string{"x.tls.ca", s.Dir + "/missing.pem"}, "property x.tls.ca: " + s.Dir + "/missing.pem: no such file"},
		{"a CA file without a certificate", []string{"x.tls.ca", notPEM}, "holds no PEM certificate"},
		{"no key file", []string{"x.tls.cert", s.ClientCert, "x.tls.key", s.Dir + "/missing.key"}, "property x.tls.key: the key file: no such file"},
		{"another certificate's key", []string{"x.tls.cert", s.ClientCert, "x.tls.key", s.OtherKey}, "the key is not the certificate's"},
		{"a key as the certificate", []string{"x.tls.cert", s.ClientKey, "x.tls.key", s.ClientKey}, "no certificate in the certificate file"},
		{"a directory", []string{"x.tls.ca", s.Dir}, "property x.tls.ca"},
		{"a directory as the key", []string{"x.tls.cert", s.ClientCert, "x.tls.key", s.Dir}, "property x.tls.key: the key file: is a directory"},
		{"a certificate as the key", []string{"x.tls.cert", s.ClientCert, "x.tls.key", s.ClientCert}, "the key file holds a certificate, not a key"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := config(t, c.kv...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one with %q", err, c.want)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error of more than one line: %q", msg)
			}
			for _, secret := range []string{s.OtherKey, string(key[30:60])} {
				if strings.Contains(msg, secret) {
					t.Errorf("error %q shows the key file or its contents", msg)
				}
			}
		})
	}
}

// A named pipe with no writer, as the CA, the certificate or the key, is
// refused at once: the check of a run reads the files without a context
// that Ctrl-C ends, and it waited for a writer without end.
func TestConfigPipe(t *testing.T) {
	s := certs(t)
	fifo := s.Dir + "/fifo-client.key"
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() { // let a read left behind end
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	for _, c := range []struct {
		name string
		kv   []string
		want string
	}{
		{"CA", []string{"x.tls.ca", fifo}, "property x.tls.ca: " + fifo + ": a named pipe, not a regular file"},
		{"certificate", []string{"x.tls.cert", fifo, "x.tls.key", s.ClientKey}, "property x.tls.cert: " + fifo + ": a named pipe"},
		{"key", []string{"x.tls.cert", s.ClientCert, "x.tls.key", fifo}, "property x.tls.key: the key file: a named pipe, not a regular file"},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := config(t, c.kv...)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %v, want an error with %q", c.name, err, c.want)
			}
			if c.name == "key" && err != nil && strings.Contains(err.Error(), fifo) {
				t.Errorf("%s: the error names the key file: %v", c.name, err)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: a named pipe with no writer: no answer within 5s", c.name)
		}
	}
	if err := wire.RegularFile(s.CA); err != nil {
		t.Errorf("a regular file: %v", err)
	}
	if err := wire.RegularFile(s.Dir + "/missing"); err != nil {
		t.Errorf("a missing file is the reader's to say: %v", err)
	}
}

// A file a driver reads whole is refused past wire.MaxFile, from its size
// (a 3 GB CA named in a connection string took 3.2 GB); the options of a
// connection string are each checked, a key file's path never shown.
func TestOptionFiles(t *testing.T) {
	dir := t.TempDir()
	big := dir + "/big.pem" // sparse: no disk taken
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(wire.MaxFile + 1)
	f.Close()
	if err := wire.RegularFile(big); err == nil || !strings.Contains(err.Error(), "more than 4 MiB") {
		t.Errorf("a file over the bound: %v", err)
	}
	small := dir + "/small.pem"
	os.WriteFile(small, []byte("x"), 0o600)
	p := props.Of("x.url", "u")
	if err := wire.OptionFiles(p, "x.url", []wire.Option{{Name: "ca", Value: small}, {Name: "user", Value: "nobody"}, {Name: "dir", Value: dir}}); err != nil {
		t.Errorf("a small file, a word, a directory: %v", err)
	}
	err = wire.OptionFiles(p, "x.url", []wire.Option{{Name: "ca", Value: small}, {Name: "clientKeyFile", Value: big}})
	if err == nil || !strings.Contains(err.Error(), "property x.url: clientKeyFile: the key file: ") || strings.Contains(err.Error(), big) {
		t.Errorf("a key file over the bound: %v", err)
	}
	err = wire.OptionFiles(p, "x.url", []wire.Option{{Name: "rootcert", Value: big}})
	if err == nil || !strings.Contains(err.Error(), "property x.url: rootcert "+big+": ") {
		t.Errorf("a CA over the bound: %v", err)
	}
}

// server is a TLS server on 127.0.0.1 with the test's server certificate
// (or the wrong-name one), asking for a client certificate when
// clientCA is set; each connection is answered with "ok" after its
// handshake.
func server(t *testing.T, s testcert.Set, wrongName bool, clientCA string) string {
	t.Helper()
	certFile, keyFile := s.ServerCert, s.ServerKey
	if wrongName {
		certFile, keyFile = s.WrongName, s.WrongNameKey
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &tls.Config{Certificates: []tls.Certificate{pair}}
	if clientCA != "" {
		b, err := os.ReadFile(clientCA)
		if err != nil {
			t.Fatal(err)
		}
		cfg.ClientCAs = x509.NewCertPool()
		cfg.ClientCAs.AppendCertsFromPEM(b)
		cfg.ClientAuth = tls.RequireAndVerifyClientCert
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go serve(ln, func(c net.Conn) {
		if err := c.(*tls.Conn).Handshake(); err == nil {
			c.Write([]byte("ok"))
		}
	})
	return ln.Addr().String()
}

func serve(ln net.Listener, handle func(net.Conn)) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go func() {
			defer c.Close()
			c.SetDeadline(time.Now().Add(time.Minute))
			handle(c)
		}()
	}
}

// dial connects as a binding does (wire.TLSClient over a plain
// connection), then reads the server's answer: with TLS 1.3 a refused
// client certificate shows only there.
func dial(addr string, c *tls.Config) error {
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer raw.Close()
	raw.SetDeadline(time.Now().Add(time.Minute))
	conn, err := wire.TLSClient(context.Background(), raw, addr, c)
	if err != nil {
		return err
	}
	buf := make([]byte, 2)
	_, err = conn.Read(buf)
	return err
}

func TestExplain(t *testing.T) {
	s := certs(t)
	plain, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { plain.Close() })
	go serve(plain, func(c net.Conn) { c.Write([]byte("+PONG but no TLS\r\n")) })
	mutual := server(t, s, false, s.CA)
	for _, c := range []struct {
		name string
		addr string
		kv   []string
		want string // "" for a connection that works
	}{
		{"the CA and a client certificate", mutual, []string{"x.tls.ca", s.CA, "x.tls.cert", s.ClientCert, "x.tls.key", s.ClientKey}, ""},
		{"the CA alone, one-way TLS", server(t, s, false, ""), []string{"x.tls.ca", s.CA}, ""},
		{"another CA", mutual, []string{"x.tls.ca", s.OtherCA, "x.tls.cert", s.ClientCert, "x.tls.key", s.ClientKey},
			"TLS: the server's certificate is not signed by the CAs of x.tls.ca (x.tls.ca names the file of the CA that signed it)"},
		{"the system's CAs", mutual, []string{"x.tls", "true"}, "TLS: the server's certificate is not signed by the system's CAs"},
		{"another name", mutual, []string{"x.tls.ca", s.CA, "x.tls.servername", "db.example", "x.tls.cert", s.ClientCert, "x.tls.key", s.ClientKey},
			"TLS: the server's certificate is for localhost, 127.0.0.1, ::1, not db.example (x.tls.servername names the one to verify)"},
		{"a certificate for another host", server(t, s, true, ""), []string{"x.tls.ca", s.CA},
			"TLS: the server's certificate is for elsewhere.invalid, not 127.0.0.1"},
		{"no client certificate", mutual, []string{"x.tls.ca", s.CA},
			"TLS: the server asks for a client certificate: set x.tls.cert and x.tls.key"},
		{"a client certificate of another CA", mutual, []string{"x.tls.ca", s.CA, "x.tls.cert", s.OtherCert, "x.tls.key", s.OtherKey},
			"TLS: the server refused the client certificate of x.tls.cert"},
		{"a plain server", plain.Addr().String(), []string{"x.tls.ca", s.CA}, "TLS: the server does not speak TLS at this address"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := propsOf(c.kv...)
			tl, err := wire.ReadTLS(p, "x")
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := tl.Config(context.Background(), p)
			if err != nil {
				t.Fatal(err)
			}
			err = tl.Explain(dial(c.addr, cfg))
			if c.want == "" {
				if err != nil {
					t.Fatalf("connecting: %v", err)
				}
				return
			}
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("error %v, want one starting %q", err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error of more than one line: %q", err)
			}
		})
	}
	// A driver that flattens the error into text is read by its words.
	flat := (wire.TLS{Prefix: "x"}).Explain(errorString("connection(127.0.0.1:1) failed: tls: failed to verify certificate: x509: certificate signed by unknown authority"))
	if !strings.HasPrefix(flat.Error(), "TLS: the server's certificate is not signed by the system's CAs") {
		t.Errorf("flattened error read as %q", flat)
	}
	// An HTTP client says a plain server in words of its own.
	web := httptest.NewServer(http.NotFoundHandler())
	defer web.Close()
	tl, _ := wire.ReadTLS(propsOf("x.tls", "true"), "x")
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{MinVersion: tls.VersionTLS12}}}
	_, err = hc.Get("https://" + web.Listener.Addr().String() + "/")
	if got := tl.Explain(err); got == nil || !strings.HasPrefix(got.Error(), "TLS: the server does not speak TLS at this address (set x.tls=false") {
		t.Errorf("a plain HTTP server: %v", got)
	}
	other := errorString("connection refused")
	if got := (wire.TLS{Prefix: "x"}).Explain(other); got != other {
		t.Errorf("an error that is not TLS's became %q", got)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// The files SSL_CERT_FILE and SSL_CERT_DIR name, which Go's TLS reads
// whole at the first connection that checks a server, are refused in one
// line when they could not be read bounded: a named pipe (held the
// connect without a word), a file over MaxFile (3 GB ended the process
// out of memory), a directory of more than MaxSystemRoots in all; a
// directory of certificates passes.
func TestCheckSystemRoots(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sparse := func(path string, size int64) string {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Fatal(err)
		}
		return path
	}
	big := sparse(filepath.Join(dir, "big.pem"), 3<<30)
	good := filepath.Join(dir, "good")
	many := filepath.Join(dir, "many")
	piped := filepath.Join(dir, "piped")
	for _, d := range []string{good, many, piped} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sparse(filepath.Join(good, "a.pem"), 2000)
	os.Symlink(filepath.Join(good, "a.pem"), filepath.Join(good, "b.0"))
	for i := range 17 {
		sparse(filepath.Join(many, fmt.Sprintf("c%d.pem", i)), wire.MaxFile)
	}
	if err := syscall.Mkfifo(filepath.Join(piped, "x.pem"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ file, dir, want string }{
		{"", "", ""},
		{filepath.Join(good, "a.pem"), good + ":" + filepath.Join(dir, "none"), ""},
		{fifo, "", "SSL_CERT_FILE=" + fifo + ": a named pipe"},
		{big, "", "SSL_CERT_FILE=" + big + ": 3221225472 bytes, more than"},
		{"", piped, "x.pem: a named pipe"},
		{"", good + ":" + many, "its files hold more than 64 MiB"},
	} {
		env := map[string]string{"SSL_CERT_FILE": c.file, "SSL_CERT_DIR": c.dir}
		err := wire.CheckSystemRoots(func(k string) string { return env[k] })
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q %q: %v, want %q", c.file, c.dir, err, c.want)
		}
	}
}

// A file of the kernel's file systems is no file a driver may read whole,
// whatever its size says: /proc/self/pagemap says 0 bytes and reads
// 256 GiB (as SSL_CERT_FILE, an sslrootcert, a kubeconfig it ended the
// process out of memory), refused by its path and through a link.
func TestRegularFileRefusesTheKernels(t *testing.T) {
	if _, err := os.Stat("/proc/self/pagemap"); err != nil {
		t.Skip("no procfs here")
	}
	link := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.Symlink("/proc/self/pagemap", link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/proc/self/pagemap", link} {
		if err := wire.RegularFile(p); err == nil || !strings.Contains(err.Error(), "procfs") {
			t.Errorf("%s: %v", p, err)
		}
	}
	dir := filepath.Dir(link)
	env := map[string]string{"SSL_CERT_DIR": dir}
	if err := wire.CheckSystemRoots(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "procfs") {
		t.Errorf("SSL_CERT_DIR with a link to pagemap: %v", err)
	}
	ok := filepath.Join(dir, "ok.pem")
	os.WriteFile(ok, []byte("x"), 0o644)
	if err := wire.RegularFile(ok); err != nil {
		t.Errorf("a file of a disk: %v", err)
	}
}

// A file that reads more than its size says is refused, whatever its file
// system claims to be (an overlay on FUSE said 100 bytes and read without
// end): /proc/self/pagemap stands in for one, past the list of file
// systems.
func TestReadsAsSaid(t *testing.T) {
	if _, err := os.Stat("/proc/self/pagemap"); err != nil {
		t.Skip("no procfs here")
	}
	if err := wire.ReadsAsSaid("/proc/self/pagemap", 0); err == nil || !strings.Contains(err.Error(), "says 0 bytes and reads more") {
		t.Errorf("pagemap: %v", err)
	}
	ok := filepath.Join(t.TempDir(), "ca.pem")
	os.WriteFile(ok, []byte(strings.Repeat("x", 5000)), 0o644)
	if err := wire.ReadsAsSaid(ok, 5000); err != nil {
		t.Errorf("a file of a disk: %v", err)
	}
}
