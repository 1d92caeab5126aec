package wire

import (
	"bytes"
	"fmt"
	"net"

	"github.com/servbench/servbench/internal/format"
)

// MaxRecordMessage bounds a message of a framed protocol that holds at
// most one record (a RESP string, a PostgreSQL row): four times the
// largest record (16 MiB), which a JSON record's escaping of printable
// bytes cannot double twice.
const MaxRecordMessage = 64 << 20

// The bounds of a RESP reply (Redis' protocol), read where a driver would
// give memory to what a reply declares: rueidis makes a string of the
// length a reply's header says and a list of the count it says, before
// the bytes arrive ($999999999999 took the process down at once).
const (
	// MaxRESPString bounds a string: MaxRecordMessage; Redis itself keeps
	// no string over 512 MiB.
	MaxRESPString = MaxRecordMessage
	// MaxRESPCount bounds an array's (a map's, a set's) count: a scan of
	// the most records a run asks for (1,000,000) answers with at most two
	// elements a record (a key and its fields, a key and its score).
	MaxRESPCount = 1 << 22
)

// RESPError is a reply refused at its header: a string or a count past
// its bound. The connection fails with it, and with it the operations
// waiting on the connection, counted as server errors (ERROR); the run
// goes on.
type RESPError struct {
	What string // "string" or "count"
	Max  int64
}

func (e *RESPError) Error() string {
	if e.What == "string" {
		return fmt.Sprintf("the server's reply declares a string of more than %s (a record is at most 16 MiB): the connection is closed", format.Bytes(e.Max))
	}
	return fmt.Sprintf("the server's reply declares more than %s elements (a scan's at most 2,000,000): the connection is closed", format.Thousands(e.Max))
}

// RESP states.
const (
	respType uint8 = iota // a reply's (an element's) first byte
	respLine              // a line's rest, to its '\n'
	respLen               // a length's or a count's digits, to its '\n'
	respSkip              // a string's bytes and its CRLF
)

// respConn reads RESP headers as they pass and fails the read that
// brings one past its bound, before the driver parses it. Elements of an
// aggregate follow it in the stream, each with its own header, so no
// nesting is kept: a few bytes of state a connection, no allocation a
// read, a string's bytes skipped whole.
type respConn struct {
	net.Conn
	state  uint8
	bulk   bool  // respLen: a string's length (else a count)
	neg    bool  // respLen: -1, a null
	n      int64 // respLen: the number so far; respSkip: the bytes left
	failed error
}

// BoundRESP wraps a connection to a RESP server (Redis, Valkey):
// a reply declaring a string over MaxRESPString or a count over
// MaxRESPCount fails the read that carries its header, with a
// *RESPError, and every read after it.
func BoundRESP(c net.Conn) net.Conn { return &respConn{Conn: c} }

func (c *respConn) Read(p []byte) (int, error) {
	if c.failed != nil {
		return 0, c.failed
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		if c.failed = c.scan(p[:n]); c.failed != nil {
			return 0, c.failed
		}
	}
	return n, err
}

func (c *respConn) scan(b []byte) error {
	for i := 0; i < len(b); {
		switch c.state {
		case respSkip:
			k := min(int64(len(b)-i), c.n)
			i += int(k)
			if c.n -= k; c.n == 0 {
				c.state = respType
			}
		case respType:
			switch b[i] {
			case '$', '=', '!': // string, verbatim string, error string
				c.state, c.bulk, c.neg, c.n = respLen, true, false, 0
			case '*', '%', '~', '>', '|': // array, map, set, push, attributes
				c.state, c.bulk, c.neg, c.n = respLen, false, false, 0
			default: // + - : , # ( _ and what is not RESP: a line
				c.state = respLine
			}
			i++
		case respLine:
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				return nil
			}
			i += j + 1
			c.state = respType
		case respLen:
			ch := b[i]
			i++
			switch {
			case ch >= '0' && ch <= '9':
				c.n = c.n*10 + int64(ch-'0')
				if c.bulk && c.n > MaxRESPString {
					return &RESPError{"string", MaxRESPString}
				}
				if !c.bulk && c.n > MaxRESPCount {
					return &RESPError{"count", MaxRESPCount}
				}
			case ch == '-', ch == '?': // a null; RESP3's streamed string (in chunks, each a line)
				c.neg = true
			case ch == '\n':
				if c.bulk && !c.neg {
					c.state, c.n = respSkip, c.n+2
				} else {
					c.state = respType
				}
			}
		}
	}
	return nil
}
