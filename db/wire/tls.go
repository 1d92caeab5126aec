package wire

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/internal/inputfile"
	"github.com/servbench/servbench/props"
)

// TLS is a binding's connection security, from properties named alike in
// every binding (PREFIX is the binding's name):
//
//	PREFIX.tls             true: TLS (false: plain, also against a URL that asks for TLS: refused)
//	PREFIX.tls.ca          a PEM file of the CAs that sign the server's certificate (instead of the system's)
//	PREFIX.tls.cert        a PEM file of the client's certificate (mutual TLS), with
//	PREFIX.tls.key         the PEM file of its private key
//	PREFIX.tls.servername  the name the server's certificate must carry (instead of the host connected to)
//	PREFIX.tls.insecure    true: no verification of the server's certificate (the test only)
//
// Giving any of ca, cert, key or servername asks for TLS. The files are read
// when Config is called, bounded in size; a key file's path and contents
// are never printed (the property's name marks it a secret).
type TLS struct {
	Prefix     string
	On         bool // TLS asked for
	Explicit   bool // PREFIX.tls was given (true or false)
	CA         string
	Cert, Key  string
	ServerName string
	Insecure   bool
}

// maxPEM bounds each file TLS reads: a CA bundle of the whole web is about
// 250 KB.
const maxPEM = 4 << 20

// ReadTLS reads the TLS properties of the binding whose properties start
// with prefix ("redis" reads redis.tls, redis.tls.ca, …).
func ReadTLS(p *props.Props, prefix string) (TLS, error) {
	t := TLS{Prefix: prefix}
	var err error
	if _, t.Explicit = p.Get(prefix + ".tls"); t.Explicit {
		if t.On, err = p.Bool(prefix+".tls", false); err != nil {
			return t, err
		}
	}
	if t.Insecure, err = p.Bool(prefix+".tls.insecure", false); err != nil {
		return t, err
	}
	t.CA = p.String(prefix+".tls.ca", "")
	t.Cert = p.String(prefix+".tls.cert", "")
	t.Key = p.String(prefix+".tls.key", "")
	t.ServerName = p.String(prefix+".tls.servername", "")
	files := t.CA != "" || t.Cert != "" || t.Key != "" || t.ServerName != ""
	switch {
	case t.Explicit && !t.On && (files || t.Insecure):
		return t, p.Errorf(prefix+".tls", "false, but %s asks for TLS", t.named(p))
	case (t.Cert == "") != (t.Key == ""):
		if t.Cert == "" {
			return t, p.Errorf(prefix+".tls.key", "a client key needs its certificate: set %s.tls.cert too", prefix)
		}
		return t, p.Errorf(prefix+".tls.cert", "a client certificate needs its key: set %s.tls.key too", prefix)
	case t.Insecure && (t.CA != "" || t.ServerName != ""):
		return t, p.Errorf(prefix+".tls.insecure", "true turns off the verification that %s.tls.ca and %s.tls.servername are for: set one or the other", prefix, prefix)
	}
	if files || t.Insecure {
		t.On = true
	}
	return t, nil
}

// named is the first TLS property given that asks for TLS.
func (t TLS) named(p *props.Props) string {
	for _, s := range []string{"ca", "cert", "key", "servername", "insecure"} {
		if _, ok := p.Get(t.Prefix + ".tls." + s); ok {
			return t.Prefix + ".tls." + s
		}
	}
	return t.Prefix + ".tls"
}

// Given reports whether any property beyond PREFIX.tls itself was given:
// a CA, a client certificate, a server name or insecure.
func (t TLS) Given() bool {
	return t.CA != "" || t.Cert != "" || t.ServerName != "" || t.Insecure
}

// Agree checks the TLS properties against what a URL (the property key)
// says: urlTLS is whether its scheme or options ask for TLS. A URL that
// asks for TLS turns it on; one that says plain conflicts with any TLS
// property, and a URL that asks for TLS with PREFIX.tls=false: both are
// refused, never settled silently. The returned TLS is the one to use.
func (t TLS) Agree(p *props.Props, key string, urlTLS bool) (TLS, error) {
	switch {
	case urlTLS && t.Explicit && !t.On:
		return t, p.Errorf(t.Prefix+".tls", "false, but %s asks for TLS", key)
	case !urlTLS && t.On:
		return t, p.Errorf(key, "a plain connection, but %s asks for TLS: use the URL's TLS form", t.named(p))
	}
	t.On = t.On || urlTLS
	return t, nil
}

// Config builds the client's TLS configuration: nil when TLS is off. The
// CA file replaces the system's roots; without it the system's are
// trusted. Errors name the property and, but for the key, the file.
func (t TLS) Config(ctx context.Context, p *props.Props) (*tls.Config, error) {
	if !t.On {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: t.ServerName, InsecureSkipVerify: t.Insecure}
	if t.CA != "" {
		b, err := readPEM(ctx, t.CA)
		if err != nil {
			return nil, p.Errorf(t.Prefix+".tls.ca", "%s: %v", t.CA, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, p.Errorf(t.Prefix+".tls.ca", "%s holds no PEM certificate", t.CA)
		}
		c.RootCAs = pool
	}
	if t.Cert != "" {
		cb, err := readPEM(ctx, t.Cert)
		if err != nil {
			return nil, p.Errorf(t.Prefix+".tls.cert", "%s: %v", t.Cert, err)
		}
		kb, err := readPEM(ctx, t.Key)
		if err != nil {
			return nil, p.Errorf(t.Prefix+".tls.key", "the key file: %v", err)
		}
		pair, err := tls.X509KeyPair(cb, kb)
		if err != nil {
			return nil, p.Errorf(t.Prefix+".tls.cert", "%s and the key of %s.tls.key are not a certificate and its PEM key (%s)", t.Cert, t.Prefix, keyPairProblem(err))
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}

// readPEM reads a file a TLS property names, bounded in size; a named
// pipe or a device is refused (RegularFile), and so is a file that reads
// more than its size says, read once.
func readPEM(ctx context.Context, path string) ([]byte, error) {
	st, err := regularFile(path, false)
	if err != nil {
		return nil, err
	}
	b, err := inputfile.Read(ctx, path, maxPEM)
	if st != nil && (errors.Is(err, inputfile.ErrTooLarge) || err == nil && int64(len(b)) > st.Size()) {
		return nil, saysLess(st.Size())
	}
	return b, err
}

// MaxFile bounds each file a driver reads itself that a property, a
// connection string or the environment names (a CA, a client's key, a
// password or service file): 4 MiB, sixteen times a CA bundle of the whole
// web. Drivers read such files whole, without a bound (a 3 GB sslrootcert
// took 3.2 GB of memory).
const MaxFile = maxPEM

// MaxSystemRoots bounds, in all, the files the environment names for Go's
// TLS to read the system's certificates from (SSL_CERT_FILE, every file
// of SSL_CERT_DIR's directories): each a regular file of at most MaxFile,
// 64 MiB together, at most maxRootFiles of them.
const (
	MaxSystemRoots = 64 << 20
	maxRootFiles   = 100_000
)

// CheckSystemRoots refuses, before anything connects, the files that
// getenv's SSL_CERT_FILE and SSL_CERT_DIR name when Go's TLS could not
// read them bounded: crypto/x509 reads each whole, at the first
// connection that checks a server against the system's certificates (a
// 3 GB file ended the process out of memory; a named pipe held the
// connect without a word). Its error names the variable and the file.
func CheckSystemRoots(getenv func(string) string) error {
	if f := getenv("SSL_CERT_FILE"); f != "" {
		if err := RegularFile(f); err != nil {
			return fmt.Errorf("SSL_CERT_FILE=%s: %v: Go's TLS reads it whole to check servers' certificates", format.Printable(f), err)
		}
	}
	d := getenv("SSL_CERT_DIR")
	if d == "" {
		return nil
	}
	var total int64
	files := 0
	for _, dir := range strings.Split(d, ":") {
		if dir == "" {
			continue
		}
		f, err := os.Open(dir)
		if err != nil {
			continue // as Go's TLS: a directory that cannot be read is passed over
		}
		for {
			entries, err := f.ReadDir(1024)
			for _, e := range entries {
				path := filepath.Join(dir, e.Name())
				if files++; files > maxRootFiles {
					f.Close()
					return fmt.Errorf("SSL_CERT_DIR=%s: more than %d files: Go's TLS reads every one to check servers' certificates", format.Printable(d), maxRootFiles)
				}
				st, err := regularFile(path, true)
				if err != nil {
					f.Close()
					return fmt.Errorf("SSL_CERT_DIR=%s: %s: %v: Go's TLS reads every file there whole to check servers' certificates", format.Printable(d), format.Printable(path), err)
				}
				if st != nil {
					if total += st.Size(); total > MaxSystemRoots {
						f.Close()
						return fmt.Errorf("SSL_CERT_DIR=%s: its files hold more than %s: Go's TLS reads every one whole to check servers' certificates", format.Printable(d), format.Bytes(MaxSystemRoots))
					}
				}
			}
			if err != nil {
				break
			}
		}
		f.Close()
	}
	return nil
}

// RegularFile refuses a path that names a named pipe, a socket or a
// device, a regular file over MaxFile, or one of the kernel's file
// systems (procfs, sysfs, ...: /proc/self/pagemap says 0 bytes and reads
// 256 GiB) or of FUSE (its server makes sizes up), where a file a driver reads
// whole is wanted: a pipe with no writer never answers a read, and the
// binding's properties are read once when the run is checked, where no
// Ctrl-C stops the read (and once more when it runs: a pipe's contents
// would be gone); a file without end fills memory. A missing file or a
// directory is left to the reader (it says so at once). Its error does
// not repeat the path.
func RegularFile(path string) error {
	_, err := regularFile(path, true)
	return err
}

// regularFile is RegularFile that also gives the regular file's stat (nil
// when the path is left to its reader); read false leaves out reading it
// (readsAsSaid), for a caller that reads it itself, bounded.
func regularFile(path string, read bool) (os.FileInfo, error) {
	if path == "" {
		return nil, nil
	}
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return nil, nil
	}
	if st.Mode().IsRegular() {
		if st.Size() > MaxFile {
			return nil, fmt.Errorf("%d bytes, more than %s", st.Size(), format.Bytes(MaxFile))
		}
		if fs := pseudoFS(path); fs != "" {
			return nil, fmt.Errorf("a file of %s, whose size says nothing of what it reads: copy it to a disk's file system", fs)
		}
		if read {
			return st, readsAsSaid(path, st.Size())
		}
		return st, nil
	}
	what := "not a regular file"
	switch m := st.Mode(); {
	case m&os.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&os.ModeSocket != 0:
		what = "a socket"
	case m&os.ModeDevice != 0:
		what = "a device"
	}
	return nil, fmt.Errorf("%s, not a regular file", what)
}

// readsAsSaid reads path, at most MaxFile and a byte, and refuses it
// when it reads more than its size says: a file system stacked on one
// that makes sizes up (an overlay on FUSE said 100 bytes and read
// without end) is known only by reading.
func readsAsSaid(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil // left to the reader, which says so
	}
	defer f.Close()
	buf := make([]byte, 4096) // whole pages: some of the kernel's files take no other reads
	var n int64
	for n <= size+4096 && n <= MaxFile {
		m, err := f.Read(buf)
		n += int64(m)
		if err != nil {
			return nil
		}
	}
	return saysLess(size)
}

// saysLess is the error of a file that reads more than its size says.
func saysLess(size int64) error {
	return fmt.Errorf("says %d bytes and reads more: copy it to a disk's file system", size)
}

// Option is a connection string's option, or an environment variable,
// that a driver may read as a file's path.
type Option struct{ Name, Value string }

// OptionFiles checks every option whose value names an existing file
// (RegularFile), whatever the option: a driver reads the files its
// connection string names itself (pgx's passfile, servicefile,
// sslrootcert; the MongoDB driver's tlsCAFile, tlsCertificateFile and
// their ssl aliases), and an option it learns next is checked too.
// Values naming nothing, or a directory, are left to the driver. The
// error names key (the property, "" for none) and the option; a path is shown only
// when the option is not a secret's (a key file's, a password file's).
func OptionFiles(p *props.Props, key string, opts []Option) error {
	for _, o := range opts {
		err := RegularFile(o.Value)
		if err == nil {
			continue
		}
		var msg string
		switch {
		case o.Name == key: // the property itself: named once
			msg = fmt.Sprintf("%v: a driver reads it whole", err)
			if !props.IsSecretKey(key) {
				msg = fmt.Sprintf("%s: %v: a driver reads it whole", props.Cut(o.Value, 200), err)
			}
		case strings.Contains(strings.ToLower(o.Name), "key"):
			msg = fmt.Sprintf("%s: the key file: %v: a driver reads it whole", o.Name, err)
		case props.IsSecretKey(o.Name):
			msg = fmt.Sprintf("%s: the file it names: %v: a driver reads it whole", o.Name, err)
		default:
			msg = fmt.Sprintf("%s %s: %v: a driver reads it whole", o.Name, props.Cut(o.Value, 200), err)
		}
		if key == "" { // not a property's: the environment's, a default file's
			return errors.New(msg)
		}
		return p.Errorf(key, "%s", msg)
	}
	return nil
}

// keyPairProblem says what tls.X509KeyPair found wrong, in words that
// quote nothing of the files.
func keyPairProblem(err error) string {
	s := err.Error()
	switch {
	case strings.Contains(s, "does not match"):
		return "the key is not the certificate's"
	case strings.Contains(s, "in certificate input"):
		return "no certificate in the certificate file"
	case strings.Contains(s, "failed to find") && strings.Contains(s, "key"):
		return "no private key in the key file"
	case strings.Contains(s, "certificate rather than a key"):
		return "the key file holds a certificate, not a key"
	case strings.Contains(s, "failed to parse private key"):
		return "the key cannot be read"
	}
	return "they cannot be read"
}

// Explain turns a failed TLS connection into one line that says what to
// change, naming the binding's properties: a server whose certificate no
// trusted CA signed, or that is for another name, or a server that asks
// for a client certificate or refused the one given, or one that does not
// speak TLS. Drivers that keep the TLS error are read by its type, those
// that flatten it into text by its words. Other errors come back as they
// are.
func (t TLS) Explain(err error) error {
	if err == nil {
		return nil
	}
	var unknown x509.UnknownAuthorityError
	var host x509.HostnameError
	var inv x509.CertificateInvalidError
	var alert tls.AlertError
	var rec tls.RecordHeaderError
	s := err.Error()
	var msg string
	switch {
	case errors.As(err, &unknown) || strings.Contains(s, "certificate signed by unknown authority"):
		ca := "the system's CAs"
		if t.CA != "" {
			ca = "the CAs of " + t.Prefix + ".tls.ca"
		}
		msg = fmt.Sprintf("the server's certificate is not signed by %s (%s.tls.ca names the file of the CA that signed it)", ca, t.Prefix)
	case errors.As(err, &host):
		names := host.Certificate.DNSNames
		for _, ip := range host.Certificate.IPAddresses {
			names = append(names, ip.String())
		}
		msg = fmt.Sprintf("the server's certificate is for %s, not %s (%s.tls.servername names the one to verify)", strings.Join(names, ", "), host.Host, t.Prefix)
	case strings.Contains(s, "certificate is valid for") || strings.Contains(s, "certificate is not valid for any names"):
		msg = fmt.Sprintf("the server's certificate is not for the name connected to (%s.tls.servername names the one to verify): %s", t.Prefix, afterX509(s))
	case errors.As(err, &inv):
		msg = fmt.Sprintf("the server's certificate is not valid: %v", inv)
	case ((errors.As(err, &alert) && alert == 116) || strings.Contains(s, "certificate required")) && t.Cert != "":
		// Go sends a client certificate only when its issuer is among
		// those the server names: none was sent.
		msg = fmt.Sprintf("the server refused the client certificate of %s.tls.cert: it asks for one signed by a CA it trusts", t.Prefix)
	case (errors.As(err, &alert) && alert == 116) || strings.Contains(s, "certificate required"):
		msg = fmt.Sprintf("the server asks for a client certificate: set %s.tls.cert and %s.tls.key", t.Prefix, t.Prefix)
	case (errors.As(err, &alert) && (alert == 42 || alert == 43 || alert == 45 || alert == 46 || alert == 48)) ||
		strings.Contains(s, "tls: bad certificate") || strings.Contains(s, "tls: unknown certificate authority"):
		msg = fmt.Sprintf("the server refused the client certificate of %s.tls.cert", t.Prefix)
	case errors.As(err, &rec) || strings.Contains(s, "first record does not look like a TLS handshake") ||
		strings.Contains(s, "server gave HTTP response to HTTPS client"):
		msg = fmt.Sprintf("the server does not speak TLS at this address (set %s.tls=false, or the address of its TLS port)", t.Prefix)
	default:
		return err
	}
	return &TLSError{"TLS: " + msg, err}
}

// afterX509 is the end of a driver's wrapped error: what the TLS layer said.
func afterX509(s string) string {
	if i := strings.LastIndex(s, ": x509: "); i >= 0 {
		return s[i+2:]
	}
	return s
}

// TLSError is a failed TLS connection said in one line; Unwrap gives the
// driver's error.
type TLSError struct {
	msg string
	err error
}

func (e *TLSError) Error() string { return e.msg }
func (e *TLSError) Unwrap() error { return e.err }

// HostOf is the host part of addr (host:port, or a host alone), the name
// a certificate is verified against when no server name is set.
func HostOf(addr string) string {
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

// CountOptions bounds the counts a driver reads from its connection
// string (pool sizes, connection counts, queue lengths) and gives memory
// to: an option named in names (any case) whose value is a number past
// max, or below 0, is refused in one line naming key (the property) and
// the option, before the driver is given it (maxConnecting=100000000 in
// a MongoDB URL took 2.4 GB). A value that is no number is left to the
// driver's own refusal.
func CountOptions(p *props.Props, key string, opts []Option, max int64, names ...string) error {
	for _, o := range opts {
		for _, n := range names {
			if !strings.EqualFold(o.Name, n) {
				continue
			}
			v, err := strconv.ParseInt(strings.TrimSpace(o.Value), 10, 64)
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				if strings.HasPrefix(strings.TrimSpace(o.Value), "-") {
					return p.Errorf(key, "%s=%s is less than 0", n, props.Cut(o.Value, 40))
				}
				return p.Errorf(key, "%s=%s is more than %d", n, props.Cut(o.Value, 40), max)
			}
			switch {
			case err != nil:
			case v > max:
				return p.Errorf(key, "%s=%d is more than %d", n, v, max)
			case v < 0:
				return p.Errorf(key, "%s=%d is less than 0", n, v)
			}
		}
	}
	return nil
}

// QueryOptions are the options of a connection string's query (what
// follows its first ?), as a driver splits them; what cannot be parsed
// is left out (the driver refuses it).
func QueryOptions(conn string) []Option {
	_, q, ok := strings.Cut(conn, "?")
	if !ok {
		return nil
	}
	vs, _ := url.ParseQuery(q)
	var opts []Option
	for k, v := range vs {
		for _, x := range v {
			opts = append(opts, Option{Name: k, Value: x})
		}
	}
	return opts
}
