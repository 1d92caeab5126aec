package redis

import (
	"testing"

	"github.com/servbench/servbench/props"
)

// A redis.url's user and password are percent-decoded as in any URL (the
// server was sent Pw%40ss%3AW0rd%21x for Pw@ss:W0rd!x); one that is no
// valid encoding is kept as written; the decoded password is hidden
// wherever it is written.
func TestURLUserinfoDecoded(t *testing.T) {
	for _, c := range []struct{ url, user, pass string }{
		{"redis://u%2Bme:Pw%40ss%3AW0rd%21x@127.0.0.1:6379", "u+me", "Pw@ss:W0rd!x"},
		{"redis://:only%25pw@127.0.0.1:6379", "", "only%pw"},
		{"redis://bad%zzpass@127.0.0.1:6379", "", "bad%zzpass"},
		{"rediss://default:plain@127.0.0.1:6379/2", "default", "plain"},
	} {
		var cfg config
		if err := cfg.parseURL(c.url); err != nil || cfg.username != c.user || cfg.password != c.pass {
			t.Errorf("%s: user %q password %q, %v; want %q %q", c.url, cfg.username, cfg.password, err, c.user, c.pass)
		}
	}
	if got := (*props.Redactor)(nil).HideKnown("[Pw@ss:W0rd!x]"); got != "[REDACTED]" {
		t.Errorf("the decoded password: %q", got)
	}
}
