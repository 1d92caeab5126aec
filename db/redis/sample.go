package redis

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/servbench/servbench/db"
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
// limit); cpu_seconds counts the whole process.
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
				firstErr = fmt.Errorf("redis: INFO on %s: %w", a, err)
			}
			continue
		}
		node := ""
		if len(addrs) > 1 {
			node = a
		}
		out.Stats = append(out.Stats, infoSample(info, node)...)
	}
	return out, firstErr
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
