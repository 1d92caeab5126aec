// Package postgres is the PostgreSQL binding (pgx v5). Records live either
// in a JSONB document table (ycsb_key text primary key, doc jsonb; the
// default, as YCSB's postgrenosql binding) or in YCSB's JDBC column layout
// (ycsb_key, field0..fieldN text), chosen by postgres.layout. Statements
// are prepared once per connection by pgx's statement cache.
package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
)

// Name is the binding's name: engine.Spec{Binding: postgres.Name} runs it (and
// the import that names it registers it).
const Name = "postgres"

func init() { db.Register(Name, binding{}) }

type binding struct{}

func (binding) Summary() string {
	return "PostgreSQL through pgx v5, JSONB documents or YCSB's column layout (postgres.url, postgres.layout, postgres.tls.*)"
}

// Location is where the server is and who the client is to it
// (db.Located): a rehearsal's URL goes to the first.
func (binding) Location() []string {
	return []string{"postgres.url", "postgres.host", "postgres.port", "postgres.user", "postgres.password", "postgres.sslmode", "postgres.tls", "postgres.tls."}
}

// Store is an open connection pool.
type Store struct {
	traffic wire.Traffic // the bytes its connections sent and received
	pool    *pgxpool.Pool
	columns bool // YCSB's column layout instead of JSONB
	create  bool
	fields  []string // the columns of the column layout (db.Options.Schema)
	// sql holds the statements of the last table used, built once: an
	// operation looks them up with one atomic load and a comparison, not
	// by formatting its statement again.
	sql atomic.Pointer[statements]
}

// statements are one table's statements, in the store's layout. updateOne
// and readOne are per column of the column layout (fields' order).
type statements struct {
	table                           string
	readAll, update, insert, delete string
	readOne, updateOne              []string
}

func (s *Store) statements(table string) *statements {
	if st := s.sql.Load(); st != nil && st.table == table {
		return st
	}
	t := ident(table)
	st := &statements{table: table, delete: "DELETE FROM " + t + " WHERE ycsb_key = $1"}
	if !s.columns {
		st.readAll = "SELECT doc FROM " + t + " WHERE ycsb_key = $1"
		st.update = "UPDATE " + t + " SET doc = doc || $2 WHERE ycsb_key = $1"
		st.insert = "INSERT INTO " + t + " (ycsb_key, doc) VALUES ($1, $2)"
		s.sql.Store(st)
		return st
	}
	st.readAll = "SELECT * FROM " + t + " WHERE ycsb_key = $1"
	var set, cols, params strings.Builder
	for i, f := range s.fields {
		if i > 0 {
			set.WriteString(", ")
		}
		fmt.Fprintf(&set, "%s = $%d", ident(f), i+2)
		fmt.Fprintf(&cols, ", %s", ident(f))
		fmt.Fprintf(&params, ", $%d", i+2)
		st.readOne = append(st.readOne, "SELECT "+ident(f)+" FROM "+t+" WHERE ycsb_key = $1")
		st.updateOne = append(st.updateOne, "UPDATE "+t+" SET "+ident(f)+" = $2 WHERE ycsb_key = $1")
	}
	st.update = "UPDATE " + t + " SET " + set.String() + " WHERE ycsb_key = $1"
	st.insert = "INSERT INTO " + t + " (ycsb_key" + cols.String() + ") VALUES ($1" + params.String() + ")"
	s.sql.Store(st)
	return st
}

// column is the position of name among the column layout's fields, or -1.
func (s *Store) column(name string) int {
	for i, f := range s.fields {
		if f == name {
			return i
		}
	}
	return -1
}

// inOrder tells whether values has every field of the column layout, in
// its order (an insert's or an update of all fields).
func (s *Store) inOrder(values *db.Record) bool {
	fs := values.Fields()
	if len(fs) != len(s.fields) {
		return false
	}
	for i, f := range fs {
		if f.Name != s.fields[i] {
			return false
		}
	}
	return true
}

// Open reads the postgres.* properties and the connection string, and
// opens a pool of connections as they say.
//
// Long: reads the binding's properties one after another, each checked
// where it is read, up to o.CheckOnly; then sets pgx's pool configuration
// from them and connects, in the order pgx needs.
func (binding) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	s := &Store{}
	layout, err := p.OneOf("postgres.layout", "jsonb", "jsonb", "columns")
	if err != nil {
		return nil, err
	}
	s.columns = layout == "columns"
	if s.create, err = p.Bool("postgres.createtable", true); err != nil {
		return nil, err
	}
	s.fields = o.Schema.Fields
	if s.columns && len(s.fields) == 0 {
		return nil, errors.New("postgres: no fields to make columns of (the engine gives the workload's schema)")
	}

	connURL, urlKey := p.String("postgres.url", ""), "postgres.url"
	host, port, database := p.String("postgres.host", "127.0.0.1"), p.String("postgres.port", "5432"), p.String("postgres.database", "postgres")
	user, pass, sslMode := p.String("postgres.user", "postgres"), p.String("postgres.password", ""), p.String("postgres.sslmode", "")
	if connURL == "" {
		if n, err := strconv.ParseUint(port, 10, 16); err != nil || n == 0 {
			return nil, p.Errorf("postgres.port", "%q is not a port (1 to 65535)", props.Cut(port, 20))
		}
		u := &url.URL{Scheme: "postgres", Host: net.JoinHostPort(host, port), Path: "/" + database}
		if pass != "" {
			u.User = url.UserPassword(user, pass)
		} else {
			u.User = url.User(user)
		}
		q := u.Query()
		if sslMode != "" {
			q.Set("sslmode", sslMode)
		}
		u.RawQuery = q.Encode()
		connURL, urlKey = u.String(), "postgres.sslmode"
	}
	sec, err := readTLS(p, connURL, urlKey)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(connURL)
	if err != nil {
		// pgx quotes the string and the files it could not use: the
		// password, sslpassword and the key file's path (sslkey) hidden.
		var r props.Redactor
		r.Hidden(connURL)
		r.Add(connSettings(connURL)["sslkey"])
		return nil, p.Errorf("postgres.url", "%s", r.Redact(err.Error()))
	}
	// A password pgx found where no property names it (~/.pgpass, a
	// service file, PGPASSWORD) is a secret for every writer too.
	props.KnowEverywhere(cfg.ConnConfig.Password)
	// The pool opens the connections its string asks for (pool_min_conns
	// in a URL or a keyword string): bounded as postgres.poolsize is.
	for _, c := range []struct {
		name string
		n    int32
	}{{"pool_max_conns", cfg.MaxConns}, {"pool_min_conns", cfg.MinConns}, {"pool_min_idle_conns", cfg.MinIdleConns}} {
		if c.n > db.MaxConnections {
			return nil, p.Errorf("postgres.url", "%s=%d is more than %d", c.name, c.n, db.MaxConnections)
		}
	}
	var asked wire.CertAsked
	if err := sec.apply(ctx, p, &cfg.ConnConfig.Config, &asked); err != nil {
		return nil, err
	}
	conns, err := p.Int64Range("postgres.poolsize", min(int64(max(o.Threads, 1))+2, db.MaxConnections), 1, db.MaxConnections)
	if err != nil {
		return nil, err
	}
	// A server that accepts but never answers fails the connection after
	// postgres.connecttimeout, not after the kernel's TCP retries.
	ms, err := p.Int64Min("postgres.connecttimeout", 10000, 1)
	if err != nil {
		return nil, err
	}
	if o.CheckOnly {
		return nil, nil
	}
	connect := time.Duration(ms) * time.Millisecond
	cfg.ConnConfig.ConnectTimeout = connect
	// pgx gives memory to the length a message declares, up to 1 GB: a
	// row holds one record at most.
	cfg.ConnConfig.MaxProtocolMessageBodyLen = wire.MaxRecordMessage
	cfg.ConnConfig.DialFunc = s.traffic.Dialer(cfg.ConnConfig.DialFunc) // TLS, when asked, runs over it: the bytes on the wire
	// pgx keeps every ParameterStatus a server sends before it is ready,
	// without end: what a connection reads until then, its TLS handshake
	// included, is bounded (wire.MaxStartup); once established, its
	// messages are (MaxProtocolMessageBodyLen).
	dial := cfg.ConnConfig.DialFunc
	cfg.ConnConfig.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return wire.BoundStartup(c, wire.MaxStartup), nil
	}
	// pgx keeps every ParameterStatus a server sends, at any time, by its
	// name: their names and sizes are bounded on the connection's clear
	// text (wire.BoundParameterStatus; TLS below it).
	cfg.ConnConfig.AfterNetConnect = func(_ context.Context, _ *pgconn.Config, c net.Conn) (net.Conn, error) {
		return wire.BoundParameterStatus(c), nil
	}
	// ... and every notification (LISTEN/NOTIFY), for a WaitForNotification
	// servbench never calls: dropped; their count is bounded as above.
	cfg.ConnConfig.OnNotification = func(*pgconn.PgConn, *pgconn.Notification) {}
	after := cfg.ConnConfig.AfterConnect
	cfg.ConnConfig.AfterConnect = func(ctx context.Context, c *pgconn.PgConn) error {
		wire.StartupReady(c.Conn())
		if after != nil {
			return after(ctx, c)
		}
		return nil
	}
	cfg.MaxConns = int32(conns)
	where := cfg.ConnConfig.Host + ":" + fmt.Sprint(cfg.ConnConfig.Port)
	serverKey := "postgres.url"
	if urlKey != "postgres.url" {
		serverKey = "postgres.host"
	}
	startup := func(err error) error {
		var se *wire.StartupError
		if !errors.As(err, &se) {
			var pe *wire.ParameterError
			if errors.As(err, &pe) {
				return p.Errorf(serverKey, "the server at %s: %v: not connected", where, pe)
			}
			return nil
		}
		return p.Errorf(serverKey, "the server at %s sent more than %s before its connection was ready (a PostgreSQL server's startup takes a few KiB): not connected", where, format.Bytes(se.Max))
	}
	if s.pool, err = pgxpool.NewWithConfig(ctx, cfg); err != nil {
		if e := startup(err); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("postgres: connect %s: %w", where, sec.explain(err, &asked))
	}
	pctx, cancel := context.WithTimeout(ctx, connect)
	defer cancel()
	if err := s.pool.Ping(pctx); err != nil {
		s.pool.Close()
		if e := startup(err); e != nil {
			return nil, e
		}
		if ctx.Err() == nil && (pctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || pgconn.Timeout(err)) {
			return nil, fmt.Errorf("postgres: connect %s: no answer within %s (postgres.connecttimeout)", where, connect)
		}
		return nil, fmt.Errorf("postgres: connect %s: %w", where, sec.explain(err, &asked))
	}
	return s, nil
}

func ident(s string) string { return pgx.Identifier{s}.Sanitize() }

// Prepare creates the table when missing (postgres.createtable).
func (s *Store) Prepare(ctx context.Context, table string, _ bool) error {
	if !s.create {
		return nil
	}
	var ddl string
	if s.columns {
		var cols strings.Builder
		for _, f := range s.fields {
			fmt.Fprintf(&cols, ", %s TEXT", ident(f))
		}
		ddl = fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (ycsb_key TEXT COLLATE "C" PRIMARY KEY%s)`, ident(table), cols.String())
	} else {
		ddl = fmt.Sprintf(`CREATE TABLE IF NOT EXISTS %s (ycsb_key TEXT COLLATE "C" PRIMARY KEY, doc JSONB NOT NULL)`, ident(table))
	}
	if _, err := s.pool.Exec(ctx, ddl); err != nil {
		return fmt.Errorf("postgres: create table %s: %w", table, err)
	}
	return nil
}

// wrap maps pgx errors to outcomes.
func wrap(op, key string, err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case pe.Code == "57014":
			return fmt.Errorf("postgres: %s %s: %w: %v", op, key, db.ErrTimeout, err)
		case strings.HasPrefix(pe.Code, "08"), strings.HasPrefix(pe.Code, "53"), strings.HasPrefix(pe.Code, "57P"):
			return fmt.Errorf("postgres: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
		case pe.Code == "23505" && (op == "insert" || op == "batch insert"):
			// A unique violation on load: an earlier load (perhaps killed)
			// left its records. Say how to start again.
			table := "the table"
			if pe.TableName != "" {
				table = pe.TableName
			}
			return fmt.Errorf("postgres: %s %s: the key exists: %s holds records of an earlier load; drop it (DROP TABLE %s) or load into another table (-p table=...): %w: %v",
				op, key, table, table, db.ErrUnexpectedState, err)
		}
		return fmt.Errorf("postgres: %s %s: %w", op, key, err)
	}
	// A connection refused, reset or closed in the middle of an answer
	// (the server died).
	if db.ConnectionLost(err) || pgconn.SafeToRetry(err) {
		return fmt.Errorf("postgres: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	}
	return fmt.Errorf("postgres: %s %s: %w", op, key, err)
}

func notFound(op, key string) error {
	return fmt.Errorf("postgres: %s %s: %w", op, key, db.ErrNotFound)
}

// appendDoc encodes values as a JSON object: a document's JSON texts as
// they are, YCSB's values as strings.
func appendDoc(dst []byte, values *db.Record) []byte {
	if values.JSON {
		return jsondoc.AppendObject(dst, values)
	}
	dst = append(dst, '{')
	for i, f := range values.Fields() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, []byte(f.Name))
		dst = append(dst, ':')
		dst = appendJSONString(dst, f.Value)
	}
	return append(dst, '}')
}

func appendJSONString(dst, s []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// addDoc adds the fields of a JSON document (see jsondoc.AddDocument).
func addDoc(dst *db.Record, doc []byte) error { return jsondoc.AddDocument(dst, doc, nil) }

// projection selects the wanted fields of doc on the server.
func projection(fields []string) string {
	if fields == nil {
		return "doc"
	}
	return "(SELECT jsonb_object_agg(k, doc->k) FROM unnest($2::text[]) k)"
}

func (s *Store) selectList(fields []string) string {
	if fields == nil {
		return "*"
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = ident(f)
	}
	return strings.Join(names, ", ")
}

// rawValues are the values of the row rows is at as the server sent
// them, one a column it described: a row of another count fails (pgx and
// addRaw index one by the other, and a short row panicked).
func rawValues(rows pgx.Rows) ([][]byte, error) {
	vals, fds := rows.RawValues(), rows.FieldDescriptions()
	if len(vals) != len(fds) {
		return nil, fmt.Errorf("the server answered a row of %d values for %d columns", len(vals), len(fds))
	}
	return vals, nil
}

// values are the values of the row rows is at, decoded (pgx's Values),
// once their count is checked (rawValues).
func values(rows pgx.Rows) ([]any, error) {
	if _, err := rawValues(rows); err != nil {
		return nil, err
	}
	return rows.Values()
}

// addRaw adds the non-null columns of a row as the server sent them (text
// columns: their bytes), ycsb_key excluded.
func addRaw(dst *db.Record, fds []pgconn.FieldDescription, vals [][]byte) {
	for i, fd := range fds {
		if fd.Name != "ycsb_key" && vals[i] != nil {
			dst.Add(fd.Name, vals[i])
		}
	}
}

// addRow adds the non-null text columns of a row (ycsb_key excluded).
func addRow(dst *db.Record, fds []pgconn.FieldDescription, vals []any) {
	for i, fd := range fds {
		if fd.Name == "ycsb_key" {
			continue
		}
		if v, ok := vals[i].(string); ok {
			dst.Add(fd.Name, []byte(v))
		}
	}
}

func (s *Store) Read(ctx context.Context, table, key string, fields []string, dst *db.Record) error {
	st := s.statements(table)
	if s.columns {
		q := st.readAll
		if fields != nil {
			if i := s.column(fields[0]); len(fields) == 1 && i >= 0 {
				q = st.readOne[i]
			} else {
				q = fmt.Sprintf("SELECT %s FROM %s WHERE ycsb_key = $1", s.selectList(fields), ident(table))
			}
		}
		rows, _ := s.pool.Query(ctx, q, key)
		defer rows.Close()
		if !rows.Next() {
			if err := rows.Err(); err != nil {
				return wrap("read", key, err)
			}
			return notFound("read", key)
		}
		vals, err := rawValues(rows)
		if err != nil {
			return wrap("read", key, err)
		}
		addRaw(dst, rows.FieldDescriptions(), vals)
		return nil
	}
	var doc []byte
	var err error
	if fields == nil {
		err = s.pool.QueryRow(ctx, st.readAll, key).Scan(&doc)
	} else {
		err = s.pool.QueryRow(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE ycsb_key = $1", projection(fields), ident(table)), key, fields).Scan(&doc)
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound("read", key)
	}
	if err != nil {
		return wrap("read", key, err)
	}
	if err := addDoc(dst, doc); err != nil {
		return fmt.Errorf("postgres: read %s: %w", key, err)
	}
	return nil
}

func (s *Store) Scan(ctx context.Context, table, start string, count int, fields []string, dst *db.RecordSet) error {
	// A server that answers past LIMIT is cut off: cancelled, the query's
	// connection is closed rather than read to its end.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var rows pgx.Rows
	if s.columns {
		sel := s.selectList(fields)
		if fields != nil {
			sel = "ycsb_key, " + sel
		}
		rows, _ = s.pool.Query(ctx, fmt.Sprintf("SELECT %s FROM %s WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2", sel, ident(table)), start, count)
	} else {
		q := "SELECT ycsb_key, doc FROM %s WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2"
		args := []any{start, count}
		if fields != nil {
			q = "SELECT ycsb_key, (SELECT jsonb_object_agg(k, doc->k) FROM unnest($3::text[]) k) FROM %s WHERE ycsb_key >= $1 ORDER BY ycsb_key LIMIT $2"
			args = append(args, fields)
		}
		rows, _ = s.pool.Query(ctx, fmt.Sprintf(q, ident(table)), args...)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if n++; n > count { // a server that ignores LIMIT would be kept row by row, without end
			cancel()
			return fmt.Errorf("postgres: scan %s: the server answered more than the %d rows asked (LIMIT)", start, count)
		}
		r := dst.Next()
		if s.columns {
			vals, err := rawValues(rows)
			if err != nil {
				return wrap("scan", start, err)
			}
			for i, fd := range rows.FieldDescriptions() {
				if fd.Name == "ycsb_key" {
					r.SetKey(vals[i])
				}
			}
			addRaw(r, rows.FieldDescriptions(), vals)
			continue
		}
		var key string
		var doc []byte
		if err := rows.Scan(&key, &doc); err != nil {
			return wrap("scan", start, err)
		}
		r.SetKey([]byte(key))
		if err := addDoc(r, doc); err != nil {
			return fmt.Errorf("postgres: scan %s: %w", start, err)
		}
	}
	if err := rows.Err(); err != nil {
		return wrap("scan", start, err)
	}
	return nil
}

func (s *Store) Update(ctx context.Context, table, key string, values *db.Record) error {
	st := s.statements(table)
	var tag pgconn.CommandTag
	var err error
	switch fs := values.Fields(); {
	case !s.columns:
		tag, err = s.pool.Exec(ctx, st.update, key, appendDoc(nil, values))
	case len(fs) == 1 && s.column(fs[0].Name) >= 0:
		tag, err = s.pool.Exec(ctx, st.updateOne[s.column(fs[0].Name)], key, value(fs[0].Value))
	case s.inOrder(values):
		tag, err = s.pool.Exec(ctx, st.update, columnArgs(key, fs)...)
	default:
		var set strings.Builder
		for i, f := range fs {
			if i > 0 {
				set.WriteString(", ")
			}
			fmt.Fprintf(&set, "%s = $%d", ident(f.Name), i+2)
		}
		tag, err = s.pool.Exec(ctx, fmt.Sprintf("UPDATE %s SET %s WHERE ycsb_key = $1", ident(table), set.String()), columnArgs(key, fs)...)
	}
	if err != nil {
		return wrap("update", key, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("update", key)
	}
	return nil
}

// columnArgs are a statement's arguments: the key, then each field's value
// (text columns take the bytes as they are).
func columnArgs(key string, fs []db.Field) []any {
	args := make([]any, 1, len(fs)+1)
	args[0] = key
	for _, f := range fs {
		args = append(args, value(f.Value))
	}
	return args
}

// value is a field's value as a statement's argument: its bytes, or an
// empty text for an empty value (a nil []byte is SQL's NULL to pgx).
func value(v []byte) any {
	if v == nil {
		return ""
	}
	return v
}

func (s *Store) Insert(ctx context.Context, table, key string, values *db.Record) error {
	st := s.statements(table)
	var err error
	switch {
	case !s.columns:
		_, err = s.pool.Exec(ctx, st.insert, key, appendDoc(nil, values))
	case s.inOrder(values):
		_, err = s.pool.Exec(ctx, st.insert, columnArgs(key, values.Fields())...)
	default:
		cols, params := []string{"ycsb_key"}, []string{"$1"}
		for i, f := range values.Fields() {
			cols = append(cols, ident(f.Name))
			params = append(params, fmt.Sprintf("$%d", i+2))
		}
		_, err = s.pool.Exec(ctx, fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", ident(table), strings.Join(cols, ", "), strings.Join(params, ", ")), columnArgs(key, values.Fields())...)
	}
	if err != nil {
		return wrap("insert", key, err)
	}
	return nil
}

// BatchInsert loads a batch of records (batchsize) with COPY, PostgreSQL's
// bulk path (pgx's CopyFrom): one round trip for the batch. Records whose
// fields differ from the first one's (never the case in a load) are
// inserted one by one instead.
func (s *Store) BatchInsert(ctx context.Context, table string, keys []string, values []*db.Record) error {
	cols := []string{"ycsb_key", "doc"}
	if s.columns {
		cols = cols[:1]
		for _, f := range values[0].Fields() {
			cols = append(cols, f.Name)
		}
	}
	rows := make([][]any, len(keys))
	for i, key := range keys {
		if !s.columns {
			rows[i] = []any{key, json.RawMessage(appendDoc(nil, values[i]))}
			continue
		}
		fields := values[i].Fields()
		if len(fields) != len(cols)-1 {
			return s.insertEach(ctx, table, keys, values)
		}
		row := make([]any, 1, len(cols))
		row[0] = key
		for j, f := range fields {
			if f.Name != cols[j+1] {
				return s.insertEach(ctx, table, keys, values)
			}
			row = append(row, string(f.Value))
		}
		rows[i] = row
	}
	if _, err := s.pool.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(rows)); err != nil {
		return wrap("batch insert", keys[0], err)
	}
	return nil
}

func (s *Store) insertEach(ctx context.Context, table string, keys []string, values []*db.Record) error {
	for i, key := range keys {
		if err := s.Insert(ctx, table, key, values[i]); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) Delete(ctx context.Context, table, key string) error {
	tag, err := s.pool.Exec(ctx, s.statements(table).delete, key)
	if err != nil {
		return wrap("delete", key, err)
	}
	if tag.RowsAffected() == 0 {
		return notFound("delete", key)
	}
	return nil
}

// ServerVersion reports "PostgreSQL <server_version>".
func (s *Store) ServerVersion(ctx context.Context) (string, error) {
	var v string
	if err := s.pool.QueryRow(ctx, "SHOW server_version").Scan(&v); err != nil {
		return "", err
	}
	return "PostgreSQL " + v, nil
}

// Close closes the pool.
func (s *Store) Close() error { s.pool.Close(); return nil }

// Driver names the client library.
func (s *Store) Driver() string { return db.DriverName("pgx", "github.com/jackc/pgx/v5") }

// AdminLanguage: a setup statement is SQL.
func (binding) AdminLanguage() string { return "SQL (PostgreSQL)" }

// Admin runs one SQL statement (or several separated by semicolons,
// without parameters) and returns its command tag, with the first row a
// query returns: "SELECT 1: [t]".
func (s *Store) Admin(ctx context.Context, _, statement string) (string, error) {
	if !returnsRows(statement) {
		tag, err := s.pool.Exec(ctx, statement)
		if err != nil {
			return "", fmt.Errorf("postgres: %w", err)
		}
		return tag.String(), nil
	}
	rows, err := s.pool.Query(ctx, statement)
	if err != nil {
		return "", fmt.Errorf("postgres: %w", err)
	}
	defer rows.Close()
	var first []any
	if rows.Next() {
		first, err = values(rows)
	}
	rows.Close() // reads the rest: the command tag counts every row
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return "", fmt.Errorf("postgres: %w", err)
	}
	answer := rows.CommandTag().String()
	if first != nil {
		answer += fmt.Sprintf(": %v", first)
	}
	return answer, nil
}

// returnsRows reports whether a statement is a query (SELECT, SHOW,
// WITH, VALUES, TABLE, EXPLAIN), whose first row Admin returns.
func returnsRows(statement string) bool {
	w := strings.Fields(strings.ToLower(statement))
	if len(w) == 0 {
		return false
	}
	switch w[0] {
	case "select", "show", "with", "values", "table", "explain":
		return true
	}
	return false
}

// Traffic is the bytes this client's connections sent and received.
func (s *Store) Traffic() (sent, received int64) { return s.traffic.Bytes() }

// Peers implements db.Peered.
func (s *Store) Peers() (local, remote int) { return s.traffic.Peers() }
