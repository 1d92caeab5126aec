package wire

import (
	"encoding/binary"
	"fmt"
	"net"
	"sync/atomic"

	"github.com/servbench/servbench/internal/format"
)

// MaxMongoMessage bounds a MongoDB message and what a compressed one
// declares it holds: 48,000,000 bytes, the maxMessageSizeBytes every
// MongoDB server states (a reply's batch holds at most 16 MiB of
// documents). The driver takes the bound a server states in its hello,
// up to 4 GB, and gives memory to what a message declares.
const MaxMongoMessage = 48_000_000

// opCompressed is OP_COMPRESSED's code: its header is followed by the
// original code, the uncompressed size and the compressor.
const opCompressed = 2012

// MessageError is a message refused at its header: over its bound. The
// connection fails with it, and the operations waiting on it, counted as
// server errors (ERROR); the run goes on.
type MessageError struct {
	What string
	Max  int64
}

func (e *MessageError) Error() string {
	return fmt.Sprintf("the server's %s is more than %s: the connection is closed", e.What, format.Bytes(e.Max))
}

// mongoConn reads the MongoDB messages' headers as they pass (a
// message's length, little-endian, first; OP_COMPRESSED's uncompressed
// size after its header) and fails the read that brings one past its
// bound, before the driver reads it: a header's bytes of state, no
// allocation a read, the rest of a message skipped whole.
type mongoConn struct {
	watched
	hdr     [25]byte
	have    int   // header bytes read
	left    int64 // message bytes left to skip
	hosts   hostScan
	refused func(error)
	update  atomic.Int64 // the request id of the update last sent, +1 (0: none)
}

// MaxMongoUpdateAnswer bounds the answer to an update command: the driver
// decodes the ids of the documents it upserted by recursion, a level at a
// time, whatever an operation asked (an _id nested 5,000,000 deep, 40 MB,
// overflowed the stack, which ends the process); an update's answer holds
// counts and a few errors, some bytes, and 256 KiB nests at most some
// 32,000 levels.
const MaxMongoUpdateAnswer = 256 << 10

// Write notes the request id of an update command (OP_MSG, its body's
// first key update; the driver writes a message whole), so that its
// answer is bounded at MaxMongoUpdateAnswer.
func (c *mongoConn) Write(p []byte) (int, error) {
	const key = 26 // header 16, flags 4, the section's kind 1, the body's length 4, an element's type 1
	if len(p) > key+len("update") && binary.LittleEndian.Uint32(p[12:16]) == 2013 && p[20] == 0 && string(p[key:key+len("update")+1]) == "update\x00" {
		c.update.Store(int64(binary.LittleEndian.Uint32(p[4:8])) + 1)
	}
	return c.Conn.Write(p)
}

// BoundMongo wraps a plain connection to a MongoDB server: a message
// declaring more than MaxMongoMessage bytes, or an OP_COMPRESSED one
// declaring more once uncompressed, or the answer to an update (sent
// uncompressed) declaring more than MaxMongoUpdateAnswer, fails the read
// that carries its header, with a *MessageError, and every read after
// it; a reply whose
// document lists more than MaxMongoHosts hosts fails the read that
// brings the one past it, with a *HostsError.
func BoundMongo(c net.Conn) net.Conn { return BoundMongoTold(c, nil) }

// BoundMongoTold is BoundMongo telling refused (when not nil) the error
// its connection failed with, once.
func BoundMongoTold(c net.Conn, refused func(error)) net.Conn {
	return &mongoConn{watched: watched{Conn: c}, refused: refused}
}

func (c *mongoConn) Read(p []byte) (int, error) {
	failed := c.failed
	n, err := c.read(p, c.scan)
	if failed == nil && c.failed != nil && c.refused != nil {
		c.refused(c.failed)
	}
	return n, err
}

func (c *mongoConn) scan(b []byte) error {
	for len(b) > 0 {
		if c.left > 0 {
			k := min(int64(len(b)), c.left)
			if c.hosts.state != hsDone {
				if err := c.hosts.feed(b[:k]); err != nil {
					return err
				}
			}
			b = b[k:]
			c.left -= k
			continue
		}
		length := int64(int32(binary.LittleEndian.Uint32(c.hdr[0:4])))
		want := 16
		if c.have >= 16 && binary.LittleEndian.Uint32(c.hdr[12:16]) == opCompressed && length >= 25 {
			want = 25
		}
		k := copy(c.hdr[c.have:want], b)
		b = b[k:]
		c.have += k
		// The driver reads the length alone and gives memory to it: the
		// read that carries it fails.
		if length = int64(int32(binary.LittleEndian.Uint32(c.hdr[0:4]))); c.have >= 4 && (length < 16 || length > MaxMongoMessage) {
			return &MessageError{"message", MaxMongoMessage}
		}
		if c.have < want {
			continue
		}
		if u := c.update.Load(); u != 0 && int64(binary.LittleEndian.Uint32(c.hdr[8:12]))+1 == u && length > MaxMongoUpdateAnswer {
			return &MessageError{"answer to an update", MaxMongoUpdateAnswer}
		}
		switch {
		case want == 16 && binary.LittleEndian.Uint32(c.hdr[12:16]) == opCompressed && length >= 25:
			continue // its uncompressed size next
		case want == 25:
			if size := int64(int32(binary.LittleEndian.Uint32(c.hdr[20:24]))); size < 0 || size > MaxMongoMessage {
				return &MessageError{"compressed message, uncompressed,", MaxMongoMessage}
			}
		}
		c.left, c.have = length-int64(want), 0
		c.hosts.start(binary.LittleEndian.Uint32(c.hdr[12:16]), want)
	}
	return nil
}

// MaxMongoHosts bounds the hosts a reply's document lists (its hosts,
// passives and arbiters together): 1,000, where a replica set has 50
// members at most. The driver makes a server, its monitor and its pool
// for each host a hello lists (30,000 made-up names, 1 MB, took 1.85 GB).
const MaxMongoHosts = 1000

// HostsError is a reply refused for the hosts it lists: over
// MaxMongoHosts.
type HostsError struct{ Max int }

func (e *HostsError) Error() string {
	return fmt.Sprintf("the server's hello lists more than %s hosts (hosts, passives, arbiters): the connection is closed", format.Thousands(int64(e.Max)))
}

// hostScan follows the first document of a reply (OP_MSG's body, OP_REPLY's
// first) as its bytes pass, counting the strings of its top-level arrays
// named hosts, passives and arbiters; every other value is skipped whole
// by its length. A few bytes of state, nothing allocated.
type hostScan struct {
	state hsState
	skip  int64   // bytes to pass before state
	num   [4]byte // an int32 being read
	nnum  int
	then  hsState // after the int32: what it is the length of
	typ   byte    // the element's type
	name  [9]byte // its name's first bytes
	nname int     // its name's length, up to len(name)+1
	array bool    // in a hosts array
	left  int     // cstrings left of a regular expression
	hosts int
}

type hsState uint8

const (
	hsDone     hsState = iota // nothing more to follow in this message
	hsKind                    // OP_MSG's section kind
	hsDocLen                  // the document's length
	hsType                    // an element's type, or the end of a document
	hsName                    // an element's name
	hsCString                 // a regular expression's cstrings
	hsInt32                   // an int32, then as then says
	hsString                  // after a length: skip it
	hsPointer                 // after a length: skip it and 12
	hsBinary                  // after a length: skip it and a subtype byte
	hsDocument                // after a length that includes itself: skip the rest
	hsHosts                   // after a hosts array's length: its elements
)

// start begins a message of code op whose header took hdr bytes.
func (h *hostScan) start(op uint32, hdr int) {
	*h = hostScan{}
	switch {
	case hdr == 16 && op == 2013: // OP_MSG: flags, then a section
		h.state, h.skip = hsKind, 4
	case hdr == 16 && op == 1: // OP_REPLY: flags, cursor, start, count
		h.state, h.skip = hsDocLen, 20
	}
}

func (h *hostScan) feed(b []byte) error {
	for len(b) > 0 && h.state != hsDone {
		if h.skip > 0 {
			k := min(int64(len(b)), h.skip)
			b, h.skip = b[k:], h.skip-k
			continue
		}
		c := b[0]
		switch h.state {
		case hsKind:
			b = b[1:]
			if h.state = hsDone; c == 0 {
				h.state = hsDocLen
			}
			continue
		case hsDocLen:
			h.state, h.then = hsInt32, hsType
			continue
		case hsType:
			b = b[1:]
			h.typ, h.nname = c, 0
			if c == 0 { // a document's end
				if h.state = hsDone; h.array {
					h.state, h.array = hsType, false
				}
				continue
			}
			h.state = hsName
			continue
		case hsName:
			b = b[1:]
			if c != 0 {
				if h.nname < len(h.name) {
					h.name[h.nname] = c
				}
				h.nname = min(h.nname+1, len(h.name)+1)
				continue
			}
			if err := h.value(); err != nil {
				return err
			}
			continue
		case hsCString:
			b = b[1:]
			if c == 0 {
				if h.left--; h.left == 0 {
					h.state = hsType
				}
			}
			continue
		case hsInt32:
			k := copy(h.num[h.nnum:], b)
			b, h.nnum = b[k:], h.nnum+k
			if h.nnum < 4 {
				continue
			}
			h.nnum = 0
			n := int64(int32(binary.LittleEndian.Uint32(h.num[:])))
			h.state = hsType
			switch h.then {
			case hsType: // the document's length
			case hsString:
				h.skip = n
			case hsPointer:
				h.skip = n + 12
			case hsBinary:
				h.skip = n + 1
			case hsDocument:
				h.skip = n - 4
			case hsHosts:
				h.array = true
			}
			if n < 0 || h.skip < 0 {
				h.state = hsDone // the driver refuses the document
			}
			continue
		}
		h.state = hsDone
	}
	return nil
}

// value follows an element's name: its value's bytes are passed as its
// type says, a hosts array's strings counted.
func (h *hostScan) value() error {
	if h.array {
		if h.typ != 2 { // the driver refuses a host that is no string
			h.state = hsDone
			return nil
		}
		if h.hosts++; h.hosts > MaxMongoHosts {
			return &HostsError{MaxMongoHosts}
		}
		h.state, h.then = hsInt32, hsString
		return nil
	}
	h.state = hsType
	switch h.typ {
	case 1, 9, 0x11, 0x12: // double, date, timestamp, int64
		h.skip = 8
	case 7: // ObjectId
		h.skip = 12
	case 8: // boolean
		h.skip = 1
	case 0x10: // int32
		h.skip = 4
	case 0x13: // decimal128
		h.skip = 16
	case 6, 0x0A, 0x7F, 0xFF: // undefined, null, max and min keys
	case 2, 0x0D, 0x0E: // string, code, symbol
		h.state, h.then = hsInt32, hsString
	case 0x0C: // DBPointer
		h.state, h.then = hsInt32, hsPointer
	case 5: // binary
		h.state, h.then = hsInt32, hsBinary
	case 0x0B: // regular expression
		h.state, h.left = hsCString, 2
	case 3, 0x0F: // document, code with scope
		h.state, h.then = hsInt32, hsDocument
	case 4:
		h.state, h.then = hsInt32, hsDocument
		switch string(h.name[:min(h.nname, len(h.name))]) {
		case "hosts", "passives", "arbiters":
			if h.nname <= len(h.name) {
				h.then = hsHosts
			}
		}
	default:
		h.state = hsDone // the driver refuses the document
	}
	return nil
}
