package wire

import (
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"net"
	"slices"
)

// The bounds of a PostgreSQL server's ParameterStatus messages over a
// connection's whole life: pgx keeps each one in a map by its name, for as
// long as the connection lives, and a server may send them at any time (a
// SET of a reported setting). A real server reports about twenty settings
// (server_version, client_encoding, TimeZone, application_name, ...), each
// value some bytes long; one that sent a new name with every message had
// gigabytes kept after the startup's bound (MaxStartup) had passed.
const (
	// MaxParameters bounds the distinct names a connection's server reports.
	MaxParameters = 128
	// MaxParameterStatus bounds one ParameterStatus message's name and value.
	MaxParameterStatus = 8 << 10
	// MaxNotifications bounds the notifications (LISTEN/NOTIFY's
	// NotificationResponse) a connection takes: servbench listens to
	// none, and a server that sent them without end held a read open
	// for as long (pgx kept each one, unless told to drop them).
	MaxNotifications = 1024
)

// ParameterError is a connection closed for its server's asynchronous
// messages: ParameterStatus past MaxParameters names or MaxParameterStatus
// bytes, or notifications past MaxNotifications.
type ParameterError struct{ Names, Size, Notifications int }

func (e *ParameterError) Error() string {
	if e.Notifications > 0 {
		return fmt.Sprintf("the server sent more than %d notifications (LISTEN/NOTIFY) on a connection that listens to none: the connection is closed", MaxNotifications)
	}
	if e.Size > 0 {
		return fmt.Sprintf("the server reported a setting (ParameterStatus) of %d bytes, more than %d: the connection is closed", e.Size, MaxParameterStatus)
	}
	return fmt.Sprintf("the server reported more than %d settings (ParameterStatus), each kept by the client: the connection is closed", MaxParameters)
}

// params reads a PostgreSQL server's messages as they pass: a message's
// type and length, skipping its body but for a ParameterStatus's name,
// hashed (maphash, seeded per connection: names cannot be chosen to
// collide) and counted once.
type params struct {
	h     maphash.Hash
	names []uint64 // distinct, at most MaxParameters
	hdr   [5]byte
	have  int   // bytes of hdr read
	left  int64 // of the current message's body
	name  bool  // reading a ParameterStatus's name

	notifications int
}

// BoundParameterStatus wraps c, a connection carrying PostgreSQL's
// protocol in clear from its first message (TLS, when used, below it):
// a read that brings a ParameterStatus past MaxParameterStatus bytes, or a
// name past MaxParameters distinct ones, or a notification past
// MaxNotifications, fails with a *ParameterError, and every read after it.
func BoundParameterStatus(c net.Conn) net.Conn {
	p := &params{}
	p.h.SetSeed(maphash.MakeSeed())
	return &scanned{Conn: c, scan: p.scan}
}

// scan follows the message stream through b.
func (c *params) scan(b []byte) error {
	for len(b) > 0 {
		if c.have < len(c.hdr) {
			var whole bool
			if b, whole = fill(c.hdr[:], &c.have, b); !whole {
				return nil
			}
			c.left = int64(int32(binary.BigEndian.Uint32(c.hdr[1:]))) - 4
			if c.hdr[0] == 'A' {
				if c.notifications++; c.notifications > MaxNotifications {
					return &ParameterError{Notifications: c.notifications}
				}
			}
			c.name = c.hdr[0] == 'S'
			if c.name {
				if c.left > MaxParameterStatus {
					return &ParameterError{Size: int(c.left)}
				}
				c.h.Reset()
			}
			if c.left <= 0 { // none, or a length the driver refuses itself
				c.have, c.name = 0, false
				continue
			}
		}
		k := int(min(c.left, int64(len(b))))
		if c.name {
			if i := slices.Index(b[:k], 0); i >= 0 {
				c.h.Write(b[:i])
				c.name = false
				if err := c.count(c.h.Sum64()); err != nil {
					return err
				}
			} else {
				c.h.Write(b[:k])
			}
		}
		c.left -= int64(k)
		b = b[k:]
		if c.left == 0 {
			c.have, c.name = 0, false
		}
	}
	return nil
}

func (c *params) count(name uint64) error {
	if slices.Contains(c.names, name) {
		return nil
	}
	if len(c.names) == MaxParameters {
		return &ParameterError{Names: MaxParameters + 1}
	}
	c.names = append(c.names, name)
	return nil
}

// scanned is a connection whose reads pass through scan as they come: an
// error of scan's fails that read, and every read after it.
type scanned struct {
	net.Conn
	scan func([]byte) error
	err  error
}

func (c *scanned) Read(b []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.Conn.Read(b)
	if perr := c.scan(b[:n]); perr != nil {
		c.err = perr
		return 0, perr
	}
	return n, err
}

// NetConn is the connection c reads from (StartupReady looks through it).
func (c *scanned) NetConn() net.Conn { return c.Conn }

// fill copies into hdr what b holds of it past the have bytes read, and
// returns the rest of b and whether hdr is whole.
func fill(hdr []byte, have *int, b []byte) ([]byte, bool) {
	k := copy(hdr[*have:], b)
	*have += k
	return b[k:], *have == len(hdr)
}
