package wire

import (
	"encoding/binary"
	"fmt"
	"net"

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
	hdr  [25]byte
	have int   // header bytes read
	left int64 // message bytes left to skip
}

// BoundMongo wraps a plain connection to a MongoDB server: a message
// declaring more than MaxMongoMessage bytes, or an OP_COMPRESSED one
// declaring more once uncompressed, fails the read that carries its
// header, with a *MessageError, and every read after it.
func BoundMongo(c net.Conn) net.Conn { return &mongoConn{watched: watched{Conn: c}} }

func (c *mongoConn) Read(p []byte) (int, error) { return c.read(p, c.scan) }

func (c *mongoConn) scan(b []byte) error {
	for len(b) > 0 {
		if c.left > 0 {
			k := min(int64(len(b)), c.left)
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
		if c.have += k; c.have < want {
			continue
		}
		length = int64(int32(binary.LittleEndian.Uint32(c.hdr[0:4])))
		switch {
		case length < 16 || length > MaxMongoMessage:
			return &MessageError{"message", MaxMongoMessage}
		case want == 16 && binary.LittleEndian.Uint32(c.hdr[12:16]) == opCompressed && length >= 25:
			continue // its uncompressed size next
		case want == 25:
			if size := int64(int32(binary.LittleEndian.Uint32(c.hdr[20:24]))); size < 0 || size > MaxMongoMessage {
				return &MessageError{"compressed message, uncompressed,", MaxMongoMessage}
			}
		}
		c.left, c.have = length-int64(want), 0
	}
	return nil
}
