package mongodb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

// The pool's size is bounded before the driver is given it.
func TestSizeBounded(t *testing.T) {
	dbtest.SizeBounded(t, "mongodb", []string{"mongodb.poolsize"})
}

// The counts mongodb.url names are bounded as mongodb.poolsize is
// (maxConnecting=100000000 took 2.4 GB).
func TestURLSizeBounded(t *testing.T) {
	dbtest.URLSizeBounded(t, "mongodb", "mongodb.url", "mongodb://127.0.0.1:1/?%s", []string{"maxPoolSize", "minPoolSize", "maxConnecting"})
}

// The URL's maxPoolSize is the pool's size: 0 (the driver's "no limit")
// is refused, as is a mongodb.poolsize that says otherwise, each in one
// line naming mongodb.url (0 was accepted; any count was silently
// replaced by mongodb.poolsize's default).
func TestURLMaxPoolSize(t *testing.T) {
	b, err := db.Lookup("mongodb")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"mongodb.url", "mongodb://127.0.0.1:1/?maxPoolSize=0"}, "property mongodb.url: maxPoolSize=0 is no limit to the connections"},
		{[]string{"mongodb.url", "mongodb://127.0.0.1:1/?maxPoolSize=5", "mongodb.poolsize", "7"}, "property mongodb.url: maxPoolSize=5, but mongodb.poolsize=7: give one"},
		{[]string{"mongodb.url", "mongodb://127.0.0.1:1/?maxPoolSize=5", "mongodb.poolsize", "5"}, ""},
		{[]string{"mongodb.url", "mongodb://127.0.0.1:1/?maxpoolsize=9"}, ""},
	} {
		_, err := b.Open(context.Background(), dbtest.Props(c.kv...), db.Options{Threads: 1, CheckOnly: true, Schema: db.Schema{Fields: []string{"field0"}}})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%v: %v, want %q", c.kv, err, c.want)
		}
	}
}
