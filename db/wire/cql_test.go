package wire

import (
	"encoding/binary"
	"errors"
	"testing"
)

// cqlFrame is a v4 response frame: its header and body.
func cqlFrame(flags, op byte, body []byte) []byte {
	f := []byte{0x84, flags, 0, 1, op}
	f = binary.BigEndian.AppendUint32(f, uint32(len(body)))
	return append(f, body...)
}

func cqlString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint16(b, uint16(len(s))), s...)
}

// listType is list<list<...<varchar>>>, depth lists deep.
func listType(b []byte, depth int) []byte {
	for i := 0; i < depth; i++ {
		b = binary.BigEndian.AppendUint16(b, 0x0020)
	}
	return binary.BigEndian.AppendUint16(b, 0x000D) // varchar
}

// rowsResult is a RESULT of rows whose one column is a list depth deep,
// then some rows' bytes.
func rowsResult(flags byte, depth int) []byte {
	var b []byte
	if flags&0x02 != 0 {
		b = append(b, make([]byte, 16)...) // the tracing id
	}
	if flags&0x08 != 0 {
		b = binary.BigEndian.AppendUint16(b, 1)
		b = cqlString(b, "a warning")
	}
	b = binary.BigEndian.AppendUint32(b, 2) // rows
	b = binary.BigEndian.AppendUint32(b, 1) // global table spec
	b = binary.BigEndian.AppendUint32(b, 1) // one column
	b = cqlString(cqlString(b, "ks"), "t")
	b = cqlString(b, "c")
	b = listType(b, depth)
	b = binary.BigEndian.AppendUint32(b, 0) // no rows
	return append(b, make([]byte, 1000)...)
}

// preparedResult is a PREPARED result whose variable is a list depth deep.
func preparedResult(depth int) []byte {
	b := binary.BigEndian.AppendUint32(nil, 4)
	b = cqlString(b, "id")
	b = binary.BigEndian.AppendUint32(b, 1) // global
	b = binary.BigEndian.AppendUint32(b, 1) // a variable
	b = binary.BigEndian.AppendUint32(b, 0) // no partition key columns
	b = cqlString(cqlString(b, "ks"), "t")
	b = cqlString(b, "v")
	b = listType(b, depth)
	b = binary.BigEndian.AppendUint32(b, 4) // the result: no metadata
	return binary.BigEndian.AppendUint32(b, 0)
}

// A RESULT whose column type nests past MaxCQLTypeDepth fails the read
// (gocql's recursion over 5,000,000 levels overflowed the stack), however
// the stream is cut into reads, after a tracing id and warnings too, in a
// prepared statement's variables too; at the bound it passes, and so do
// frames of other kinds and a compressed RESULT, unread. A frame of another
// version fails the read: gocql parses it, types and all, to say so.
func TestCQLTypeDepth(t *testing.T) {
	ready := cqlFrame(0, 0x02, nil)
	event := cqlFrame(0, 0x0C, []byte{0x00, 0x20, 0x00, 0x20, 0x00, 0x20})
	for _, c := range []struct {
		name   string
		stream []byte
		fail   bool
	}{
		{"rows at the bound", cqlFrame(0, 0x08, rowsResult(0, MaxCQLTypeDepth-1)), false},
		{"rows past it", cqlFrame(0, 0x08, rowsResult(0, MaxCQLTypeDepth)), true},
		{"rows 100,000 deep", cqlFrame(0, 0x08, rowsResult(0, 100000)), true},
		{"traced, warned, past it", cqlFrame(0x0A, 0x08, rowsResult(0x0A, MaxCQLTypeDepth)), true},
		{"prepared at the bound", cqlFrame(0, 0x08, preparedResult(MaxCQLTypeDepth-1)), false},
		{"prepared past it", cqlFrame(0, 0x08, preparedResult(MaxCQLTypeDepth)), true},
		{"other frames", append(ready, event...), false},
		{"compressed", cqlFrame(0x01, 0x08, rowsResult(0, 1000)), false},
		{"version 5, then a deep type", append(append([]byte{0x85}, cqlFrame(0, 0x00, []byte{0, 0, 0, 0})[1:]...), cqlFrame(0, 0x08, rowsResult(0, 100000))...), true},
		{"version 3", append([]byte{0x83}, cqlFrame(0, 0x08, rowsResult(0, 1))[1:]...), true},
	} {
		stream := append(append(append([]byte{}, ready...), c.stream...), ready...)
		for _, chunk := range []int{1, 7, 4096} {
			err := readThrough(BoundCQL, stream, chunk)
			var ce *CQLError
			if got := errors.As(err, &ce); got != c.fail {
				t.Errorf("%s, reads of %d bytes: error %v", c.name, chunk, err)
			}
		}
	}
}

// unprepared is an ERROR frame of code 0x2500 (UNPREPARED) for the
// statement id, with the flags' prefix (a warning) when flags says so.
func unprepared(flags byte) []byte {
	var b []byte
	if flags&0x08 != 0 {
		b = binary.BigEndian.AppendUint16(b, 1)
		b = cqlString(b, "a warning")
	}
	b = binary.BigEndian.AppendUint32(b, 0x2500)
	b = cqlString(b, "Prepared query with ID 01 not found")
	return cqlFrame(flags, 0x00, cqlString(b, "\x01"))
}

// A server answering every execution UNPREPARED, and each new prepare
// with the statement (gocql prepares and executes again by recursion,
// without end, and the goroutine's stack took the process's memory):
// past MaxCQLUnprepared in a row the read fails; as many, each run ended
// by a statement executed (a VOID result), and other errors, pass.
func TestCQLUnprepared(t *testing.T) {
	void := cqlFrame(0, 0x08, binary.BigEndian.AppendUint32(nil, 1))
	other := cqlFrame(0, 0x00, cqlString(binary.BigEndian.AppendUint32(nil, 0x1200), "read timeout"))
	prepared := cqlFrame(0, 0x08, preparedResult(1))
	stream := func(n, each int, end []byte) []byte {
		return runs(n, each, func(i int) []byte {
			return append(append(unprepared(byte(i%2)*0x08), prepared...), other...)
		}, end)
	}
	for _, c := range []struct {
		name   string
		stream []byte
		fail   bool
		chunks []int
	}{
		{"past the bound", stream(1, MaxCQLUnprepared+1, nil), true, []int{4096}},
		{"at the bound, executed, twice", stream(2, MaxCQLUnprepared, void), false, []int{4096}},
		{"a few, executed", stream(3, 10, void), false, []int{1, 7}},
	} {
		for _, chunk := range c.chunks {
			err := readThrough(BoundCQL, c.stream, chunk)
			var ce *CQLError
			if got := errors.As(err, &ce); got != c.fail {
				t.Errorf("%s, reads of %d bytes: error %v", c.name, chunk, err)
			}
		}
	}
}

// runs is n runs of each frames (the i-th of a run frame(i)), each run
// ended by end.
func runs(n, each int, frame func(i int) []byte, end []byte) []byte {
	var s []byte
	for range n {
		for i := range each {
			s = append(s, frame(i)...)
		}
		s = append(s, end...)
	}
	return s
}

// page is a RESULT of rows of one varchar column: rows rows (each "x"),
// saying more pages follow when more.
func page(rows int, more bool) []byte {
	b := binary.BigEndian.AppendUint32(nil, 2)
	flags := uint32(0x01)
	if more {
		flags |= 0x02
	}
	b = binary.BigEndian.AppendUint32(b, flags)
	b = binary.BigEndian.AppendUint32(b, 1) // one column
	if more {
		b = binary.BigEndian.AppendUint32(b, 3) // the paging state
		b = append(b, "abc"...)
	}
	b = cqlString(cqlString(b, "ks"), "t")
	b = cqlString(b, "c")
	b = listType(b, 0)
	b = binary.BigEndian.AppendUint32(b, uint32(rows))
	for range rows {
		b = append(binary.BigEndian.AppendUint32(b, 1), 'x')
	}
	return cqlFrame(0, 0x08, b)
}

// A server answering a scan with pages that hold no row and say more
// follow (gocql fetches the next itself, inside Scan: without end): past
// MaxCQLEmptyPages in a row the read fails; as many, ended by a page with
// a row or the last page, pass, again and again.
func TestCQLEmptyPages(t *testing.T) {
	stream := func(n, each int, end []byte) []byte {
		return runs(n, each, func(int) []byte { return page(0, true) }, end)
	}
	for _, c := range []struct {
		name   string
		stream []byte
		fail   bool
	}{
		{"past the bound", stream(1, MaxCQLEmptyPages+1, nil), true},
		{"at the bound, then a row, twice", stream(2, MaxCQLEmptyPages, page(1, true)), false},
		{"at the bound, then the last page, twice", stream(2, MaxCQLEmptyPages, page(0, false)), false},
	} {
		for _, chunk := range []int{7, 4096} {
			err := readThrough(BoundCQL, c.stream, chunk)
			var ce *CQLError
			if got := errors.As(err, &ce); got != c.fail {
				t.Errorf("%s, reads of %d bytes: error %v", c.name, chunk, err)
			}
		}
	}
}
