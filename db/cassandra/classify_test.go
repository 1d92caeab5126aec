package cassandra

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// A node killed while operations wait for its answers: the fault tests
// meet these errors only when the kill lands inside an operation.
func TestDeadServerErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want db.Status
	}{
		{gocql.ErrConnectionClosed, db.ServiceUnavailable},
		{gocql.ErrNoConnections, db.ServiceUnavailable},
		{fmt.Errorf("gocql: failed to read uncompressed frame, err: %w", io.ErrUnexpectedEOF), db.ServiceUnavailable},
		{gocql.ErrTimeoutNoResponse, db.Timeout},
		{gocql.ErrNotFound, db.NotFound},
		{errors.New("line 1:7 no viable alternative"), db.Error},
	} {
		if got := db.Classify(wrap("read", "k", c.err), false); got != c.want {
			t.Errorf("%v: %s, want %s", c.err, got, c.want)
		}
	}
}

// Writes leave at once unless cassandra.writecoalescewait asks gocql to
// hold them (its own default, 200 µs, cost one thread a millisecond per
// operation); a negative wait is refused, naming the property.
func TestWriteCoalesceWait(t *testing.T) {
	for _, c := range []struct {
		value string
		want  time.Duration
	}{{"", 0}, {"0", 0}, {"300", 300 * time.Microsecond}} {
		p := props.New()
		if c.value != "" {
			p.Set("cassandra.writecoalescewait", c.value, "test")
		}
		if got, err := writeCoalesceWait(p); err != nil || got != c.want {
			t.Errorf("%q: %v, %v; want %v", c.value, got, err, c.want)
		}
	}
	p := props.Of("cassandra.writecoalescewait", "-1")
	if _, err := writeCoalesceWait(p); err == nil || !strings.Contains(err.Error(), "cassandra.writecoalescewait") {
		t.Errorf("-1: %v", err)
	}
}

// Requests go to a replica of their partition by default (token-aware,
// replicas shuffled), as YCSB's binding's driver routes them; round
// robin when asked; anything else refused naming cassandra.routing.
func TestHostPolicy(t *testing.T) {
	for _, c := range []struct{ value, want string }{{"", "tokenAware"}, {"token", "tokenAware"}, {"roundrobin", "roundRobin"}, {"any", "cassandra.routing"}} {
		p := props.New()
		if c.value != "" {
			p.Set("cassandra.routing", c.value, "-p")
		}
		policy, err := hostPolicy(p)
		got := fmt.Sprintf("%T", policy)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, c.want) {
			t.Errorf("cassandra.routing=%q: %s, want %s", c.value, got, c.want)
		}
	}
}
