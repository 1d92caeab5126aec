package result

import (
	"bytes"
	"testing"
)

// FuzzDecode: any input is a document or an error, never a panic; a
// document's histograms decode or fail cleanly, it merges with itself,
// and it writes out and reads back to the same text.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"format":"servbench-result","version":2,"ops":[{"name":"READ","count":1,"outcomes":{"OK":1},"histograms":{"OK":"HISTFAAAACF4nJNpmSzMwMDAzAABzFCaEUzOmPTIHsKE8ViYAD5YA4E="}}]}`))
	f.Add([]byte(`{"format":"servbench-result","start":"2026-01-01T00:00:00Z","end":"2026-01-01T00:00:10Z","timeseries":[{"start_s":0,"end_s":10,"operations":5}]}`))
	f.Add([]byte(`{"format":"other"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, err := Decode(raw)
		if err != nil {
			return
		}
		for _, op := range d.Ops {
			for _, h := range op.Histograms {
				DecodeHistogram(h)
			}
		}
		Merge([]*Doc{d, d})
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
