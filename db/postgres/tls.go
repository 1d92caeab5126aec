package postgres

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/props"
)

// connTLS is the connection's security: the shared properties
// (postgres.tls, postgres.tls.ca, ...) agreed with the sslmode the URL or
// postgres.sslmode states.
type connTLS struct {
	wire.TLS
	mode string // sslmode as stated ("" when not)
	// own: the TLS properties set the connection's TLS; otherwise pgx
	// does as the connection string says, as before them.
	own bool
}

// sslSettings are the connection string's options that bear on TLS.
var sslSettings = []string{"sslmode", "sslrootcert", "sslcert", "sslkey"}

// dsnSetting matches an option of a keyword/value connection string
// (host=h sslmode=require).
var dsnSetting = regexp.MustCompile(`(?:^|\s)(\w+)\s*=\s*('(?:[^'\\]|\\.)*'|(?:[^\s\\]|\\.)*)`)

// dsnValue is a keyword/value setting's value as pgx reads it: out of its
// quotes, each backslash standing for the byte after it, quoted or not
// (passfile=f\1 names f1: it passed the check as f\1, and a named pipe f1
// held the run).
func dsnValue(v string) string {
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		v = v[1 : len(v)-1]
	}
	return props.Unbackslash(v)
}

// connSettings reads a connection string's TLS options, in either form
// (postgres://...?sslmode=require, or host=h sslmode=require).
func connSettings(conn string) map[string]string {
	out := map[string]string{}
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		u, err := url.Parse(conn)
		if err != nil {
			return out // pgx says what is wrong with it
		}
		q := u.Query()
		for _, k := range sslSettings {
			if v := q.Get(k); v != "" {
				out[k] = v
			}
		}
		return out
	}
	for _, m := range dsnSetting.FindAllStringSubmatch(conn, -1) {
		v := dsnValue(m[2])
		for _, k := range sslSettings {
			if m[1] == k && v != "" {
				out[k] = v
			}
		}
	}
	return out
}

// readTLS reads the TLS properties and agrees them with what the
// connection string (key names it: postgres.url, or postgres.sslmode for
// the one built from properties) says: sslmode=disable is plain (a TLS
// property beside it is refused), require, verify-ca and verify-full ask
// for TLS (postgres.tls=false beside them is refused); allow and prefer
// leave it to the properties. A file the string names (sslrootcert,
// sslcert, sslkey) and its property both given are refused too.
func readTLS(p *props.Props, conn, key string) (connTLS, error) {
	t, err := wire.ReadTLS(p, "postgres")
	if err != nil {
		return connTLS{}, err
	}
	s := connSettings(conn)
	c := connTLS{TLS: t, mode: s["sslmode"], own: t.Explicit || t.Given()}
	for _, f := range []struct{ option, property, value string }{
		{"sslrootcert", "postgres.tls.ca", t.CA}, {"sslcert", "postgres.tls.cert", t.Cert}, {"sslkey", "postgres.tls.key", t.Key},
	} {
		if s[f.option] != "" && f.value != "" {
			return c, p.Errorf(f.property, "given, and %s names %s too: give one of them", key, f.option)
		}
	}
	// pgx reads the files the string names, whole and without a bound:
	// a named pipe with no writer would hold the run without end, a file
	// without end fill memory.
	own, elsewhere := fileOptions(conn)
	if err := wire.OptionFiles(p, key, own); err != nil {
		return c, err
	}
	if err := wire.OptionFiles(p, "", elsewhere); err != nil { // named by no property
		return c, &db.InputError{Err: fmt.Errorf("postgres: %w", err)}
	}
	switch c.mode {
	case "disable":
		if t.On {
			return c, p.Errorf(key, "sslmode=disable is a plain connection, but %s asks for TLS: set sslmode=verify-full (or require, verify-ca)", tlsProperty(p))
		}
		c.TLS, err = t.Agree(p, key, false)
	case "require", "verify-ca", "verify-full":
		c.TLS, err = t.Agree(p, key, true)
	case "", "allow", "prefer":
	default: // said here, naming where it was given (pgx's refusal named postgres.url for postgres.sslmode)
		return c, p.Errorf(key, "sslmode=%s is not one of disable, allow, prefer, require, verify-ca, verify-full", props.Cut(c.mode, 20))
	}
	return c, err
}

// notFiles are the connection string's options whose values are never
// a file's path (names a directory could have: a user's, a database's):
// every other option naming a file is checked, whatever pgx reads next.
var notFiles = map[string]bool{"host": true, "hostaddr": true, "port": true, "user": true, "dbname": true,
	"database": true, "password": true, "service": true, "application_name": true}

// fileOptions are the options pgx may read a file of: own, the
// connection string's, and the entries of a service file it names;
// elsewhere, the environment's (PGPASSFILE, PGSERVICEFILE, PGSSLROOTCERT,
// ...), the files pgx reads by default in the home directory (~/.pgpass,
// ~/.pg_service.conf, ~/.postgresql/root.crt, ...) and the entries of a
// service file they name (which name files too).
func fileOptions(conn string) (own, elsewhere []wire.Option) {
	add := func(to *[]wire.Option, k, v, where string) {
		if !notFiles[k] && v != "" {
			*to = append(*to, wire.Option{Name: k + where, Value: v})
		}
	}
	if strings.HasPrefix(conn, "postgres://") || strings.HasPrefix(conn, "postgresql://") {
		if u, err := url.Parse(conn); err == nil {
			for k, vs := range u.Query() {
				for _, v := range vs {
					add(&own, k, v, "")
				}
			}
		}
	} else {
		for _, m := range dsnSetting.FindAllStringSubmatch(conn, -1) {
			v := dsnValue(m[2])
			add(&own, m[1], v, "")
		}
	}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "PG") && !notFiles[strings.ToLower(strings.TrimPrefix(k, "PG"))] {
			elsewhere = append(elsewhere, wire.Option{Name: k + " (environment)", Value: v})
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		for _, f := range []string{".pgpass", ".pg_service.conf", ".postgresql/postgresql.crt", ".postgresql/postgresql.key", ".postgresql/root.crt"} {
			elsewhere = append(elsewhere, wire.Option{Name: "~/" + f, Value: filepath.Join(home, f)})
		}
	}
	// A service file's entries are settings as the string's are: its
	// files are read too. Read here only when it passed the check.
	services := func(opts []wire.Option) (entries []wire.Option) {
		for _, o := range opts {
			if !strings.Contains(strings.ToLower(o.Name), "service") || wire.RegularFile(o.Value) != nil {
				continue
			}
			b, err := os.ReadFile(o.Value)
			if err != nil || len(b) > wire.MaxFile {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				if k, v, ok := strings.Cut(line, "="); ok {
					add(&entries, strings.TrimSpace(k), strings.TrimSpace(v), " in "+o.Name)
				}
			}
		}
		return entries
	}
	return append(own, services(own)...), append(elsewhere, services(elsewhere)...)
}

// tlsProperty is the first TLS property given that asks for TLS.
func tlsProperty(p *props.Props) string {
	for _, k := range []string{"postgres.tls", "postgres.tls.ca", "postgres.tls.cert", "postgres.tls.key", "postgres.tls.servername", "postgres.tls.insecure"} {
		if _, ok := p.Get(k); ok {
			return k
		}
	}
	return "postgres.tls"
}

// apply sets the TLS of every host pgx would try. With TLS properties
// given, each host is tried once: over TLS (their configuration, the
// server's name verified as sslmode says) or, with postgres.tls=false,
// plain; without them pgx does as the connection string says. asked
// notes a server's asking for a client certificate.
func (c connTLS) apply(ctx context.Context, p *props.Props, cfg *pgconn.Config, asked *wire.CertAsked) error {
	if !c.own {
		return nil
	}
	base, err := c.Config(ctx, p)
	if err != nil {
		return err
	}
	if base != nil {
		switch {
		case c.Insecure, c.mode == "require" && c.ServerName != "":
			// as asked: nothing verified; or the name given verified
		case c.mode == "verify-ca", c.mode == "require" && c.CA != "":
			// libpq's verify-ca (and require with a CA): the chain,
			// not the name.
			verifyChain(base)
		case c.mode == "require":
			base.InsecureSkipVerify = true // libpq's require: encrypted, not verified
		}
		base = asked.Watch(base)
	}
	type hostPort struct {
		host string
		port uint16
	}
	seen := map[hostPort]bool{}
	hosts := []*pgconn.FallbackConfig{{Host: cfg.Host, Port: cfg.Port, TLSConfig: cfg.TLSConfig}}
	var out []*pgconn.FallbackConfig
	for _, f := range append(hosts, cfg.Fallbacks...) {
		hp := hostPort{f.Host, f.Port}
		if seen[hp] {
			continue
		}
		seen[hp] = true
		tc := base
		if network, _ := pgconn.NetworkAddress(f.Host, f.Port); network == "unix" {
			tc = nil // as libpq: no TLS over a Unix socket
		} else if tc != nil && tc.ServerName == "" {
			tc = tc.Clone()
			tc.ServerName = f.Host
		}
		out = append(out, &pgconn.FallbackConfig{Host: f.Host, Port: f.Port, TLSConfig: tc})
	}
	cfg.Host, cfg.Port, cfg.TLSConfig, cfg.Fallbacks = out[0].Host, out[0].Port, out[0].TLSConfig, out[1:]
	return nil
}

// verifyChain makes c verify the server's certificate chain against its
// roots (the system's when none) without its name, as libpq's verify-ca.
func verifyChain(c *tls.Config) {
	roots := c.RootCAs
	c.InsecureSkipVerify = true
	c.VerifyPeerCertificate = func(raw [][]byte, _ [][]*x509.Certificate) error {
		if len(raw) == 0 {
			return errors.New("the server presented no certificate")
		}
		certs := make([]*x509.Certificate, len(raw))
		for i, b := range raw {
			x, err := x509.ParseCertificate(b)
			if err != nil {
				return fmt.Errorf("the server's certificate: %w", err)
			}
			certs[i] = x
		}
		opts := x509.VerifyOptions{Roots: roots, Intermediates: x509.NewCertPool()}
		for _, x := range certs[1:] {
			opts.Intermediates.AddCert(x)
		}
		_, err := certs[0].Verify(opts)
		return err
	}
}

// explain says a failed connection in one line where it is TLS's or the
// client certificate's doing: the handshake's failures (wire.TLS.Explain),
// a server that asks for a client certificate (cert auth: FATAL 28000) or
// refused the one given, one that takes TLS connections only, one that
// takes none.
func (c connTLS) explain(err error, asked *wire.CertAsked) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "28000" {
		switch {
		case strings.Contains(pe.Message, "requires a valid client certificate"):
			msg := "TLS: the server asks for a client certificate: set postgres.tls.cert and postgres.tls.key"
			if asked.NoneAccepted() { // the certificate given was not sent: its CA is not one the server names
				msg = asked.Line(c.TLS)
			}
			return &tlsLine{msg, err}
		case strings.Contains(pe.Message, "certificate authentication failed"):
			return &tlsLine{"TLS: the server refused the client certificate of postgres.tls.cert: its name is not the user's (postgres.user, or the URL's)", err}
		case strings.Contains(pe.Message, "no encryption") && strings.Contains(pe.Message, "pg_hba.conf"):
			return &tlsLine{"the server takes TLS connections only: set postgres.tls.ca (or postgres.tls=true), or sslmode=verify-full", err}
		}
	}
	if strings.Contains(err.Error(), "server refused TLS connection") {
		return &tlsLine{"TLS: the server does not take TLS connections (set postgres.tls=false, or the address of a server that does)", err}
	}
	return asked.Explain(c.TLS, err)
}

// tlsLine is a failed connection said in one line; Unwrap gives pgx's
// error.
type tlsLine struct {
	msg string
	err error
}

func (e *tlsLine) Error() string { return e.msg }
func (e *tlsLine) Unwrap() error { return e.err }
