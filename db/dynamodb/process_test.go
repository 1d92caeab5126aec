package dynamodb

import (
	"context"
	"strings"
	"testing"
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
