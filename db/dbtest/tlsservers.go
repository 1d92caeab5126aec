package dbtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servbench/servbench/internal/testcert"
)

// TLSCerts is the certificates scripts/servers started its TLS servers
// with (tools/testcert's files in SERVBENCH_TLS_DIR). Without the
// variable the test is skipped, as ServerURL does.
func TLSCerts(t testing.TB) testcert.Set {
	t.Helper()
	dir := ServerURL(t, "SERVBENCH_TLS_DIR")
	f := func(name string) string { return filepath.Join(dir, name) }
	s := testcert.Set{Dir: dir, CA: f("ca.pem"), ServerCert: f("server.pem"), ServerKey: f("server.key"),
		ClientCert: f("client.pem"), ClientKey: f("client.key"), OtherCA: f("other-ca.pem"),
		OtherCert: f("other-client.pem"), OtherKey: f("other-client.key"), WrongName: f("wrong-name.pem"), WrongNameKey: f("wrong-name.key")}
	if _, err := os.Stat(s.CA); err != nil {
		t.Fatalf("SERVBENCH_TLS_DIR: %v (scripts/servers start makes the certificates)", err)
	}
	return s
}

// TLSRefused checks that a refused connection's error is one line that
// holds each of want (the properties to set), and names no key file nor
// quotes a key: what a user sees when the TLS of a connection fails.
func TLSRefused(t testing.TB, what string, err error, certs testcert.Set, want ...string) {
	t.Helper()
	if err == nil {
		t.Errorf("%s: connected, want a refusal", what)
		return
	}
	msg := err.Error()
	t.Logf("%s: %s", what, msg)
	if strings.Contains(msg, "\n") {
		t.Errorf("%s: %d lines, want one: %s", what, strings.Count(msg, "\n")+1, msg)
	}
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("%s: %s\nwant it to say %q", what, msg, w)
		}
	}
	for _, key := range []string{certs.ClientKey, certs.OtherKey, certs.ServerKey} {
		if strings.Contains(msg, key) || strings.Contains(msg, filepath.Base(key)) {
			t.Errorf("%s: the error names a key file: %s", what, msg)
		}
		if b, err := os.ReadFile(key); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if len(line) > 20 && !strings.HasPrefix(line, "-----") && strings.Contains(msg, line) {
					t.Errorf("%s: the error quotes a key: %s", what, msg)
				}
			}
		}
	}
}
