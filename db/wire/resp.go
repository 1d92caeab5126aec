package wire

import (
	"bytes"
	"fmt"
	"net"
	"sync/atomic"

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
// the bytes arrive ($999999999999 took the process down at once); it
// reads a line (a simple string, an error, a number) whole however long
// it is (an endless +aaaa... took gigabytes), and an aggregate inside an
// aggregate by recursion (an endless *1 *1 *1 ... overflowed the stack).
const (
	// MaxRESPString bounds a string: MaxRecordMessage; Redis itself keeps
	// no string over 512 MiB. A streamed string ($?, in chunks) is bounded
	// by the sum of its chunks.
	MaxRESPString = MaxRecordMessage
	// MaxRESPCount bounds an array's (a map's, a set's) count: a scan of
	// the most records a run asks for (1,000,000) answers with at most two
	// elements a record (a key and its fields, a key and its score). A map
	// declares pairs (at most MaxRESPCount, so twice as many elements); a
	// streamed aggregate (*?, ended by a '.') is bounded by the elements
	// it brings.
	MaxRESPCount = 1 << 22
	// MaxRESPLine bounds a line, its CRLF included: a simple string, an
	// error, a number (+ - : , ( # _) and every header. A Redis reply
	// carries its data in strings, whose length is in their header
	// ($ ! = are bounded by MaxRESPString); a line is a status (OK,
	// QUEUED), an error message (Redis cuts the arguments it quotes to
	// 128 bytes: a few hundred bytes in all) or a number (a double is at
	// most 24 characters). 64 KiB is a hundred times the longest, and
	// what a connection's reader may be made to hold for a line.
	MaxRESPLine = 64 << 10
	// MaxRESPDepth bounds how deep aggregates nest (an aggregate inside
	// an attribute counts): the replies to the commands a run sends nest
	// at most three deep (SCAN: a cursor and a list of keys; FT.SEARCH),
	// Redis' deepest (XREAD of a stream's fields, CLUSTER SHARDS) about
	// six; 128 is twenty times that, RedisJSON's own bound on a
	// document's nesting, and some tens of kilobytes of rueidis' stack
	// (an endless nesting reached Go's 1 GB limit). It costs 4 bytes a
	// level a connection.
	MaxRESPDepth = 128
)

// RESPBounds are the bounds of one reply, on top of its headers' own:
// the bytes of one string, of a reply's strings and lines in all, and a
// reply's elements in all (declared or streamed; rueidis gives each 40
// bytes, RESPElementBytes, when its aggregate's header comes). Without
// them, a reply within every header's bound could still take gigabytes:
// a hundred arrays of 4,000,000 elements nested one in the other, or a
// streamed aggregate that never ends.
type RESPBounds struct {
	String, Reply, Elements int64
	// Batch is how many replies the requests a connection sends at once
	// may have (a pipelining window; 0: one): the replies read after a
	// write hold at most Batch times Reply bytes and Elements elements
	// together (a scan's records, one reply each in one pipeline, are
	// bounded as its whole answer, not each as the whole answer).
	Batch int64
}

// RESPElementBytes is the memory rueidis gives an element of an aggregate
// when its header declares it (its RedisMessage; db/redis checks the size).
const RESPElementBytes = 40

// RESPBoundsFor gives the bounds of a reply to a run whose longest answer
// holds answer bytes as JSON (db.Options.AnswerBytes; 0: not known). A
// record's reply is at most about its JSON (RESP frames a value in a few
// bytes, where JSON may escape each byte six times) and holds at most two
// elements a field and a few a record, where the JSON gives each field 64
// bytes and each record 1 KiB: a string is bounded at 256 KiB more than
// the answer (a server's INFO, some kilobytes, fits), a reply's bytes at
// twice the answer and 256 KiB, its elements at 1,024 and one for every 16
// bytes of the answer (a record of 10 fields: about 1,500). Not known: a string at MaxRESPString, a reply's
// bytes at four times that, its elements at MaxRESPCount.
func RESPBoundsFor(answer int64) RESPBounds {
	if answer <= 0 { // each reply bounded, not its batch
		return RESPBounds{String: MaxRESPString, Reply: 4 * MaxRESPString, Elements: MaxRESPCount, Batch: 1 << 20}
	}
	return RESPBounds{
		String:   min(MaxRESPString, respSlack+answer),
		Reply:    respSlack + 2*answer,
		Elements: min(MaxRESPCount, 1<<10+answer/16),
	}
}

// respSlack is what a reply may hold past the run's longest answer: a
// server's INFO (a few kilobytes to some tens), an error, a status.
const respSlack = 256 << 10

// Memory is the most a batch's replies within b take in the client: their strings
// and lines three times (rueidis' copy, the record's, the allocator's
// rounding), and each element's RedisMessage, string header and record
// field, respElementMemory (attacked: 144,000 elements in 3 MB took 31 MB).
func (b RESPBounds) Memory() int64 { return b.batch() * (3*b.Reply + respElementMemory*b.Elements) }

// respElementMemory is what an element of a reply takes in the client
// besides its bytes: rueidis' RedisMessage (RESPElementBytes), its
// string's allocation, the record's field.
const respElementMemory = 160

// RESPError is a reply refused where it passes its bound: a string or a
// count past its bound (at its header), a reply's bytes or elements past
// theirs, a line too long, aggregates nested too deep, or a negative
// length other than -1 (a null), which rueidis gives to make() and
// panics. The connection fails with it, and with it the operations
// waiting on the connection, counted as server errors (ERROR); the run
// goes on.
type RESPError struct {
	What string // "string", "count", "reply", "batch", "batch elements", "line", "depth" or "length"
	Max  int64
}

func (e *RESPError) Error() string {
	switch e.What {
	case "string":
		return fmt.Sprintf("the server's reply declares a string of more than %s (the most this run's longest answer can hold): the connection is closed", format.Bytes(e.Max))
	case "reply":
		return fmt.Sprintf("the server's reply holds more than %s in its strings and lines (twice what this run's longest answer can hold): the connection is closed", format.Bytes(e.Max))
	case "batch":
		return fmt.Sprintf("the server's replies to one batch of requests hold more than %s in their strings and lines (what this run's answers to it can hold): the connection is closed", format.Bytes(e.Max))
	case "batch elements":
		return fmt.Sprintf("the server's replies to one batch of requests hold more than %s elements (what this run's answers to it can hold): the connection is closed", format.Thousands(e.Max))
	case "line":
		return fmt.Sprintf("the server's reply holds a line (a status, an error, a number) of more than %s (Redis' are at most a few hundred bytes): the connection is closed", format.Bytes(e.Max))
	case "depth":
		return fmt.Sprintf("the server's reply nests aggregates more than %d deep (Redis' nest at most a few): the connection is closed", e.Max)
	case "length":
		return "the server's reply declares a negative length other than -1 (a null): the connection is closed"
	}
	return fmt.Sprintf("the server's reply holds more than %s elements (the most this run's longest answer can hold): the connection is closed", format.Thousands(e.Max))
}

// RESP states.
const (
	respType uint8 = iota // a reply's (an element's) first byte
	respLine              // a line's rest, to its '\n'
	respLen               // a header's length or count, to its '\n'
	respSkip              // a string's bytes and its CRLF; a fixed-size element's rest
)

// What a header declares (respConn.kind).
const (
	kindString    uint8 = iota // $ ! =: a string, its bytes follow
	kindChunk                  // a streamed string's chunk (;): its bytes follow
	kindArray                  // * ~ >: elements follow
	kindMap                    // %: pairs follow
	kindAttribute              // |: pairs follow, then the element they describe
)

// A frame of respConn.stack: the elements an open aggregate still holds
// (low bits), for a streamed one the elements it may still bring.
const (
	frameAttribute = 1 << 31 // an attribute: it is not an element of its parent
	frameStreamed  = 1 << 30 // a streamed aggregate: ended by a '.'
	frameCount     = frameStreamed - 1
)

// respConn reads RESP as it passes and fails the read that brings a
// reply past a bound, before the driver parses it. It follows the bytes
// as rueidis reads them (a boolean is three bytes, a null two, whatever
// they are), so that nothing is hidden from it in a stretch it thinks it
// skips. The elements of an aggregate follow it in the stream, each with
// its own header: a fixed stack of the elements each open aggregate
// still holds gives the depth. About 600 bytes a connection, no
// allocation a read, a string's bytes skipped whole.
type respConn struct {
	watched
	state   uint8
	kind    uint8 // respLen: what the header declares
	neg     bool  // respLen: a '-' (-1 is a null)
	stream  bool  // respLen: a '?' (a streamed string or aggregate)
	chunked bool  // in a streamed string: every element is a chunk
	line    int   // respLine, respLen: the line's bytes so far
	n       int64 // respLen: the number so far; respSkip: the bytes left
	total   int64 // a streamed string's bytes so far
	bytes   int64 // the reply's strings and lines so far
	elems   int64 // the reply's elements so far
	bbytes  int64 // the same over the replies since the last write
	belems  int64
	sent    atomic.Bool // a write since the last reply began: a new batch
	bounds  RESPBounds
	depth   int
	stack   [MaxRESPDepth]uint32
}

// BoundRESP wraps a connection to a RESP server (Redis, Valkey): a reply
// declaring a string over MaxRESPString or b.String or a count over
// MaxRESPCount, holding more bytes or elements than b allows, a line over
// MaxRESPLine or nesting aggregates deeper than MaxRESPDepth fails the
// read that brings it there, with a *RESPError, and every read after it.
func BoundRESP(c net.Conn, b RESPBounds) net.Conn {
	return &respConn{watched: watched{Conn: c}, bounds: b}
}

func (c *respConn) Read(p []byte) (int, error) { return c.read(p, c.scan) }

// Write notes that a batch of requests went out (the driver's writer and
// reader are goroutines of their own).
func (c *respConn) Write(p []byte) (int, error) {
	c.sent.Store(true)
	return c.Conn.Write(p)
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
			ch := b[i]
			i++
			c.line, c.n, c.neg, c.stream = 0, 0, false, false
			if c.depth == 0 && !c.chunked { // a reply begins
				c.bytes, c.elems = 0, 0
				if c.sent.Swap(false) {
					c.bbytes, c.belems = 0, 0
				}
			}
			if c.chunked { // rueidis takes whatever comes for a chunk's ';'
				c.state, c.kind = respLen, kindChunk
				continue
			}
			switch ch {
			case '$', '=', '!': // string, verbatim string, error string
				c.state, c.kind = respLen, kindString
			case '*', '~', '>': // array, set, push
				c.state, c.kind = respLen, kindArray
			case '%':
				c.state, c.kind = respLen, kindMap
			case '|':
				c.state, c.kind = respLen, kindAttribute
			case '#': // a boolean: t or f and CRLF, whatever they are
				c.state, c.n = respSkip, 3
				if err := c.element(); err != nil {
					return err
				}
			case '_', '.': // a null, a streamed aggregate's end: CRLF
				c.state, c.n = respSkip, 2
				if ch == '.' && c.depth > 0 && c.stack[c.depth-1]&frameStreamed != 0 {
					c.depth--
					if c.stack[c.depth]&frameAttribute != 0 {
						continue
					}
				}
				if err := c.element(); err != nil {
					return err
				}
			default: // + - : , ( and what is not RESP (rueidis refuses it): a line
				c.state = respLine
				if err := c.element(); err != nil {
					return err
				}
			}
		case respLine:
			j := bytes.IndexByte(b[i:], '\n')
			if j < 0 {
				if c.line += len(b) - i; c.line > MaxRESPLine-2 { // its '\n' to come
					return &RESPError{"line", MaxRESPLine}
				}
				return nil
			}
			if c.line += j + 1; c.line > MaxRESPLine-1 {
				return &RESPError{"line", MaxRESPLine}
			}
			if err := c.add(int64(c.line)); err != nil {
				return err
			}
			i += j + 1
			c.state = respType
		case respLen:
			ch := b[i]
			i++
			if c.line++; c.line > MaxRESPLine-2 && ch != '\n' {
				return &RESPError{"line", MaxRESPLine}
			}
			switch {
			case ch >= '0' && ch <= '9':
				c.n = c.n*10 + int64(ch-'0')
				if c.kind <= kindChunk {
					if c.n > c.bounds.String {
						return &RESPError{"string", c.bounds.String}
					}
				} else if c.n > MaxRESPCount {
					return &RESPError{"count", MaxRESPCount}
				}
			case ch == '-':
				c.neg = true
			case ch == '?' && c.line == 1: // rueidis reads a streamed length at once
				c.stream = true
			case ch == '\n':
				if err := c.header(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// header takes a header's length or count, at its end.
func (c *respConn) header() error {
	c.state = respType
	if c.stream && c.kind != kindChunk {
		if c.kind == kindString { // its chunks follow, to one of length 0
			c.chunked, c.total = true, 0
			return nil
		}
		return c.push(MaxRESPCount + 1)
	}
	if c.neg && (c.n != 1 || c.kind != kindString && c.kind != kindArray) {
		return &RESPError{"length", -1}
	}
	switch c.kind {
	case kindChunk:
		if c.n == 0 {
			c.chunked = false
			return c.element()
		}
		if c.total += c.n; c.total > c.bounds.String {
			return &RESPError{"string", c.bounds.String}
		}
		c.state, c.n = respSkip, c.n+2
		return c.add(c.n)
	case kindString:
		if !c.neg {
			c.state, c.n = respSkip, c.n+2
			if err := c.add(c.n); err != nil {
				return err
			}
		}
		return c.element()
	case kindArray:
		if c.neg || c.n == 0 {
			return c.element()
		}
		if err := c.count(c.n); err != nil {
			return err
		}
		return c.push(uint32(c.n))
	}
	if c.n == 0 { // an empty map; an empty attribute describes what follows
		if c.kind == kindAttribute {
			return nil
		}
		return c.element()
	}
	if err := c.count(2 * c.n); err != nil {
		return err
	}
	return c.push(2 * uint32(c.n))
}

// add counts n bytes of strings or lines in the reply, and its batch.
func (c *respConn) add(n int64) error {
	if c.bytes += n; c.bytes > c.bounds.Reply {
		return &RESPError{"reply", c.bounds.Reply}
	}
	if c.bbytes += n; c.bbytes > c.bounds.batch()*c.bounds.Reply {
		return &RESPError{"batch", c.bounds.batch() * c.bounds.Reply}
	}
	return nil
}

// count counts n elements in the reply, and its batch.
func (c *respConn) count(n int64) error {
	if c.elems += n; c.elems > c.bounds.Elements {
		return &RESPError{"count", c.bounds.Elements}
	}
	if c.belems += n; c.belems > c.bounds.batch()*c.bounds.Elements {
		return &RESPError{"batch elements", c.bounds.batch() * c.bounds.Elements}
	}
	return nil
}

func (b RESPBounds) batch() int64 { return max(b.Batch, 1) }

// push opens an aggregate of n elements (a streamed one may bring n-1).
func (c *respConn) push(n uint32) error {
	if c.depth == MaxRESPDepth {
		return &RESPError{"depth", MaxRESPDepth}
	}
	if c.stream {
		n |= frameStreamed
		if c.kind != kindArray {
			n = n&frameStreamed | (2*MaxRESPCount + 1)
		}
	}
	if c.kind == kindAttribute {
		n |= frameAttribute
	}
	c.stack[c.depth] = n
	c.depth++
	return nil
}

// element counts an element, whole, in the aggregates open: each one it
// completes is an element of its parent, but for an attribute.
func (c *respConn) element() error {
	for c.depth > 0 {
		f := &c.stack[c.depth-1]
		if *f&frameStreamed != 0 { // its elements are counted as they come
			if err := c.count(1); err != nil {
				return err
			}
		}
		if *f--; *f&frameCount != 0 {
			return nil
		}
		if *f&frameStreamed != 0 {
			return &RESPError{"count", MaxRESPCount}
		}
		c.depth--
		if *f&frameAttribute != 0 {
			return nil
		}
	}
	return nil
}
