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

// An answer's bound holds the longest scan's records written as JSON at
// their longest (every byte escaped), in a run phase only.
func TestAnswerBytes(t *testing.T) {
	c, err := ParseConfig(props.Of("fieldcount", "4", "fieldlength", "1000", "scanproportion", "0.5", "readproportion", "0.5", "updateproportion", "0", "maxscanlength", "300"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.AnswerBytes(true), int64(300*(6*4000+4*64+1024)); got != want {
		t.Errorf("a run's answer: %d, want %d", got, want)
	}
	if got, want := c.AnswerBytes(false), int64(6*4000+4*64+1024); got != want {
		t.Errorf("a load's answer: %d, want %d", got, want)
	}
}
