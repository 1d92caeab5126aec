package redis_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/redis/rueidis"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/db/redis"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// hugeReplies is a server on 127.0.0.1 that speaks RESP and answers its
// first reads with replies that declare more than any answer holds, a
// string of 999,999,999,999 bytes, then an array of 2,147,483,647
// elements; every other read finds nothing, every write succeeds.
func hugeReplies(t *testing.T) (addr string, reads *atomic.Int64) {
	return misbehaving(t, fixed("$999999999999\r\n"), fixed("*2147483647\r\n"))
}

// fixed writes a reply.
func fixed(reply string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, reply); return err }
}

// endless writes head, then unit again and again until the client hangs up.
func endless(head, unit string) func(io.Writer) error {
	return func(w io.Writer) error {
		if _, err := io.WriteString(w, head); err != nil {
			return err
		}
		b := strings.Repeat(unit, 64<<10/len(unit))
		for {
			if _, err := io.WriteString(w, b); err != nil {
				return err
			}
		}
	}
}

// misbehaving is a server on 127.0.0.1 that speaks RESP and answers its
// first reads with the replies given, one each; every other read finds
// nothing, every write succeeds.
func misbehaving(t *testing.T, replies ...func(io.Writer) error) (addr string, reads *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	reads = &atomic.Int64{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					args, err := readCommand(r)
					if err != nil {
						return
					}
					reply := "+OK\r\n"
					switch strings.ToUpper(args[0]) {
					case "PING":
						reply = "+PONG\r\n"
					case "HGETALL", "HMGET", "GET", "JSON.GET":
						reply = "*0\r\n"
						if n := int(reads.Add(1)); n <= len(replies) {
							if replies[n-1](c) != nil {
								return
							}
							continue
						}
					case "HSET", "DEL", "ZADD":
						reply = ":1\r\n"
					case "INFO":
						reply = "$0\r\n\r\n"
					}
					if _, err := io.WriteString(c, reply); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), reads
}

// readCommand reads a client's command: an array of strings.
func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	if !strings.HasPrefix(line, "*") {
		return nil, fmt.Errorf("not a command: %q", line)
	}
	n, err := strconv.Atoi(strings.TrimSpace(line[1:]))
	if err != nil || n < 1 || n > 1<<20 {
		return nil, fmt.Errorf("a command of %q arguments", line)
	}
	args := make([]string, n)
	for i := range args {
		if line, err = r.ReadString('\n'); err != nil {
			return nil, err
		}
		l, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(line, "$")))
		if err != nil || l < 0 || l > 64<<20 {
			return nil, fmt.Errorf("an argument of %q bytes", line)
		}
		b := make([]byte, l+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		args[i] = string(b[:l])
	}
	return args, nil
}

// runC runs workload C's 20 reads of 10 records on one thread against the
// server at addr, and returns its result.
func runC(t *testing.T, addr string, kv ...string) *result.Doc {
	t.Helper()
	res, err := engine.Run(context.Background(), engine.Spec{Binding: redis.Name, Workload: "c", Records: 10,
		Operations: engine.Give(int64(20)), Threads: 1, Properties: props.Of(append([]string{"redis.url", "redis://" + addr}, kv...)...)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Doc()
}

// wire.RESPElementBytes is at least what rueidis gives an element of an
// aggregate when its header comes.
func TestRESPElementBytes(t *testing.T) {
	if got := unsafe.Sizeof(rueidis.RedisMessage{}); got > wire.RESPElementBytes {
		t.Errorf("rueidis.RedisMessage is %d bytes, wire.RESPElementBytes %d", got, wire.RESPElementBytes)
	}
}

// A reply declaring a string of 999,999,999,999 bytes, or an array of
// 2,147,483,647 elements, fails its operation as a server error (rueidis
// gave memory to the declared length: the process died at once); the
// run goes on and writes its results.
func TestHugeReplyFailsItsOperation(t *testing.T) {
	addr, reads := hugeReplies(t)
	d := runC(t, addr)
	if reads.Load() < 3 {
		t.Fatalf("the server answered %d reads", reads.Load())
	}
	var read bool
	for _, op := range d.Ops {
		if op.Name != "READ" {
			continue
		}
		read = true
		if op.Count != 20 || op.Outcomes["ERROR"] != 2 || op.Outcomes["NOT_FOUND"] != 18 {
			t.Errorf("READ: %d operations, outcomes %v: want 2 ERROR (the huge replies) and 18 NOT_FOUND", op.Count, op.Outcomes)
		}
	}
	if !read {
		t.Errorf("no READ in the result: %+v", d.Ops)
	}
}

// An endless line (a simple string, an error), endlessly nested arrays
// and a negative length other than -1 fail their operation as a server
// error (rueidis held the line whole until memory ran out, recursed into
// the arrays until its stack overflowed, gave the length to make() and
// panicked: the process died, the run was lost); the run goes on and
// writes its results.
func TestEndlessReplyFailsItsOperation(t *testing.T) {
	for _, c := range []struct {
		name    string
		replies []func(io.Writer) error
	}{
		{"an endless line", []func(io.Writer) error{endless("+", "a"), endless("-ERR ", "x")}},
		{"endless nesting", []func(io.Writer) error{endless("", "*1\r\n"), endless("*2\r\n:1\r\n", "%1\r\n+k\r\n")}},
		{"a negative length", []func(io.Writer) error{fixed("$-2\r\n"), fixed("*1\r\n%-1\r\n")}},
		// Within every header's bound, past the reply's: arrays of
		// 4,000,000 nested a hundred deep (16 GB declared), streamed
		// aggregates that never end.
		{"large arrays nested", []func(io.Writer) error{fixed(strings.Repeat("*4000000\r\n", 100)), endless("", "*4000000\r\n")}},
		{"an endless streamed aggregate", []func(io.Writer) error{endless("*?\r\n", ":1\r\n"), endless("%?\r\n", "+k\r\n:1\r\n")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr, reads := misbehaving(t, c.replies...)
			d := runC(t, addr, "redis.timeout", "60000")
			if reads.Load() < 3 {
				t.Fatalf("the server answered %d reads", reads.Load())
			}
			var read bool
			for _, op := range d.Ops {
				if op.Name == "READ" {
					read = true
					if op.Count != 20 || op.Outcomes["ERROR"] != 2 || op.Outcomes["NOT_FOUND"] != 18 {
						t.Errorf("READ: %d operations, outcomes %v: want 2 ERROR (the replies refused) and 18 NOT_FOUND", op.Count, op.Outcomes)
					}
				}
			}
			if !read {
				t.Errorf("no READ in the result: %+v", d.Ops)
			}
		})
	}
}

// A configuration whose threads' replies in flight, each within the
// reply's bound, could not fit in the memory available is refused in one
// line naming what to change (a thousand threads and windows of 500
// replies took the process down, nothing written).
func TestRepliesInFlightFitInMemory(t *testing.T) {
	b, _ := db.Lookup("redis")
	answer := int64(10*(6*100+64) + 1024) // a record of 10 fields of 100 bytes
	for _, c := range []struct {
		threads int
		window  string
		memory  int64
		want    string
	}{
		{1000, "500", 8 << 30, "property redis.pipelining: 1000 connections, each with replies in flight up to"},
		{100000, "off", 8 << 30, "property threadcount: 100000 connections"},
		{1000, "off", 8 << 30, ""},
		{1000, "500", 0, ""}, // memory not known
	} {
		_, err := b.Open(context.Background(), dbtest.Props("redis.url", "redis://127.0.0.1:1", "redis.pipelining", c.window),
			db.Options{Threads: c.threads, CheckOnly: true, AnswerBytes: answer, Memory: c.memory, Schema: db.Schema{Fields: []string{"field0"}}})
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%d threads, window %s, %d bytes: %v, want %q", c.threads, c.window, c.memory, err, c.want)
		}
	}
}
