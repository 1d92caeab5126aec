package redis

import (
	"strings"
	"testing"

	"github.com/servbench/servbench/props"
)

// A reply of settings by name is written name=value: a setting whose name
// says a secret is hidden (and known) by the redaction every answer goes
// through, in either protocol's form; ACL GETUSER's password hashes are
// hidden where they stand; the rest stays readable.
func TestFormatReplyHidesSecretSettings(t *testing.T) {
	for _, c := range []struct {
		args  []string
		reply any
		want  string
	}{
		{[]string{"CONFIG", "GET", "tls-key-file-pass"}, []any{"tls-key-file-pass", "hunter1x"}, "tls-key-file-pass=REDACTED"},
		{[]string{"config", "get", "*"}, map[string]any{"requirepass": "hunter2x", "masterauth": "hunter3x", "save": "3600 1 300 100", "maxclients": "10000"},
			`masterauth=REDACTED maxclients=10000 requirepass=REDACTED save="3600 1 300 100"`},
		{[]string{"CONFIG", "GET", "requirepass"}, []any{"requirepass", "hunter 4x"}, "requirepass=REDACTED"},
		{[]string{"ACL", "GETUSER", "bench"}, []any{"flags", []any{"on"}, "passwords", []any{strings.Repeat("ab", 32)}, "commands", "+@all"},
			"flags=[on] passwords=[REDACTED] commands=+@all"},
		{[]string{"LRANGE", "k", "0", "-1"}, []any{"password", "x"}, "[password x]"},
	} {
		got := formatReply(c.args, c.reply)
		var r props.Redactor
		r.Hidden(got)
		if red := props.RedactText(got); red != c.want {
			t.Errorf("%v: %q redacted %q, want %q", c.args, got, red, c.want)
		}
		for _, s := range []string{"hunter1x", "hunter2x", "hunter3x", "hunter 4x"} {
			if strings.Contains(got, s) && r.HideKnown(s) != props.Redacted {
				t.Errorf("%v: %s not known from %q", c.args, s, got)
			}
		}
	}
}
