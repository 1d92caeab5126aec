package cassandra

import (
	"fmt"
	"net"
	"testing"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
)

// A session takes the first MaxNodes nodes its cluster lists, each once
// however often it is shown, and says when it refused one more: gocql
// kept and connected every peer a server listed (1,200,000 took the
// process out of memory).
func TestNodeCap(t *testing.T) {
	c := &nodeCap{seen: map[string]struct{}{}}
	host := func(i int) *gocql.HostInfo {
		id, err := gocql.ParseUUID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i))
		if err != nil {
			t.Fatal(err)
		}
		h, err := gocql.NewTestHostInfoFromRow(map[string]any{"host_id": id,
			"data_center": "dc1", "rack": "r1", "rpc_address": net.IPv4(10, 0, byte(i>>8), byte(i))})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	for i := 0; i < MaxNodes; i++ {
		if !c.Accept(host(i)) {
			t.Fatalf("node %d refused", i)
		}
	}
	if !c.Accept(host(7)) || c.over.Load() {
		t.Fatal("a node shown again was refused")
	}
	if c.Accept(host(MaxNodes)) || !c.over.Load() {
		t.Fatalf("node %d taken", MaxNodes+1)
	}
}
