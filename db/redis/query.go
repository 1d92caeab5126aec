package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/rueidis"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
)

// Pagination queries. With RedisJSON documents (redis.model=json) the
// query is RediSearch's, the 2023 study's (000, 4.4.1 and 4.4.2):
//
//	FT.CREATE query1-idx ON JSON SCHEMA $.address.country AS address_country TAG
//	FT.SEARCH query1-idx "@address_country:{France}" LIMIT offset limit DIALECT 2
//
// which returns each matching document, as the study's does (redis.nocontent
// adds NOCONTENT: keys only); the study prints the filter without the
// braces RediSearch's TAG syntax needs, and DIALECT 2 is RediSearch 2.4's
// (the study's 2.0 had only dialect 1, which reads these queries alike).
//
// Hashes cannot be indexed without RediSearch, so the hash model emulates
// the index: one sorted set per filter value, "<indexkey>:<field>:<value>",
// holding the keys that have it (score 0, so in key order), maintained by
// every insert, update and delete, and read with ZRANGE by rank.

// queryIndex is the queried field.
type queryIndex struct {
	field string
	path  []string
	attr  string // the RediSearch attribute name: the path joined by "_"
}

// Index declares the queried field and, with the JSON model, creates the
// RediSearch index when asked.
func (s *Store) Index(ctx context.Context, _ string, ix db.Index) (string, error) {
	s.qix = &queryIndex{field: ix.Field, path: ix.Path, attr: strings.Join(ix.Path, "_")}
	if !s.json {
		return fmt.Sprintf("emulated: hashes have no secondary index; one sorted set per %s value, maintained on writes, read with ZRANGE by rank", ix.Field), nil
	}
	if ix.Create {
		err := s.c.Do(ctx, s.c.B().Arbitrary("FT.CREATE").Args(s.search, "ON", "JSON", "SCHEMA", "$."+ix.Field, "AS", s.qix.attr, "TAG").Build()).Error()
		if err != nil && !strings.Contains(err.Error(), "already exists") {
			return "", wrap("create index on", ix.Field, err)
		}
	}
	return fmt.Sprintf("native: RediSearch TAG index on $.%s over RedisJSON documents, FT.SEARCH with LIMIT", ix.Field), nil
}

// valueSet returns the sorted set of keys having value.
func (s *Store) valueSet(value []byte) string {
	return s.index + ":" + s.qix.field + ":" + string(value)
}

// addToValueSet appends the ZADD of key to its value's set (hash model).
func (s *Store) addToValueSet(cmds rueidis.Commands, key string, values *db.Record) rueidis.Commands {
	if s.qix == nil {
		return cmds
	}
	if v, ok := jsondoc.FieldValue(values, s.qix.path); ok {
		cmds = append(cmds, s.zadd0(s.valueSet(v), key))
	}
	return cmds
}

// zadd0 is ZADD set 0 member: a member of a set in key order.
func (s *Store) zadd0(set, member string) rueidis.Completed {
	return s.c.B().Zadd().Key(set).ScoreMember().ScoreMember(0, member).Build()
}

// touchesValueSet reports whether an update may change the indexed value.
func (s *Store) touchesValueSet(values *db.Record) bool {
	if s.qix == nil {
		return false
	}
	_, ok := values.Get(s.qix.path[0])
	return ok
}

// valueSetOf returns the value set key currently holds, "" when none (or
// with the JSON model, where RediSearch keeps its own index).
func (s *Store) valueSetOf(ctx context.Context, key string) (string, error) {
	if s.qix == nil || s.json {
		return "", nil
	}
	top, err := s.c.Do(ctx, s.c.B().Hget().Key(key).Field(s.qix.path[0]).Build()).ToString()
	if rueidis.IsRedisNil(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var r db.Record
	r.JSON = len(s.qix.path) > 1
	r.Add(s.qix.path[0], []byte(top))
	v, ok := jsondoc.FieldValue(&r, s.qix.path)
	if !ok {
		return "", nil
	}
	return s.valueSet(v), nil
}

// updateIndexed updates a hash whose indexed field changes: the key moves
// from its old value's set to the new one's.
func (s *Store) updateIndexed(ctx context.Context, key string, values *db.Record) error {
	old, err := s.valueSetOf(ctx, key)
	if err != nil {
		return wrap("update", key, err)
	}
	cmds := rueidis.Commands{s.hset(key, values)}
	if v, ok := jsondoc.FieldValue(values, s.qix.path); ok && s.valueSet(v) != old {
		if old != "" {
			cmds = append(cmds, s.c.B().Zrem().Key(old).Member(key).Build())
		}
		cmds = append(cmds, s.zadd0(s.valueSet(v), key))
	}
	return s.do("update", key, s.c.DoMulti(ctx, cmds...))
}

// Query pages through the keys having q.Value.
func (s *Store) Query(ctx context.Context, _ string, q *db.Query, dst *db.RecordSet) error {
	if s.qix == nil || s.qix.field != q.Field {
		return fmt.Errorf("redis: query %s: no index declared on %s", q.Value, q.Field)
	}
	if s.json {
		return s.search1(ctx, q, dst)
	}
	start, stop := strconv.Itoa(q.Offset), strconv.Itoa(q.Offset+q.Limit-1)
	keys, err := s.c.Do(ctx, s.c.B().Zrange().Key(s.valueSet([]byte(q.Value))).Min(start).Max(stop).Build()).AsStrSlice()
	if err != nil {
		return wrap("query", q.Value, err)
	}
	if q.Documents && len(keys) > 0 {
		return s.readKeys(ctx, "query", q.Value, keys, nil, dst)
	}
	for _, k := range keys {
		dst.Next().SetKey([]byte(k))
	}
	return nil
}

// tagQuery returns "@attr:{value}" with the value's punctuation and
// spaces escaped, as RediSearch's tag syntax requires.
func tagQuery(attr, value string) string {
	var b strings.Builder
	b.WriteString("@" + attr + ":{")
	for _, c := range value {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	b.WriteByte('}')
	return b.String()
}

// search1 runs FT.SEARCH with LIMIT offset limit, each document in the
// reply (kept in dst when the query asks for documents), or keys only with
// redis.nocontent.
func (s *Store) search1(ctx context.Context, q *db.Query, dst *db.RecordSet) error {
	args := []string{s.search, tagQuery(s.qix.attr, q.Value)}
	noContent := s.noContent && !q.Documents
	if noContent {
		args = append(args, "NOCONTENT")
	}
	args = append(args, "LIMIT", strconv.Itoa(q.Offset), strconv.Itoa(q.Limit), "DIALECT", "2")
	res, err := s.c.Do(ctx, s.c.B().Arbitrary("FT.SEARCH").Args(args...).ReadOnly()).ToArray()
	if err != nil {
		return wrap("query", q.Value, err)
	}
	if len(res) == 0 {
		return fmt.Errorf("redis: query %s: empty FT.SEARCH reply", q.Value)
	}
	for i := 1; i < len(res); i++ {
		id, err := res[i].ToString()
		if err != nil {
			return fmt.Errorf("redis: query %s: FT.SEARCH reply item %d is not a key: %v", q.Value, i, err)
		}
		r := dst.Next()
		r.SetKey([]byte(id))
		if noContent {
			continue
		}
		if i+1 >= len(res) {
			return fmt.Errorf("redis: query %s: FT.SEARCH reply lacks the document of %s", q.Value, id)
		}
		i++
		if !q.Documents {
			continue // read, as the study's query reads it, and not kept
		}
		kv, _ := res[i].ToArray()
		for j := 0; j+1 < len(kv); j += 2 {
			if name, _ := kv[j].ToString(); name == "$" {
				text, _ := kv[j+1].ToString()
				if err := addJSON(r, []byte(text), nil); err != nil {
					return fmt.Errorf("redis: query %s: %s: %w", q.Value, id, err)
				}
			}
		}
	}
	return nil
}
