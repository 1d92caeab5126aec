package db

// TrafficCounter is implemented by bindings that count the bytes their
// connections sent to and received from the servers: what a provider
// bills as data transfer, measured on the client's side of the wire (TLS
// and protocol framing included). Each client of a spread phase counts
// its own.
type TrafficCounter interface {
	Traffic() (sent, received int64)
}

// Peered is implemented by bindings that know where their connections
// went: how many reached a server on this machine (a loopback address, a
// Unix socket) and how many one elsewhere, so far.
type Peered interface {
	Peers() (local, remote int)
}

// TrafficSample is a TrafficCounter's reading as the stats of a sample:
// the bytes this client sent and received, counters.
func TrafficSample(tc TrafficCounter) Sample {
	sent, recv := tc.Traffic()
	return Sample{PerClient: true, Stats: []Stat{
		{Name: "sent_bytes", Unit: "B", Counter: true, Value: float64(sent)},
		{Name: "received_bytes", Unit: "B", Counter: true, Value: float64(recv)},
	}}
}
