package relay

import (
	"strings"
	"testing"
)

// What a process says on stderr is passed on with the secrets the rules
// find in it hidden, and those its own command line and environment
// carry wherever it repeats them (a line cut across writes too); its
// control characters escaped, lines kept; past Max, dropped and counted.
func TestStderrHidesBoundsEscapes(t *testing.T) {
	var out strings.Builder
	s := New(&out, "the plugin p", []string{"p", "--password=hunterArg1"}, []string{"HOME=/h", "MYPASSWORD=hunterEnv1"})
	for _, w := range []string{"login failed for token hunt", "erEnv1 (arg --password=hunterArg1)\n", "token=hunterOwn1 \x1b[31m\n", "no newline"} {
		s.Write([]byte(w))
	}
	s.End()
	want := "login failed for token REDACTED (arg --password=REDACTED\ntoken=REDACTED \\x1b[31m\nno newline\n"
	if got := out.String(); got != want {
		t.Errorf("said:\n%q\nwant\n%q", got, want)
	}
	out.Reset()
	s = New(&out, "the plugin p", nil, nil)
	s.Write([]byte(strings.Repeat("x", Max+10) + "\n"))
	s.End()
	if got := out.String(); len(got) > Max+200 || !strings.HasSuffix(got, "servbench: the plugin p said 11 bytes more on stderr, not shown\n") {
		t.Errorf("past the bound: %d bytes, ending %q", len(got), got[max(0, len(got)-100):])
	}
}
