package coordinator

import (
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"
)

// pipes is a listener whose connections are the near ends of pipes
// queued in conns.
type pipes struct {
	conns chan net.Conn
	done  chan struct{}
}

func (p *pipes) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.done:
		return nil, net.ErrClosed
	}
}
func (p *pipes) Close() error   { close(p.done); return nil }
func (p *pipes) Addr() net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)} }

// acceptAll accepts l's connections into a channel until l is closed.
func acceptAll(l net.Listener) chan net.Conn {
	got := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			got <- c
		}
	}()
	return got
}

// feed queues a new connection on in, and returns its far end.
func (p *pipes) feed(t *testing.T) {
	near, far := net.Pipe()
	t.Cleanup(func() { far.Close() })
	p.conns <- near
}

// closed reports whether c was closed.
func closed(c net.Conn) bool { return c.SetDeadline(time.Time{}) != nil }

// capTest is a listener capped at 2 connections over pipes, accepting
// into got (in a synctest bubble).
type capTest struct {
	in  *pipes
	got chan net.Conn
	all []net.Conn
}

func newCapTest(t *testing.T) *capTest {
	in := &pipes{conns: make(chan net.Conn, 8), done: make(chan struct{})}
	l := capConns(in, 2)
	c := &capTest{in: in, got: acceptAll(l)}
	t.Cleanup(func() {
		l.Close()
		for _, x := range c.all {
			x.Close()
		}
	})
	return c
}

// next makes a connection and returns it as accepted, trusted as a
// client's that carried its secret when trusted is.
func (c *capTest) next(t *testing.T, trusted bool) net.Conn {
	c.in.feed(t)
	x := <-c.got
	if trusted {
		x.(*slotConn).trust()
	}
	c.all = append(c.all, x)
	return x
}

// The coordinator holds at most its cap of connections: with every one
// carrying a client's secret, a new one waits until one closes (5,000
// idle connections held 5,020 descriptors).
func TestConnectionsCapped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCapTest(t)
		first := c.next(t, true)
		c.next(t, true)
		c.in.feed(t)
		synctest.Wait()
		if len(c.got) != 0 {
			t.Fatal("a third connection accepted while two trusted ones were open")
		}
		first.Close()
		synctest.Wait()
		if len(c.got) != 1 {
			t.Fatal("the third connection not accepted once one closed")
		}
		c.all = append(c.all, <-c.got)
	})
}

// Connections that carry no secret cannot keep a client out: the oldest
// of them is closed for a new one, and a trusted one never is.
func TestUntrustedConnectionsMakeRoom(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCapTest(t)
		c.next(t, true) // a client's
		for range 3 {
			c.next(t, false) // nobody's: each closed for the next
		}
		for k, want := range []bool{false, true, true, false} {
			if closed(c.all[k]) != want {
				t.Errorf("connection %d: closed %v, want %v", k, !want, want)
			}
		}
	})
}

// A request carrying a client's secret trusts its connection, through
// the coordinator's TLS; a refused one does not.
func TestServeTrustsClients(t *testing.T) {
	h := newHub(testKey, "run-1", 1, Phase{Command: "run", Binding: "basic"}, time.Now)
	cert, pin, err := newIdentity()
	if err != nil {
		t.Fatal(err)
	}
	l, err := serve("127.0.0.1:0", h, cert, maxConns(1))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	url := "https://" + l.Addr().String() + pathClock + "?client=0"
	c := HTTPClient("", pin)
	defer c.CloseIdleConnections()
	state := func() (open, pending int) {
		cl := l.(*capped)
		cl.mu.Lock()
		defer cl.mu.Unlock()
		return cl.open, len(cl.pending)
	}
	if code, _ := do(t, c, http.MethodGet, url, "wrong", nil); code != http.StatusUnauthorized {
		t.Fatalf("a wrong secret: %d", code)
	}
	if code, _ := do(t, c, http.MethodGet, url, sec(0), nil); code != http.StatusOK {
		t.Fatalf("the client's secret: %d", code)
	}
	if open, pending := state(); open < 1 || open-pending != 1 {
		t.Errorf("%d connections open, %d untrusted: want the client's trusted", open, pending)
	}
}
