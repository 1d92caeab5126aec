package wire

import (
	"crypto/tls"
	"errors"
	"io"
	"net"
	"testing"
)

// A connection's reads before it is established fail past the bound;
// once StartupReady finds it (under TLS too, through NetConn) they pass.
func TestBoundStartupUntilReady(t *testing.T) {
	serve := func() net.Conn {
		a, b := net.Pipe()
		go func() {
			defer a.Close()
			buf := make([]byte, 64<<10)
			for {
				if _, err := a.Write(buf); err != nil {
					return
				}
			}
		}()
		return b
	}
	c := BoundStartup(serve(), 1<<20)
	defer c.Close()
	n, err := io.Copy(io.Discard, c)
	var se *StartupError
	if !errors.As(err, &se) || se.Max != 1<<20 || n > 1<<20 {
		t.Fatalf("read %d bytes, then %v: want at most 1 MiB, then the bound's error", n, err)
	}
	c = BoundStartup(serve(), 1<<20)
	defer c.Close()
	if !StartupReady(tls.Client(c, &tls.Config{})) {
		t.Fatal("StartupReady did not find the connection under TLS")
	}
	if n, err := io.CopyN(io.Discard, c, 4<<20); err != nil {
		t.Fatalf("ready: read %d bytes, then %v", n, err)
	}
	plain := serve()
	defer plain.Close()
	if StartupReady(plain) {
		t.Error("StartupReady found a bound on a connection without one")
	}
}
