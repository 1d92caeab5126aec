package wire

import (
	"errors"
	"fmt"
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

func (c *replayConn) Write(p []byte) (int, error) { return len(p), nil }

func (c *replayConn) Read(p []byte) (int, error) {
	if c.at == len(c.data) {
		c.at = 0
	}
	n := copy(p[:min(len(p), c.step)], c.data[c.at:])
	c.at += n
	return n, nil
}

// readerConn is a connection whose reads are r's.
type readerConn struct {
	net.Conn
	r io.Reader
}

func (c *readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }

// xs reads as endless x's.
type xs struct{}

func (xs) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// readAll reads what BoundRESP lets through of replies given in pieces of
// step bytes.
func readAll(replies string, step int) error {
	_, err := scanAll(replies, step)
	return err
}

// scanAll is readAll that gives the bound's state after the replies.
func scanAll(replies string, step int) (*respConn, error) {
	return scanWithin(replies, step, RESPBoundsFor(0))
}

// scanWithin is scanAll under bounds b.
func scanWithin(replies string, step int, b RESPBounds) (*respConn, error) {
	c := BoundRESP(&replayConn{data: []byte(replies), step: step}, b).(*respConn)
	buf := make([]byte, 4096)
	for got := 0; got < len(replies); {
		n, err := c.Read(buf)
		if err != nil {
			return c, err
		}
		got += n
	}
	return c, nil
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
		{"$?\r\n;67108865\r\n", "string"},
		// An endless line (rueidis held it whole), of every kind.
		{"+" + strings.Repeat("a", MaxRESPLine+10), "line"},
		{"+" + strings.Repeat("a", MaxRESPLine-2) + "\r\n", "line"}, // a byte past the bound
		{"-ERR " + strings.Repeat("x", MaxRESPLine) + "\r\n", "line"},
		{":" + strings.Repeat("1", MaxRESPLine+10), "line"},
		{"," + strings.Repeat("1", MaxRESPLine+10), "line"},
		{"(" + strings.Repeat("1", MaxRESPLine+10), "line"},
		{"*1\r\n+" + strings.Repeat("a", MaxRESPLine+10), "line"},
		{"$" + strings.Repeat("0", MaxRESPLine+10), "line"},
		{"*" + strings.Repeat("0", MaxRESPLine) + "1\r\n", "line"},
		// Aggregates nested past the bound (rueidis' stack overflowed),
		// of every kind, an attribute's too.
		{strings.Repeat("*1\r\n", MaxRESPDepth+1), "depth"},
		{strings.Repeat("*2\r\n:1\r\n", MaxRESPDepth+1), "depth"},
		{strings.Repeat("%1\r\n+k\r\n", MaxRESPDepth+1), "depth"},
		{strings.Repeat("~1\r\n>1\r\n", MaxRESPDepth), "depth"},
		{strings.Repeat("|1\r\n", MaxRESPDepth+1), "depth"},
		{strings.Repeat("|1\r\n+k\r\n*1\r\n", MaxRESPDepth), "depth"},
		{strings.Repeat("*?\r\n", MaxRESPDepth+1), "depth"},
		// A negative length other than -1: rueidis gives it to make().
		{"$-2\r\n", "length"},
		{"*-5\r\n", "length"},
		{"%-1\r\n", "length"},
		{"|-1\r\n", "length"},
		{"$?\r\n;-1\r\n", "length"},
	} {
		for _, step := range []int{1, 5, 4096} {
			err := readAll(c.replies, step)
			var re *RESPError
			if !errors.As(err, &re) || re.What != c.what {
				t.Errorf("%.80q in pieces of %d: %v, want a %s refused", c.replies, step, err, c.what)
			}
		}
	}
	c := BoundRESP(&replayConn{data: []byte("$999999999999\r\n"), step: 100}, RESPBoundsFor(0))
	c.Read(make([]byte, 100))
	if _, err := c.Read(make([]byte, 100)); err == nil {
		t.Error("a read after the refused one succeeded")
	}
}

// Aggregates are followed to their end, however their elements come:
// a map's pairs, an attribute before the element it describes (not an
// element itself), nulls and empty aggregates, streamed strings and
// aggregates; nesting to the bound passes, as do many small elements.
func TestBoundRESPNesting(t *testing.T) {
	deep := strings.Repeat("*1\r\n", MaxRESPDepth) + ":1\r\n"
	for _, c := range []struct {
		replies string
		depth   int
	}{
		{deep + deep + deep, 0},
		{strings.Repeat("%1\r\n+k\r\n", MaxRESPDepth) + "_\r\n" + deep, 0},
		{strings.Repeat("*2\r\n:1\r\n", MaxRESPDepth) + "#t\r\n" + deep, 0},
		{strings.Repeat("|1\r\n+k\r\n+v\r\n*1\r\n", MaxRESPDepth) + ":1\r\n" + deep, 0},
		{strings.Repeat("*?\r\n", MaxRESPDepth) + strings.Repeat(".\r\n", MaxRESPDepth) + deep, 0},
		{"%2\r\n+a\r\n*1\r\n:1\r\n+b\r\n", 1},
		{"%2\r\n+a\r\n*1\r\n:1\r\n+b\r\n:2\r\n", 0},
		{"*2\r\n%1\r\n+a\r\n", 2},
		{"*1\r\n|1\r\n+k\r\n+v\r\n", 1}, // the attribute is not the element
		{"*1\r\n|1\r\n+k\r\n+v\r\n:1\r\n", 0},
		{"*1\r\n|0\r\n", 1},
		{"*1\r\n|0\r\n$1\r\nx\r\n", 0},
		{"*6\r\n*-1\r\n*0\r\n%0\r\n$-1\r\n_\r\n~0\r\n", 0},
		{"*3\r\n!3\r\nerr\r\n=7\r\ntxt:*99\r\n$0\r\n\r\n", 0},
		{"*2\r\n$?\r\n;4\r\n*9\r\n\r\n;2\r\n%9\r\n;0\r\n", 1},
		{"*2\r\n$?\r\n;4\r\n*9\r\n\r\n;0\r\n:1\r\n", 0},
		{"*2\r\n*?\r\n:1\r\n%?\r\n+k\r\n.\r\n.\r\n", 1},
		{"*2\r\n*?\r\n:1\r\n.\r\n.\r\n", 0}, // a '.' not ending an aggregate is a null
		{"*1\r\n|?\r\n+k\r\n+v\r\n.\r\n:1\r\n", 0},
		{"*1\r\n|?\r\n+k\r\n+v\r\n.\r\n", 1},
		{"*2\r\n#\n\r\n*1\r\n", 2},                                   // a boolean is three bytes, whatever they are
		{"*1\r\n+" + strings.Repeat("a", MaxRESPLine-3) + "\r\n", 0}, // a line at the bound
	} {
		for _, step := range []int{1, 3, 4096} {
			rc, err := scanAll(c.replies, step)
			if err != nil || rc.depth != c.depth || rc.chunked {
				t.Errorf("%.60q in pieces of %d: %v, depth %d (chunked %v), want %d", c.replies, step, err, rc.depth, rc.chunked, c.depth)
			}
		}
	}
	// A reply of a million small elements of every kind.
	var b strings.Builder
	b.WriteString("*1000000\r\n")
	for range 100000 {
		b.WriteString("+OK\r\n:1\r\n$1\r\nx\r\n*0\r\n_\r\n-ERR\r\n%1\r\n+k\r\n:2\r\n#f\r\n,1.5\r\n*1\r\n*1\r\n$-1\r\n")
	}
	if rc, err := scanAll(b.String(), 4096); err != nil || rc.depth != 0 {
		t.Errorf("a million small elements: %v, depth %d", err, rc.depth)
	}
	// A streamed string is bounded by the sum of its chunks, a streamed
	// aggregate by the elements it brings.
	c := &respConn{chunked: true, total: MaxRESPString - 10, bounds: RESPBoundsFor(0)}
	if err := c.scan([]byte(";10\r\n")); err != nil {
		t.Errorf("a streamed string at its bound: %v", err)
	}
	c = &respConn{chunked: true, total: MaxRESPString - 10, bounds: RESPBoundsFor(0)}
	var re *RESPError
	if err := c.scan([]byte(";11\r\n")); !errors.As(err, &re) || re.What != "string" {
		t.Errorf("a streamed string past its bound: %v", err)
	}
	c = &respConn{bounds: RESPBoundsFor(0)}
	if err := c.scan([]byte("*?\r\n")); err != nil {
		t.Fatal(err)
	}
	c.stack[0] -= MaxRESPCount - 2
	if err := c.scan([]byte(":1\r\n:2\r\n.\r\n")); err != nil || c.depth != 0 {
		t.Errorf("a streamed aggregate at its bound: %v, depth %d", err, c.depth)
	}
	c = &respConn{bounds: RESPBoundsFor(0)}
	c.scan([]byte("*?\r\n"))
	c.stack[0] -= MaxRESPCount - 2
	if err := c.scan([]byte(":1\r\n:2\r\n:3\r\n")); !errors.As(err, &re) || re.What != "count" {
		t.Errorf("a streamed aggregate past its bound: %v", err)
	}
}

// A reply within every header's bound is bounded as a whole: its
// elements (declared or streamed) and the bytes of its strings and lines
// in all. Each of these took gigabytes: a hundred arrays of 4,000,000
// nested one in the other, a streamed aggregate or map that never ends,
// thousands of strings at their bound. The count starts again with each
// reply.
func TestBoundRESPReply(t *testing.T) {
	nested := strings.Repeat("*4000000\r\n", 100)
	endless := "*?\r\n" + strings.Repeat(":1\r\n", MaxRESPCount+1)
	endlessMap := "%?\r\n" + strings.Repeat("+k\r\n:1\r\n", MaxRESPCount/2+1)
	for _, c := range []struct{ replies, what string }{
		{nested, "count"},
		{endless, "count"},
		{endlessMap, "count"},
	} {
		var re *RESPError
		if err := readAll(c.replies, 1<<16); !errors.As(err, &re) || re.What != c.what {
			t.Errorf("%.40q...: %v, want a %s refused", c.replies, err, c.what)
		}
	}
	// Five strings of 64 MiB in one reply, made as they are read.
	parts := []io.Reader{strings.NewReader("*5\r\n")}
	for range 5 {
		parts = append(parts, strings.NewReader("$67108864\r\n"), io.LimitReader(xs{}, 67108864), strings.NewReader("\r\n"))
	}
	c := BoundRESP(&readerConn{r: io.MultiReader(parts...)}, RESPBoundsFor(0))
	_, err := io.Copy(io.Discard, c)
	if re := (*RESPError)(nil); !errors.As(err, &re) || re.What != "reply" {
		t.Errorf("five strings of 64 MiB in one reply: %v, want the reply refused", err)
	}
	// Replies each at the bound, one after the other, pass.
	at := "*4194304\r\n" + strings.Repeat(":1\r\n", 4194304)
	if err := readAll(at+at+at, 1<<16); err != nil {
		t.Errorf("replies at the bound, one after the other: %v", err)
	}
}

// A run's bounds let through the largest reply its longest answer makes
// (db.Options.AnswerBytes, as workload.Config.AnswerBytes computes it:
// rows x (6 x record + 64 x fields + 1 KiB)), as a hash's fields
// (HGETALL) or as FT.SEARCH's documents, and refuse a string, a reply or
// elements past them.
func TestRESPBoundsForTheRun(t *testing.T) {
	for _, c := range []struct{ rows, fields, length int }{{1, 10, 100}, {1000, 10, 100}, {100, 1, 1}, {1, 1000, 1}, {10, 2, 40000}} {
		answer := int64(c.rows) * (6*int64(c.fields*c.length) + 64*int64(c.fields) + 1<<10)
		b := RESPBoundsFor(answer)
		var r strings.Builder
		// A scan's keys, then each record's fields and values.
		fmt.Fprintf(&r, "*%d\r\n", c.rows)
		for i := range c.rows {
			fmt.Fprintf(&r, "$12\r\nuser%08d\r\n", i)
		}
		value := strings.Repeat("v", c.length)
		for range c.rows {
			fmt.Fprintf(&r, "*%d\r\n", 2*c.fields)
			for f := range c.fields {
				name := fmt.Sprintf("field%d", f)
				fmt.Fprintf(&r, "$%d\r\n%s\r\n$%d\r\n%s\r\n", len(name), name, c.length, value)
			}
		}
		// FT.SEARCH: a count, then each key and its document as JSON.
		doc := "{" + strings.Repeat(`"field0":"`+value+`",`, c.fields) + "}"
		fmt.Fprintf(&r, "*%d\r\n:%d\r\n", 1+2*c.rows, c.rows)
		for i := range c.rows {
			fmt.Fprintf(&r, "$12\r\nuser%08d\r\n*2\r\n$1\r\n$\r\n$%d\r\n%s\r\n", i, len(doc), doc)
		}
		if _, err := scanWithin(r.String(), 4096, b); err != nil {
			t.Errorf("%+v: the run's largest replies: %v", c, err)
		}
		var re *RESPError
		if _, err := scanWithin(fmt.Sprintf("$%d\r\n", b.String+1), 4096, b); !errors.As(err, &re) || re.What != "string" {
			t.Errorf("%+v: a string past %d: %v", c, b.String, err)
		}
		if _, err := scanWithin(fmt.Sprintf("*%d\r\n", b.Elements+1), 4096, b); !errors.As(err, &re) || re.What != "count" {
			t.Errorf("%+v: %d elements: %v", c, b.Elements+1, err)
		}
		n := b.Reply/b.String + 1
		over := fmt.Sprintf("*%d\r\n", n) + strings.Repeat(fmt.Sprintf("$%d\r\n%s\r\n", b.String, strings.Repeat("x", int(b.String))), int(n))
		if _, err := scanWithin(over, 1<<16, b); !errors.As(err, &re) || re.What != "reply" {
			t.Errorf("%+v: %d strings of %d: %v", c, n, b.String, err)
		}
	}
}

// The replies read after one write (a batch of requests: a scan's
// records, one reply each, in one pipeline) are bounded together, at the
// batch's share of the run's answers (a scan of 300 keys each answered at
// the whole answer's bound took 6 GB); a write starts a new batch.
func TestBoundRESPBatch(t *testing.T) {
	b := RESPBoundsFor(8 << 10)
	half := fmt.Sprintf("*%d\r\n", b.Elements/2+1) + strings.Repeat(":1\r\n", int(b.Elements/2+1))
	var re *RESPError
	if _, err := scanWithin(half+half, 1<<16, b); !errors.As(err, &re) || re.What != "batch elements" {
		t.Errorf("two replies of half the bound and more after one write: %v", err)
	}
	c := BoundRESP(&replayConn{data: []byte(half), step: len(half)}, b).(*respConn)
	buf := make([]byte, len(half))
	for i := range 4 {
		c.Write([]byte("*1\r\n$4\r\nPING\r\n"))
		if _, err := c.Read(buf); err != nil {
			t.Fatalf("reply %d after its own write: %v", i, err)
		}
	}
	b.Batch = 2
	if _, err := scanWithin(half+half, 1<<16, b); err != nil {
		t.Errorf("two replies within a batch of two: %v", err)
	}
}

// The bound costs no allocation a read.
func TestBoundRESPDoesNotAllocate(t *testing.T) {
	c := BoundRESP(&replayConn{data: []byte("*2\r\n$5\r\nfield\r\n$100\r\n" + strings.Repeat("v", 100) + "\r\n+OK\r\n%1\r\n*1\r\n:1\r\n|1\r\n+k\r\n+v\r\n*?\r\n:1\r\n.\r\n"), step: 37}, RESPBoundsFor(0))
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
	c := BoundRESP(&replayConn{data: []byte(reply), step: len(reply)}, RESPBoundsFor(0))
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
