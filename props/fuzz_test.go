package props

import (
	"strings"
	"testing"
)

// FuzzParse: any property file is properties or an error of one line
// naming the file, never a panic; every key parsed has a value and a
// source line in the file; written back, it reads the same.
func FuzzParse(f *testing.F) {
	f.Add("recordcount=1000\nfieldcount: 20\nlabel hello world\n")
	f.Add("long=a\\\n   b\\\n   c\nesc=tab\\there\\u0041\nodd\\=key=v\n")
	f.Add("bad=\\u12\n")
	f.Add("=novalue\n")
	f.Fuzz(func(t *testing.T, text string) {
		p := New()
		err := p.Parse(strings.NewReader(text), "w.properties")
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "w.properties:") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: want one line starting with the file's name", msg)
			}
			return
		}
		for _, k := range p.Keys() {
			if k == "" {
				t.Fatal("an empty key was accepted")
			}
			if !strings.HasPrefix(p.Source(k), "w.properties:") {
				t.Fatalf("key %q has source %q", k, p.Source(k))
			}
		}
		// What was read, written and read again is the same (a spread
		// phase's clients get their properties this way).
		var b strings.Builder
		if err := p.Write(&b); err != nil {
			t.Fatal(err)
		}
		q := New()
		if err := q.Parse(strings.NewReader(b.String()), "again"); err != nil {
			t.Fatalf("written %q, read back: %v", b.String(), err)
		}
		for _, k := range p.Keys() {
			want, _ := p.Get(k)
			if got, ok := q.Get(k); !ok || got != want {
				t.Fatalf("%q: read back %q, want %q from %q", k, got, want, b.String())
			}
		}
		if len(q.Keys()) != len(p.Keys()) {
			t.Fatalf("%d keys read back, want %d: %q", len(q.Keys()), len(p.Keys()), b.String())
		}
	})
}
