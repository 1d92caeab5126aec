package redis

import (
	"context"
	"fmt"
	"strings"

	goredis "github.com/redis/go-redis/v9"
	"github.com/servbench/servbench/db"
)

// Pagination queries. With RedisJSON documents (redis.model=json) the
// query is RediSearch's, the studies' own:
//
//	FT.CREATE query1 ON JSON SCHEMA $.address.country AS address_country TAG
//	FT.SEARCH query1 "@address_country:{France}" NOCONTENT LIMIT offset limit
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
		err := s.c.Do(ctx, "FT.CREATE", s.search, "ON", "JSON", "SCHEMA", "$."+ix.Field, "AS", s.qix.attr, "TAG").Err()
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

// addToValueSet queues the ZADD of key to its value's set (hash model).
func (s *Store) addToValueSet(ctx context.Context, p goredis.Pipeliner, key string, values *db.Record) {
	if s.qix == nil {
		return
	}
	if v, ok := db.FieldValue(values, s.qix.path); ok {
		p.ZAdd(ctx, s.valueSet(v), goredis.Z{Member: key})
	}
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
	top, err := s.c.HGet(ctx, key, s.qix.path[0]).Result()
	if err == goredis.Nil {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	var r db.Record
	r.JSON = len(s.qix.path) > 1
	r.Add(s.qix.path[0], []byte(top))
	v, ok := db.FieldValue(&r, s.qix.path)
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
	_, err = s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		p.HSet(ctx, key, hsetArgs(values)...)
		if v, ok := db.FieldValue(values, s.qix.path); ok && s.valueSet(v) != old {
			if old != "" {
				p.ZRem(ctx, old, key)
			}
			p.ZAdd(ctx, s.valueSet(v), goredis.Z{Member: key})
		}
		return nil
	})
	if err != nil {
		return wrap("update", key, err)
	}
	return nil
}

// Query pages through the keys having q.Value.
func (s *Store) Query(ctx context.Context, _ string, q *db.Query, dst *db.RecordSet) error {
	if s.qix == nil || s.qix.field != q.Field {
		return fmt.Errorf("redis: query %s: no index declared on %s", q.Value, q.Field)
	}
	if s.json {
		return s.search1(ctx, q, dst)
	}
	keys, err := s.c.ZRange(ctx, s.valueSet([]byte(q.Value)), int64(q.Offset), int64(q.Offset+q.Limit-1)).Result()
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

// search1 runs FT.SEARCH with LIMIT offset limit: ids only (NOCONTENT) or
// with each document.
func (s *Store) search1(ctx context.Context, q *db.Query, dst *db.RecordSet) error {
	args := []any{"FT.SEARCH", s.search, tagQuery(s.qix.attr, q.Value)}
	if !q.Documents {
		args = append(args, "NOCONTENT")
	}
	args = append(args, "LIMIT", q.Offset, q.Limit, "DIALECT", 2)
	res, err := s.c.Do(ctx, args...).Slice()
	if err != nil {
		return wrap("query", q.Value, err)
	}
	if len(res) == 0 {
		return fmt.Errorf("redis: query %s: empty FT.SEARCH reply", q.Value)
	}
	for i := 1; i < len(res); i++ {
		id, ok := res[i].(string)
		if !ok {
			return fmt.Errorf("redis: query %s: FT.SEARCH reply item %d is %T, not a key", q.Value, i, res[i])
		}
		r := dst.Next()
		r.SetKey([]byte(id))
		if !q.Documents {
			continue
		}
		if i+1 >= len(res) {
			return fmt.Errorf("redis: query %s: FT.SEARCH reply lacks the document of %s", q.Value, id)
		}
		i++
		kv, _ := res[i].([]any)
		for j := 0; j+1 < len(kv); j += 2 {
			if kv[j] == "$" {
				text, _ := kv[j+1].(string)
				if err := addJSON(r, []byte(text), nil); err != nil {
					return fmt.Errorf("redis: query %s: %s: %w", q.Value, id, err)
				}
			}
		}
	}
	return nil
}
