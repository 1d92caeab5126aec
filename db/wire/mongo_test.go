package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// message is a MongoDB message of n bytes in all (opcode op); a
// compressed one declares size uncompressed.
func message(n int, op uint32, size int32) []byte {
	b := make([]byte, n)
	binary.LittleEndian.PutUint32(b[0:], uint32(n))
	binary.LittleEndian.PutUint32(b[12:], op)
	if op == opCompressed && n >= 25 {
		binary.LittleEndian.PutUint32(b[16:], 2013)
		binary.LittleEndian.PutUint32(b[20:], uint32(size))
	}
	return b
}

func readMongo(data []byte, step int) error {
	c := BoundMongo(&replayConn{data: data, step: step})
	buf := make([]byte, 4096)
	for got := 0; got < len(data); {
		n, err := c.Read(buf)
		if err != nil {
			return err
		}
		got += n
	}
	return nil
}

// Messages within the bound pass whatever pieces they come in; one
// declaring more than 48,000,000 bytes, or a compressed one declaring
// more once uncompressed, fails the read that carries its header.
func TestBoundMongo(t *testing.T) {
	var fine []byte
	fine = append(fine, message(16, 2013, 0)...)
	fine = append(fine, message(300, 2013, 0)...)
	fine = append(fine, message(40, opCompressed, MaxMongoMessage)...)
	fine = append(fine, message(20, opCompressed, 0)...) // too short to hold its sizes: a plain message
	fine = append(fine, message(1000, 1, 0)...)
	for _, step := range []int{1, 3, 16, 25, 4096} {
		if err := readMongo(fine, step); err != nil {
			t.Errorf("messages within the bound, in pieces of %d: %v", step, err)
		}
	}
	huge := message(16, 2013, 0)
	binary.LittleEndian.PutUint32(huge[0:], MaxMongoMessage+1)
	negative := message(16, 2013, 0)
	binary.LittleEndian.PutUint32(negative[0:], 0x80000000)
	for name, data := range map[string][]byte{
		"a message over the bound":     append(message(100, 2013, 0), huge...),
		"a negative length":            negative,
		"a compressed one over it":     message(40, opCompressed, MaxMongoMessage+1),
		"a compressed negative length": message(40, opCompressed, -1),
	} {
		for _, step := range []int{1, 7, 4096} {
			var me *MessageError
			if err := readMongo(data, step); !errors.As(err, &me) {
				t.Errorf("%s, in pieces of %d: %v", name, step, err)
			}
		}
	}
}

// The bound costs no allocation a read.
func TestBoundMongoDoesNotAllocate(t *testing.T) {
	data := append(message(300, 2013, 0), message(40, opCompressed, 100)...)
	c := BoundMongo(&replayConn{data: data, step: 37})
	buf := make([]byte, 4096)
	if n := testing.AllocsPerRun(1000, func() { c.Read(buf) }); n != 0 {
		t.Errorf("%v allocations a read", n)
	}
}

// reply is an OP_MSG (op 2013) or OP_REPLY (op 1) answering with doc.
func reply(t *testing.T, op uint32, doc any) []byte {
	body, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	prefix := 5 // flags, a section's kind
	if op == 1 {
		prefix = 20
	}
	b := message(16+prefix, op, 0)
	b = append(b, body...)
	binary.LittleEndian.PutUint32(b[0:], uint32(len(b)))
	return b
}

func hostList(n int) bson.A {
	a := make(bson.A, n)
	for i := range a {
		a[i] = fmt.Sprintf("h%d.example:27017", i)
	}
	return a
}

// A reply listing more than MaxMongoHosts hosts (hosts, passives and
// arbiters together) fails the read that brings the one past it, whatever
// values come before; lists within it, or nested in another value, pass.
func TestBoundMongoHosts(t *testing.T) {
	before := bson.D{{Key: "ismaster", Value: true}, {Key: "n", Value: 1.5}, {Key: "s", Value: "x"},
		{Key: "d", Value: bson.D{{Key: "hosts", Value: hostList(5000)}}}, {Key: "bin", Value: bson.Binary{Subtype: 0, Data: []byte("abc")}},
		{Key: "oid", Value: bson.NewObjectID()}, {Key: "null", Value: nil}, {Key: "re", Value: bson.Regex{Pattern: "a", Options: "i"}},
		{Key: "ptr", Value: bson.DBPointer{DB: "db", Pointer: bson.NewObjectID()}}, {Key: "code", Value: bson.JavaScript("f()")},
		{Key: "scope", Value: bson.CodeWithScope{Code: "g()", Scope: bson.D{{Key: "a", Value: 1}}}}, {Key: "ts", Value: bson.Timestamp{T: 1}},
		{Key: "i32", Value: int32(2)}, {Key: "i64", Value: int64(3)}, {Key: "dec", Value: bson.NewDecimal128(1, 2)},
		{Key: "min", Value: bson.MinKey{}}, {Key: "max", Value: bson.MaxKey{}}, {Key: "date", Value: bson.DateTime(1)},
		{Key: "hostsx", Value: hostList(2000)}, {Key: "compression", Value: bson.A{"zstd"}}}
	with := func(lists ...bson.E) bson.D {
		return append(append(bson.D{}, before...), append(lists, bson.E{Key: "ok", Value: 1.0})...)
	}
	var fine []byte
	fine = append(fine, reply(t, 2013, with(bson.E{Key: "hosts", Value: hostList(600)}, bson.E{Key: "passives", Value: hostList(300)},
		bson.E{Key: "arbiters", Value: hostList(100)}))...)
	fine = append(fine, reply(t, 1, with(bson.E{Key: "hosts", Value: hostList(1000)}))...)
	fine = append(fine, reply(t, 2013, bson.D{{Key: "cursor", Value: bson.D{{Key: "firstBatch", Value: bson.A{bson.D{{Key: "hosts", Value: hostList(3000)}}}}}}})...)
	for _, step := range []int{1, 7, 4096, 1 << 20} {
		if err := readMongo(fine, step); err != nil {
			t.Errorf("hosts within the bound, in pieces of %d: %v", step, err)
		}
	}
	for name, data := range map[string][]byte{
		"OP_MSG, hosts and passives": reply(t, 2013, with(bson.E{Key: "hosts", Value: hostList(600)}, bson.E{Key: "passives", Value: hostList(401)})),
		"OP_REPLY, arbiters":         reply(t, 1, with(bson.E{Key: "arbiters", Value: hostList(20000)})),
		"after a reply":              append(reply(t, 2013, with()), reply(t, 2013, with(bson.E{Key: "hosts", Value: hostList(1001)}))...),
	} {
		for _, step := range []int{1, 7, 4096} {
			var he *HostsError
			if err := readMongo(data, step); !errors.As(err, &he) || !strings.Contains(err.Error(), "more than 1,000 hosts") {
				t.Errorf("%s, in pieces of %d: %v", name, step, err)
			}
		}
	}
}

// The driver reads a message's length (4 bytes) alone, then gives memory
// to it: the read that carries those 4 bytes fails, not the rest of the
// header's (a 2 GB message got its 2 GB).
func TestBoundMongoAtItsLength(t *testing.T) {
	huge := message(16, 2013, 0)
	binary.LittleEndian.PutUint32(huge[0:], 0x7fffffff)
	c := BoundMongo(&replayConn{data: append(message(100, 2013, 0), huge...), step: 4096})
	buf := make([]byte, 100)
	if _, err := io.ReadFull(c, buf); err != nil {
		t.Fatal(err)
	}
	var me *MessageError
	if n, err := c.Read(buf[:4]); n != 0 || !errors.As(err, &me) {
		t.Errorf("the length's read: %d bytes, %v: want the bound's error", n, err)
	}
}
