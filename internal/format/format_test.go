package format

import "testing"

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", -1234567: "-1,234,567", 1 << 40: "1,099,511,627,776"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{16 << 20: "16 MiB", 4096: "4 KiB", 100: "100 bytes", 1500: "1.5 KiB",
		300 << 10: "300 KiB", 1_000_000 * (300 << 10): "286.1 GiB", 3 << 20: "3 MiB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// Text from a peer is printed with its control characters escaped, and
// the Unicode formats that hide or reorder text, and bytes that are not
// UTF-8.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain text, ünïcode ✓":    "plain text, ünïcode ✓",
		"\x1b[2J\x1b]0;t\x07":      `\x1b[2J\x1b]0;t\x07`,
		"a\x7fb\u009bc\u202ed\xff": `a\x7fb\u009bc\u202ed\xff`,
		"tab\there\r\n":            `tab\x09here\x0d\x0a`,
		"tag\U000e0041":            `tag\U000e0041`,
	} {
		if got := Printable(in); got != want {
			t.Errorf("Printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// Round writes whole numbers with separators, and one beyond 64 bits in
// exponent form, never negative.
func TestRound(t *testing.T) {
	for v, want := range map[float64]string{1234567.4: "1,234,567", -2.5: "-3", 1e308: "1.000e+308", -1e19: "-1.000e+19", 9.2e17: "920,000,000,000,000,000"} {
		if got := Round(v); got != want {
			t.Errorf("Round(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestWrap(t *testing.T) {
	for _, c := range []struct {
		lead, text    string
		indent, width int
		want          string
	}{
		{"  -x", "one two three", 8, 16, "  -x    one two\n        three\n"},
		{"  --a-long-flag", "one", 8, 16, "  --a-long-flag\n        one\n"},
		{"", "one two three four", 0, 9, "one two\nthree\nfour\n"},
		{"", "averyverylongword x", 0, 5, "averyverylongword\nx\n"},
	} {
		if got := Wrap(c.lead, c.text, c.indent, c.width); got != c.want {
			t.Errorf("Wrap(%q, %q, %d, %d) = %q, want %q", c.lead, c.text, c.indent, c.width, got, c.want)
		}
	}
}
