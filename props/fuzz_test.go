package props

import (
	"strings"
	"testing"
)

// FuzzParse: any property file is properties or an error of one line
// naming the file, never a panic; every key parsed has a value and a
// source line in the file.
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
	})
}
