package redis

import (
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"CONFIG SET a b", "CONFIG|SET|a|b"},
		{`SET "a b" 'c d'`, "SET|a b|c d"},
		{`SET k "say \"hi\""`, `SET|k|say "hi"`},
		{`SET k ''`, "SET|k|"},
		{"  PING\t\n", "PING"},
	} {
		got, err := splitCommand(tc.in)
		if err != nil || strings.Join(got, "|") != tc.want {
			t.Errorf("%q: %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "  ", `GET "open`} {
		if _, err := splitCommand(bad); err == nil {
			t.Errorf("%q split without an error", bad)
		}
	}
}
