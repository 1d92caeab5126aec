package wire

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Every byte each way is counted, over several connections at once,
// closed ones included.
func TestTraffic(t *testing.T) {
	var tr Traffic
	const conns, writes, size = 4, 100, 1000
	var wg sync.WaitGroup
	for range conns {
		client, server := net.Pipe()
		c := tr.Conn(client)
		wg.Add(2)
		go func() { // the server echoes half of what it reads
			defer wg.Done()
			buf := make([]byte, size)
			for {
				n, err := io.ReadFull(server, buf)
				if err != nil {
					server.Close()
					return
				}
				server.Write(buf[:n/2])
			}
		}()
		go func() {
			defer wg.Done()
			msg, buf := make([]byte, size), make([]byte, size/2)
			for range writes {
				c.Write(msg)
				io.ReadFull(c, buf)
			}
			c.Close()
		}()
	}
	wg.Wait()
	sent, recv := tr.Bytes()
	if sent != conns*writes*size || recv != conns*writes*size/2 {
		t.Errorf("sent %d, received %d; want %d and %d", sent, recv, conns*writes*size, conns*writes*size/2)
	}
	if len(tr.live) != 0 {
		t.Errorf("%d closed connections still live", len(tr.live))
	}
}

// A dialer's connections are counted; its errors pass through.
func TestTrafficDialer(t *testing.T) {
	var tr Traffic
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Write([]byte("hello"))
			c.Close()
		}
	}()
	d := tr.ContextDialer(&net.Dialer{})
	c, err := d.DialContext(context.Background(), "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("hi"))
	io.ReadAll(c)
	c.Close()
	if sent, recv := tr.Bytes(); sent != 2 || recv != 5 {
		t.Errorf("sent %d, received %d; want 2 and 5", sent, recv)
	}
	if _, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:1"); err == nil {
		t.Error("a refused connection dialed")
	}
}

// The cost of counting one write and one read on a connection.
func BenchmarkCountedConn(b *testing.B) {
	var tr Traffic
	c := tr.Conn(nopConn{})
	buf := make([]byte, 64)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			c.Write(buf)
			c.Read(buf)
		}
	})
}

type nopConn struct{ net.Conn }

func (nopConn) Read(p []byte) (int, error)  { return len(p), nil }
func (nopConn) Write(p []byte) (int, error) { return len(p), nil }

// Connect returns when its context ends, whatever the connection waits
// for, and closes the connection made after that.
func TestConnectStoppable(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release, dropped := make(chan struct{}), make(chan int, 1)
	cancel()
	_, err := Connect(ctx, func() (int, error) { <-release; return 7, nil }, func(v int) { dropped <- v })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("stopped: %v", err)
	}
	close(release)
	if v := <-dropped; v != 7 {
		t.Errorf("dropped %d", v)
	}
	if v, err := Connect(context.Background(), func() (int, error) { return 3, nil }, func(int) {}); v != 3 || err != nil {
		t.Errorf("connected: %d %v", v, err)
	}
}

// The answers read at once are bounded together by a budget: one that
// passes it fails as an answer cut (AnswerError, InFlight), and a closed
// answer gives its bytes back (24 threads each within the answer's bound
// ran the process out of memory).
func TestAnswerBudget(t *testing.T) {
	budget := &AnswerBudget{max: 100}
	open := func(n int) *http.Response {
		r := &http.Response{Body: io.NopCloser(strings.NewReader(strings.Repeat("x", n))), ContentLength: -1}
		if err := BoundResponse(r, 1000, budget); err != nil {
			t.Fatal(err)
		}
		return r
	}
	a, b := open(60), open(60)
	if got, err := io.ReadAll(a.Body); err != nil || len(got) != 60 {
		t.Fatalf("the first answer, within the budget: %d bytes, %v", len(got), err)
	}
	var ae *AnswerError
	if _, err := io.ReadAll(b.Body); !errors.As(err, &ae) || !ae.InFlight || ae.Max != 100 {
		t.Errorf("the second answer, past the budget with the first unread: %v", err)
	}
	a.Body.Close()
	b.Body.Close()
	c := open(90)
	if got, err := io.ReadAll(c.Body); err != nil || len(got) != 90 {
		t.Errorf("an answer after the others were closed: %d bytes, %v", len(got), err)
	}
	c.Body.Close()
	if budget.used.Load() != 0 {
		t.Errorf("%d bytes still counted after every answer was closed", budget.used.Load())
	}
	if NewAnswerBudget(0) != nil {
		t.Error("a budget without the memory known")
	}
}

// Peers counts the connections to this machine (loopback, a Unix socket)
// apart from the others, by the address each connection reports.
func TestPeers(t *testing.T) {
	var tr Traffic
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	tr.Conn(fakeRemote{a, &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 6379}})
	tr.Conn(fakeRemote{a, &net.UnixAddr{Name: "/tmp/s", Net: "unix"}})
	tr.Conn(fakeRemote{a, &net.TCPAddr{IP: net.ParseIP("192.0.2.1"), Port: 9042}}) // TEST-NET: elsewhere
	if local, remote := tr.Peers(); local != 2 || remote != 1 {
		t.Errorf("local %d, remote %d: want 2 and 1", local, remote)
	}
	if onThisMachine(nil) {
		t.Error("no address is on this machine")
	}
}

// fakeRemote is a connection that says another peer.
type fakeRemote struct {
	net.Conn
	remote net.Addr
}

func (f fakeRemote) RemoteAddr() net.Addr { return f.remote }
