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

// FuzzRedact: any text is redacted, and what the rules hide in it made
// known, without a panic; a known secret is never shorter than minKnown.
func FuzzRedact(f *testing.F) {
	f.Add("mongodb://u:p@h/?authMechanismProperties=SERVICE_NAME:x,AWS_SESSION_TOKEN:hunter1x&tls=true")
	f.Add(`mongosh --eval 'db.createUser({user:"u",pwd:"hunter2x"})'; docker login -p hunter3x r`)
	f.Add("kubectl create secret generic x --from-literal=password=hunter4x --set=a.b=c=d")
	f.Add("openssl rsa -passin pass:hunter5x; aws configure set aws_secret_access_key hunter6x")
	f.Add("a=%3A%2C,b:c,d:e%2")
	f.Fuzz(func(t *testing.T, text string) {
		RedactText(text)
		var r Redactor
		r.Hidden(text)
		for _, v := range r.known {
			if len(v) < minKnown {
				t.Fatalf("%q known", v)
			}
		}
		r.Redact(text)
	})
}
