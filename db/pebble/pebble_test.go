package pebble

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

func open(t *testing.T, kv ...string) *Store {
	t.Helper()
	p := props.New()
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test")
	}
	d, err := binding{}.Open(context.Background(), p, db.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	return d.(*Store)
}

func rec(kv ...string) *db.Record {
	r := &db.Record{}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Add(kv[i], []byte(kv[i+1]))
	}
	return r
}

func TestCRUDAndScanOrder(t *testing.T) {
	ctx := context.Background()
	s := open(t)
	defer s.Close()
	for i := 0; i < 50; i++ {
		if err := s.Insert(ctx, "usertable", fmt.Sprintf("user%03d", i), rec("field0", fmt.Sprint("a", i), "field1", "b")); err != nil {
			t.Fatal(err)
		}
	}
	s.Insert(ctx, "other", "user010", rec("field0", "other table"))

	var r db.Record
	if err := s.Read(ctx, "usertable", "user010", nil, &r); err != nil || r.Len() != 2 {
		t.Fatalf("read all: %v, %d fields", err, r.Len())
	}
	r.Reset()
	if err := s.Read(ctx, "usertable", "user010", []string{"field1"}, &r); err != nil || r.Len() != 1 {
		t.Fatalf("read one: %v, %d fields", err, r.Len())
	}
	if v, _ := r.Get("field1"); string(v) != "b" {
		t.Errorf("field1 = %q", v)
	}

	// Update sets the given field and keeps the others.
	if err := s.Update(ctx, "usertable", "user010", rec("field1", "new")); err != nil {
		t.Fatal(err)
	}
	r.Reset()
	s.Read(ctx, "usertable", "user010", nil, &r)
	f0, _ := r.Get("field0")
	f1, _ := r.Get("field1")
	if string(f0) != "a10" || string(f1) != "new" || r.Len() != 2 {
		t.Errorf("after update: field0=%q field1=%q (%d fields)", f0, f1, r.Len())
	}

	// Scans are in key order from the start key, within the table.
	var rs db.RecordSet
	if err := s.Scan(ctx, "usertable", "user045", 10, nil, &rs); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i := 0; i < rs.Len(); i++ {
		keys = append(keys, string(rs.Row(i).Key))
	}
	if len(keys) != 5 || keys[0] != "user045" || !sort.StringsAreSorted(keys) {
		t.Errorf("scan keys %v, want user045..user049", keys)
	}
	rs.Reset()
	s.Scan(ctx, "usertable", "user0205", 3, []string{"field0"}, &rs)
	if rs.Len() != 3 || string(rs.Row(0).Key) != "user021" || rs.Row(0).Len() != 1 {
		t.Errorf("scan from a missing key: %d rows, first %q", rs.Len(), rs.Row(0).Key)
	}

	if err := s.Delete(ctx, "usertable", "user010"); err != nil {
		t.Fatal(err)
	}
	r.Reset()
	err := s.Read(ctx, "usertable", "user010", nil, &r)
	if !errors.Is(err, db.ErrNotFound) || db.Classify(err, false) != db.NotFound {
		t.Errorf("read after delete: %v", err)
	}
	r.Reset()
	if err := s.Read(ctx, "other", "user010", nil, &r); err != nil {
		t.Errorf("other table's record disappeared: %v", err)
	}
}

func TestTemporaryAndPersistentDirs(t *testing.T) {
	s := open(t)
	dir := s.Dir()
	if !s.Ephemeral() {
		t.Error("store without pebble.dir is not ephemeral")
	}
	s.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary dir %s not removed: %v", dir, err)
	}

	kept := open(t, "pebble.keep", "true")
	kept.Close()
	if _, err := os.Stat(kept.Dir()); err != nil {
		t.Errorf("pebble.keep removed the dir: %v", err)
	}
	os.RemoveAll(kept.Dir())

	path := t.TempDir()
	a := open(t, "pebble.dir", path)
	a.Insert(context.Background(), "t", "k", rec("f", "v"))
	if a.Ephemeral() {
		t.Error("store with pebble.dir is ephemeral")
	}
	a.Close()
	b := open(t, "pebble.dir", path)
	defer b.Close()
	var r db.Record
	if err := b.Read(context.Background(), "t", "k", nil, &r); err != nil {
		t.Errorf("data did not persist in pebble.dir: %v", err)
	}
}

func TestCorruptRecord(t *testing.T) {
	var r db.Record
	if err := decodeInto(&r, []byte{5, 'a'}, nil); err == nil {
		t.Error("truncated record decoded")
	}
	good := appendRecord(nil, rec("x", "1", "yy", "22"))
	r.Reset()
	if err := decodeInto(&r, good, nil); err != nil || r.Len() != 2 {
		t.Errorf("round trip: %v %d", err, r.Len())
	}
}

func TestBadProperties(t *testing.T) {
	p := props.New()
	p.Set("pebble.sync", "maybe", "-p pebble.sync")
	if _, err := (binding{}).Open(context.Background(), p, db.Options{Threads: 1}); err == nil {
		t.Error("pebble.sync=maybe accepted")
	}
}
