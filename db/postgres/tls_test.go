package postgres_test

import (
	"context"
	"errors"
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
	b, _ := db.Lookup("postgres")
	d, err := b.Open(context.Background(), dbtest.Props(append([]string{"postgres.connecttimeout", "5000"}, kv...)...), db.Options{Threads: 1})
	if err == nil {
		d.Close()
	}
	return err
}

// The TLS server (scripts/servers' postgres-tls takes TLS connections
// only, with a client certificate whose name is the user's) takes the
// client certificate: a record written over TLS reads back, the sampler
// reads pg_stat_database over the same TLS, and the bytes on the wire
// are counted. sslmode=verify-ca and require with the CA verify the
// chain, not the name.
func TestTLS(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_TLS_URL")
	certs := dbtest.TLSCerts(t)
	client := []string{"postgres.tls.ca", certs.CA, "postgres.tls.cert", certs.ClientCert, "postgres.tls.key", certs.ClientKey}
	d := dbtest.Open(t, "postgres", append([]string{"postgres.url", url}, client...)...)
	ctx := context.Background()
	if err := d.(db.Preparer).Prepare(ctx, "sbtls", true); err != nil {
		t.Fatal(err)
	}
	d.Delete(ctx, "sbtls", "k1")
	dbtest.OverTLS(t, d, "sbtls", "k1")
	for _, kv := range [][]string{
		{"postgres.url", url + "?sslmode=verify-full"},
		{"postgres.url", url + "?sslmode=verify-ca", "postgres.tls.servername", "elsewhere.invalid"},
		{"postgres.url", url + "?sslmode=require", "postgres.tls.servername", "localhost"},
		{"postgres.url", url + "?sslmode=prefer"},
		{"postgres.host", "127.0.0.1", "postgres.port", strings.TrimSuffix(strings.TrimPrefix(url, "postgres://postgres@127.0.0.1:"), "/postgres"), "postgres.sslmode", "verify-full"},
	} {
		if err := openErr(append(kv, client...)...); err != nil {
			t.Errorf("%v: %v", kv, err)
		}
	}
	// require with the CA verifies the chain as verify-ca does: another
	// CA's is refused.
	err := openErr("postgres.url", url+"?sslmode=require", "postgres.tls.ca", certs.OtherCA, "postgres.tls.cert", certs.ClientCert, "postgres.tls.key", certs.ClientKey)
	dbtest.TLSRefused(t, "require with another CA", err, certs, "postgres.tls.ca")
}

// Without a client certificate, with one another CA signed, against a CA
// that did not sign the server's certificate or a name it is not for, the
// connection is refused in one line that names the property to set.
func TestTLSRefused(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_TLS_URL")
	certs := dbtest.TLSCerts(t)
	client := []string{"postgres.tls.cert", certs.ClientCert, "postgres.tls.key", certs.ClientKey}
	for _, c := range append(dbtest.TLSRefusals("postgres", certs),
		dbtest.TLSRefusal{Name: "a certificate not the user's", KV: append([]string{"postgres.tls.ca", certs.CA}, client...),
			Want: []string{"TLS: the server refused the client certificate of postgres.tls.cert: its name is not the user's"}},
		dbtest.TLSRefusal{Name: "plain", KV: []string{"postgres.tls", "false"},
			Want: []string{"the server takes TLS connections only: set postgres.tls.ca"}}) {
		kv := append([]string{"postgres.url", url}, c.KV...)
		if c.Name == "a certificate not the user's" { // the user in the URL is postgres
			kv[1] = strings.Replace(url, "postgres@", "nobody@", 1)
		}
		dbtest.TLSRefused(t, c.Name, openErr(kv...), certs, c.Want...)
	}
	// A plain server asked for TLS.
	plain := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	dbtest.TLSRefused(t, "plain server", openErr("postgres.url", plain, "postgres.tls.ca", certs.CA), certs, "postgres.tls")
}

// The connection string and the TLS properties must agree: a conflict is
// refused before any connection, naming both.
func TestTLSConflicts(t *testing.T) {
	b, _ := db.Lookup("postgres")
	const u = "postgres://postgres@127.0.0.1:5432/postgres"
	for _, c := range []struct {
		kv   []string
		want []string
	}{
		{[]string{"postgres.url", u + "?sslmode=disable", "postgres.tls.ca", "ca.pem"}, []string{"postgres.url", "sslmode=disable", "postgres.tls.ca"}},
		{[]string{"postgres.url", u + "?sslmode=disable", "postgres.tls", "true"}, []string{"postgres.url", "postgres.tls"}},
		{[]string{"postgres.url", "host=127.0.0.1 sslmode=disable", "postgres.tls.servername", "db"}, []string{"postgres.url", "postgres.tls.servername"}},
		{[]string{"postgres.sslmode", "disable", "postgres.tls.ca", "ca.pem"}, []string{"postgres.sslmode", "postgres.tls.ca"}},
		{[]string{"postgres.url", u + "?sslmode=verify-full", "postgres.tls", "false"}, []string{"postgres.tls", "postgres.url"}},
		{[]string{"postgres.sslmode", "require", "postgres.tls", "false"}, []string{"postgres.tls", "postgres.sslmode"}},
		{[]string{"postgres.url", u + "?sslrootcert=/x/ca.pem", "postgres.tls.ca", "ca.pem"}, []string{"postgres.tls.ca", "postgres.url", "sslrootcert"}},
		{[]string{"postgres.url", u + "?sslcert=/x/c.pem&sslkey=/x/c.key", "postgres.tls.cert", "c.pem", "postgres.tls.key", "c.key"}, []string{"postgres.tls.cert", "postgres.url", "sslcert"}},
		{[]string{"postgres.url", u + "?sslmode=sure", "postgres.tls", "true"}, []string{"postgres.url", "sslmode=sure"}},
		// Said naming the property that holds it, TLS properties or not.
		{[]string{"postgres.sslmode", "bogus"}, []string{"property postgres.sslmode", "sslmode=bogus is not one of"}},
		{[]string{"postgres.url", u + "?sslmode=bogus"}, []string{"property postgres.url", "sslmode=bogus is not one of"}},
		{[]string{"postgres.port", "notaport"}, []string{"property postgres.port", "not a port"}},
	} {
		_, err := b.Open(context.Background(), dbtest.Props(c.kv...), db.Options{Threads: 1, CheckOnly: true})
		for _, w := range c.want {
			if err == nil || !strings.Contains(err.Error(), w) {
				t.Errorf("%v: %v, want an error naming %s", c.kv, err, w)
			}
		}
		if err != nil && strings.Contains(err.Error(), "/x/c.key") {
			t.Errorf("%v: the error names the key file: %v", c.kv, err)
		}
	}
	// What worked before still does: the URL's sslmode alone, and
	// postgres.sslmode.
	for _, kv := range [][]string{
		{"postgres.url", u + "?sslmode=disable"},
		{"postgres.url", u + "?sslmode=require"},
		{"postgres.url", u + "?sslmode=verify-full", "postgres.tls", "true"},
		{"postgres.sslmode", "prefer", "postgres.tls", "false"},
		{"postgres.url", u + "?sslmode=disable", "postgres.tls", "false"},
	} {
		if _, err := b.Open(context.Background(), dbtest.Props(kv...), db.Options{Threads: 1, CheckOnly: true}); err != nil {
			t.Errorf("%v: %v", kv, err)
		}
	}
}

// The files the URL names (sslrootcert, sslcert, sslkey, passfile,
// servicefile and the service file's entries), which pgx reads itself,
// whole: a key file that cannot be used is said without its path (pgx
// quotes the string and the file), a password neither; a named pipe with
// no writer is refused at once (pgx's read of it never ended), and a file
// over 4 MiB (a 3 GB one took 3.2 GB).
func TestURLFiles(t *testing.T) {
	t.Setenv("HOME", t.TempDir()) // no ~/.pgpass of the machine's
	b, _ := db.Lookup("postgres")
	dir := t.TempDir()
	certs, err := testcert.Make(dir, "servbench")
	if err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe-client.key")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	missing := filepath.Join(dir, "missing-client.key")
	big := filepath.Join(dir, "big-ca.pem") // sparse: no disk taken
	if f, err := os.Create(big); err == nil {
		f.Truncate(5 << 20)
		f.Close()
	}
	service := filepath.Join(dir, "pg_service.conf")
	os.WriteFile(service, []byte("[bench]\nhost=127.0.0.1\nsslrootcert="+fifo+"\n"), 0o600)
	const u = "postgres://postgres:hunter2x@127.0.0.1:5432/postgres?sslmode=verify-full&sslpassword=hunter3x"
	const noPassword = "postgres://u@127.0.0.1:5432/db?sslmode=disable"
	for _, c := range []struct {
		name, url string
		want      []string
	}{
		{"a password file in a pipe", noPassword + "&passfile=" + fifo, []string{"postgres.url", "passfile: the file it names: a named pipe"}},
		{"a service file in a pipe", noPassword + "&servicefile=" + fifo + "&service=bench", []string{"postgres.url", "servicefile " + fifo + ": a named pipe"}},
		{"a service file naming a pipe", noPassword + "&servicefile=" + service + "&service=bench", []string{"postgres.url", "sslrootcert in servicefile " + fifo + ": a named pipe"}},
		{"a service file in a pipe, keyword form", "host=127.0.0.1 user=u servicefile='" + fifo + "' service=bench", []string{"postgres.url", "servicefile " + fifo + ": a named pipe"}},
		{"a CA without end", u + "&sslrootcert=" + big, []string{"postgres.url", "sslrootcert " + big + ": 5242880 bytes, more than 4 MiB"}},
		{"a missing key", u + "&sslrootcert=" + certs.CA + "&sslcert=" + certs.ClientCert + "&sslkey=" + missing, []string{"postgres.url", "sslkey"}},
		{"another certificate's key", u + "&sslrootcert=" + certs.CA + "&sslcert=" + certs.ClientCert + "&sslkey=" + certs.OtherKey, []string{"postgres.url", "does not match"}},
		{"a key in a pipe", u + "&sslcert=" + certs.ClientCert + "&sslkey=" + fifo, []string{"postgres.url", "sslkey: the key file: a named pipe"}},
		{"a CA in a pipe", u + "&sslrootcert=" + fifo, []string{"postgres.url", "sslrootcert " + fifo + ": a named pipe"}},
		// pgx takes each backslash of a keyword/value setting for the
		// byte after it, quoted or not: f\o names fo.
		{"a pass file escaped, keyword form", "host=127.0.0.1 user=u passfile=" + fifo[:len(fifo)-1] + `\` + fifo[len(fifo)-1:], []string{"postgres.url", "passfile: the file it names: a named pipe"}},
		{"a service file escaped and quoted", "host=127.0.0.1 user=u servicefile='" + fifo[:len(fifo)-1] + `\` + fifo[len(fifo)-1:] + "' service=bench", []string{"postgres.url", "servicefile " + fifo + ": a named pipe"}},
	} {
		done := make(chan error, 1)
		go func() {
			_, err := b.Open(context.Background(), dbtest.Props("postgres.url", c.url), db.Options{Threads: 1, CheckOnly: true})
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
		for _, secret := range []string{missing, certs.OtherKey, "hunter2x", "hunter3x"} {
			if strings.Contains(msg, secret) {
				t.Errorf("%s: the error shows %s: %s", c.name, secret, msg)
			}
		}
		if !strings.Contains(strings.Join(c.want, " "), fifo) && strings.Contains(msg, fifo) {
			t.Errorf("%s: the error names the key file: %s", c.name, msg)
		}
	}
}

// The files pgx reads that the environment names (PGPASSFILE,
// PGSERVICEFILE, PGSSLROOTCERT, ...) and its defaults in the home
// directory (~/.pgpass) are checked as the URL's are.
func TestEnvironmentFiles(t *testing.T) {
	b, _ := db.Lookup("postgres")
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	home := t.TempDir()
	for _, c := range []struct {
		name, env, value, want string
	}{
		{"PGPASSFILE", "PGPASSFILE", fifo, "PGPASSFILE (environment): the file it names: a named pipe"},
		{"PGSERVICEFILE", "PGSERVICEFILE", fifo, "PGSERVICEFILE (environment) " + fifo + ": a named pipe"},
		{"PGSSLROOTCERT", "PGSSLROOTCERT", fifo, "PGSSLROOTCERT (environment) " + fifo + ": a named pipe"},
		{"~/.pgpass", "HOME", home, "~/.pgpass: the file it names: a named pipe"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			t.Setenv(c.env, c.value)
			if c.env == "HOME" {
				if err := syscall.Mkfifo(filepath.Join(home, ".pgpass"), 0o600); err != nil {
					t.Skip(err)
				}
			}
			done := make(chan error, 1)
			go func() {
				_, err := b.Open(context.Background(), dbtest.Props("postgres.url", "postgres://u@127.0.0.1:5432/db?sslmode=disable"), db.Options{Threads: 1, CheckOnly: true})
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(5 * time.Second):
				t.Fatal("no answer within 5s")
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want it to say %q", err, c.want)
			}
		})
	}
}

// A file pgx reads by default from the home directory (~/.pgpass) that
// is refused names no property: it is bad input (db.InputError), whichever
// properties are given (it was blamed on postgres.sslmode beside
// postgres.host, on postgres.url beside the URL).
func TestHomeFilesNameNoProperty(t *testing.T) {
	home := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(home, ".pgpass"), 0o600); err != nil {
		t.Skip(err)
	}
	t.Setenv("HOME", home)
	for _, kv := range [][]string{{"postgres.host", "127.0.0.1", "postgres.port", "1"}, {"postgres.url", "postgres://u@127.0.0.1:1/db"}} {
		err := openErr(kv...)
		var ie *db.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "postgres: ~/.pgpass: the file it names: a named pipe") || strings.Contains(err.Error(), "property") {
			t.Errorf("%v: %v", kv, err)
		}
	}
}
