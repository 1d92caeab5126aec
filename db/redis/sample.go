package redis

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/redis/rueidis"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// infoStats are the INFO fields sampled: field, servbench's name, unit,
// counter.
var infoStats = []struct {
	field, name, unit string
	counter           bool
}{
	{"total_commands_processed", "commands", "ops", true},
	{"keyspace_hits", "keyspace_hits", "ops", true},
	{"keyspace_misses", "keyspace_misses", "ops", true},
	{"evicted_keys", "evicted_keys", "keys", true},
	{"expired_keys", "expired_keys", "keys", true},
	{"total_net_input_bytes", "network_receive_bytes", "B", true},
	{"total_net_output_bytes", "network_transmit_bytes", "B", true},
	{"used_memory", "memory_used_bytes", "B", false},
	{"connected_clients", "connections", "", false},
}

// Sample reads INFO from every node (each shard of a cluster, and its
// replicas): commands processed, CPU, memory, keyspace hits and misses,
// evictions, network bytes and keys. cpu_busy_pct is the main thread's
// share of one core (Redis runs commands on one thread: at 100 it is the
// limit); cpu_seconds counts the whole process. It goes over the binding's
// own connections, so with the same TLS. A server that refuses INFO (an
// ACL without it, a managed service that blocks or renames the command)
// is said in one line; the fields a service leaves out of INFO are named
// in Missing.
func (s *Store) Sample(ctx context.Context) (db.Sample, error) {
	nodes := s.c.Nodes()
	addrs := make([]string, 0, len(nodes))
	for a := range nodes {
		addrs = append(addrs, a)
	}
	slices.Sort(addrs)
	var out db.Sample
	var firstErr error
	for _, a := range addrs {
		info, err := nodes[a].Do(ctx, nodes[a].B().Info().Build()).ToString()
		if err != nil {
			if firstErr == nil {
				firstErr = fmt.Errorf("redis: INFO on %s: %w", a, infoRefused(err))
			}
			continue
		}
		node := ""
		if len(addrs) > 1 {
			node = a
		}
		stats := infoSample(info, node)
		out.Stats = append(out.Stats, stats...)
		for _, m := range missingFields(stats) {
			if !slices.Contains(out.Missing, m) {
				out.Missing = append(out.Missing, m)
			}
		}
	}
	return out, firstErr
}

// infoRefused says in one line why a server refused INFO, when it did:
// an ACL that does not allow it (NOPERM), or a command the service blocks
// or renamed (managed services such as Redis Cloud and ElastiCache do so
// with administrative commands).
func infoRefused(err error) error {
	re, ok := rueidis.IsRedisErr(err)
	if !ok {
		return err
	}
	m := re.Error()
	switch {
	case strings.HasPrefix(m, "NOPERM"):
		return fmt.Errorf("refused to this user (%s): the server side cannot be sampled without INFO (an ACL that allows +info)", props.Cut(m, 120))
	case strings.Contains(strings.ToLower(m), "unknown command"):
		return fmt.Errorf("the server does not know INFO (%s): a service that blocks or renames it hides its statistics from clients", props.Cut(m, 120))
	}
	return err
}

// missingFields names the sampled quantities INFO did not hold (a
// service may leave out its CPU or network counters).
func missingFields(stats []db.Stat) []string {
	var out []string
	have := func(name string) bool {
		return slices.ContainsFunc(stats, func(s db.Stat) bool { return s.Name == name })
	}
	for _, st := range infoStats {
		if !have(st.name) {
			out = append(out, "INFO "+st.field)
		}
	}
	if !have("cpu_seconds") {
		out = append(out, "INFO used_cpu_sys, used_cpu_user")
	}
	return out
}

// infoSample reads INFO's text into stats of node.
func infoSample(info, node string) []db.Stat {
	f := map[string]string{}
	keys := 0.0
	for _, line := range strings.Split(info, "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		if strings.HasPrefix(k, "db") && strings.HasPrefix(v, "keys=") { // db0:keys=N,expires=...
			n, _, _ := strings.Cut(strings.TrimPrefix(v, "keys="), ",")
			x, _ := strconv.ParseFloat(n, 64)
			keys += x
			continue
		}
		f[k] = v
	}
	num := func(k string) (float64, bool) {
		x, err := strconv.ParseFloat(f[k], 64)
		return x, err == nil
	}
	var out []db.Stat
	for _, st := range infoStats {
		if v, ok := num(st.field); ok {
			out = append(out, db.Stat{Name: st.name, Node: node, Unit: st.unit, Counter: st.counter, Value: v})
		}
	}
	sys, ok1 := num("used_cpu_sys")
	user, ok2 := num("used_cpu_user")
	if ok1 && ok2 {
		out = append(out, db.Stat{Name: "cpu_seconds", Node: node, Unit: "s", Counter: true, Value: sys + user})
	}
	if ms, ok := num("used_cpu_sys_main_thread"); ok {
		if mu, ok := num("used_cpu_user_main_thread"); ok {
			sys, user = ms, mu
		}
	}
	if ok1 && ok2 {
		out = append(out, db.Stat{Name: "cpu_busy_pct", Node: node, Unit: "%", Counter: true, Value: (sys + user) * 100})
	}
	if _, ok := f["redis_version"]; ok {
		out = append(out, db.Stat{Name: "keys", Node: node, Unit: "keys", Value: keys})
	}
	return out
}
