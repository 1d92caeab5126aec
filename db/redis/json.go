package redis

import (
	"context"
	"fmt"
	"strings"

	"github.com/servbench/servbench/db"
)

// The JSON model (redis.model=json) keeps each record as one RedisJSON
// document: YCSB's fields as strings, a customer document with its nested
// objects, so that RediSearch can index $.address.country.

// addJSON adds the wanted fields (nil = all) of a JSON document.
func addJSON(dst *db.Record, doc []byte, fields []string) error {
	return db.AddJSONDocument(dst, doc, db.Only(fields))
}

// readJSON reads the document with JSON.GET (the whole document; the
// wanted fields are taken from it).
func (s *Store) readJSON(ctx context.Context, key string, fields []string, dst *db.Record) error {
	text, err := s.c.Do(ctx, "JSON.GET", key).Text()
	if err != nil {
		return wrap("read", key, err)
	}
	if err := addJSON(dst, []byte(text), fields); err != nil {
		return fmt.Errorf("redis: read %s: %w", key, err)
	}
	return nil
}

// updateJSON sets the fields with one JSON.MSET, each at $.name. A missing
// key is NOT_FOUND (RedisJSON creates new documents only at the root).
func (s *Store) updateJSON(ctx context.Context, key string, values *db.Record) error {
	args := make([]any, 0, 1+3*values.Len())
	args = append(args, "JSON.MSET")
	var buf []byte
	for _, f := range values.Fields() {
		start := len(buf)
		buf = db.AppendJSONValue(buf, values, f.Value)
		args = append(args, key, "$."+f.Name, buf[start:])
	}
	err := s.c.Do(ctx, args...).Err()
	if err != nil && strings.Contains(err.Error(), "new objects must be created at the root") {
		return fmt.Errorf("redis: update %s: %w", key, db.ErrNotFound)
	}
	if err != nil {
		return wrap("update", key, err)
	}
	return nil
}
