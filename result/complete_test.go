package result

import (
	"strings"
	"testing"
)

func clientDoc(kv ...string) *Doc {
	d := &Doc{Properties: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		d.Properties[kv[i]] = kv[i+1]
	}
	return d
}

// The results of a spread phase merge only when every client is there,
// once; results of runs that were not spread merge as before.
func TestComplete(t *testing.T) {
	c := func(i string) *Doc { return clientDoc("clients", "3", "clientindex", i) }
	for _, tc := range []struct {
		docs []*Doc
		want string // "" = accepted
	}{
		{[]*Doc{c("0"), c("1"), c("2")}, ""},
		{[]*Doc{c("2"), c("0"), c("1")}, ""},
		{[]*Doc{clientDoc(), clientDoc()}, ""},
		{[]*Doc{c("0"), c("2")}, "2 of 3 clients: client 1 missing"},
		{[]*Doc{c("0"), c("1"), c("1")}, "results 2 and 3 are both client 1"},
		{[]*Doc{c("0"), clientDoc()}, "result 2 is not a client of the same spread phase"},
		{[]*Doc{c("0"), clientDoc("clients", "4", "clientindex", "1")}, "result 2 is not a client"},
	} {
		err := complete(tc.docs)
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%d results: %v, want %q", len(tc.docs), err, tc.want)
		}
	}
}
