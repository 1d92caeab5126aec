package dynamodb

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servbench/servbench/props"
)

// What a credential_process says on stderr is passed on bounded (64 KiB),
// its control characters escaped, with the secrets the rules find in it
// hidden and those its command line and environment carry wherever it
// repeats them (it was passed on raw and whole).
func TestCredentialProcessStderrHidden(t *testing.T) {
	t.Setenv("MYPASSWORD", "hunterEnv2x")
	var said strings.Builder
	p := processCreds{ctx: context.Background(), stderr: &said,
		command: `f() { printf 'cp: bad token=hunterCp2x \033[31m env %s arg %s\n' "$MYPASSWORD" "$1" >&2; head -c 100000 /dev/zero | tr '\0' x >&2; exit 1; }; f hunterCp4x --password=hunterCp4x`}
	if _, err := p.Retrieve(context.Background()); err == nil {
		t.Fatal("a failing credential_process gave credentials")
	}
	got := said.String()
	first, _, _ := strings.Cut(got, "\n")
	if first != `cp: bad token=REDACTED \x1b[31m env REDACTED arg REDACTED` || len(got) > 70<<10 || !strings.Contains(got, "more on stderr, not shown") {
		t.Errorf("said %d bytes, first line %q, ending %q", len(got), first, got[max(0, len(got)-100):])
	}
}

// The keys a profile's shared credentials file gives, and those a
// credential_process prints, are secrets for every writer: an endpoint's
// error quoting them showed them.
func TestSharedFileKeysAreSecrets(t *testing.T) {
	dir := t.TempDir()
	cred := filepath.Join(dir, "credentials")
	if err := os.WriteFile(cred, []byte("[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = Sec7sharedFile\naws_session_token = Tok7sharedFile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := creds{credentialsFile: cred, configFile: filepath.Join(dir, "config")}
	if err := c.checkSSOCache(context.Background(), true); err != nil {
		t.Fatal(err)
	}
	p := processCreds{ctx: context.Background(), stderr: io.Discard,
		command: `printf '{"Version":1,"AccessKeyId":"AKIAX","SecretAccessKey":"Sec7process","SessionToken":"Tok7process"}'`}
	if _, err := p.Retrieve(context.Background()); err != nil {
		t.Fatal(err)
	}
	got := (*props.Redactor)(nil).Redact("the endpoint said Sec7sharedFile Tok7sharedFile Sec7process Tok7process")
	if strings.Contains(got, "7") {
		t.Errorf("shown: %s", got)
	}
}
