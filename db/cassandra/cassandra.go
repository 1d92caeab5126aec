// Package cassandra is the Apache Cassandra binding (gocql v2), with YCSB's
// table usertable (y_id varchar PRIMARY KEY, field0..fieldN varchar),
// prepared statements (gocql prepares every bound statement once per
// connection), read and write consistency levels (the 2014 study used ONE),
// and scans as WHERE token(y_id) >= token(?) LIMIT ? (token order).
package cassandra

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	gocql "github.com/apache/cassandra-gocql-driver/v2"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/props"
)

// Name is the binding's name: engine.Spec{Binding: cassandra.Name} runs it (and
// the import that names it registers it).
const Name = "cassandra"

func init() { db.Register(Name, binding{}) }

type binding struct{}

func (binding) Summary() string {
	return "Apache Cassandra through gocql v2 (hosts, port, cassandra.keyspace, cassandra.readconsistencylevel, cassandra.tls.*, ...)"
}

// Location is where the server is and who the client is to it
// (db.Located): a rehearsal's URL goes to the first.
func (binding) Location() []string {
	return []string{"cassandra.url", "hosts", "cassandra.hosts", "port", "cassandra.username", "cassandra.password", "cassandra.tls", "cassandra.tls."}
}

// Store is a session on one keyspace.
type Store struct {
	traffic     wire.Traffic // the bytes its connections sent and received
	s           *gocql.Session
	keyspace    string
	read, write gocql.Consistency
	rf          int64
	create      bool
	where       string
	// fields are the record's fields, a column each (db.Options.Schema):
	// YCSB's field0..fieldN, or a customer document's top-level fields,
	// each column holding its JSON text (documents).
	fields    []string
	documents bool
	qix       *queryIndex
	rows      sync.Pool // *row of every field (allRow)
	// cql holds the statements of the last table used, built once: an
	// operation finds them with one atomic load and a comparison.
	cql atomic.Pointer[statements]
}

// statements are one table's most used statements: the read, scan and
// insert of every field (fields' order); the read, scan and update of one
// field per column (readallfields=false, writeallfields=false); the delete.
type statements struct {
	table                               string
	readAll, scanAll, insertAll, delete string
	readOne, scanOne, updateOne         []string
	oneRows                             []sync.Pool // *row of one field per column
}

// A read's and a scan's CQL after the column list.
const (
	whereKey   = " WHERE y_id = ?"
	whereToken = " WHERE token(y_id) >= token(?) LIMIT ?"
)

func (st *Store) statements(table string) *statements {
	if c := st.cql.Load(); c != nil && c.table == table {
		return c
	}
	t := st.table(table)
	all := st.newRow(nil).selectList()
	marks := strings.Repeat(", ?", len(st.fields))
	c := &statements{table: table, readAll: "SELECT " + all + " FROM " + t + whereKey,
		scanAll:   "SELECT " + all + " FROM " + t + whereToken,
		insertAll: "INSERT INTO " + t + " (" + all + ") VALUES (?" + marks + ")",
		delete:    "DELETE FROM " + t + whereKey}
	for _, f := range st.fields {
		one := newRow([]string{f}, 2).selectList()
		c.readOne = append(c.readOne, "SELECT "+one+" FROM "+t+whereKey)
		c.scanOne = append(c.scanOne, "SELECT "+one+" FROM "+t+whereToken)
		c.updateOne = append(c.updateOne, "UPDATE "+t+" SET "+f+" = ?"+whereKey)
	}
	c.oneRows = make([]sync.Pool, len(st.fields))
	st.cql.Store(c)
	return c
}

// column is the position of name among the fields, or -1.
func (st *Store) column(name string) int {
	for i, f := range st.fields {
		if f == name {
			return i
		}
	}
	return -1
}

// Open reads YCSB's cassandra-cql properties "hosts" and "port" as well as
// servbench's cassandra.* ones.
//
// Long: reads the binding's properties one after another, each checked
// where it is read, up to o.CheckOnly; then builds the gocql cluster from
// them and opens its session, in the order the driver needs.
func (binding) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	st := &Store{}
	hosts := strings.Split(p.String("hosts", p.String("cassandra.hosts", "127.0.0.1")), ",")
	port, err := p.Int64("port", 9042)
	if err != nil {
		return nil, err
	}
	st.keyspace = p.String("cassandra.keyspace", "ycsb")
	user, password := p.String("cassandra.username", ""), p.String("cassandra.password", "")
	if u, ok := p.Get("cassandra.url"); ok {
		// cassandra://[user:password@]host1,host2[:port][/keyspace]
		rest, found := strings.CutPrefix(u, "cassandra://")
		if !found || rest == "" {
			return nil, p.Errorf("cassandra.url", "want cassandra://host[,host][:port][/keyspace], a user and password before the host as in any URL")
		}
		if at := strings.LastIndex(rest, "@"); at >= 0 {
			// The password runs to the last '@': it may hold '@', '/' or
			// '#', and it never reaches a message.
			name, pw, _ := strings.Cut(rest[:at], ":")
			if user == "" {
				user, password = name, pw
			}
			rest = rest[at+1:]
		}
		hostPart, ks, _ := strings.Cut(rest, "/")
		if ks != "" {
			st.keyspace = ks
		}
		if h, pt, ok := strings.Cut(hostPart, ":"); ok {
			if port, err = strconv.ParseInt(pt, 10, 64); err != nil {
				return nil, p.Errorf("cassandra.url", "port %q is not a number", pt)
			}
			hostPart = h
		}
		hosts = strings.Split(hostPart, ",")
	}
	if !validName(st.keyspace) {
		return nil, p.Errorf("cassandra.keyspace", "%q is not a valid keyspace name", st.keyspace)
	}
	for _, c := range []struct {
		key string
		dst *gocql.Consistency
	}{{"cassandra.readconsistencylevel", &st.read}, {"cassandra.writeconsistencylevel", &st.write}} {
		v := p.String(c.key, "ONE")
		cl, err := gocql.ParseConsistencyWrapper(strings.ToUpper(v))
		if err != nil {
			return nil, p.Errorf(c.key, "%q is not a consistency level (ONE, QUORUM, ALL, LOCAL_QUORUM, ...)", v)
		}
		*c.dst = cl
	}
	if st.rf, err = p.Int64Min("cassandra.replicationfactor", 1, 1); err != nil {
		return nil, err
	}
	if st.create, err = p.Bool("cassandra.createtable", true); err != nil {
		return nil, err
	}
	st.fields, st.documents = o.Schema.Fields, o.Schema.Documents
	if len(st.fields) == 0 {
		return nil, errors.New("cassandra: no fields to make columns of (the engine gives the workload's schema)")
	}
	conns, err := p.Int64Range("cassandra.maxconnections", 2, 1, db.MaxConnections)
	if err != nil {
		return nil, err
	}
	ms, err := p.Int64Min("cassandra.readtimeoutmillis", 12000, 1)
	if err != nil {
		return nil, err
	}
	// gocql holds each write up to 200 µs by default to send it with
	// others; an idle Go runtime sleeps at least a millisecond for such a
	// timer (its epoll wait counts in milliseconds), so one thread's every
	// operation waited about a millisecond more than YCSB's. Off unless
	// asked (µs).
	coalesce, err := writeCoalesceWait(p)
	if err != nil {
		return nil, err
	}
	// cassandra.tls, .tls.ca, .tls.cert, .tls.key, .tls.servername,
	// .tls.insecure: the URL has no TLS form of its own.
	sec, err := wire.ReadTLS(p, "cassandra")
	if err != nil {
		return nil, err
	}
	policy, err := hostPolicy(p)
	if err != nil {
		return nil, err
	}
	tc, err := sec.Config(ctx, p)
	if err != nil || o.CheckOnly {
		return nil, err
	}
	var asked wire.CertAsked
	cc := gocql.NewCluster(hosts...)
	cc.PoolConfig.HostSelectionPolicy = policy
	cc.Port = int(port)
	cc.NumConns = int(conns)
	cc.WriteCoalesceWaitTime = coalesce
	cc.Timeout = time.Duration(ms) * time.Millisecond
	cc.ConnectTimeout = connectTimeout
	cc.Dialer = st.traffic.ContextDialer(&net.Dialer{Timeout: cc.ConnectTimeout, KeepAlive: cc.SocketKeepalive}) // TLS runs over it
	if user != "" {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: password}
	}
	// Protocol v4, as YCSB's binding speaks it (the DataStax Java driver
	// 3's newest): its frames are read as they pass (wire.BoundCQL), v5's
	// segments are not.
	cc.ProtoVersion = 4
	cc.HostDialer = hostDialer{dial: cc.Dialer, timeout: cc.ConnectTimeout}
	if tc != nil {
		// Each host's name is verified unless the configuration says
		// not to (cassandra.tls.insecure), as gocql's SslOpts would; the
		// handshake is bounded as the connecting is.
		cc.HostDialer = hostDialer{dial: cc.Dialer, tls: asked.Watch(tc), timeout: cc.ConnectTimeout}
	}
	nodes := &nodeCap{seen: map[string]struct{}{}}
	cc.HostFilter = nodes
	st.where = strings.Join(hosts, ",") + ":" + strconv.Itoa(int(port))
	// CreateSession takes no context: Ctrl-C ends the wait for it (the
	// connect timeout above each host) at once, and so does the end of
	// sessionTimeout (a list of thousands of nodes that do not answer):
	// the session whole, every node's pool made side by side, each
	// connection within the connect timeout.
	sessionTimeout := 3 * connectTimeout
	sctx, cancel := context.WithTimeout(ctx, sessionTimeout)
	defer cancel()
	began := time.Now()
	if st.s, err = wire.Connect(sctx, cc.CreateSession, (*gocql.Session).Close); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("cassandra: connect %s: %w", st.where, err)
		}
		if sctx.Err() != nil {
			return nil, fmt.Errorf("cassandra: connect %s: not connected to the cluster's nodes within %s", st.where, sessionTimeout)
		}
		if strings.Contains(err.Error(), "within timeout") { // gocql's words for its connect timeout, not readtimeoutmillis
			// ... and, as it races, for a connection the server closed
			// during its startup (a client certificate refused once the
			// TLS handshake was done): a timeout only when it took one.
			if time.Since(began) >= cc.ConnectTimeout {
				return nil, fmt.Errorf("cassandra: connect %s: no answer within %s (the connect timeout): %w", st.where, cc.ConnectTimeout, err)
			}
			if msg := asked.Line(sec); msg != "" {
				return nil, fmt.Errorf("cassandra: connect %s: %s (%w)", st.where, msg, err)
			}
		}
		return nil, fmt.Errorf("cassandra: connect %s: %w", st.where, asked.Explain(sec, err))
	}
	if nodes.over.Load() {
		st.s.Close()
		return nil, fmt.Errorf("cassandra: connect %s: the cluster lists more than %d nodes (system.peers): not connected", st.where, MaxNodes)
	}
	return st, nil
}

// MaxNodes bounds the nodes a session takes from its cluster's lists
// (system.peers), for which gocql keeps a host's description and connects
// a pool: a server listing 1,200,000 peers had the process out of memory,
// 30,000 its connecting go on past a minute. The largest clusters run some
// thousands of nodes.
const MaxNodes = 4096

// nodeCap is a session's host filter: the first MaxNodes nodes it is
// shown (by host id) are taken, and over says one more was refused.
type nodeCap struct {
	mu   sync.Mutex
	seen map[string]struct{}
	over atomic.Bool
}

func (c *nodeCap) Accept(h *gocql.HostInfo) bool {
	id := h.HostID()
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.seen[id]; ok {
		return true
	}
	if len(c.seen) >= MaxNodes {
		c.over.Store(true)
		return false
	}
	c.seen[id] = struct{}{}
	return true
}

// hostPolicy is the node each request goes to (cassandra.routing):
// token, a replica of its partition, shuffled among them, the others in
// turn when none answers, as YCSB's binding does (the DataStax Java
// driver 3's default: TokenAwarePolicy over a round robin, replicas
// shuffled); roundrobin, every node in turn (gocql's default: on S2's
// 4-8 nodes with two copies, half to three quarters of the requests took
// a hop more).
func hostPolicy(p *props.Props) (gocql.HostSelectionPolicy, error) {
	v, err := p.OneOf("cassandra.routing", "token", "token", "roundrobin")
	if err != nil {
		return nil, err
	}
	if v == "roundrobin" {
		return gocql.RoundRobinHostPolicy(), nil
	}
	return gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy(), gocql.ShuffleReplicas()), nil
}

// connectTimeout bounds each connection's making, the TLS handshake
// included (gocql's ConnectTimeout).
var connectTimeout = 10 * time.Second

// hostDialer dials a host's counted connection, runs TLS over it when
// asked, the handshake bounded by timeout (gocql's own waits for a server
// that never answers it, a port that speaks no TLS and waits for more,
// without end, past Ctrl-C), and reads its frames in clear as they pass
// (wire.BoundCQL).
type hostDialer struct {
	dial    gocql.Dialer
	tls     *tls.Config // nil: none
	timeout time.Duration
}

func (d hostDialer) DialHost(ctx context.Context, host *gocql.HostInfo) (*gocql.DialedHost, error) {
	if ip := host.ConnectAddress(); len(ip) == 0 || ip.IsUnspecified() {
		return nil, fmt.Errorf("host %s: no address to connect to", host.HostnameAndPort())
	}
	addr := host.ConnectAddressAndPort()
	conn, err := d.dial.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	hctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	dh, err := gocql.WrapTLS(hctx, conn, host.HostnameAndPort(), d.tls)
	if err != nil && d.tls != nil && hctx.Err() != nil && ctx.Err() == nil {
		return nil, fmt.Errorf("TLS: no answer to the handshake within %s: a server that does not speak TLS at %s? (set cassandra.tls=false, or the address of its TLS port)", d.timeout, addr)
	}
	if err != nil {
		return nil, err
	}
	dh.Conn = wire.BoundCQL(dh.Conn)
	return dh, nil
}

// writeCoalesceWait is how long gocql holds a write for others to join it
// (cassandra.writecoalescewait, µs): none unless asked.
func writeCoalesceWait(p *props.Props) (time.Duration, error) {
	us, err := p.Int64Min("cassandra.writecoalescewait", 0, 0)
	return time.Duration(us) * time.Microsecond, err
}

func validName(s string) bool {
	if s == "" || len(s) > 48 {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func (st *Store) table(t string) string { return st.keyspace + "." + t }

// Prepare creates the keyspace (SimpleStrategy, cassandra.replicationfactor)
// and YCSB's table when missing.
func (st *Store) Prepare(ctx context.Context, table string, _ bool) error {
	if !validName(table) {
		return fmt.Errorf("cassandra: table %q is not a valid name", table)
	}
	if !st.create {
		return nil
	}
	ks := fmt.Sprintf("CREATE KEYSPACE IF NOT EXISTS %s WITH replication = {'class': 'SimpleStrategy', 'replication_factor': %d}", st.keyspace, st.rf)
	if err := st.s.Query(ks).ExecContext(ctx); err != nil {
		return fmt.Errorf("cassandra: create keyspace %s: %w", st.keyspace, err)
	}
	var cols strings.Builder
	for _, f := range st.allFields() {
		fmt.Fprintf(&cols, ", %s varchar", f)
	}
	ddl := fmt.Sprintf("CREATE TABLE IF NOT EXISTS %s (y_id varchar PRIMARY KEY%s)", st.table(table), cols.String())
	// A cluster's nodes learn a new keyspace one after another: the table
	// is created once they agree, and again while the node it reaches
	// does not know the keyspace yet (a cluster of three on a busy machine
	// said "Keyspace 'ycsb' doesn't exist" right after creating it).
	st.s.AwaitSchemaAgreement(ctx) // gocql waits too, and goes on when it cannot tell
	for tries := 1; ; tries++ {
		err := st.s.Query(ddl).ExecContext(ctx)
		if err == nil {
			return nil
		}
		if tries == schemaTries || !strings.Contains(err.Error(), "Keyspace '"+st.keyspace+"' doesn't exist") {
			return fmt.Errorf("cassandra: create table %s: %w", table, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cassandra: create table %s: %w", table, ctx.Err())
		case <-time.After(schemaPause):
		}
	}
}

// How often, and a pause apart, a table is created again while its
// keyspace is not known everywhere yet: 30 s in all.
const (
	schemaTries = 60
	schemaPause = 500 * time.Millisecond
)

func wrap(op, key string, err error) error {
	var rt *gocql.RequestErrReadTimeout
	var wt *gocql.RequestErrWriteTimeout
	var un *gocql.RequestErrUnavailable
	switch {
	case errors.Is(err, gocql.ErrNotFound):
		return fmt.Errorf("cassandra: %s %s: %w", op, key, db.ErrNotFound)
	case errors.As(err, &rt), errors.As(err, &wt), errors.Is(err, gocql.ErrTimeoutNoResponse):
		return fmt.Errorf("cassandra: %s %s: %w: %v", op, key, db.ErrTimeout, err)
	case errors.As(err, &un), errors.Is(err, gocql.ErrNoConnections), errors.Is(err, gocql.ErrConnectionClosed), db.ConnectionLost(err):
		return fmt.Errorf("cassandra: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	}
	return fmt.Errorf("cassandra: %s %s: %w", op, key, err)
}

// row scans y_id and the named columns into buffers it keeps from scan to
// scan (gocql appends a text column's bytes to the []byte it is given). A
// null column comes back nil and an empty value as an empty, non-nil slice,
// so a field never written stays distinguishable from an empty one.
type row struct {
	cols []string
	vals [][]byte // the columns of the last scan: nil for null
	bufs [][]byte // their buffers, never nil
	dest []any    // &vals[i]
}

func (st *Store) newRow(fields []string) *row {
	if fields == nil {
		fields = st.allFields()
	}
	return newRow(fields, len(fields)+1)
}

// newRow makes a row of y_id and cols (n columns in all: 1 for y_id
// alone).
func newRow(cols []string, n int) *row {
	r := &row{cols: cols, vals: make([][]byte, n), bufs: make([][]byte, n), dest: make([]any, n)}
	for i := range r.vals {
		r.bufs[i] = make([]byte, 0, 16)
		r.dest[i] = &r.vals[i]
	}
	return r
}

// ready points each column at its buffer before a scan.
func (r *row) ready() {
	for i, v := range r.vals {
		if cap(v) > cap(r.bufs[i]) {
			r.bufs[i] = v // grown by the last scan
		}
		r.vals[i] = r.bufs[i][:0]
	}
}

// allRow is a row of every field, from the store's pool: a read's rows
// are used again by the next read instead of allocated.
func (st *Store) allRow() *row {
	if r, ok := st.rows.Get().(*row); ok {
		return r
	}
	return st.newRow(nil)
}

func (st *Store) allFields() []string { return st.fields }

func (r *row) selectList() string { return "y_id, " + strings.Join(r.cols, ", ") }

// addTo adds the row's non-null columns to dst and sets its key.
func (r *row) addTo(dst *db.Record) {
	if r.vals[0] != nil {
		dst.SetKey(r.vals[0])
	}
	for i, c := range r.cols {
		if v := r.vals[i+1]; v != nil {
			dst.Add(c, v)
		}
	}
}

// selection is the row a read (scan false) or a scan of fields scans into,
// its CQL and the pool the row goes back to (nil: none): every field's row
// and statement, or one field's, or a row and a statement made for these
// fields.
func (st *Store) selection(table string, fields []string, scan bool) (r *row, cql string, pool *sync.Pool) {
	c := st.statements(table)
	all, one, where := c.readAll, c.readOne, whereKey
	if scan {
		all, one, where = c.scanAll, c.scanOne, whereToken
	}
	if fields == nil {
		return st.allRow(), all, &st.rows
	}
	if len(fields) == 1 {
		if i := st.column(fields[0]); i >= 0 {
			pool = &c.oneRows[i]
			if r, _ = pool.Get().(*row); r == nil {
				r = newRow(st.fields[i:i+1], 2)
			}
			return r, one[i], pool
		}
	}
	r = st.newRow(fields)
	return r, "SELECT " + r.selectList() + " FROM " + st.table(table) + where, nil
}

func (st *Store) Read(ctx context.Context, table, key string, fields []string, dst *db.Record) error {
	r, cql, pool := st.selection(table, fields, false)
	if pool != nil {
		defer pool.Put(r)
	}
	r.ready()
	q := st.s.Query(cql, key)
	if err := q.Consistency(st.read).ScanContext(ctx, r.dest...); err != nil {
		return wrap("read", key, err)
	}
	r.addTo(dst)
	dst.Key = dst.Key[:0] // a read reports fields only
	dst.JSON = st.documents
	return nil
}

// Scan reads rows in token order from the start key's token, as YCSB's
// binding does (Cassandra has no key order across partitions).
func (st *Store) Scan(ctx context.Context, table, start string, count int, fields []string, dst *db.RecordSet) error {
	r, cql, pool := st.selection(table, fields, true)
	if pool != nil {
		defer pool.Put(r)
	}
	q := st.s.Query(cql, start, count)
	it := q.Consistency(st.read).IterContext(ctx)
	// gocql pages on by itself: a server that answers past LIMIT, page
	// after page, is left at the row past the count (dst.Over).
	for r.ready(); !dst.Over() && it.Scan(r.dest...); r.ready() {
		row := dst.Next()
		r.addTo(row)
		row.JSON = st.documents
	}
	if err := it.Close(); err != nil {
		return wrap("scan", start, err)
	}
	return nil
}

func (st *Store) exec(ctx context.Context, op, key, cql string, args []any) error {
	if err := st.s.Query(cql, args...).Consistency(st.write).ExecContext(ctx); err != nil {
		return wrap(op, key, err)
	}
	return nil
}

// Update sets the given columns (an upsert, as every Cassandra write).
func (st *Store) Update(ctx context.Context, table, key string, values *db.Record) error {
	if fs := values.Fields(); len(fs) == 1 {
		if i := st.column(fs[0].Name); i >= 0 {
			if _, _, flat := st.flattened(table, values); !flat {
				return st.exec(ctx, "update", key, st.statements(table).updateOne[i], []any{value(fs[0].Value), key})
			}
		}
	}
	sets := make([]string, 0, values.Len())
	args := make([]any, 0, values.Len()+1)
	for _, f := range values.Fields() {
		sets = append(sets, f.Name+" = ?")
		args = append(args, value(f.Value))
	}
	if name, v, ok := st.flattened(table, values); ok {
		sets = append(sets, name+" = ?")
		args = append(args, v)
	}
	args = append(args, key)
	return st.exec(ctx, "update", key, fmt.Sprintf("UPDATE %s SET %s WHERE y_id = ?", st.table(table), strings.Join(sets, ", ")), args)
}

// value is a field's value as gocql sends it: its bytes, which gocql
// writes as they are (a string it would copy), and never nil (which it
// sends as null): an empty value stays empty.
func value(v []byte) any {
	if v == nil {
		return empty
	}
	return v
}

var empty = []byte{}

// everyField reports whether fs are every field in the fields' order.
func (st *Store) everyField(fs []db.Field) bool {
	if len(fs) != len(st.fields) {
		return false
	}
	for i := range fs {
		if fs[i].Name != st.fields[i] {
			return false
		}
	}
	return true
}

func (st *Store) Insert(ctx context.Context, table, key string, values *db.Record) error {
	fs := values.Fields()
	args := make([]any, 1, len(fs)+2)
	args[0] = key
	for _, f := range fs {
		args = append(args, value(f.Value))
	}
	name, v, flat := st.flattened(table, values)
	if !flat && st.everyField(fs) {
		return st.exec(ctx, "insert", key, st.statements(table).insertAll, args)
	}
	cols := []string{"y_id"}
	marks := []string{"?"}
	for _, f := range fs {
		cols = append(cols, f.Name)
		marks = append(marks, "?")
	}
	if flat {
		cols = append(cols, name)
		marks = append(marks, "?")
		args = append(args, v)
	}
	return st.exec(ctx, "insert", key, fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", st.table(table), strings.Join(cols, ", "), strings.Join(marks, ", ")), args)
}

// batchInFlight bounds the inserts one batch has in flight.
const batchInFlight = 32

// BatchInsert writes a batch of records (batchsize) as concurrent
// prepared inserts, up to 32 in flight. Each key is a partition of its
// own, so an unlogged batch would make one coordinator forward every row
// (the multi-partition batch Cassandra warns against); single-partition
// writes in parallel go straight to their replicas. The first error fails
// the batch, after the inserts in flight have ended.
func (st *Store) BatchInsert(ctx context.Context, table string, keys []string, values []*db.Record) error {
	var wg sync.WaitGroup
	first := make(chan error, 1)
	slots := make(chan struct{}, batchInFlight)
	for i := range keys {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := st.Insert(ctx, table, keys[i], values[i]); err != nil {
				select {
				case first <- err:
				default:
				}
			}
		}()
	}
	wg.Wait()
	select {
	case err := <-first:
		return err
	default:
		return nil
	}
}

// Delete removes the row; Cassandra does not say whether it existed.
func (st *Store) Delete(ctx context.Context, table, key string) error {
	return st.exec(ctx, "delete", key, st.statements(table).delete, []any{key})
}

// ServerVersion reports "Apache Cassandra <release_version>".
func (st *Store) ServerVersion(ctx context.Context) (string, error) {
	var v string
	if err := st.s.Query("SELECT release_version FROM system.local").ScanContext(ctx, &v); err != nil {
		return "", err
	}
	return "Apache Cassandra " + v, nil
}

// Close closes the session.
func (st *Store) Close() error { st.s.Close(); return nil }

// Driver names the client library.
func (st *Store) Driver() string {
	return db.DriverName("gocql", "github.com/apache/cassandra-gocql-driver/v2")
}

// AdminLanguage: a setup statement is CQL.
func (binding) AdminLanguage() string { return "CQL" }

// Admin runs one CQL statement and returns the first row it answers
// ("[4]"), or "done". The session has no keyspace of its own: name a
// table with its keyspace (ycsb.{table}).
func (st *Store) Admin(ctx context.Context, _, statement string) (string, error) {
	it := st.s.Query(statement).IterContext(ctx)
	row, err := it.RowData()
	answer := "done"
	if err == nil && len(row.Values) > 0 && it.Scan(row.Values...) {
		vals := make([]any, len(row.Values))
		for i, v := range row.Values {
			vals[i] = reflect.ValueOf(v).Elem().Interface()
		}
		answer = fmt.Sprint(vals)
	}
	if err := it.Close(); err != nil {
		return "", fmt.Errorf("cassandra: %w", err)
	}
	return answer, nil
}

// Traffic is the bytes this client's connections sent and received.
func (st *Store) Traffic() (sent, received int64) { return st.traffic.Bytes() }

// Peers implements db.Peered.
func (st *Store) Peers() (local, remote int) { return st.traffic.Peers() }
