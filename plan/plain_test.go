package plan

import (
	"regexp"
	"strings"
	"testing"
)

// plain reads a name as the expression ^\PC{lo,hi}$ did: control and
// format characters refused, bytes that are not UTF-8 one character each,
// the length counted in characters.
func TestPlainAsTheExpression(t *testing.T) {
	inputs := []string{"", "s1", "€", "EUR", "12345678", "123456789", "a\tb", "a\x00", "a\u200bb", "\u202e", "\xff\xfe",
		"日本語", strings.Repeat("x", 100), strings.Repeat("x", 101), strings.Repeat("é", 100), strings.Repeat("é", 101), "a\nb", "\U0001F600"}
	for _, c := range []struct{ lo, hi int }{{0, 100}, {1, 8}} {
		re := regexp.MustCompile(`^\PC{` + itoa(c.lo) + `,` + itoa(c.hi) + `}$`)
		for _, s := range inputs {
			if got, want := plain(s, c.lo, c.hi), re.MatchString(s); got != want {
				t.Errorf("plain(%q, %d, %d) = %v, the expression says %v", s, c.lo, c.hi, got, want)
			}
		}
	}
}

func itoa(n int) string {
	if n >= 10 {
		return itoa(n/10) + string(rune('0'+n%10))
	}
	return string(rune('0' + n))
}
