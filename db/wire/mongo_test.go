package wire

import (
	"encoding/binary"
	"errors"
	"testing"
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
