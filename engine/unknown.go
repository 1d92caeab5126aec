package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// ignoredProperties are YCSB properties servbench accepts in workload
// files but does not act on; a warning names them.
var ignoredProperties = []string{
	"measurement.trackjvm", "maxscanrate", "scanoptimelimit", "discardscannedrecord", "jvm-args",
}

// otherDatabases are property prefixes of YCSB's and servbench's database
// bindings, so a workload file written for one of them is accepted.
var otherDatabases = []string{
	"mongodb", "redis", "cassandra", "couchbase", "couchbase2", "couchdb", "dynamodb", "postgres",
	"postgrenosql", "jdbc", "db", "hbase", "elasticsearch", "rocksdb", "aerospike", "scylla",
	"basicdb", "pebble", "mysql", "tikv", "foundationdb", "fdb", "memcached", "azurecosmos",
	"googlebigtable", "s3", "solr", "voldemort", "zookeeper", "ignite", "kudu", "riak",
}

// checkRead refuses properties nobody read. Check has had the workload,
// the runner, the measurements, the outputs and the binding read theirs
// (props records every key asked for); a key left over is a typo (with the
// nearest known name as a suggestion) unless it is another binding's or
// one of YCSB's that servbench does not act on: those are warned about, so
// one workload file can serve several bindings.
func checkRead(p *props.Props, binding string) (warnings []string, err error) {
	asked := p.Asked()
	// A prefix somebody read keys of is theirs: a key left over there is
	// a typo, not another binding's.
	owned := map[string]bool{}
	for _, k := range asked {
		if pre, _, ok := strings.Cut(k, "."); ok {
			owned[pre] = true
		}
	}
	var ignored []string
	for _, k := range p.Unread() {
		if slices.Contains(ignoredProperties, k) || strings.HasPrefix(k, "htrace.") {
			ignored = append(ignored, k)
			continue
		}
		if other, _, ok := strings.Cut(k, "."); ok && !owned[other] && other != binding && (slices.Contains(db.Names(), other) || slices.Contains(otherDatabases, other)) {
			ignored = append(ignored, k)
			continue
		}
		msg := "unknown property"
		if s := suggest(k, asked); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		return nil, p.Errorf(k, "%s", msg)
	}
	if len(ignored) > 0 {
		warnings = append(warnings, fmt.Sprintf("ignoring properties servbench or %s does not use: %s", binding, strings.Join(ignored, ", ")))
	}
	return warnings, nil
}

// suggest returns the known name closest to k when it is a likely typo.
func suggest(k string, known []string) string {
	best, bestD := "", 3
	for _, name := range known {
		if len(k)-len(name) >= bestD || len(name)-len(k) >= bestD {
			continue // the distance is at least the difference in length
		}
		if d := distance(k, name); d < bestD || (d == bestD && best != "" && name < best) {
			best, bestD = name, d
		}
	}
	return best
}

// distance is the Levenshtein edit distance.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
