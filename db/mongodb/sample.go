package mongodb

import (
	"context"
	"errors"
	"fmt"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// serverStatus's values sampled: their path, servbench's name, unit and
// whether they count up; the first element of a path names its group in
// Missing when the server does not answer it.
var statusStats = []struct {
	path    []string
	name    string
	unit    string
	counter bool
}{
	{[]string{"opcounters", "insert"}, "inserts", "ops", true},
	{[]string{"opcounters", "query"}, "queries", "ops", true},
	{[]string{"opcounters", "update"}, "updates", "ops", true},
	{[]string{"opcounters", "delete"}, "deletes", "ops", true},
	{[]string{"opcounters", "getmore"}, "getmores", "ops", true},
	{[]string{"opcounters", "command"}, "commands", "ops", true},
	{[]string{"connections", "current"}, "connections", "", false},
	{[]string{"network", "bytesIn"}, "network_receive_bytes", "B", true},
	{[]string{"network", "bytesOut"}, "network_transmit_bytes", "B", true},
	{[]string{"mem", "resident"}, "memory_resident_mib", "MiB", false},
	{[]string{"wiredTiger", "cache", "bytes currently in the cache"}, "cache_bytes", "B", false},
	{[]string{"wiredTiger", "cache", "maximum bytes configured"}, "cache_max_bytes", "B", false},
	{[]string{"wiredTiger", "cache", "pages read into cache"}, "cache_pages_read", "pages", true},
	{[]string{"wiredTiger", "cache", "pages written from cache"}, "cache_pages_written", "pages", true},
}

// Sample reads serverStatus: operation counters, connections, network
// bytes, resident memory and WiredTiger's cache where the server has them,
// and the commands it ran (metrics.commands, summed). A server that
// answers part of it (FerretDB serves metrics.commands only) has the rest
// named in Missing. It goes over the binding's own connections, so with
// the same TLS. A server that refuses serverStatus to the user (Atlas
// gives it to the clusterMonitor role only) or does not run it is said in
// one line.
func (s *Store) Sample(ctx context.Context) (db.Sample, error) {
	var st bson.M
	if err := decode(s.client.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}), &st); err != nil {
		return db.Sample{}, fmt.Errorf("mongodb: serverStatus: %w", statusRefused(err))
	}
	var out db.Sample
	for _, x := range statusStats {
		v, ok := number(st, x.path...)
		if !ok {
			if g := x.path[0]; len(out.Missing) == 0 || out.Missing[len(out.Missing)-1] != g {
				out.Missing = append(out.Missing, g)
			}
			continue
		}
		out.Stats = append(out.Stats, db.Stat{Name: x.name, Unit: x.unit, Counter: x.counter, Value: v})
	}
	if cmds, ok := lookup(st, "metrics", "commands").(bson.D); ok {
		total := 0.0
		for _, c := range cmds {
			if v, ok := number(c.Value, "total"); ok {
				total += v
			}
		}
		out.Stats = append(out.Stats, db.Stat{Name: "commands_run", Unit: "ops", Counter: true, Value: total})
	} else {
		out.Missing = append(out.Missing, "metrics.commands")
	}
	return out, nil
}

// statusRefused says in one line why a server did not answer
// serverStatus, where it keeps it from the user (Unauthorized) or does
// not run it (a service that speaks MongoDB's protocol over another
// engine).
func statusRefused(err error) error {
	var ce mongo.CommandError
	if !errors.As(err, &ce) {
		return err
	}
	switch {
	case ce.Code == 13 || ce.Name == "Unauthorized":
		return fmt.Errorf("refused to this user (%s): serverStatus needs the clusterMonitor role or a role with the serverStatus action (on Atlas a custom role, or an Atlas admin user)", props.Cut(ce.Message, 120))
	case ce.Code == 59 || ce.Code == 115 || ce.Name == "CommandNotFound" || ce.Name == "CommandNotSupported":
		return fmt.Errorf("the server does not run serverStatus (%s): a service that speaks MongoDB's protocol over another engine hides its statistics", props.Cut(ce.Message, 120))
	}
	return err
}

// lookup is the value at path in v (nested documents decode as bson.D).
func lookup(v any, path ...string) any {
	for _, p := range path {
		switch m := v.(type) {
		case bson.M:
			v = m[p]
		case bson.D:
			v = nil
			for _, e := range m {
				if e.Key == p {
					v = e.Value
					break
				}
			}
		default:
			return nil
		}
	}
	return v
}

// number is the number at path in v.
func number(v any, path ...string) (float64, bool) {
	switch n := lookup(v, path...).(type) {
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}
