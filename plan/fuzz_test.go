package plan

import (
	"strings"
	"testing"
)

// FuzzParse: any plan text is a plan or an error of one line naming the
// file, never a panic; a plan's runs have unique IDs and valid dimensions.
func FuzzParse(f *testing.F) {
	f.Add(good)
	f.Add("deployments: [{binding: basic}]\nworkloads: [a]\nrecords: [10]\nthreads: [1, 2]\noperations: records\n")
	f.Add("targets: [{binding: pebble, records: [5]}]\nworkloads: [c]\nthreads: [1]\nduration: 1\nslo: {latency: p99, bound_ms: 5}\n")
	f.Add("deployments: [\n")
	f.Fuzz(func(t *testing.T, text string) {
		p, err := Parse([]byte(text), "p.yaml", builtin)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "p.yaml") || strings.Contains(msg, "\n") {
				t.Fatalf("error %q: want one line starting with the file's name", msg)
			}
			return
		}
		// Expand only plans of a reasonable size (a huge one is issue
		// enough for the dry run's count, not for this check).
		n := len(p.Workloads) * len(p.Threads) * len(p.Rates) * p.Repetitions
		for i := range p.Deployments {
			n *= max(1, len(p.RecordsOf(&p.Deployments[i])))
		}
		if n <= 0 || n > 10_000 || len(p.Deployments) > 100 {
			return
		}
		seen := map[string]bool{}
		for _, r := range p.Runs() {
			if r.Threads < 1 || r.Records < 1 || r.Rate < 0 || r.Repetition < 1 {
				t.Fatalf("run %s: threads %d records %d rate %v repetition %d", r.ID(), r.Threads, r.Records, r.Rate, r.Repetition)
			}
			if seen[r.ID()] {
				t.Fatalf("two runs are %s", r.ID())
			}
			seen[r.ID()] = true
		}
	})
}
