// Package wire counts what the server bindings send and receive on their
// connections (what a provider bills as data transfer, TLS and protocol
// framing included) and runs TLS over a counted connection, so that the
// count is of the bytes on the wire. A binding that uses it implements
// db.TrafficCounter.
package wire

import (
	"context"
	"crypto/tls"
	"net"
	"sync"
	"sync/atomic"
)

// Traffic counts the bytes of the connections it wraps. Each connection
// has counters of its own (no two threads' reads or writes contend on
// one); Bytes adds them up, with those of connections closed before. The
// zero value is ready to use.
type Traffic struct {
	mu         sync.Mutex
	live       map[*connBytes]struct{}
	sent, recv int64 // of closed connections
	// local and remote count the connections made to a loopback address
	// (or a Unix socket) and to any other.
	local, remote int
}

// Peers says how many of the connections wrapped so far reached a server
// on this machine (a loopback address or a Unix socket) and how many one
// elsewhere.
func (t *Traffic) Peers() (local, remote int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.local, t.remote
}

// onThisMachine says whether a connection's peer is on this machine.
func onThisMachine(a net.Addr) bool {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case *net.UnixAddr:
		return true
	case nil:
		return false
	}
	host, _, err := net.SplitHostPort(a.String())
	ip := net.ParseIP(host)
	return err == nil && ip != nil && ip.IsLoopback()
}

type connBytes struct {
	sent, recv atomic.Int64
}

// Bytes is what every connection wrapped so far sent and received.
func (t *Traffic) Bytes() (sent, received int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	sent, received = t.sent, t.recv
	for c := range t.live {
		sent += c.sent.Load()
		received += c.recv.Load()
	}
	return sent, received
}

// Conn wraps c: its reads and writes are counted.
func (t *Traffic) Conn(c net.Conn) net.Conn {
	b := &connBytes{}
	t.mu.Lock()
	if t.live == nil {
		t.live = map[*connBytes]struct{}{}
	}
	t.live[b] = struct{}{}
	if onThisMachine(c.RemoteAddr()) {
		t.local++
	} else {
		t.remote++
	}
	t.mu.Unlock()
	return &countedConn{Conn: c, b: b, t: t}
}

// Dialer wraps a dial function: every connection it makes is counted.
func (t *Traffic) Dialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return t.Conn(c), nil
	}
}

// retire moves a closed connection's counts into the totals.
func (t *Traffic) retire(b *connBytes) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if _, ok := t.live[b]; ok {
		delete(t.live, b)
		t.sent += b.sent.Load()
		t.recv += b.recv.Load()
	}
}

type countedConn struct {
	net.Conn
	b *connBytes
	t *Traffic
}

func (c *countedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.b.recv.Add(int64(n))
	return n, err
}

func (c *countedConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.b.sent.Add(int64(n))
	return n, err
}

func (c *countedConn) Close() error {
	err := c.Conn.Close()
	c.t.retire(c.b)
	return err
}

// TLSClient runs TLS over c when tc is set, as tls.Dialer would (the
// server's name from addr unless tc names it), so that a counted c counts
// the bytes on the wire; without tc it returns c.
func TLSClient(ctx context.Context, c net.Conn, addr string, tc *tls.Config) (net.Conn, error) {
	if tc == nil {
		return c, nil
	}
	if tc.ServerName == "" {
		tc = tc.Clone()
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			host = addr
		}
		tc.ServerName = host
	}
	conn := tls.Client(c, tc)
	if err := conn.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return conn, nil
}

// ContextDialer is a dialer (net.Dialer's DialContext) whose connections
// are counted, for drivers that take one (MongoDB's, gocql).
func (t *Traffic) ContextDialer(d *net.Dialer) interface {
	DialContext(ctx context.Context, network, addr string) (net.Conn, error)
} {
	return contextDialer(t.Dialer(d.DialContext))
}

type contextDialer func(ctx context.Context, network, addr string) (net.Conn, error)

func (f contextDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	return f(ctx, network, addr)
}
