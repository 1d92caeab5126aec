// Package redis is the Redis binding (rueidis, Redis' own Go client),
// standalone or cluster. A record is a hash (HSET / HGETALL / HMGET, as
// YCSB's binding), or with redis.model=json a RedisJSON document (JSON.SET /
// JSON.GET) that RediSearch can index; scans use an index sorted set of all
// keys, read with ZRANGE BYLEX (key order, the default) or ZRANGEBYSCORE
// over YCSB's String.hashCode scores.
//
// By default each thread has a connection of its own and one request on
// it at a time, as YCSB's Jedis binding: what the studies measured. With
// redis.pipelining=auto, concurrent threads' requests share a few
// connections and go out together (rueidis' auto-pipelining): fewer system
// calls on both sides, so more operations per second from the same cores;
// each operation's latency is still measured by the thread that waits for
// its answer. With redis.pipelining=N each thread sends its next N reads
// and updates in one write on its own connection and then reads their
// answers (an explicit window, as redis-benchmark -P N); each operation is
// measured from the window's start to its last answer.
package redis

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/redis/rueidis"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
)

// Name is the binding's name: engine.Spec{Binding: redis.Name} runs it (and
// the import that names it registers it).
const Name = "redis"

func init() { db.Register(Name, binding{}) }

type binding struct{}

// OneTable says the binding writes every table's records into its one
// database (redis.db), keys unprefixed, as YCSB's Redis binding does.
func (binding) OneTable() string { return "Redis: one database (redis.db), keys without the table" }

// OneTable says where the records go, as its binding.
func (s *Store) OneTable() string { return binding{}.OneTable() }

func (binding) Summary() string {
	return "Redis through rueidis, standalone or cluster, a connection per thread, auto-pipelined or in windows (redis.host, redis.port, redis.url, redis.cluster, redis.pipelining, redis.tls.*)"
}

// Location is where the server is and who the client is to it
// (db.Located): a rehearsal's URL goes to the first.
func (binding) Location() []string {
	return []string{"redis.url", "redis.host", "redis.port", "redis.username", "redis.password", "redis.cluster", "redis.tls", "redis.tls."}
}

// Store is an open Redis client.
type Store struct {
	traffic   wire.Traffic // the bytes its connections sent and received
	c         rueidis.Client
	index     string // the sorted set of all keys
	lex       bool   // scan order: key order (ZRANGE BYLEX) or YCSB's hash scores
	hostDesc  string
	json      bool          // redis.model=json: RedisJSON documents
	search    string        // the RediSearch index name (JSON model)
	noContent bool          // redis.nocontent
	scanPipe  bool          // redis.scanpipeline
	pipelined bool          // auto-pipelining
	window    int           // an explicit pipelining window; 0 none
	delay     time.Duration // redis.flushdelay
	qix       *queryIndex
}

func (binding) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	cfg, err := parseConfig(p, o)
	if err != nil {
		return nil, err
	}
	if cfg.tls, err = cfg.tlsProps.Config(ctx, p); err != nil || o.CheckOnly {
		return nil, err
	}
	var asked wire.CertAsked
	cfg.tls = asked.Watch(cfg.tls)
	s := &Store{index: cfg.index, lex: cfg.scanMode == "lex", hostDesc: strings.Join(cfg.addrs, ","),
		json: cfg.model == "json", search: cfg.search, noContent: cfg.noContent, scanPipe: cfg.scanPipeline, pipelined: cfg.pipelined, window: cfg.window, delay: cfg.flushDelay}
	cfg.traffic = &s.traffic
	c, err := rueidis.NewClient(clientOptions(cfg))
	if err != nil {
		return nil, fmt.Errorf("redis: connect %s: %w", s.hostDesc, noAnswer(ctx, cfg.timeout, closedAtOnce(cfg.tlsProps, asked.Explain(cfg.tlsProps, err))))
	}
	s.c = c
	pctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()
	if err := s.c.Do(pctx, s.c.B().Ping().Build()).Error(); err != nil {
		s.c.Close()
		return nil, fmt.Errorf("redis: connect %s: %w", s.hostDesc, noAnswer(ctx, cfg.timeout, closedAtOnce(cfg.tlsProps, asked.Explain(cfg.tlsProps, err))))
	}
	return s, nil
}

// noAnswer says a connection that timed out with the wait it was given
// (it said "context deadline exceeded"); Unwrap gives err.
func noAnswer(ctx context.Context, wait time.Duration, err error) error {
	var ne net.Error
	var te *wire.TLSError
	if ctx.Err() != nil || errors.As(err, &te) || !(errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()) {
		return err
	}
	return fmt.Errorf("no answer within %s (redis.timeout): %w", wait, err)
}

// closedAtOnce says a connection the server closed before its first
// answer, where TLS did not say why: a server that speaks TLS where the
// client did not, or the other way round (a bare EOF or a reset
// connection otherwise).
func closedAtOnce(t wire.TLS, err error) error {
	var te *wire.TLSError
	if errors.As(err, &te) || !(errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET)) {
		return err
	}
	if t.On {
		return &closedLine{"TLS: the server closed the connection at the handshake: a server that does not speak TLS at this address? (use redis://, or the address of its TLS port)", err}
	}
	return &closedLine{"the server closed the connection at once: one that takes TLS connections only? (use rediss://, with redis.tls.ca)", err}
}

// closedLine is a closed connection said in one line; Unwrap gives the
// driver's error.
type closedLine struct {
	msg string
	err error
}

func (e *closedLine) Error() string { return e.msg }
func (e *closedLine) Unwrap() error { return e.err }

// clientOptions maps the configuration to rueidis' options.
func clientOptions(cfg *config) rueidis.ClientOption {
	o := rueidis.ClientOption{
		InitAddress: cfg.addrs, Username: cfg.username, Password: cfg.password, SelectDB: cfg.db,
		TLSConfig: cfg.tls, Dialer: net.Dialer{Timeout: cfg.timeout},
		// Each request's deadline, and the interval of the pings that
		// find a silent server.
		ConnWriteTimeout: cfg.timeout,
		// Without auto-pipelining every request takes a connection of
		// this pool: one per thread.
		BlockingPoolSize:      cfg.poolSize,
		DisableAutoPipelining: !cfg.pipelined,
		MaxFlushDelay:         cfg.flushDelay,
		ForceSingleClient:     !cfg.cluster,
		// RESP2 and no client-side cache, as YCSB's Jedis.
		AlwaysRESP2: true, DisableCache: true,
		// A benchmark counts failures instead of hiding them behind
		// retries. MOVED and ASK are followed all the same.
		DisableRetry:  cfg.retries == 0,
		ClusterOption: rueidis.ClusterOption{MaxMovedRedirections: 8},
	}
	// rueidis' own dial: the bytes on the wire counted (TLS included), and
	// each reply's header bounded before rueidis gives memory to it.
	traffic, bounds := cfg.traffic, cfg.replies
	o.DialCtxFn = func(ctx context.Context, dst string, d *net.Dialer, tc *tls.Config) (net.Conn, error) {
		c, err := d.DialContext(ctx, "tcp", dst)
		if err != nil {
			return nil, err
		}
		if traffic != nil {
			c = traffic.Conn(c)
		}
		// The handshake is bounded as the connecting is: a server
		// that never answers it (a plain port) fails the dial.
		hctx, cancel := context.WithTimeout(ctx, d.Timeout)
		defer cancel()
		conn, err := wire.TLSClient(hctx, c, dst, tc)
		if err != nil && hctx.Err() != nil && ctx.Err() == nil {
			return nil, fmt.Errorf("TLS: no answer to the handshake within %s (redis.timeout): a server that does not speak TLS at %s? (use redis://, or the address of its TLS port)", d.Timeout, dst)
		}
		if err != nil {
			return nil, err
		}
		return wire.BoundRESP(conn, bounds), nil
	}
	if cfg.retries > 0 {
		n := cfg.retries
		o.RetryDelay = func(attempts int, _ rueidis.Completed, _ error) time.Duration {
			if attempts > n {
				return -1
			}
			return time.Duration(attempts) * 10 * time.Millisecond
		}
	}
	return o
}

type config struct {
	traffic            *wire.Traffic   // counts the connections' bytes, when set
	replies            wire.RESPBounds // a reply's, from the run's longest answer
	addrs              []string
	cluster, pipelined bool
	window             int           // redis.pipelining=N
	flushDelay         time.Duration // auto-pipelining: the writer's pause after each write
	username, password string
	db                 int
	tlsProps           wire.TLS    // redis.tls, redis.tls.ca, ... and what the URL says
	tls                *tls.Config // built from tlsProps by Open; nil: plain
	poolSize, retries  int
	timeout            time.Duration
	scanMode, index    string
	model, search      string
	noContent          bool // redis.nocontent: FT.SEARCH ... NOCONTENT, keys only
	scanPipeline       bool // redis.scanpipeline: a scan's reads in one pipeline
}

// parseConfig reads every redis.* property, whichever apply.
//
// Long: reads the binding's properties one after another, each checked
// where it is read and against those read before it.
func parseConfig(p *props.Props, o db.Options) (*config, error) {
	c := &config{replies: wire.RESPBoundsFor(o.AnswerBytes)}
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
	if c.tlsProps, err = wire.ReadTLS(p, "redis"); err != nil {
		return nil, err
	}
	host := p.String("redis.host", "127.0.0.1")
	port, err := p.Int64("redis.port", 6379)
	if err != nil {
		return nil, err
	}
	if u, ok := p.Get("redis.url"); ok {
		// redis://[user:password@]host:port[/db], or rediss:// for TLS; for a
		// cluster, several host:port separated by commas.
		if err := c.parseURL(u); err != nil {
			return nil, p.Errorf("redis.url", "%v", err)
		}
		// rediss:// is TLS, redis:// plain: a TLS property beside redis://
		// is refused, never a silent choice of one.
		rediss := strings.HasPrefix(u, "rediss://")
		if !rediss && c.tlsProps.On {
			return nil, p.Errorf("redis.url", "redis:// is a plain connection, but %s asks for TLS: write rediss://", tlsProperty(p))
		}
		if c.tlsProps, err = c.tlsProps.Agree(p, "redis.url", rediss); err != nil {
			return nil, err
		}
	} else {
		for _, h := range strings.Split(host, ",") {
			h = strings.TrimSpace(h)
			if _, _, err := net.SplitHostPort(h); err != nil {
				h = net.JoinHostPort(h, fmt.Sprint(port))
			}
			c.addrs = append(c.addrs, h)
		}
	}
	if len(c.addrs) > 1 && !c.cluster {
		return nil, p.Errorf("redis.host", "several addresses need redis.cluster=true")
	}
	pool, err := p.Int64Range("redis.poolsize", min(int64(max(o.Threads+4, 10)), db.MaxConnections), 1, db.MaxConnections)
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
	switch mode := p.String("redis.pipelining", "off"); mode {
	case "off":
	case "auto":
		c.pipelined = true
	default:
		n, err := strconv.Atoi(mode)
		if err != nil || n < 2 || n > 10000 {
			return nil, p.Errorf("redis.pipelining", "want off, auto, or a window of 2 to 10000 operations, not %q", props.Cut(mode, 40))
		}
		c.window = n
	}
	us, err := p.Int64Min("redis.flushdelay", 0, 0)
	if err != nil {
		return nil, err
	}
	if us > 0 && !c.pipelined {
		return nil, p.Errorf("redis.flushdelay", "applies to redis.pipelining=auto only")
	}
	c.flushDelay = time.Duration(us) * time.Microsecond
	ms, err := p.Int64Min("redis.timeout", 2000, 1)
	if err != nil {
		return nil, err
	}
	c.timeout = time.Duration(ms) * time.Millisecond
	if c.scanMode, err = p.OneOf("redis.scanmode", "lex", "lex", "score"); err != nil {
		return nil, err
	}
	// YCSB's scan (score) reads each key in a round trip of its own, as
	// its RedisClient does; servbench's own (lex) pipelines them.
	if c.scanPipeline, err = p.Bool("redis.scanpipeline", c.scanMode == "lex"); err != nil {
		return nil, err
	}
	c.index = p.String("redis.indexkey", "_indices")
	if c.model, err = p.OneOf("redis.model", "hash", "hash", "json"); err != nil {
		return nil, err
	}
	c.search = p.String("redis.searchindex", "query1-idx") // the 2023 study's name (000, 4.4.1)
	if c.noContent, err = p.Bool("redis.nocontent", false); err != nil {
		return nil, err
	}
	// The replies read after a write are bounded together: a thread's
	// window of them, a scan's (one pipeline), or, auto-pipelined, every
	// thread's on a shared connection. What every connection's could
	// take together must fit.
	if o.AnswerElements > 0 { // a reply holds at most the answer's elements, and a few more
		c.replies.Elements = min(c.replies.Elements, 1<<10+o.AnswerElements)
	}
	threads, conns := int64(max(o.Threads, 1)), int64(max(o.Threads, 1))
	switch {
	case c.window > 1:
		c.replies.Batch = int64(c.window)
	case c.pipelined:
		c.replies.Batch, conns = threads, min(threads, autoConns)
	}
	if per := c.replies.Memory(); o.Memory > 0 && conns*per > o.Memory {
		key, fix := "threadcount", "give fewer threads"
		if c.window > 1 {
			key, fix = "redis.pipelining", "give a smaller window or fewer threads"
		}
		return nil, p.Errorf(key, "%d connections, each with replies in flight up to %s in the client (a batch of %d, each within this run's longest answer), could take %s; this machine has %s available: %s",
			conns, format.Bytes(per), max(c.replies.Batch, 1), format.Bytes(conns*per), format.Bytes(o.Memory), fix)
	}
	return c, nil
}

// autoConns is how many connections rueidis' auto-pipelining shares its
// requests over, at most (its pipe and its multiplexed copies).
const autoConns = 4

// tlsProperty is the first TLS property given that asks for TLS.
func tlsProperty(p *props.Props) string {
	for _, k := range []string{"redis.tls", "redis.tls.ca", "redis.tls.cert", "redis.tls.key", "redis.tls.servername", "redis.tls.insecure"} {
		if _, ok := p.Get(k); ok {
			return k
		}
	}
	return "redis.tls"
}

// unescapeUserinfo is a URL's user or password as the server knows it:
// percent-encoded as in any URL (Pw%40ss is Pw@ss), kept as written when
// it is no valid encoding; a secret decoded is known to every redaction in
// both forms.
func unescapeUserinfo(s string, secret bool) string {
	d, err := url.PathUnescape(s)
	if err != nil || d == s {
		return s
	}
	if secret {
		props.KnowEverywhere(d)
	}
	return d
}

func (c *config) parseURL(u string) error {
	rest, ok := strings.CutPrefix(u, "redis://")
	if !ok {
		if rest, ok = strings.CutPrefix(u, "rediss://"); !ok {
			return errors.New("want redis://host:port[/db], a user and password before the host as in any URL")
		}
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		user, pass, hasPass := strings.Cut(rest[:at], ":")
		if hasPass {
			user, pass = unescapeUserinfo(user, false), unescapeUserinfo(pass, true)
			c.username, c.password = user, pass
		} else {
			c.password = unescapeUserinfo(user, true)
		}
		rest = rest[at+1:]
	}
	// No option is read from the URL: one left in it would be taken for
	// part of the port or the database (pool_size=N failed when
	// connecting, "unknown port"), or given memory unbounded.
	if _, q, ok := strings.Cut(rest, "?"); ok {
		var names []string
		for _, o := range wire.QueryOptions("?" + q) {
			names = append(names, props.Cut(o.Name, 40))
		}
		sort.Strings(names)
		return fmt.Errorf("options after ? (%s) are not read: set the redis.* properties instead (redis.poolsize, redis.db, redis.timeout, redis.tls.*)", strings.Join(names, ", "))
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
func javaHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		h = 31*h + int32(s[i])
	}
	return h
}

func (s *Store) indexScore(key string) float64 {
	if s.lex {
		return 0
	}
	return float64(javaHash(key))
}

// wrap maps rueidis errors to outcomes.
func wrap(op, key string, err error) error {
	var ne net.Error
	switch {
	case rueidis.IsRedisNil(err):
		return fmt.Errorf("redis: %s %s: %w", op, key, db.ErrNotFound)
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("redis: %s %s: %w: %v", op, key, db.ErrTimeout, err)
	case isUnavailable(err):
		return fmt.Errorf("redis: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	}
	return fmt.Errorf("redis: %s %s: %w", op, key, err)
}

// isUnavailable recognises a server that cannot be reached or cannot serve
// now (loading, cluster down or failing over).
func isUnavailable(err error) bool {
	if db.ConnectionLost(err) || errors.Is(err, rueidis.ErrClosing) {
		return true
	}
	if re, ok := rueidis.IsRedisErr(err); ok && (re.IsLoading() || re.IsClusterDown() || re.IsTryAgain()) {
		return true
	}
	return strings.Contains(err.Error(), "MASTERDOWN")
}

// addPairs adds a HGETALL answer's field, value pairs; false when there
// are none (no such key).
func addPairs(dst *db.Record, res rueidis.RedisResult) (bool, error) {
	kv, err := res.ToArray()
	if err != nil {
		return false, err
	}
	for i := 0; i+1 < len(kv); i += 2 {
		k, _ := kv[i].ToString()
		v, _ := kv[i+1].ToString()
		dst.Add(k, []byte(v))
	}
	return len(kv) > 0, nil
}

// addFields adds a HMGET answer's values of fields that exist; false when
// none does.
func addFields(dst *db.Record, fields []string, res rueidis.RedisResult) (bool, error) {
	vals, err := res.ToArray()
	if err != nil {
		return false, err
	}
	found := false
	for i := range vals {
		if v, err := vals[i].ToString(); err == nil && i < len(fields) {
			dst.Add(fields[i], []byte(v))
			found = true
		}
	}
	return found, nil
}

// readCmd reads a record: JSON.GET, HGETALL for all fields, HMGET for some.
func (s *Store) readCmd(key string, fields []string) rueidis.Completed {
	switch {
	case s.json:
		return s.c.B().JsonGet().Key(key).Build()
	case fields == nil:
		return s.c.B().Hgetall().Key(key).Build()
	}
	return s.c.B().Hmget().Key(key).Field(fields...).Build()
}

// Read reads the wanted fields of a record.
func (s *Store) Read(ctx context.Context, _, key string, fields []string, dst *db.Record) error {
	return s.readAnswer(dst, key, fields, s.c.Do(ctx, s.readCmd(key, fields)))
}

// readAnswer adds the answer to a read of key to dst: an error when it
// failed, NOT_FOUND when there is no such record.
func (s *Store) readAnswer(dst *db.Record, key string, fields []string, res rueidis.RedisResult) error {
	found, err := s.addAnswer(dst, fields, res)
	if err != nil {
		return wrap("read", key, err)
	}
	if !found {
		return fmt.Errorf("redis: read %s: %w", key, db.ErrNotFound)
	}
	return nil
}

// addAnswer adds the answer to a readCmd.
func (s *Store) addAnswer(dst *db.Record, fields []string, res rueidis.RedisResult) (bool, error) {
	switch {
	case s.json:
		text, err := res.ToString()
		if err != nil {
			return false, err
		}
		return true, addJSON(dst, []byte(text), fields)
	case fields == nil:
		return addPairs(dst, res)
	}
	return addFields(dst, fields, res)
}

// hset is HSET key with the values. The command refers to the values'
// bytes, which the record keeps until the operation returns. (After a
// connection error an auto-pipelined command may still be written later,
// with whatever the thread's value buffer then holds: random bytes of the
// same length.)
func (s *Store) hset(key string, values *db.Record) rueidis.Completed {
	c := s.c.B().Hset().Key(key).FieldValue()
	for _, f := range values.Fields() {
		c = c.FieldValue(f.Name, rueidis.BinaryString(f.Value))
	}
	return c.Build()
}

// Insert writes the record and adds the key to the index, in one pipeline.
func (s *Store) Insert(ctx context.Context, _, key string, values *db.Record) error {
	return s.do("insert", key, s.c.DoMulti(ctx, s.insertCmds(nil, key, values)...))
}

// BatchInsert writes a batch of records (batchsize) in one pipeline: one
// round trip for all their hashes and index entries. A cluster client
// splits the pipeline by node.
func (s *Store) BatchInsert(ctx context.Context, _ string, keys []string, values []*db.Record) error {
	cmds := make(rueidis.Commands, 0, 3*len(keys))
	for i, key := range keys {
		cmds = s.insertCmds(cmds, key, values[i])
	}
	return s.do("batch insert", keys[0], s.c.DoMulti(ctx, cmds...))
}

// do returns the first failure among a pipeline's answers.
func (s *Store) do(op, key string, res []rueidis.RedisResult) error {
	for _, r := range res {
		if err := r.Error(); err != nil {
			return wrap(op, key, err)
		}
	}
	return nil
}

// insertCmds appends an insert's commands: the record, its index entries.
func (s *Store) insertCmds(cmds rueidis.Commands, key string, values *db.Record) rueidis.Commands {
	if s.json {
		doc := rueidis.BinaryString(jsondoc.AppendObject(nil, values))
		cmds = append(cmds, s.c.B().JsonSet().Key(key).Path("$").Value(doc).Build())
	} else {
		cmds = append(cmds, s.hset(key, values))
		cmds = s.addToValueSet(cmds, key, values)
	}
	return append(cmds, s.c.B().Zadd().Key(s.index).ScoreMember().ScoreMember(s.indexScore(key), key).Build())
}

// Update sets the given fields (HSET, YCSB's HMSET).
func (s *Store) Update(ctx context.Context, _, key string, values *db.Record) error {
	if s.json {
		return s.updateJSON(ctx, key, values)
	}
	if s.touchesValueSet(values) {
		return s.updateIndexed(ctx, key, values)
	}
	if err := s.c.Do(ctx, s.hset(key, values)).Error(); err != nil {
		return wrap("update", key, err)
	}
	return nil
}

// Delete removes the record and its index entries.
func (s *Store) Delete(ctx context.Context, _, key string) error {
	old, err := s.valueSetOf(ctx, key)
	if err != nil {
		return wrap("delete", key, err)
	}
	cmds := rueidis.Commands{s.c.B().Del().Key(key).Build(), s.c.B().Zrem().Key(s.index).Member(key).Build()}
	if old != "" {
		cmds = append(cmds, s.c.B().Zrem().Key(old).Member(key).Build())
	}
	res := s.c.DoMulti(ctx, cmds...)
	if err := s.do("delete", key, res); err != nil {
		return err
	}
	if n, _ := res[0].AsInt64(); n == 0 {
		return fmt.Errorf("redis: delete %s: %w", key, db.ErrNotFound)
	}
	return nil
}

// Scan reads up to count keys from the index starting at startKey, then
// their records in one pipeline.
func (s *Store) Scan(ctx context.Context, _, startKey string, count int, fields []string, dst *db.RecordSet) error {
	var cmd rueidis.Completed
	if s.lex {
		cmd = s.c.B().Zrange().Key(s.index).Min("["+startKey).Max("+").Bylex().Limit(0, int64(count)).Build()
	} else {
		min := strconv.FormatInt(int64(javaHash(startKey)), 10)
		cmd = s.c.B().Zrangebyscore().Key(s.index).Min(min).Max("+inf").Limit(0, int64(count)).Build()
	}
	keys, err := s.c.Do(ctx, cmd).AsStrSlice()
	if err != nil {
		return wrap("scan", startKey, err)
	}
	if len(keys) == 0 {
		return nil
	}
	if !s.scanPipe { // one round trip a key, as YCSB's RedisClient reads them
		for _, k := range keys {
			r := dst.Next()
			r.SetKey([]byte(k))
			if _, err := s.addAnswer(r, fields, s.c.Do(ctx, s.readCmd(k, fields))); err != nil && !rueidis.IsRedisNil(err) {
				return wrap("scan", startKey, err)
			}
		}
		return nil
	}
	return s.readKeys(ctx, "scan", startKey, keys, fields, dst)
}

// readKeys reads the records of keys into dst in one pipeline, in order;
// a key that is gone gives a row with its key only.
func (s *Store) readKeys(ctx context.Context, op, what string, keys []string, fields []string, dst *db.RecordSet) error {
	cmds := make(rueidis.Commands, len(keys))
	for i, k := range keys {
		cmds[i] = s.readCmd(k, fields)
	}
	for i, res := range s.c.DoMulti(ctx, cmds...) {
		r := dst.Next()
		r.SetKey([]byte(keys[i]))
		if _, err := s.addAnswer(r, fields, res); err != nil && !rueidis.IsRedisNil(err) {
			return wrap(op, what, err)
		}
	}
	return nil
}

// ServerVersion reports the server's own name and version from INFO.
func (s *Store) ServerVersion(ctx context.Context) (string, error) {
	info, err := s.c.Do(ctx, s.c.B().Info().Section("server").Build()).ToString()
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

// Close closes the client.
func (s *Store) Close() error {
	s.c.Close()
	return nil
}

// Driver names the client library and whether requests are pipelined.
func (s *Store) Driver() string {
	mode := "a connection per thread"
	switch {
	case s.pipelined:
		mode = "auto-pipelining"
	case s.window > 0:
		mode = fmt.Sprintf("a connection per thread, windows of %d", s.window)
	}
	if s.delay > 0 {
		mode += ", flush delay " + s.delay.String()
	}
	return db.DriverName("rueidis", "github.com/redis/rueidis") + ", " + mode
}

// Window is the explicit pipelining window (redis.pipelining=N), 0 without.
func (s *Store) Window() int { return s.window }

// Pipeline sends a window's reads and updates in one exchange: HGETALL,
// HMGET or JSON.GET for a read, HSET or JSON.MSET for an update (an update
// of the queried field goes alone, as it moves the key between value
// sets). A cluster client sends each node its part.
func (s *Store) Pipeline(ctx context.Context, _ string, ops []db.PipelineOp) {
	alone := func(o *db.PipelineOp) bool { return o.Values != nil && !s.json && s.touchesValueSet(o.Values) }
	cmds := make(rueidis.Commands, 0, len(ops))
	for i := range ops {
		o := &ops[i]
		switch {
		case alone(o):
			o.Err = s.updateIndexed(ctx, o.Key, o.Values)
		case o.Values == nil:
			cmds = append(cmds, s.readCmd(o.Key, o.Fields))
		case s.json:
			cmds = append(cmds, s.jsonMset(o.Key, o.Values))
		default:
			cmds = append(cmds, s.hset(o.Key, o.Values))
		}
	}
	res := s.c.DoMulti(ctx, cmds...)
	j := 0
	for i := range ops {
		o := &ops[i]
		if alone(o) {
			continue
		}
		switch r := res[j]; {
		case o.Values == nil:
			o.Err = s.readAnswer(o.Result, o.Key, o.Fields, r)
		case s.json:
			o.Err = jsonUpdateError(o.Key, r.Error())
		case r.Error() != nil:
			o.Err = wrap("update", o.Key, r.Error())
		}
		j++
	}
}

// AdminLanguage: a setup statement is a Redis command.
func (binding) AdminLanguage() string { return "a Redis command" }

// Admin sends one Redis command, written as redis-cli takes it (words,
// "quoted" or 'quoted' where they hold spaces), and returns its reply
// (formatReply).
// Keyless commands go to one node of a cluster.
func (s *Store) Admin(ctx context.Context, _, statement string) (string, error) {
	args, err := splitCommand(statement)
	if err != nil {
		return "", fmt.Errorf("redis: %w", err)
	}
	reply, err := s.c.Do(ctx, s.c.B().Arbitrary(args[0]).Args(args[1:]...).Build()).ToAny()
	if err != nil {
		return "", fmt.Errorf("redis: %s: %w", args[0], err)
	}
	return formatReply(args, reply), nil
}

// splitCommand splits a command line into words: blanks separate them,
// quotes hold them together ("a b", 'a b'; \" inside double quotes).
func splitCommand(s string) ([]string, error) {
	var args []string
	var cur strings.Builder
	in, quote, escaped := false, byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case escaped:
			cur.WriteByte(c)
			escaped = false
		case quote == '"' && c == '\\':
			escaped = true
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, in = c, true
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			if in {
				args = append(args, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("command %q: a quote is not closed", props.Cut(s, 60))
	}
	if in {
		args = append(args, cur.String())
	}
	if len(args) == 0 {
		return nil, errors.New("an empty command")
	}
	return args, nil
}

// Traffic is the bytes this client's connections sent and received.
func (s *Store) Traffic() (sent, received int64) { return s.traffic.Bytes() }

// Peers implements db.Peered.
func (s *Store) Peers() (local, remote int) { return s.traffic.Peers() }
