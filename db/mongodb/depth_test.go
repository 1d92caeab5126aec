package mongodb

import (
	"encoding/binary"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db/dbtest"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
)

// nested is {a: {a: ... {x: 1} ...}}, depth documents in all, built
// without recursion (the decoders' own recursion is what is bounded).
func nested(depth int) []byte {
	doc := []byte{0x10, 'x', 0, 1, 0, 0, 0} // x: int32 1
	wrap := func(body []byte) []byte {
		out := binary.LittleEndian.AppendUint32(nil, uint32(len(body)+5))
		return append(append(out, body...), 0)
	}
	doc = wrap(doc)
	for d := 1; d < depth; d++ {
		doc = wrap(append([]byte{0x03, 'a', 0}, doc...))
	}
	return doc
}

// A document nested past MaxDepth is refused before any decoder's
// recursion sees it (5,000,000 levels overflowed the stack, ending the
// process), one at the bound passes, and so do documents of every type a
// server answers with; lengths that do not hold together are refused.
func TestCheckDepth(t *testing.T) {
	if err := checkDepth(nested(MaxDepth)); err != nil {
		t.Errorf("%d deep: %v", MaxDepth, err)
	}
	if err := checkDepth(nested(MaxDepth + 1)); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("%d deep: %v", MaxDepth+1, err)
	}
	if err := checkDepth(nested(5000)); err == nil {
		t.Error("5,000 deep: taken")
	}
	every, err := bson.Marshal(bson.D{
		{Key: "s", Value: "text"}, {Key: "d", Value: 1.5}, {Key: "i", Value: int32(2)}, {Key: "l", Value: int64(3)},
		{Key: "b", Value: true}, {Key: "n", Value: nil}, {Key: "t", Value: time.Unix(1, 0)}, {Key: "o", Value: bson.NewObjectID()},
		{Key: "bin", Value: bson.Binary{Subtype: 0, Data: []byte("xyz")}}, {Key: "re", Value: bson.Regex{Pattern: "a.*", Options: "i"}},
		{Key: "js", Value: bson.JavaScript("f()")}, {Key: "cws", Value: bson.CodeWithScope{Code: "g()", Scope: bson.D{{Key: "v", Value: bson.D{{Key: "w", Value: 1}}}}}},
		{Key: "ts", Value: bson.Timestamp{T: 1, I: 2}}, {Key: "dec", Value: bson.NewDecimal128(1, 2)}, {Key: "min", Value: bson.MinKey{}},
		{Key: "max", Value: bson.MaxKey{}}, {Key: "und", Value: bson.Undefined{}}, {Key: "sym", Value: bson.Symbol("sy")},
		{Key: "ptr", Value: bson.DBPointer{DB: "db", Pointer: bson.NewObjectID()}},
		{Key: "arr", Value: bson.A{1, "two", bson.D{{Key: "three", Value: bson.A{4}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := checkDepth(every); err != nil {
		t.Errorf("every type: %v", err)
	}
	for name, bad := range map[string][]byte{
		"empty":            nil,
		"length past":      append(binary.LittleEndian.AppendUint32(nil, 100), 0),
		"inner past":       []byte{13, 0, 0, 0, 0x03, 'a', 0, 50, 0, 0, 0, 0, 0},
		"string past":      []byte{12, 0, 0, 0, 0x02, 'a', 0, 9, 0, 0, 0, 0},
		"unknown type":     []byte{8, 0, 0, 0, 0x42, 'a', 0, 0},
		"name without end": []byte{7, 0, 0, 0, 0x10, 'a', 0},
	} {
		if err := checkDepth(bad); err == nil {
			t.Errorf("%s: taken", name)
		}
	}
}

// A write answered with errors whose details (errInfo, a schema
// validation's) nest 1,000,000 deep: the driver's error writes them out by
// recursion (5,000,000 levels overflowed the stack and ended the process);
// the binding's error drops them, says so, and keeps the rest, for a write,
// a bulk write, and one wrapped deeper; details within the bound are kept.
func TestDeepWriteErrorDetails(t *testing.T) {
	if err := checkDepth(dbtest.NestedBSON(MaxDepth)); err != nil {
		t.Fatalf("NestedBSON(%d): %v", MaxDepth, err)
	}
	defer debug.SetMaxStack(debug.SetMaxStack(64 << 20)) // an overflow comes quickly
	deep := dbtest.NestedBSON(1000000)
	we := mongo.WriteError{Index: 0, Code: 121, Message: "Document failed validation", Details: deep}
	for _, c := range []struct {
		name string
		err  error
		want string
	}{
		{"write", mongo.WriteException{WriteErrors: mongo.WriteErrors{we}}, "Document failed validation (its details not written: "},
		{"bulk write", mongo.BulkWriteException{WriteErrors: []mongo.BulkWriteError{{WriteError: we}}}, "Document failed validation (its details not written: "},
		{"wrapped", onTheWay{mongo.WriteException{WriteErrors: mongo.WriteErrors{we}}}, "details nested more than 200 deep (not written)"},
		{"shallow", mongo.WriteException{WriteErrors: mongo.WriteErrors{{Code: 121, Message: "failed", Details: dbtest.NestedBSON(3)}}}, `failed: {"a": {"a": {"x": {"$numberInt":"1"}}}}`},
	} {
		if got := wrap("update", "user1", c.err).Error(); !strings.Contains(got, c.want) || len(got) > 1000 {
			t.Errorf("%s: %q, want %q in it", c.name, got, c.want)
		}
	}
}

// onTheWay wraps an error as a driver's layer might, writing it only when
// asked (fmt.Errorf writes it at once).
type onTheWay struct{ err error }

func (w onTheWay) Error() string { return "on the way: " + w.err.Error() }
func (w onTheWay) Unwrap() error { return w.err }
