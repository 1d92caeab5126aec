package result

import (
	"bytes"
	"testing"
)

// FuzzDecode: any input is a valid document or an error, never a panic
// nor a huge allocation; a document's histograms decode or fail cleanly,
// and it writes out and reads back to the same text.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"format":"servbench-result","version":2,"ops":[{"name":"READ","count":1,"outcomes":{"OK":1},"histograms":{"OK":"HISTFAAAACF4nJNpmSzMwMDAzAABzFCaEUzOmPTIHsKE8ViYAD5YA4E="}}]}`))
	f.Add([]byte(goodDoc))
	f.Add([]byte(`{"format":"servbench-result","version":2,"start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:10Z","timeseries":[{"start_s":0,"end_s":10,"operations":5}]}`))
	f.Add([]byte(`{"format":"other"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := Decode(raw)
		if err != nil {
			return
		}
		if err := d.Validate(); err != nil {
			t.Fatalf("Decode returned a document that does not validate: %v", err)
		}
		for _, op := range d.Ops {
			for _, h := range op.Histograms {
				DecodeHistogram(h)
			}
		}
		var a, b bytes.Buffer
		if err := WriteJSON(&a, d); err != nil {
			t.Fatalf("write: %v", err)
		}
		again, err := Decode(a.Bytes())
		if err != nil {
			t.Fatalf("a written document does not read back: %v\n%s", err, a.Bytes())
		}
		if err := WriteJSON(&b, again); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("round trip changed the document:\n%s\n%s", a.Bytes(), b.Bytes())
		}
	})
}

// FuzzMerge: any two valid documents merge or fail cleanly, and what a
// merge returns is itself a valid document whose operations are the sum
// of theirs.
func FuzzMerge(f *testing.F) {
	f.Add([]byte(goodDoc), []byte(goodDoc))
	f.Add([]byte(goodDoc), []byte(`{"format":"servbench-result","version":2,"operations":9223372036854775807,"ok_operations":1,"ops":[{"name":"READ","count":1,"outcomes":{"OK":1}}]}`))
	f.Fuzz(func(t *testing.T, x, y []byte) {
		a, err := Decode(x)
		if err != nil {
			return
		}
		b, err := Decode(y)
		if err != nil {
			return
		}
		m, err := Merge([]*Doc{a, b})
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("a merge does not validate: %v", err)
		}
		if m.Operations != a.Operations+b.Operations {
			t.Fatalf("merged %d operations from %d and %d", m.Operations, a.Operations, b.Operations)
		}
	})
}
