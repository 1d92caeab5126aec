package wire

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
)

// replayConn is a connection whose reads give data in pieces of at most
// step bytes, again from the start when it ends.
type replayConn struct {
	net.Conn
	data []byte
	step int
	at   int
}

func (c *replayConn) Read(p []byte) (int, error) {
	if c.at == len(c.data) {
		c.at = 0
	}
	n := copy(p[:min(len(p), c.step)], c.data[c.at:])
	c.at += n
	return n, nil
}

// readAll reads what BoundRESP lets through of replies given in pieces of
// step bytes.
func readAll(replies string, step int) error {
	c := BoundRESP(&replayConn{data: []byte(replies), step: step})
	buf := make([]byte, 4096)
	for got := 0; got < len(replies); {
		n, err := c.Read(buf)
		if err != nil {
			return err
		}
		got += n
	}
	return nil
}

// Replies within the bounds pass whatever pieces they come in (a string
// holding what looks like a header, nulls, RESP3's types); a string or a
// count past its bound fails the read that carries its header, and every
// read after it.
func TestBoundRESP(t *testing.T) {
	fine := "+OK\r\n-ERR x\r\n:12\r\n$-1\r\n*-1\r\n$5\r\n$9999\r\n" +
		"*3\r\n$3\r\nabc\r\n*2\r\n:1\r\n$0\r\n\r\n%1\r\n+a\r\n=7\r\ntxt:*99\r\n_\r\n,1.5\r\n#t\r\n" +
		"*4194304\r\n$67108864\r\n" // the bounds themselves (the string's bytes not sent)
	for _, step := range []int{1, 2, 3, 7, 4096} {
		if err := readAll(fine, step); err != nil {
			t.Errorf("replies within the bounds, in pieces of %d: %v", step, err)
		}
	}
	for _, c := range []struct{ replies, what string }{
		{"+OK\r\n$999999999999\r\n", "string"},
		{"$67108865\r\n", "string"},
		{"*2147483647\r\n", "count"},
		{"*2\r\n$1\r\nx\r\n*4194305\r\n", "count"},
		{"%99999999999999999999999999\r\n", "count"},
		{"!999999999\r\n", "string"},
	} {
		for _, step := range []int{1, 5, 4096} {
			err := readAll(c.replies, step)
			var re *RESPError
			if !errors.As(err, &re) || re.What != c.what {
				t.Errorf("%q in pieces of %d: %v, want a %s refused", c.replies, step, err, c.what)
			}
		}
	}
	c := BoundRESP(&replayConn{data: []byte("$999999999999\r\n"), step: 100})
	c.Read(make([]byte, 100))
	if _, err := c.Read(make([]byte, 100)); err == nil {
		t.Error("a read after the refused one succeeded")
	}
}

// The bound costs no allocation a read.
func TestBoundRESPDoesNotAllocate(t *testing.T) {
	c := BoundRESP(&replayConn{data: []byte("*2\r\n$5\r\nfield\r\n$100\r\n" + strings.Repeat("v", 100) + "\r\n+OK\r\n"), step: 37})
	buf := make([]byte, 4096)
	if n := testing.AllocsPerRun(1000, func() { c.Read(buf) }); n != 0 {
		t.Errorf("%v allocations a read", n)
	}
}

// BenchmarkBoundRESP: a read of a record's reply (HGETALL of 10 fields of
// 100 bytes) through the bound.
func BenchmarkBoundRESP(b *testing.B) {
	reply := "*20\r\n"
	for i := range 10 {
		reply += "$6\r\nfield" + string(rune('0'+i)) + "\r\n$100\r\n" + strings.Repeat("v", 100) + "\r\n"
	}
	c := BoundRESP(&replayConn{data: []byte(reply), step: len(reply)})
	buf := make([]byte, 16<<10)
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		c.Read(buf)
	}
}

// An HTTP answer passes whole up to its bound and fails past it, from its
// Content-Length when it says more.
func TestBoundResponse(t *testing.T) {
	body := func(n int) io.ReadCloser { return io.NopCloser(strings.NewReader(strings.Repeat("x", n))) }
	if b, err := io.ReadAll(BoundBody(body(100), 100)); err != nil || len(b) != 100 {
		t.Errorf("at the bound: %d bytes, %v", len(b), err)
	}
	var ae *AnswerError
	if _, err := io.ReadAll(BoundBody(body(101), 100)); !errors.As(err, &ae) {
		t.Errorf("past the bound: %v", err)
	}
	r := &http.Response{Body: body(10), ContentLength: 101}
	if err := BoundResponse(r, 100); !errors.As(err, &ae) {
		t.Errorf("a Content-Length past the bound: %v", err)
	}
}
