package redis_test

import (
	"testing"

	"github.com/servbench/servbench/db/dbtest"
)

// TestFault kills and pauses the shared server under a run (with
// SERVBENCH_FAULTS=1, after every other test). Redis keeps nothing on
// disk here: started again, it answers NOT_FOUND for the records loaded
// before.
func TestFault(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_REDIS_URL")
	dbtest.Faults(t, dbtest.Fault{Server: "redis", Binding: "redis", Props: []string{"redis.url", url}})
}

// TestFaultCluster: a cluster loses one of its three nodes (its last). The
// operations on that node's slots fail, the others go on; when the node
// has been away longer than the cluster's node timeout, the whole cluster
// refuses commands until it has marked the node back.
func TestFaultCluster(t *testing.T) {
	addrs := dbtest.ServerURL(t, "SERVBENCH_REDIS_CLUSTER_URL")
	dbtest.Faults(t, dbtest.Fault{Server: "redis-cluster", Binding: "redis",
		Props: []string{"redis.url", "redis://" + addrs, "redis.cluster", "true"}})
}
