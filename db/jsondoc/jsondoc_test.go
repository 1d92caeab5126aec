package jsondoc

import (
	"encoding/json"
	"testing"

	"github.com/servbench/servbench/db"
)

func TestJSONLookup(t *testing.T) {
	doc := []byte(` { "a" : 1, "s": "x,}\"]", "arr": [1, {"k": "v"}, [2]], "address": {"city": "Paris", "country": "France", "prev": {"country": "Spain"}}, "e\u0073c": "y" } `)
	for _, tc := range []struct {
		path []string
		want string
		ok   bool
	}{
		{[]string{"a"}, "1", true},
		{[]string{"s"}, `"x,}\"]"`, true},
		{[]string{"address", "country"}, `"France"`, true},
		{[]string{"address", "prev", "country"}, `"Spain"`, true},
		{[]string{"arr"}, `[1, {"k": "v"}, [2]]`, true},
		{[]string{"esc"}, `"y"`, true},
		{[]string{"address", "zip"}, "", false},
		{[]string{"a", "b"}, "", false},
		{[]string{"missing"}, "", false},
	} {
		got, ok := Lookup(doc, tc.path)
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("%v: %q %v, want %q %v", tc.path, got, ok, tc.want, tc.ok)
		}
	}
	if _, ok := Lookup([]byte(`{"a": `), []string{"a"}); ok {
		t.Error("malformed text gave a value")
	}
	if string(Text([]byte(`"a\"b"`))) != `a"b` || string(Text([]byte(`12`))) != "12" {
		t.Error("Text")
	}
}

func TestFieldValueAndDocuments(t *testing.T) {
	var r db.Record
	r.JSON = true
	r.Add("address", []byte(`{"country":"United Kingdom"}`))
	r.Add("name", []byte(`"Ann"`))
	if v, ok := FieldValue(&r, []string{"address", "country"}); !ok || string(v) != "United Kingdom" {
		t.Errorf("nested: %q %v", v, ok)
	}
	if v, _ := FieldValue(&r, []string{"name"}); string(v) != "Ann" {
		t.Errorf("top-level JSON string: %q", v)
	}
	obj := AppendObject(nil, &r)
	var m map[string]any
	if err := json.Unmarshal(obj, &m); err != nil || m["name"] != "Ann" {
		t.Errorf("object %s: %v", obj, err)
	}
	// A YCSB record becomes an object of strings, escaped.
	var y db.Record
	y.Add("field0", []byte("a\"b\\c\n"))
	if err := json.Unmarshal(AppendObject(nil, &y), &m); err != nil || m["field0"] != "a\"b\\c\n" {
		t.Errorf("YCSB record: %v %v", m, err)
	}

	// Reading back: an all-string document gives plain values (nulls left
	// out); any other document gives JSON texts.
	var back db.Record
	if err := AddDocument(&back, []byte(`{"_id":"k","field0":"v\"w","field1":null}`), func(n []byte) bool { return string(n) != "_id" }); err != nil {
		t.Fatal(err)
	}
	if back.JSON || back.Len() != 1 || string(back.Fields()[0].Value) != `v"w` {
		t.Errorf("YCSB document read back as %+v", back.Fields())
	}
	back.Reset()
	if err := AddDocument(&back, []byte(`{"doc_id":7,"middle_name":null,"address":{"country":"Malta"}}`), nil); err != nil {
		t.Fatal(err)
	}
	if !back.JSON || back.Len() != 3 {
		t.Fatalf("document read back as %+v", back.Fields())
	}
	if v, _ := FieldValue(&back, []string{"address", "country"}); string(v) != "Malta" {
		t.Errorf("country %q", v)
	}
	if err := AddDocument(&back, []byte(`[1]`), nil); err == nil {
		t.Error("an array was taken for a document")
	}
}
