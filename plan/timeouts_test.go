package plan

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// opTimeouts are the bindings' operation timeouts: the property and its
// default in ms. The bindings not named have none of their own (MongoDB,
// PostgreSQL, the embedded stores): an operation waits as long as it
// takes.
var opTimeouts = map[string]struct {
	key string
	ms  float64
}{
	"redis":     {"redis.timeout", 2000},
	"couchbase": {"couchbase.kvtimeout", 2500},
	"couchdb":   {"couchdb.timeout", 10000},
	"dynamodb":  {"dynamodb.timeout", 10000},
	"cassandra": {"cassandra.readtimeoutmillis", 12000},
}

// timeoutMargin is how many times the largest latency a study published
// for a system an operation timeout must be: a published latency is a
// mean or a bound, and the operations behind it spread far above it.
const timeoutMargin = 10

// Every shipped plan's deployments wait for an operation longer than the
// study saw that system's operations take: each binding's operation
// timeout is at least timeoutMargin times the largest latency the plan's
// reference file gives for its system (a mean, or a bound below or above).
// S1's Redis Pagination queries took "exceeding 5 seconds" on 6-18 nodes
// (000:525) and failed every one at redis.timeout's 2 s.
func TestShippedPlansTimeoutsFitPublishedLatencies(t *testing.T) {
	files, err := filepath.Glob("../plans/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		p, err := shippedPlan(filepath.Base(f))
		if err != nil {
			t.Fatal(err)
		}
		if p.Reference == "" {
			continue
		}
		raw, err := os.ReadFile(p.Reference)
		if err != nil {
			t.Fatal(err)
		}
		refs, err := ParseReference(raw, p.Reference)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for i := range p.Deployments {
			d := &p.Deployments[i]
			to, ok := opTimeouts[d.Binding]
			if !ok {
				continue
			}
			system := d.System
			if system == "" {
				system = d.Binding
			}
			largest, source := 0.0, ""
			for _, r := range refs {
				if strings.EqualFold(r.System, system) && r.LatencyMs > largest {
					largest, source = r.LatencyMs, r.Source
				}
			}
			ms := to.ms
			if v := propertyOf(p, d, to.key); v != "" {
				if ms, err = strconv.ParseFloat(v, 64); err != nil {
					t.Fatalf("%s: %s: %s %q", f, d.Label, to.key, v)
				}
			}
			if ms < timeoutMargin*largest {
				t.Errorf("%s: %s: %s %g ms, under %d × the %g ms %s published (%s)", f, d.Label, to.key, ms, timeoutMargin, largest, system, source)
			}
		}
	}
	if checked < 4 {
		t.Errorf("%d shipped plans with a reference file", checked)
	}
}
