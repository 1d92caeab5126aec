// Package format writes numbers as people read them on consoles and
// pages: counts with thousands separators, byte sizes in KiB, MiB and GiB;
// and text from peers as a terminal may show it (Printable).
// It depends on nothing, so that what only reads results (report, plan)
// links no runner, workload or driver to print a number.
package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Thousands writes n with thousands separators: 1,234,567.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	digits := strings.TrimPrefix(s, "-")
	var b []byte
	if len(digits) < len(s) {
		b = append(b, '-')
	}
	for i, c := range []byte(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return string(b)
}

// Round writes v rounded to a whole number with thousands separators
// (1,234,567), for figures read from outside (results, imports, a plan's
// published figures): one too large for 64 bits is written in exponent
// form (1.000e+308), never through a conversion that overflows (it showed
// 1e308 negative); NaN and infinities as strconv writes them.
func Round(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 1e18:
		return strconv.FormatFloat(v, 'e', 3, 64)
	}
	return Thousands(int64(math.Round(v)))
}

// Bytes writes a size: exact sizes as 16 MiB, 4 KiB or 100 bytes; others
// rounded, 286.1 GiB, 300 MiB.
func Bytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		switch {
		case n >= u.size && n%u.size == 0:
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		case n >= u.size:
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}

// Printable is text from a peer (a client's failure, its host's name, a
// line it wrote) as it may be printed on a terminal: control characters
// (C0, DEL, C1: ESC among them) and the Unicode formats that hide or
// reorder text (U+200B-U+200F, U+202A-U+202E, U+2066-U+2069, ...) are
// escaped as in Go (\x1b, \u202e), bytes that are not UTF-8 as \xNN.
func Printable(s string) string {
	var b strings.Builder
	for k := 0; k < len(s); {
		r, n := utf8.DecodeRuneInString(s[k:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[k])
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r > 0xffff && unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, `\U%08x`, r)
		case r >= 0x80 && r <= 0x9f || r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[k : k+n])
		}
		k += n
	}
	return b.String()
}

// Wrap is text's words filled into lines of at most width bytes (a
// longer word stands alone), each ending in a newline: the first starts
// with lead padded to indent (lead on a line of its own when it reaches
// indent), the others with indent spaces.
func Wrap(lead, text string, indent, width int) string {
	var b strings.Builder
	line := lead
	if lead != "" && len(lead) >= indent {
		b.WriteString(lead + "\n")
		line = ""
	}
	pad := strings.Repeat(" ", indent)
	line += pad[:indent-len(line)]
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > width && len(line) > indent {
			b.WriteString(line + "\n")
			line = pad
		} else if len(line) > indent && line[len(line)-1] != ' ' {
			line += " "
		}
		line += w
	}
	b.WriteString(line + "\n")
	return b.String()
}
