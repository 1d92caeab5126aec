package workload

import (
	"slices"
	"testing"

	"github.com/servbench/servbench/props"
)

// The schema a binding is given: YCSB's fields as fieldcount and
// fieldnameprefix say, or the customer document's top-level fields.
func TestSchema(t *testing.T) {
	p := props.Of("fieldcount", "3", "fieldnameprefix", "f")
	c, err := ParseConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Schema(); !slices.Equal(s.Fields, []string{"f0", "f1", "f2"}) || s.Documents {
		t.Errorf("fields schema %+v", s)
	}
	c, err = ParseConfig(props.Of("document", "customer", "table", "customer"))
	if err != nil {
		t.Fatal(err)
	}
	if s := c.Schema(); !s.Documents || !slices.Contains(s.Fields, "address") {
		t.Errorf("customer schema %+v", s)
	}
}
