package mongodb_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/db/mongodb"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workloads"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// hugeMessages stands in for MongoDB on 127.0.0.1 (it states a bound of
// 2 GB in its hello, which the driver takes), its collection empty but
// for its first finds: answered by a message declaring 2,147,483,647
// bytes.
func hugeMessages(t *testing.T, huge int64) (string, *atomic.Int64) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var finds atomic.Int64
	go acceptMongo(ln, huge, &finds, nil)
	return ln.Addr().String(), &finds
}

// acceptMongo serves each connection ln accepts with serveMongo until ln
// is closed.
func acceptMongo(ln net.Listener, huge int64, finds *atomic.Int64, hello bson.D) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		go serveMongo(c, huge, finds, hello)
	}
}

func serveMongo(c net.Conn, huge int64, finds *atomic.Int64, extra bson.D) {
	defer c.Close()
	var id int32
	reply := func(to int32, op uint32, body []byte) error {
		id++
		h := make([]byte, 16, 16+len(body))
		binary.LittleEndian.PutUint32(h[0:], uint32(16+len(body)))
		binary.LittleEndian.PutUint32(h[4:], uint32(id))
		binary.LittleEndian.PutUint32(h[8:], uint32(to))
		binary.LittleEndian.PutUint32(h[12:], op)
		_, err := c.Write(append(h, body...))
		return err
	}
	hello := bson.D{{Key: "ismaster", Value: true}, {Key: "helloOk", Value: true}, {Key: "maxBsonObjectSize", Value: int32(16 << 20)},
		{Key: "maxMessageSizeBytes", Value: int32(2147483647)}, {Key: "maxWriteBatchSize", Value: int32(100000)},
		{Key: "localTime", Value: time.Now()}, {Key: "logicalSessionTimeoutMinutes", Value: int32(30)},
		{Key: "connectionId", Value: int32(1)}, {Key: "minWireVersion", Value: int32(0)}, {Key: "maxWireVersion", Value: int32(17)},
		{Key: "readOnly", Value: false}}
	hello = append(append(hello, extra...), bson.E{Key: "ok", Value: 1.0})
	for {
		var h [16]byte
		if _, err := io.ReadFull(c, h[:]); err != nil {
			return
		}
		n := int(binary.LittleEndian.Uint32(h[0:]))
		if n < 16 || n > 48_000_000 {
			return
		}
		body := make([]byte, n-16)
		if _, err := io.ReadFull(c, body); err != nil {
			return
		}
		req := int32(binary.LittleEndian.Uint32(h[4:]))
		switch binary.LittleEndian.Uint32(h[12:]) {
		case 2004: // OP_QUERY: the handshake's hello
			doc, _ := bson.Marshal(hello)
			r := make([]byte, 20, 20+len(doc))
			binary.LittleEndian.PutUint32(r[16:], 1) // one document
			if reply(req, 1, append(r, doc...)) != nil {
				return
			}
		case 2013: // OP_MSG
			if len(body) < 5 || body[4] != 0 {
				return
			}
			cmd, err := bson.Raw(body[5:]).Elements()
			if err != nil || len(cmd) == 0 {
				return
			}
			var answer any = bson.D{{Key: "ok", Value: 1.0}}
			switch cmd[0].Key() {
			case "hello", "isMaster", "ismaster":
				answer = hello
			case "buildInfo", "buildinfo":
				answer = bson.D{{Key: "version", Value: "7.0.0"}, {Key: "ok", Value: 1.0}}
			case "update":
				if huge == deepUpsert {
					finds.Add(1)
					answer = bson.D{{Key: "n", Value: int32(1)}, {Key: "nModified", Value: int32(0)},
						{Key: "upserted", Value: bson.A{bson.D{{Key: "index", Value: int32(0)}, {Key: "_id", Value: bson.Raw(deepID)}}}}, {Key: "ok", Value: 1.0}}
				}
			case "find", "getMore":
				if huge == emptyBatches {
					finds.Add(1)
					batch := "firstBatch"
					if cmd[0].Key() == "getMore" {
						batch = "nextBatch"
					}
					answer = bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(77)}, {Key: "ns", Value: "ycsb.usertable"},
						{Key: batch, Value: bson.A{}}}}, {Key: "ok", Value: 1.0}}
					break
				}
				if finds.Add(1) <= huge {
					var hh [16]byte
					binary.LittleEndian.PutUint32(hh[0:], 0x7fffffff)
					binary.LittleEndian.PutUint32(hh[8:], uint32(req))
					binary.LittleEndian.PutUint32(hh[12:], 2013)
					c.Write(hh[:])
					continue // and nothing more
				}
				answer = bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(0)}, {Key: "ns", Value: "ycsb.usertable"},
					{Key: "firstBatch", Value: bson.A{}}}}, {Key: "ok", Value: 1.0}}
			}
			doc, _ := bson.Marshal(answer)
			if reply(req, 2013, append([]byte{0, 0, 0, 0, 0}, doc...)) != nil {
				return
			}
		default:
			return
		}
	}
}

// emptyBatches: each find is answered by a cursor left open, and each
// getMore by an empty batch of it, without end (finds counts both);
// deepUpsert: each update by an upserted _id nested 1,000,000 deep, deepID
// (finds counts the updates).
const (
	emptyBatches = -1
	deepUpsert   = -2
)

// deepID is an _id 1,000,000 documents deep (8 MB).
var deepID = dbtest.NestedBSON(1000000)

// An update answered with an upserted _id nested 1,000,000 deep (the
// driver decodes it by recursion on every update's answer: 5,000,000
// levels overflowed the stack and ended the process, nothing written)
// fails at wire.MaxMongoUpdateAnswer; the run goes on and writes its
// results. The stack is cut to 64 MB here, so that an overflow comes at
// once.
func TestDeepUpsertedIDFailsTheUpdate(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
	addr, updates := hugeMessages(t, deepUpsert)
	res := runOn(t, addr, "a", "readproportion", "0", "updateproportion", "1")
	if updates.Load() < 2 {
		t.Errorf("the server answered %d updates", updates.Load())
	}
	opsFailed(t, res, "UPDATE", "answer to an update is more than 256 KiB")
}

// runOn runs workload wl, two operations on one thread, against the
// stand-in at addr, with the properties kv.
func runOn(t *testing.T, addr, wl string, kv ...string) *engine.Result {
	t.Helper()
	p := props.New()
	workloads.Load(p, wl)
	kv = append([]string{"mongodb.url", "mongodb://" + addr + "/?directConnection=true", "recordcount", "10",
		"operationcount", "2", "mongodb.createcollection", "false"}, kv...)
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test")
	}
	res, err := engine.Run(context.Background(), engine.Spec{Binding: "mongodb", Properties: p, Phase: engine.RunPhase, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// opsFailed checks that res's two operations named op each failed
// (ERROR) saying why.
func opsFailed(t *testing.T, res *engine.Result, op, why string) {
	t.Helper()
	for _, o := range res.Doc().Ops {
		if o.Name == op {
			if o.Count != 2 || o.Outcomes["ERROR"] != 2 || !strings.Contains(o.Errors["ERROR"], why) {
				t.Errorf("%s: %d operations, outcomes %v, %q: want 2, each an ERROR saying %q", op, o.Count, o.Outcomes, o.Errors["ERROR"], why)
			}
			return
		}
	}
	t.Errorf("no %s in the result", op)
}

// A scan answered by empty batches without end, its cursor open (the
// driver's Next asks for another again and again: the scan ran until
// Ctrl-C) fails after mongodb.MaxEmptyBatches; the run goes on and writes its
// results.
func TestEndlessEmptyBatchesFailTheScan(t *testing.T) {
	addr, asked := hugeMessages(t, emptyBatches)
	res := runOn(t, addr, "e", "scanproportion", "1", "insertproportion", "0")
	if n := asked.Load(); n > 2*(mongodb.MaxEmptyBatches+2) {
		t.Errorf("the server was asked %d times for 2 scans", n)
	}
	opsFailed(t, res, "SCAN", "empty batches in a row")
}

// A message declaring more than MongoDB's 48,000,000 bytes (the driver
// takes the bound the server states, here 2 GB, and gives memory to what
// a message declares) fails its operation as a server error; the run
// goes on and writes its results.
func TestHugeMessageFailsItsOperation(t *testing.T) {
	addr, finds := hugeMessages(t, 2)
	p := props.New()
	workloads.Load(p, "c")
	for k, v := range map[string]string{"mongodb.url": "mongodb://" + addr + "/?directConnection=true", "recordcount": "10",
		"operationcount": "20", "mongodb.createcollection": "false"} {
		p.Set(k, v, "test")
	}
	res, err := engine.Run(context.Background(), engine.Spec{Binding: "mongodb", Properties: p, Phase: engine.RunPhase, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if finds.Load() < 3 {
		t.Fatalf("the server answered %d finds", finds.Load())
	}
	var read bool
	for _, op := range res.Doc().Ops {
		if op.Name == "READ" {
			read = true
			if op.Count != 20 || op.Outcomes["ERROR"] != 2 || op.Outcomes["NOT_FOUND"] != 18 {
				t.Errorf("READ: %d operations, outcomes %v: want 2 ERROR (the huge messages) and 18 NOT_FOUND", op.Count, op.Outcomes)
			}
		}
	}
	if !read {
		t.Errorf("no READ in the result")
	}
}

// A server whose hello lists 20,000 hosts (the driver made a server, a
// monitor and a pool for each: 30,000 took 1.85 GB) fails the connect,
// naming mongodb.url and the bound, before the driver takes the list.
func TestManyHostsFailTheConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	hosts := bson.A{ln.Addr().String()}
	for i := range 20000 { // loopback addresses, on a port nothing listens on
		hosts = append(hosts, fmt.Sprintf("127.255.%d.%d:1", i/250, i%250+1))
	}
	var finds atomic.Int64
	go acceptMongo(ln, 0, &finds, bson.D{{Key: "setName", Value: "rs"}, {Key: "hosts", Value: hosts}})
	b, _ := db.Lookup("mongodb")
	d, err := b.Open(context.Background(), dbtest.Props("mongodb.url", "mongodb://"+ln.Addr().String()+"/", "mongodb.connecttimeout", "5000"), db.Options{Threads: 1})
	if err == nil {
		d.Close()
		t.Fatal("connected")
	}
	t.Log(err)
	if !strings.Contains(err.Error(), "mongodb.url") || !strings.Contains(err.Error(), "more than 1,000 hosts") || strings.Contains(err.Error(), "\n") {
		t.Errorf("error: %v", err)
	}
}
