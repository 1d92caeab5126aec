package cli

import (
	"net"
	"strconv"
)

// clientMetricsAddr is where client i of a spread phase serves its
// metrics: the phase's port plus i.
func clientMetricsAddr(addr string, i int) string {
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	if p == 0 { // each client takes a free port of its own and says which
		return addr
	}
	return net.JoinHostPort(host, strconv.Itoa(p+i))
}
