// Package redis is the Redis binding (go-redis v9), standalone or cluster.
// A record is a hash (HSET / HGETALL / HMGET, as YCSB's binding), or with
// redis.model=json a RedisJSON document (JSON.SET / JSON.GET) that
// RediSearch can index; scans use an index sorted set of all keys, read
// with ZRANGE BYLEX (key order, the default) or ZRANGEBYSCORE over YCSB's
// String.hashCode scores.
package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

func init() {
	db.Register("redis", binding{})
	// go-redis logs every failed dial; the run counts them instead.
	goredis.SetLogger(quiet{})
}

type quiet struct{}

func (quiet) Printf(context.Context, string, ...any) {}

type binding struct{}

func (binding) Summary() string {
	return "Redis through go-redis v9, standalone or cluster (redis.host, redis.port, redis.url, redis.cluster)"
}

// Store is an open Redis connection pool.
type Store struct {
	c        goredis.UniversalClient
	index    string // the sorted set of all keys
	lex      bool   // scan order: key order (ZRANGE BYLEX) or YCSB's hash scores
	hostDesc string
	json     bool   // redis.model=json: RedisJSON documents
	search   string // the RediSearch index name (JSON model)
	qix      *queryIndex
}

func (binding) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	cfg, err := parseConfig(p, o)
	if err != nil || o.CheckOnly {
		return nil, err
	}
	s := &Store{index: cfg.index, lex: cfg.scanMode == "lex", hostDesc: strings.Join(cfg.addrs, ","),
		json: cfg.model == "json", search: cfg.search}
	if cfg.cluster {
		s.c = goredis.NewClusterClient(clusterOptions(cfg))
	} else {
		s.c = goredis.NewClient(&goredis.Options{
			Addr: cfg.addrs[0], Username: cfg.username, Password: cfg.password, DB: cfg.db, TLSConfig: cfg.tls,
			PoolSize: cfg.poolSize, MaxRetries: cfg.retries, DialTimeout: cfg.timeout,
			ReadTimeout: cfg.timeout, WriteTimeout: cfg.timeout, Protocol: 2, ContextTimeoutEnabled: true,
			DialerRetries: 1, // a dead server fails the operation now, not after 5 dials
		})
	}
	pctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if err := s.c.Ping(pctx).Err(); err != nil {
		s.c.Close()
		return nil, fmt.Errorf("redis: connect %s: %w", s.hostDesc, err)
	}
	return s, nil
}

func clusterOptions(cfg *config) *goredis.ClusterOptions {
	return &goredis.ClusterOptions{
		Addrs: cfg.addrs, Username: cfg.username, Password: cfg.password, TLSConfig: cfg.tls,
		PoolSize: cfg.poolSize, MaxRetries: cfg.retries, DialTimeout: cfg.timeout,
		ReadTimeout: cfg.timeout, WriteTimeout: cfg.timeout, Protocol: 2,
		ContextTimeoutEnabled: true, MaxRedirects: 8, DialerRetries: 1,
		MinRetryBackoff: cfg.backoff, MaxRetryBackoff: cfg.backoff,
	}
}

type config struct {
	addrs              []string
	backoff            time.Duration // the cluster client's retry backoff; -1 none
	cluster            bool
	username, password string
	db                 int
	tls                *tls.Config
	poolSize, retries  int
	timeout            time.Duration
	scanMode, index    string
	model, search      string
}

// parseConfig reads every redis.* property, whichever apply.
func parseConfig(p *props.Props, o db.Options) (*config, error) {
	c := &config{}
	var err error
	if c.cluster, err = p.Bool("redis.cluster", false); err != nil {
		return nil, err
	}
	c.username = p.String("redis.username", "")
	c.password = p.String("redis.password", "")
	dbn, err := p.Int64Min("redis.db", 0, 0)
	if err != nil {
		return nil, err
	}
	c.db = int(dbn)
	useTLS, err := p.Bool("redis.tls", false)
	if err != nil {
		return nil, err
	}
	host := p.String("redis.host", "127.0.0.1")
	port, err := p.Int64("redis.port", 6379)
	if err != nil {
		return nil, err
	}
	skip, err := p.Bool("redis.tls.insecure", false)
	if err != nil {
		return nil, err
	}
	if u, ok := p.Get("redis.url"); ok {
		// redis://[user:password@]host:port[/db], or rediss:// for TLS; for a
		// cluster, several host:port separated by commas.
		if err := c.parseURL(u); err != nil {
			return nil, p.Errorf("redis.url", "%v", err)
		}
		useTLS = useTLS || strings.HasPrefix(u, "rediss://")
	} else {
		for _, h := range strings.Split(host, ",") {
			h = strings.TrimSpace(h)
			if _, _, err := net.SplitHostPort(h); err != nil {
				h = net.JoinHostPort(h, fmt.Sprint(port))
			}
			c.addrs = append(c.addrs, h)
		}
	}
	if useTLS {
		c.tls = &tls.Config{InsecureSkipVerify: skip}
	}
	if len(c.addrs) > 1 && !c.cluster {
		return nil, p.Errorf("redis.host", "several addresses need redis.cluster=true")
	}
	pool, err := p.Int64Min("redis.poolsize", int64(max(o.Threads+4, 10)), 1)
	if err != nil {
		return nil, err
	}
	c.poolSize = int(pool)
	// A benchmark counts failures instead of hiding them behind retries.
	retries, err := p.Int64Min("redis.retries", 0, 0)
	if err != nil {
		return nil, err
	}
	c.retries = int(retries)
	if c.retries == 0 {
		c.retries = -1 // go-redis: -1 disables retries
		// A cluster client still tries a command on up to MaxRedirects
		// nodes (it must follow MOVED and ASK); without retries it does so
		// at once, so a dead node fails its operations in a millisecond
		// instead of holding the thread for seconds of backoff.
		c.backoff = -1
	}
	ms, err := p.Int64Min("redis.timeout", 2000, 1)
	if err != nil {
		return nil, err
	}
	c.timeout = time.Duration(ms) * time.Millisecond
	if c.scanMode, err = p.OneOf("redis.scanmode", "lex", "lex", "score"); err != nil {
		return nil, err
	}
	c.index = p.String("redis.indexkey", "_indices")
	if c.model, err = p.OneOf("redis.model", "hash", "hash", "json"); err != nil {
		return nil, err
	}
	c.search = p.String("redis.searchindex", "query1")
	return c, nil
}

func (c *config) parseURL(u string) error {
	rest, ok := strings.CutPrefix(u, "redis://")
	if !ok {
		if rest, ok = strings.CutPrefix(u, "rediss://"); !ok {
			return errors.New("want redis://[user:password@]host:port[/db]")
		}
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		user, pass, hasPass := strings.Cut(rest[:at], ":")
		if hasPass {
			c.username, c.password = user, pass
		} else {
			c.password = user
		}
		rest = rest[at+1:]
	}
	hosts, dbs, _ := strings.Cut(rest, "/")
	if dbs != "" {
		if _, err := fmt.Sscan(dbs, &c.db); err != nil {
			return fmt.Errorf("database %q is not a number", dbs)
		}
	}
	for _, h := range strings.Split(hosts, ",") {
		if _, _, err := net.SplitHostPort(h); err != nil {
			return fmt.Errorf("address %q: want host:port", h)
		}
		c.addrs = append(c.addrs, h)
	}
	return nil
}

// javaHash is Java's String.hashCode, YCSB's index score for a key.
func javaHash(s string) float64 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = 31*h + int32(s[i])
	}
	return float64(h)
}

func (s *Store) indexMember(key string) goredis.Z {
	if s.lex {
		return goredis.Z{Score: 0, Member: key}
	}
	return goredis.Z{Score: javaHash(key), Member: key}
}

// wrap maps go-redis errors to outcomes.
func wrap(op, key string, err error) error {
	var ne net.Error
	switch {
	case errors.Is(err, goredis.Nil):
		return fmt.Errorf("redis: %s %s: %w", op, key, db.ErrNotFound)
	case errors.As(err, &ne) && ne.Timeout():
		return fmt.Errorf("redis: %s %s: %w: %v", op, key, db.ErrTimeout, err)
	case isUnavailable(err):
		return fmt.Errorf("redis: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	}
	return fmt.Errorf("redis: %s %s: %w", op, key, err)
}

// isUnavailable recognises a server that cannot be reached or cannot serve
// now (loading, cluster down or failing over).
func isUnavailable(err error) bool {
	if db.ConnectionLost(err) {
		return true
	}
	msg := err.Error()
	for _, p := range []string{"LOADING", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN", "pool timeout"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func fill(dst *db.Record, fields []string, vals []any) bool {
	found := false
	for i, v := range vals {
		if str, ok := v.(string); ok {
			dst.Add(fields[i], []byte(str))
			found = true
		}
	}
	return found
}

// Read uses HGETALL for all fields and HMGET for some.
func (s *Store) Read(ctx context.Context, _, key string, fields []string, dst *db.Record) error {
	if s.json {
		return s.readJSON(ctx, key, fields, dst)
	}
	if fields == nil {
		m, err := s.c.HGetAll(ctx, key).Result()
		if err != nil {
			return wrap("read", key, err)
		}
		if len(m) == 0 {
			return fmt.Errorf("redis: read %s: %w", key, db.ErrNotFound)
		}
		for k, v := range m {
			dst.Add(k, []byte(v))
		}
		return nil
	}
	vals, err := s.c.HMGet(ctx, key, fields...).Result()
	if err != nil {
		return wrap("read", key, err)
	}
	if !fill(dst, fields, vals) {
		return fmt.Errorf("redis: read %s: %w", key, db.ErrNotFound)
	}
	return nil
}

func hsetArgs(values *db.Record) []any {
	args := make([]any, 0, 2*values.Len())
	for _, f := range values.Fields() {
		args = append(args, f.Name, f.Value)
	}
	return args
}

// Insert writes the hash and adds the key to the index, in one pipeline.
func (s *Store) Insert(ctx context.Context, _, key string, values *db.Record) error {
	_, err := s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		s.queueInsert(ctx, p, key, values)
		return nil
	})
	if err != nil {
		return wrap("insert", key, err)
	}
	return nil
}

// BatchInsert writes a batch of records (batchsize) in one pipeline: one
// round trip for all their hashes and index entries. A cluster client
// splits the pipeline by node.
func (s *Store) BatchInsert(ctx context.Context, _ string, keys []string, values []*db.Record) error {
	_, err := s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for i, key := range keys {
			s.queueInsert(ctx, p, key, values[i])
		}
		return nil
	})
	if err != nil {
		return wrap("batch insert", keys[0], err)
	}
	return nil
}

func (s *Store) queueInsert(ctx context.Context, p goredis.Pipeliner, key string, values *db.Record) {
	if s.json {
		p.Do(ctx, "JSON.SET", key, "$", db.AppendJSONObject(nil, values))
	} else {
		p.HSet(ctx, key, hsetArgs(values)...)
		s.addToValueSet(ctx, p, key, values)
	}
	p.ZAdd(ctx, s.index, s.indexMember(key))
}

// Update sets the given fields (HSET, YCSB's HMSET).
func (s *Store) Update(ctx context.Context, _, key string, values *db.Record) error {
	if s.json {
		return s.updateJSON(ctx, key, values)
	}
	if s.touchesValueSet(values) {
		return s.updateIndexed(ctx, key, values)
	}
	if err := s.c.HSet(ctx, key, hsetArgs(values)...).Err(); err != nil {
		return wrap("update", key, err)
	}
	return nil
}

// Delete removes the hash and its index entry.
func (s *Store) Delete(ctx context.Context, _, key string) error {
	old, err := s.valueSetOf(ctx, key)
	if err != nil {
		return wrap("delete", key, err)
	}
	var del *goredis.IntCmd
	_, err = s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		del = p.Del(ctx, key)
		p.ZRem(ctx, s.index, key)
		if old != "" {
			p.ZRem(ctx, old, key)
		}
		return nil
	})
	if err != nil {
		return wrap("delete", key, err)
	}
	if del.Val() == 0 {
		return fmt.Errorf("redis: delete %s: %w", key, db.ErrNotFound)
	}
	return nil
}

// Scan reads up to count keys from the index starting at startKey, then
// their records in one pipeline.
func (s *Store) Scan(ctx context.Context, _, startKey string, count int, fields []string, dst *db.RecordSet) error {
	var keys []string
	var err error
	if s.lex {
		keys, err = s.c.ZRangeArgs(ctx, goredis.ZRangeArgs{
			Key: s.index, Start: "[" + startKey, Stop: "+", ByLex: true, Count: int64(count),
		}).Result()
	} else {
		keys, err = s.c.ZRangeByScore(ctx, s.index, &goredis.ZRangeBy{
			Min: fmt.Sprint(javaHash(startKey)), Max: "+inf", Count: int64(count),
		}).Result()
	}
	if err != nil {
		return wrap("scan", startKey, err)
	}
	if len(keys) == 0 {
		return nil
	}
	return s.readKeys(ctx, "scan", startKey, keys, fields, dst)
}

// readKeys reads the records of keys into dst in one pipeline, in order.
func (s *Store) readKeys(ctx context.Context, op, what string, keys []string, fields []string, dst *db.RecordSet) error {
	cmds, err := s.c.Pipelined(ctx, func(p goredis.Pipeliner) error {
		for _, k := range keys {
			if s.json {
				p.Do(ctx, "JSON.GET", k)
			} else if fields == nil {
				p.HGetAll(ctx, k)
			} else {
				p.HMGet(ctx, k, fields...)
			}
		}
		return nil
	})
	if err != nil && !errors.Is(err, goredis.Nil) {
		return wrap(op, what, err)
	}
	for i, c := range cmds {
		r := dst.Next()
		r.SetKey([]byte(keys[i]))
		switch c := c.(type) {
		case *goredis.Cmd:
			if text, err := c.Text(); err == nil {
				if err := addJSON(r, []byte(text), fields); err != nil {
					return fmt.Errorf("redis: %s %s: %w", op, keys[i], err)
				}
			}
		case *goredis.MapStringStringCmd:
			for k, v := range c.Val() {
				r.Add(k, []byte(v))
			}
		case *goredis.SliceCmd:
			fill(r, fields, c.Val())
		}
	}
	return nil
}

// ServerVersion reports the server's own name and version from INFO.
func (s *Store) ServerVersion(ctx context.Context) (string, error) {
	info, err := s.c.Info(ctx, "server").Result()
	if err != nil {
		return "", err
	}
	name, version, mode := "Redis", "", ""
	for _, line := range strings.Split(info, "\n") {
		k, v, _ := strings.Cut(strings.TrimSpace(line), ":")
		switch k {
		case "redis_version":
			version = v
		case "server_name":
			if v == "valkey" {
				name = "Valkey"
			}
		case "valkey_version":
			name, version = "Valkey", v
		case "redis_mode":
			if v == "cluster" {
				mode = " (cluster)"
			}
		}
	}
	return strings.TrimSpace(name+" "+version) + mode, nil
}

// Close closes the pool.
func (s *Store) Close() error { return s.c.Close() }
