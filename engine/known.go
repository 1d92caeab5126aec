package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/runner"
	"github.com/servbench/servbench/workload"
)

// reportProperties are read by the CLI and the report.
var reportProperties = []string{
	"db", "label", "status", "status.interval", "exportfile", "exporter",
	"hdrhistogram.percentiles", "reportlatencyforeacherror", "latencytrackederrors",
	"measurementtype", "measurement.interval", "schedule.latethreshold",
	"hdrhistogram.fileoutput", "hdrhistogram.output.path", "histogram.buckets",
	"timeseries.granularity", "measurement.histogram.verbose",
	"measurement.raw.output_file", "measurement.raw.no_summary",
}

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

// checkProperties rejects properties nobody reads. Properties of other
// bindings (a registered name followed by '.') and YCSB's ignored ones are
// warned about, so one workload file can serve several bindings.
func checkProperties(p *props.Props, binding string, b db.Binding) (warnings []string, err error) {
	known := map[string]bool{}
	for _, list := range [][]string{workload.Properties, runner.Properties, reportProperties} {
		for _, k := range list {
			known[k] = true
		}
	}
	var prefixes []string
	for _, k := range b.Properties() {
		if strings.HasSuffix(k, ".") || strings.HasSuffix(k, "*") {
			prefixes = append(prefixes, strings.TrimSuffix(k, "*"))
		} else {
			known[k] = true
		}
	}
	var ignored []string
	for _, k := range p.Keys() {
		if known[k] || hasPrefix(k, prefixes) {
			continue
		}
		if slices.Contains(ignoredProperties, k) || strings.HasPrefix(k, "htrace.") {
			ignored = append(ignored, k)
			continue
		}
		if other, _, ok := strings.Cut(k, "."); ok && other != binding && (slices.Contains(db.Names(), other) || slices.Contains(otherDatabases, other)) {
			ignored = append(ignored, k)
			continue
		}
		msg := "unknown property"
		if s := suggest(k, known); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		return nil, p.Errorf(k, "%s", msg)
	}
	if len(ignored) > 0 {
		warnings = append(warnings, fmt.Sprintf("ignoring properties servbench or %s does not use: %s", binding, strings.Join(ignored, ", ")))
	}
	return warnings, nil
}

func hasPrefix(k string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// suggest returns the known name closest to k when it is a likely typo.
func suggest(k string, known map[string]bool) string {
	best, bestD := "", 3
	for name := range known {
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
