package customer

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
)

func document(t *testing.T, g *Generator, n int64) (map[string]any, []byte) {
	t.Helper()
	var r db.Record
	g.Document(&r, n)
	if !r.JSON {
		t.Fatal("a document must be marked JSON")
	}
	text := jsondoc.AppendObject(nil, &r)
	var m map[string]any
	if err := json.Unmarshal(text, &m); err != nil {
		t.Fatalf("document %d is not JSON: %v\n%s", n, err, text)
	}
	return m, text
}

// Record n is the same document on every machine, in every run: the text
// of one document is pinned, and two generators agree on others.
func TestDeterministic(t *testing.T) {
	_, text := document(t, New(DefaultNotesLength), 12345)
	sum := sha256.Sum256(text)
	const want = "7880d7a9477634e5d3d436617873d18d3802b0b7d6f82e472e38f7cdb2aefef3"
	if got := hex.EncodeToString(sum[:]); got != want {
		t.Errorf("document 12345 changed: sha256 %s (len %d)", got, len(text))
	}
	a, b := New(DefaultNotesLength), New(DefaultNotesLength)
	var ra, rb db.Record
	for n := int64(0); n < 200; n++ {
		a.Document(&ra, n)
		b.Document(&rb, 199-n) // b's state differs from a's
		b.Document(&rb, n)
		if string(jsondoc.AppendObject(nil, &ra)) != string(jsondoc.AppendObject(nil, &rb)) {
			t.Fatalf("document %d differs between generators", n)
		}
	}
}

// Every field of the template is there with its type and range, and the
// country is the one Country(n) computes.
func TestFieldsAndRanges(t *testing.T) {
	g := New(DefaultNotesLength)
	guid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	device := regexp.MustCompile(`^[ABC]{2}-[0-9]$`)
	dob := regexp.MustCompile(`^19[89][0-9]-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$`)
	var size int
	const docs = 2000
	for n := int64(0); n < docs; n++ {
		m, text := document(t, g, n)
		size += len(text)
		if len(m) != len(Fields) {
			t.Fatalf("document %d has %d fields, want %d", n, len(m), len(Fields))
		}
		addr := m["address"].(map[string]any)
		if addr["country"] != Country(n) {
			t.Fatalf("document %d: country %v, Country(n) %s", n, addr["country"], Country(n))
		}
		prev := addr["prev_address"].(map[string]any)
		if _, ok := prev["property_current_owner"].(map[string]any); !ok {
			t.Fatalf("document %d: prev_address without its owner", n)
		}
		if m["doc_id"].(float64) != float64(n) || !guid.MatchString(m["gid"].(string)) || !dob.MatchString(m["dob"].(string)) {
			t.Fatalf("document %d: doc_id %v gid %v dob %v", n, m["doc_id"], m["gid"], m["dob"])
		}
		if s := m["linear_score"].(float64); s < 0 || s > 100 {
			t.Fatalf("linear_score %v", s)
		}
		if s := m["weighted_score"].(float64); s < 0 || s > 100 {
			t.Fatalf("weighted_score %v", s)
		}
		devs := m["devices"].([]any)
		if len(devs) < 2 || len(devs) > 6 || !device.MatchString(devs[0].(string)) {
			t.Fatalf("devices %v", devs)
		}
		if l := len(m["linked_devices"].([]any)); l < 3 || l > 6 {
			t.Fatalf("linked_devices %v", m["linked_devices"])
		}
		if l := len(m["children"].([]any)); l > 5 {
			t.Fatalf("children %d", l)
		}
		if l := len(m["visited_places"].([]any)); l < 1 || l > 4 {
			t.Fatalf("visited_places %d", l)
		}
		want := "://www." + m["url_site"].(string) + "." + m["url_domain"].(string) + "/" + m["first_name"].(string)
		if m["url"] != m["url_protocol"].(string)+want {
			t.Fatalf("url %v does not follow its parts", m["url"])
		}
		age := m["age_by_group"].(float64)
		for i, gname := range ageGroups {
			if m["age_group"] == gname && (age < float64(ageRanges[i][0]) || age > float64(ageRanges[i][1])) {
				t.Fatalf("age %v in group %s", age, gname)
			}
		}
	}
	if avg := size / docs; avg < 3700 || avg > 4500 {
		t.Errorf("average document %d bytes, want about 4 KB", avg)
	}
	m, _ := document(t, New(0), 7)
	if _, ok := m["notes"]; ok || len(m) != len(Fields)-1 {
		t.Errorf("notelength 0 still writes notes")
	}
}

// address.country is uniform over the 30 countries (chi-square, 29
// degrees of freedom, 0.999 level).
func TestCountryUniform(t *testing.T) {
	var counts [30]float64
	const n = 300000
	for i := int64(0); i < n; i++ {
		counts[CountryIndex(i)]++
	}
	var x float64
	for _, c := range counts {
		x += (c - n/30) * (c - n/30) / (n / 30)
	}
	if x > 58.3 {
		t.Errorf("chi-square %.1f: %v", x, counts)
	}
}

// Updates change only updatable fields, with valid JSON, and a document
// built after an update is unchanged (the generator keeps no state).
func TestUpdate(t *testing.T) {
	g := New(DefaultNotesLength)
	var r db.Record
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 500; i++ {
		g.Update(&r, Updatable, rnd.Uint64())
		if r.Len() != len(Updatable) || !r.JSON {
			t.Fatalf("%d fields", r.Len())
		}
		for _, f := range r.Fields() {
			if f.Name == "address" || f.Name == "doc_id" {
				t.Fatalf("update changes %s", f.Name)
			}
			if !json.Valid(f.Value) {
				t.Fatalf("%s = %s is not JSON", f.Name, f.Value)
			}
		}
	}
	_, a := document(t, New(DefaultNotesLength), 99)
	_, b := document(t, g, 99)
	if string(a) != string(b) {
		t.Error("an update changed the next document")
	}
}

func BenchmarkDocument(b *testing.B) {
	g := New(DefaultNotesLength)
	var r db.Record
	b.ReportAllocs()
	n := int64(0)
	for b.Loop() {
		g.Document(&r, n)
		n++
	}
}
