package cassandra

import (
	"context"
	"errors"
	"fmt"
	"strings"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// sampledPools are the thread pools whose tasks are sampled: reads,
// writes and the client requests they come from.
var sampledPools = map[string]string{
	"ReadStage": "read_stage", "MutationStage": "mutation_stage", "Native-Transport-Requests": "native_transport",
}

// Sample reads Cassandra's virtual tables (system_views, Cassandra 4.0 and
// later) on the node the driver asks: the read, mutation and request
// thread pools' completed, pending and blocked tasks, the key and row
// caches' hits and requests, and the keyspace's size on disk. A server
// without them (Cassandra 3, ScyllaDB) has them named in Missing. It goes
// over the binding's own session, so with the same TLS. A role that may
// not read them (a managed service such as Astra DB keeps them to
// itself) is said in one line.
func (st *Store) Sample(ctx context.Context) (db.Sample, error) {
	var out db.Sample
	it := st.s.Query("SELECT name, completed_tasks, pending_tasks, blocked_tasks FROM system_views.thread_pools").IterContext(ctx)
	var name string
	var completed, pending, blocked int64
	for it.Scan(&name, &completed, &pending, &blocked) {
		if n, ok := sampledPools[name]; ok {
			out.Stats = append(out.Stats,
				db.Stat{Name: n + "_completed", Unit: "tasks", Counter: true, Value: float64(completed)},
				db.Stat{Name: n + "_pending", Unit: "tasks", Value: float64(pending)},
				db.Stat{Name: n + "_blocked", Unit: "tasks", Value: float64(blocked)})
		}
	}
	if err := it.Close(); err != nil {
		if unknownTable(err) {
			return db.Sample{Missing: []string{"system_views"}}, nil
		}
		return out, fmt.Errorf("cassandra: system_views.thread_pools: %w", viewsRefused(err))
	}
	it = st.s.Query("SELECT name, hit_count, request_count FROM system_views.caches").IterContext(ctx)
	var hits, requests int64
	for it.Scan(&name, &hits, &requests) {
		if name == "keys" || name == "rows" {
			c := strings.TrimSuffix(name, "s")
			out.Stats = append(out.Stats,
				db.Stat{Name: c + "_cache_hits", Unit: "ops", Counter: true, Value: float64(hits)},
				db.Stat{Name: c + "_cache_requests", Unit: "ops", Counter: true, Value: float64(requests)})
		}
	}
	if err := it.Close(); err != nil {
		return out, fmt.Errorf("cassandra: system_views.caches: %w", err)
	}
	var mib, total int64
	it = st.s.Query("SELECT mebibytes FROM system_views.disk_usage WHERE keyspace_name = ? ALLOW FILTERING", st.keyspace).IterContext(ctx)
	for it.Scan(&mib) {
		total += mib
	}
	if err := it.Close(); err != nil {
		return out, fmt.Errorf("cassandra: system_views.disk_usage: %w", err)
	}
	out.Stats = append(out.Stats, db.Stat{Name: "disk_used_bytes", Unit: "B", Value: float64(total << 20)})
	return out, nil
}

// viewsRefused says in one line why the virtual tables were not read
// where the server keeps them from the role (Unauthorized).
func viewsRefused(err error) error {
	var re gocql.RequestError
	if errors.As(err, &re) && re.Code() == gocql.ErrCodeUnauthorized {
		return fmt.Errorf("refused to this role (%s): the server side cannot be sampled without SELECT on system_views, which a managed service (Astra DB, Amazon Keyspaces) keeps to itself", props.Cut(re.Message(), 120))
	}
	return err
}

// unknownTable reports whether err says the virtual keyspace or table
// does not exist.
func unknownTable(err error) bool {
	m := strings.ToLower(err.Error())
	return strings.Contains(m, "system_views") && (strings.Contains(m, "does not exist") || strings.Contains(m, "unconfigured table") || strings.Contains(m, "keyspace"))
}
