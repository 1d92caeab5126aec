package redis

import (
	"context"
	"fmt"
	"strings"

	"github.com/redis/rueidis"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
)

// The JSON model (redis.model=json) keeps each record as one RedisJSON
// document: YCSB's fields as strings, a customer document with its nested
// objects, so that RediSearch can index $.address.country.

// addJSON adds the wanted fields (nil = all) of a JSON document.
func addJSON(dst *db.Record, doc []byte, fields []string) error {
	return jsondoc.AddDocument(dst, doc, jsondoc.Only(fields))
}

// updateJSON sets the fields with one JSON.MSET, each at $.name. A missing
// key is NOT_FOUND (RedisJSON creates new documents only at the root).
func (s *Store) updateJSON(ctx context.Context, key string, values *db.Record) error {
	return jsonUpdateError(key, s.c.Do(ctx, s.jsonMset(key, values)).Error())
}

// jsonMset is JSON.MSET of each field at $.name.
func (s *Store) jsonMset(key string, values *db.Record) rueidis.Completed {
	c := s.c.B().Arbitrary("JSON.MSET")
	var buf []byte
	for _, f := range values.Fields() {
		start := len(buf)
		buf = jsondoc.AppendValue(buf, values, f.Value)
		c = c.Keys(key).Args("$."+f.Name, rueidis.BinaryString(buf[start:]))
	}
	return c.Build()
}

// jsonUpdateError maps a JSON.MSET failure to an outcome.
func jsonUpdateError(key string, err error) error {
	switch {
	case err == nil:
		return nil
	case strings.Contains(err.Error(), "new objects must be created at the root"):
		return fmt.Errorf("redis: update %s: %w", key, db.ErrNotFound)
	}
	return wrap("update", key, err)
}
