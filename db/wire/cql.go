package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
)

// The bounds of a Cassandra server's RESULT frames, read as they pass
// (protocol v4): gocql parses a result's column types by
// recursion, a level a nested type (list<list<...>>), and a type nested
// 5,000,000 deep (10 MB, within its frame bound of 256 MiB) overflowed
// the goroutine's stack, which ends the process whatever its memory.
const (
	// MaxCQLTypeDepth bounds how deep a column's type nests: CQL's own
	// types nest some levels (a frozen map of lists of a user type).
	MaxCQLTypeDepth = 64
	// MaxCQLMetadata bounds a RESULT's start up to its rows (its column
	// specifications), read whole before it is checked: a table's
	// thousand columns take some tens of KiB.
	MaxCQLMetadata = 1 << 20
	// MaxCQLUnprepared bounds the UNPREPARED errors a connection takes
	// with no statement executed in between (a RESULT other than a
	// statement prepared): gocql prepares the statement again and
	// executes it again by recursion, without end (a server answering
	// UNPREPARED every time took a goroutine's stack to the process's
	// memory). A server that forgot its statements answers each
	// execution in flight on the connection once, then executes them:
	// a run's threads over its connections are fewer; a recursion of as
	// many levels takes some MB.
	MaxCQLUnprepared = 1 << 13
	// MaxCQLEmptyPages bounds the pages of rows a connection takes in a
	// row that hold no row and say more follow: gocql fetches the next
	// page itself, inside a scan's Scan, without end (a server sending
	// empty pages held a scan until Ctrl-C). A page with a row, or any
	// other RESULT, ends the count.
	MaxCQLEmptyPages = 1000
)

// CQLError is a connection closed for what a RESULT frame declared.
type CQLError struct{ Why string }

func (e *CQLError) Error() string {
	return "the server's answer: " + e.Why + ": the connection is closed"
}

// cqlFrames follows a Cassandra connection's frames: each header, and the
// start of each RESULT's body, kept until its column types are read and
// checked; every other byte passes as it is.
type cqlFrames struct {
	hdr     [9]byte
	have    int   // bytes of hdr read
	left    int64 // of the current frame's body
	flags   byte
	inspect bool   // the current frame's start is being read
	start   []byte // the current RESULT's or ERROR's body so far
	tried   int    // its length when last read

	unprepared int // UNPREPARED errors since a statement was last executed
	emptyPages int // pages of no row saying more follow, in a row
}

// BoundCQL wraps c, a connection carrying Cassandra's native protocol v4
// in clear (TLS, when used, below it; the driver pinned to v4): a read that
// brings a RESULT whose column types nest past MaxCQLTypeDepth, or whose
// specification of its columns runs past MaxCQLMetadata, or a frame of
// another version (v5's segments, a v3 server's answer: the driver parses
// one to say so), or an UNPREPARED error past MaxCQLUnprepared in a row,
// fails with a *CQLError, and every read after it.
func BoundCQL(c net.Conn) net.Conn { return &scanned{Conn: c, scan: new(cqlFrames).scan} }

func (c *cqlFrames) scan(b []byte) error {
	for len(b) > 0 {
		if c.have < len(c.hdr) {
			var whole bool
			if b, whole = fill(c.hdr[:], &c.have, b); !whole {
				return nil
			}
			if c.hdr[0] != 0x84 { // gocql reads a frame of another version too, to say so: its types as well
				return &CQLError{fmt.Sprintf("a frame of protocol version %d (%#x) on a connection of version 4", c.hdr[0]&0x7f, c.hdr[0])}
			}
			c.left = int64(int32(binary.BigEndian.Uint32(c.hdr[5:])))
			if c.left < 0 {
				return &CQLError{"a frame's length is negative"}
			}
			c.flags = c.hdr[1]
			c.inspect = (c.hdr[4] == 0x08 || c.hdr[4] == 0x00) && c.flags&0x01 == 0 // a RESULT or an ERROR, not compressed
			c.start, c.tried = c.start[:0], 0
			if c.left == 0 {
				c.have = 0
				continue
			}
		}
		k := int(min(c.left, int64(len(b))))
		if c.inspect {
			take := min(k, MaxCQLMetadata-len(c.start))
			c.start = append(c.start, b[:take]...)
			whole := int64(k) == c.left
			if len(c.start) < 2*c.tried && !whole && len(c.start) < MaxCQLMetadata {
				c.left -= int64(k) // read again once twice as much is here: linear however it trickles
				b = b[k:]
				continue
			}
			c.tried = max(len(c.start), 64)
			var kind int
			var emptyMore bool
			var err error
			if c.hdr[4] == 0x00 {
				kind, err = errorCode(c.flags, c.start)
			} else {
				kind, emptyMore, err = checkResult(c.flags, c.start)
			}
			switch {
			case err == nil:
				c.inspect = false
				if err := c.count(c.hdr[4], kind, emptyMore); err != nil {
					return err
				}
			case !errors.Is(err, errMore):
				return err
			case whole: // the whole body, cut short: gocql says so
				c.inspect = false
			case len(c.start) == MaxCQLMetadata:
				return &CQLError{fmt.Sprintf("a result's columns specified in more than %d bytes", MaxCQLMetadata)}
			}
			if !c.inspect && cap(c.start) > 64<<10 {
				c.start = nil // not kept for the connection's life
			}
		}
		c.left -= int64(k)
		b = b[k:]
		if c.left == 0 {
			c.have, c.inspect = 0, false
		}
	}
	return nil
}

// count follows the UNPREPARED errors since a statement was last
// executed: an ERROR of code 0x2500 counts one, a RESULT other than a
// statement prepared (kind 4) ends the count. It follows the empty pages
// saying more follow (emptyMore) alike: any other RESULT ends their count.
func (c *cqlFrames) count(op byte, kind int, emptyMore bool) error {
	switch {
	case op == 0x00 && kind == 0x2500:
		if c.unprepared++; c.unprepared > MaxCQLUnprepared {
			return &CQLError{fmt.Sprintf("UNPREPARED to more than %d executions in a row, each statement prepared again", MaxCQLUnprepared)}
		}
	case op == 0x08 && kind != 4:
		c.unprepared = 0
	}
	switch {
	case op == 0x08 && emptyMore:
		if c.emptyPages++; c.emptyPages > MaxCQLEmptyPages {
			return &CQLError{fmt.Sprintf("more than %d pages in a row that hold no row and say more follow", MaxCQLEmptyPages)}
		}
	case op == 0x08:
		c.emptyPages = 0
	}
	return nil
}

// errMore: the body's start holds less than its checking needs.
var errMore = errors.New("more")

// cqlReader reads a frame body's start; a read past it is errMore.
type cqlReader struct {
	b    []byte
	err  error
	more bool // the rows' metadata says more pages follow
}

func (r *cqlReader) skip(n int) {
	if r.err == nil && (n < 0 || n > len(r.b)) {
		r.err = errMore
	}
	if r.err == nil {
		r.b = r.b[n:]
	}
}

func (r *cqlReader) short() int {
	if r.err == nil && len(r.b) < 2 {
		r.err = errMore
	}
	if r.err != nil {
		return 0
	}
	v := int(binary.BigEndian.Uint16(r.b))
	r.b = r.b[2:]
	return v
}

func (r *cqlReader) int() int {
	if r.err == nil && len(r.b) < 4 {
		r.err = errMore
	}
	if r.err != nil {
		return 0
	}
	v := int(int32(binary.BigEndian.Uint32(r.b)))
	r.b = r.b[4:]
	return v
}

func (r *cqlReader) str()   { r.skip(r.short()) }
func (r *cqlReader) bytes() { r.skip(max(r.int(), 0)) } // < 0: null

// prefix reads what a response's body starts with before its own: a
// tracing id, warnings, a custom payload, as its flags say.
func (r *cqlReader) prefix(flags byte) {
	if flags&0x02 != 0 { // tracing: its session's id
		r.skip(16)
	}
	if flags&0x08 != 0 { // warnings: a string list
		for n := r.short(); n > 0 && r.err == nil; n-- {
			r.str()
		}
	}
	if flags&0x04 != 0 { // a custom payload: a bytes map
		for n := r.short(); n > 0 && r.err == nil; n-- {
			r.str()
			r.bytes()
		}
	}
}

// errorCode reads an ERROR body's start: its code.
func errorCode(flags byte, body []byte) (int, error) {
	r := &cqlReader{b: body}
	r.prefix(flags)
	code := r.int()
	return code, r.err
}

// checkResult reads a RESULT body's start, and returns its kind: its
// column types (of rows, of a prepared statement and its result) nest at
// most MaxCQLTypeDepth. It returns errMore when the start ends first.
func checkResult(flags byte, body []byte) (kind int, emptyMore bool, err error) {
	r := &cqlReader{b: body}
	r.prefix(flags)
	kind = r.int()
	switch kind {
	case 2: // rows: their metadata, their count
		if err := r.metadata(false); err != nil {
			return kind, false, err
		}
		emptyMore = r.int() == 0 && r.more
	case 4: // prepared: its id, its variables, its result's columns
		r.skip(r.short())
		if err := r.metadata(true); err != nil {
			return kind, false, err
		}
		if err := r.metadata(false); err != nil {
			return kind, false, err
		}
	}
	return kind, emptyMore && r.err == nil, r.err
}

// metadata reads a result's (or a prepared statement's variables')
// column specifications.
func (r *cqlReader) metadata(prepared bool) error {
	flags := r.int()
	n := r.int()
	if prepared {
		r.skip(2 * max(r.int(), 0)) // the partition key's columns
	}
	if !prepared && flags&0x02 != 0 { // more pages: the paging state
		r.bytes()
		r.more = true
	}
	if flags&0x04 != 0 { // no metadata
		return r.err
	}
	global := flags&0x01 != 0
	if global {
		r.str()
		r.str()
	}
	for ; n > 0 && r.err == nil; n-- {
		if !global {
			r.str()
			r.str()
		}
		r.str()
		if err := r.typeOption(1); err != nil {
			return err
		}
	}
	return r.err
}

// typeOption reads a column's type, at depth d.
func (r *cqlReader) typeOption(d int) error {
	if d > MaxCQLTypeDepth {
		return &CQLError{fmt.Sprintf("a column's type nested more than %d deep", MaxCQLTypeDepth)}
	}
	switch r.short() {
	case 0x0000: // custom: its class name
		r.str()
	case 0x0020, 0x0022: // list, set
		return r.typeOption(d + 1)
	case 0x0021: // map
		if err := r.typeOption(d + 1); err != nil {
			return err
		}
		return r.typeOption(d + 1)
	case 0x0030: // a user type: keyspace, name, its fields
		r.str()
		r.str()
		for n := r.short(); n > 0 && r.err == nil; n-- {
			r.str()
			if err := r.typeOption(d + 1); err != nil {
				return err
			}
		}
	case 0x0031: // a tuple
		for n := r.short(); n > 0 && r.err == nil; n-- {
			if err := r.typeOption(d + 1); err != nil {
				return err
			}
		}
	}
	return r.err
}
