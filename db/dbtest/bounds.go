package dbtest

import (
	"context"
	"encoding/binary"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
)

// SizeBounded checks that a binding's size properties (pool sizes,
// connection counts) are refused past db.MaxConnections, in one line
// naming the property and the bound, when the run is checked: before any
// memory is given to them (mongodb.poolsize=100000000000 ran out of
// memory). kv are the properties the binding needs besides.
func SizeBounded(t *testing.T, binding string, keys []string, kv ...string) {
	t.Helper()
	b, err := db.Lookup(binding)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range keys {
		done := make(chan error, 1)
		go func() {
			_, err := b.Open(context.Background(), Props(append([]string{key, "100000000000"}, kv...)...), db.Options{Threads: 1, CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}})
			done <- err
		}()
		select {
		case err := <-done:
			want := "property " + key + ": 100000000000 is more than 65535"
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s=100000000000: %v, want %q", key, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s=100000000000: no answer within 10 s", key)
		}
		if _, err := b.Open(context.Background(), Props(append([]string{key, "65535"}, kv...)...), db.Options{Threads: 1, CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}}); err != nil {
			t.Errorf("%s=65535: %v", key, err)
		}
	}
}

// URLSizeBounded checks that the counts a connection string names (pool
// sizes, connection counts: options) are refused past db.MaxConnections
// as the properties are, in one line naming key (the property holding
// the string) and the option, when the run is checked. conn holds one
// %s, replaced by option=value.
func URLSizeBounded(t *testing.T, binding, key, conn string, options []string, kv ...string) {
	t.Helper()
	b, err := db.Lookup(binding)
	if err != nil {
		t.Fatal(err)
	}
	open := func(option, value string) error {
		done := make(chan error, 1)
		go func() {
			_, err := b.Open(context.Background(), Props(append([]string{key, fmt.Sprintf(conn, option+"="+value)}, kv...)...), db.Options{Threads: 1, CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}})
			done <- err
		}()
		select {
		case err := <-done:
			return err
		case <-time.After(10 * time.Second):
			t.Fatalf("%s=%s: no answer within 10 s", option, value)
			return nil
		}
	}
	for _, option := range options {
		err := open(option, "100000000")
		want := "property " + key + ": " + option + "=100000000 is more than 65535"
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=100000000: %v, want %q", option, err, want)
		}
		if err := open(option, "65535"); err != nil {
			t.Errorf("%s=65535: %v", option, err)
		}
	}
}

// NestedBSON is the BSON document {a: {a: ... {x: 1}}}, depth documents
// deep, made in one pass (a server's answer that a decoder's recursion
// would follow a level at a time).
func NestedBSON(depth int) []byte {
	var doc []byte
	for d := depth; d > 1; d-- {
		doc = binary.LittleEndian.AppendUint32(doc, uint32(12+8*(d-1)))
		doc = append(doc, 0x03, 'a', 0)
	}
	doc = append(doc, 12, 0, 0, 0, 0x10, 'x', 0, 1, 0, 0, 0, 0)
	return append(doc, make([]byte, depth-1)...)
}
