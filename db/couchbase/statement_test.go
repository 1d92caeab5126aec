package couchbase

import (
	"errors"
	"fmt"
	"testing"
)

// No server with a query engine runs here, so the SQL++ path is checked
// here: the statement text, and how its result is read.
func TestScanStatement(t *testing.T) {
	ks := keyspace("ycsb", "_default", "_default")
	if ks != "`ycsb`.`_default`.`_default`" {
		t.Errorf("keyspace %s", ks)
	}
	want := "SELECT RAW meta().id FROM `ycsb`.`_default`.`_default` WHERE meta().id >= $1 ORDER BY meta().id LIMIT $2"
	if got := scanStatement(ks); got != want {
		t.Errorf("statement\n got %s\nwant %s", got, want)
	}
	// Names are quoted, backquotes doubled: no injection through a name.
	if got := keyspace("a`b", "s", "c"); got != "`a``b`.`s`.`c`" {
		t.Errorf("quoted keyspace %s", got)
	}
}

// fakeRows replays a query result: each row is the JSON a server sends.
type fakeRows struct {
	rows   []string
	i      int
	err    error
	closed bool
}

func (f *fakeRows) Next() bool { f.i++; return f.i <= len(f.rows) }
func (f *fakeRows) Row(v interface{}) error {
	p, ok := v.(*string)
	if !ok {
		return errors.New("want *string")
	}
	var s string
	if _, err := fmt.Sscanf(f.rows[f.i-1], "%q", &s); err != nil {
		return err
	}
	*p = s
	return nil
}
func (f *fakeRows) Err() error   { return f.err }
func (f *fakeRows) Close() error { f.closed = true; return nil }

func TestReadIDs(t *testing.T) {
	r := &fakeRows{rows: []string{`"user1"`, `"user2"`, `"user3"`}}
	ids, err := readIDs(r, 2)
	if err != nil || fmt.Sprint(ids) != "[user1 user2]" || !r.closed {
		t.Errorf("ids %v err %v closed %v: want the first 2 and the result closed", ids, err, r.closed)
	}
	r = &fakeRows{rows: []string{`"user1"`}, err: errors.New("query failed")}
	if _, err := readIDs(r, 10); err == nil {
		t.Error("a failed query's error was lost")
	}
	r = &fakeRows{rows: []string{`not-a-string`}}
	if _, err := readIDs(r, 10); err == nil || !r.closed {
		t.Error("a malformed row was accepted or the result left open")
	}
}

// The pagination statements, as the study ran them.
func TestQueryStatements(t *testing.T) {
	ks := keyspace("b", "_default", "_default")
	path := []string{"address", "country"}
	if got, want := queryStatement(ks, path), "SELECT RAW meta().id FROM `b`.`_default`.`_default` WHERE `address`.`country` = $1 OFFSET $2 LIMIT $3"; got != want {
		t.Errorf("query\n got %s\nwant %s", got, want)
	}
	if got, want := indexStatement(ks, path), "CREATE INDEX `query1` IF NOT EXISTS ON `b`.`_default`.`_default`(`address`.`country`) USING GSI"; got != want {
		t.Errorf("index\n got %s\nwant %s", got, want)
	}
	if got := fieldPath([]string{"a`b", "c"}); got != "`a``b`.`c`" {
		t.Errorf("quoted path %s", got)
	}
}

// A setup step that creates or builds an index waits for the
// collection's indexes to be online; no other statement does.
func TestCreatesIndex(t *testing.T) {
	for s, want := range map[string]bool{
		"CREATE PRIMARY INDEX ON {keyspace}":                      true,
		"  create index `query1` IF NOT EXISTS ON {keyspace}(a)":  true,
		"BUILD INDEX ON {keyspace}(`query1`)":                     true,
		"CREATE\nINDEX x ON {keyspace}(a)":                        true,
		"SELECT COUNT(*) FROM {keyspace}":                         false,
		"DROP INDEX `query1` ON {keyspace}":                       false,
		"UPDATE {keyspace} SET note = 'create index' WHERE x = 1": false,
		"CREATE SCOPE b.s":                                        false,
		"CREATE INDEXES":                                          false,
	} {
		if got := createsIndex(s); got != want {
			t.Errorf("%q: %v, want %v", s, got, want)
		}
	}
}

// A record's document is named as YCSB's Couchbase bindings name it
// (formatId): its table, a colon, its key; a scan's or a query's ids give
// back the key.
func TestDocID(t *testing.T) {
	if got := docID("usertable", "user6284781860667377211"); got != "usertable:user6284781860667377211" {
		t.Errorf("docID: %q", got)
	}
	if got := docID("", "k"); got != "k" {
		t.Errorf("docID without a table: %q", got)
	}
	for id, want := range map[string]string{"usertable:user1": "user1", "usertable_r100:user1": "usertable_r100:user1", "user1": "user1", "usertable:a:b": "a:b"} {
		if got := keyOf("usertable", id); got != want {
			t.Errorf("keyOf(usertable, %q) = %q, want %q", id, got, want)
		}
	}
}
