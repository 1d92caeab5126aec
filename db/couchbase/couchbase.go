// Package couchbase is the Couchbase binding (gocb v2): a JSON document per
// record through the key-value API (get with projection, sub-document
// updates, insert or upsert, remove, with expiry and durability options),
// and scans either through SQL++
//
//	SELECT RAW meta().id FROM `b`.`s`.`c` WHERE meta().id >= $1 ORDER BY meta().id LIMIT $2
//
// followed by key-value gets (the 2023 study's query), or through a
// key-value range scan where the server supports it (couchbase.scanmode).
package couchbase

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/couchbase/gocb/v2"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/props"
)

// Name is the binding's name: engine.Spec{Binding: couchbase.Name} runs it (and
// the import that names it registers it).
const Name = "couchbase"

func init() { db.Register(Name, binding{}) }

type binding struct{}

func (binding) Summary() string {
	return "Couchbase through gocb v2: key-value, SQL++ or range scans (couchbase.url, couchbase.bucket, couchbase.tls.*)"
}

// Location is where the server is and who the client is to it
// (db.Located): a rehearsal's URL goes to the first.
func (binding) Location() []string {
	return []string{"couchbase.url", "couchbase.host", "couchbase.managementport", "couchbase.username", "couchbase.password", "couchbase.tls", "couchbase.tls."}
}

// maxBufferBytes bounds the byte sizes couchbase.url may name (64 MiB).
const maxBufferBytes = 64 << 20

// Store is a connected cluster and collection.
type Store struct {
	cluster    *gocb.Cluster
	coll       *gocb.Collection
	keyspace   string // `bucket`.`scope`.`collection`, for SQL++
	host       string
	expiry     time.Duration
	durability gocb.DurabilityLevel
	upsert     bool   // insert with upsert (overwrite) instead of insert
	updateMode string // couchbase.update: subdoc, replace (YCSB's couchbase2 binding) or upsert (the 2023 study's)
	scanMode   string // query or rangescan
	// mgmt reaches the cluster manager's REST API (see Sample) with the
	// connection's security.
	mgmt *manager
	// mock is whether the server is CouchbaseMock, asked once, at the
	// first failed SQL++ statement: the mock runs none.
	mockOnce sync.Once
	mock     bool
}

// queryErr is err, a SQL++ statement's failure, as NOT_IMPLEMENTED when
// the server is CouchbaseMock, which has no query service (its answers
// say "keyspace not found"): a rehearsal on it tells a scan or a setup
// statement it cannot run from one that failed.
func (s *Store) queryErr(ctx context.Context, err error) error {
	s.mockOnce.Do(func() {
		v, verr := s.mgmt.version(ctx)
		s.mock = verr == nil && strings.HasPrefix(v, "CouchbaseMock")
	})
	if s.mock {
		return fmt.Errorf("%w: CouchbaseMock runs no SQL++ (%v)", db.ErrNotImplemented, err)
	}
	return err
}

func (binding) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	s := &Store{}
	c, err := readConnection(p)
	if err != nil {
		return nil, err
	}
	s.host, s.mgmt = c.host, c.mgmt
	conn, t, bucket, user, password := c.url, c.tls, c.bucket, c.user, c.password
	scope := p.String("couchbase.scope", "_default")
	collection := p.String("couchbase.collection", "_default")
	s.keyspace = keyspace(bucket, scope, collection)
	if s.upsert, err = p.Bool("couchbase.upsert", false); err != nil {
		return nil, err
	}
	if s.updateMode, err = p.OneOf("couchbase.update", "subdoc", "subdoc", "replace", "upsert"); err != nil {
		return nil, err
	}
	if s.scanMode, err = p.OneOf("couchbase.scanmode", "query", "query", "rangescan"); err != nil {
		return nil, err
	}
	exp, err := p.Int64Min("couchbase.expiry", 0, 0)
	if err != nil {
		return nil, err
	}
	s.expiry = time.Duration(exp) * time.Second
	dur, err := p.OneOf("couchbase.durability", "none", "none", "majority", "majorityandpersistactive", "persisttomajority")
	if err != nil {
		return nil, err
	}
	s.durability = map[string]gocb.DurabilityLevel{
		"none": gocb.DurabilityLevelNone, "majority": gocb.DurabilityLevelMajority,
		"majorityandpersistactive": gocb.DurabilityLevelMajorityAndPersistOnMaster,
		"persisttomajority":        gocb.DurabilityLevelPersistToMajority,
	}[dur]
	ms, err := p.Int64Min("couchbase.kvtimeout", 2500, 1)
	if err != nil {
		return nil, err
	}
	if o.CheckOnly {
		return nil, nil
	}
	// The files are read where the phase runs (a spread phase's clients).
	tc, err := t.Config(ctx, p)
	if err != nil {
		return nil, err
	}
	s.mgmt.secure(tc)
	opts := clusterOptions(t, tc, user, password)
	opts.TimeoutsConfig = gocb.TimeoutsConfig{KVTimeout: time.Duration(ms) * time.Millisecond}
	opts.RetryStrategy = gocb.NewBestEffortRetryStrategy(nil)
	if tc != nil {
		// gocbcore's TLS handshake has no deadline: a server that never
		// answers it held the connection, and the close after it, without
		// end. It is asked first, bounded.
		if err := answersTLS(ctx, c.addr, connectTimeout); err != nil {
			return nil, fmt.Errorf("couchbase: connect %s: %w", s.host, err)
		}
	}
	if s.cluster, err = gocb.Connect(conn, opts); err != nil {
		return nil, fmt.Errorf("couchbase: connect %s: %s", s.host, props.RedactURL(t.Explain(err).Error()))
	}
	b := s.cluster.Bucket(bucket)
	if err := b.WaitUntilReady(connectTimeout, &gocb.WaitUntilReadyOptions{ServiceTypes: []gocb.ServiceType{gocb.ServiceTypeKeyValue}, Context: ctx}); err != nil {
		// Closed aside: gocb's close waits for the connections it is
		// still making, a handshake among them.
		go s.cluster.Close(nil)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("couchbase: connect %s: stopped while connecting: %w", s.host, ctx.Err())
		}
		if errors.Is(err, gocb.ErrTimeout) || errors.Is(err, gocb.ErrUnambiguousTimeout) { // the connect timeout's, not couchbase.kvtimeout's
			return nil, fmt.Errorf("couchbase: connect %s bucket %s: no answer within %s (the connect timeout): %s", s.host, bucket, connectTimeout, props.RedactURL(t.Explain(err).Error()))
		}
		return nil, fmt.Errorf("couchbase: connect %s bucket %s: %s", s.host, bucket, props.RedactURL(t.Explain(err).Error()))
	}
	s.coll = b.Scope(scope).Collection(collection)
	return s, nil
}

// connection is where and how the binding connects: the connection
// string, its first host, its security, the bucket and credentials, and
// the cluster manager reached with the same security.
type connection struct {
	url, host, bucket, user, password string
	addr                              string // the first host's address and port: the one asked whether it speaks TLS
	tls                               wire.TLS
	mgmt                              *manager
}

// readConnection reads couchbase.url (or couchbase.host), the TLS
// properties, which must agree with it, the bucket and the credentials.
func readConnection(p *props.Props) (connection, error) {
	var c connection
	t, err := wire.ReadTLS(p, Name)
	if err != nil {
		return c, err
	}
	conn, host := p.String("couchbase.url", ""), p.String("couchbase.host", "127.0.0.1")
	if conn == "" {
		conn = "couchbase://" + host
		if t.On { // couchbase.host with the TLS properties
			conn = "couchbases://" + host
		}
	}
	u, err := url.Parse(conn)
	if err != nil || (u.Scheme != "couchbase" && u.Scheme != "couchbases") || u.Host == "" {
		return c, p.Errorf("couchbase.url", "want couchbase://host[?options] or couchbases://")
	}
	// couchbases:// is TLS; the TLS properties refine it, and refuse a
	// couchbase:// URL.
	if t, err = t.Agree(p, "couchbase.url", u.Scheme == "couchbases"); err != nil {
		return c, err
	}
	// gocb reads the files its options name (ca_cert_path) whole and
	// without a bound: every option naming a file is checked.
	var opts []wire.Option
	for k, vs := range u.Query() {
		for _, v := range vs {
			opts = append(opts, wire.Option{Name: k, Value: v})
		}
	}
	if err := wire.OptionFiles(p, "couchbase.url", opts); err != nil {
		return c, err
	}
	// gocbcore gives memory to the counts the string names (a queue's
	// length per connection, kv_pool_size=100000000 took 1.8 GB): bounded
	// as the properties' pool sizes are.
	if err := wire.CountOptions(p, "couchbase.url", opts, db.MaxConnections, "kv_pool_size", "max_queue_size", "max_idle_http_connections", "max_perhost_idle_http_connections", "max_perhost_http_connections", "orphaned_response_logging_sample_size"); err != nil {
		return c, err
	}
	// And the sizes in bytes it allocates at once, a connection's read
	// buffer (kv_buffer_size=100000000000 ended the process at its first
	// connection): at most a record's bound four times.
	if err := wire.CountOptions(p, "couchbase.url", opts, maxBufferBytes, "kv_buffer_size", "compression_min_size"); err != nil {
		return c, err
	}
	if u.User != nil {
		return c, p.Errorf("couchbase.url", "gocb takes no credentials from the URL (it would connect without them): set couchbase.username and couchbase.password")
	}
	c.url, c.host, c.addr, c.tls = conn, firstHost(u.Host), firstAddr(u.Host), t
	c.bucket = p.String("couchbase.bucket", "default")
	c.user, c.password = p.String("couchbase.username", c.bucket), p.String("couchbase.password", "")
	switch {
	case t.ServerName != "":
		return c, p.Errorf("couchbase.tls.servername", "gocb verifies each node under the name the cluster map gives it, and takes no other: connect to a name the certificate carries")
	case t.Cert != "" && c.password != "":
		return c, p.Errorf("couchbase.tls.cert", "a client certificate authenticates instead of couchbase.password: set one")
	}
	c.mgmt, err = newManager(p, t, c.host, c.bucket, c.user, c.password)
	return c, err
}

// firstHost is the first host of a connection string's list (a,b:11210,
// [::1]:11207), without its port: the one the cluster manager is asked
// on.
func firstHost(hosts string) string {
	h, _, _ := strings.Cut(hosts, ",")
	return strings.TrimSuffix(strings.TrimPrefix(wire.HostOf(h), "["), "]")
}

// firstAddr is the first host of a connection string's list with its
// port: the key-value TLS port (11207) when none is given.
func firstAddr(hosts string) string {
	h, _, _ := strings.Cut(hosts, ",")
	if _, _, err := net.SplitHostPort(h); err == nil {
		return h
	}
	return net.JoinHostPort(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]"), "11207")
}

// connectTimeout bounds the connection: the TLS handshake asked first,
// then gocb's wait for the bucket's key-value connections.
var connectTimeout = 10 * time.Second

// answersTLS fails when the server at addr accepts a connection and does
// not answer a TLS handshake within timeout (a plain port, or a server
// that hangs); one it cannot reach, or whose answer is a refusal, is
// left for gocb to say. Nothing is sent over it but the handshake, and
// its certificate is not checked here: gocb checks it.
func answersTLS(ctx context.Context, addr string, timeout time.Duration) error {
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var d net.Dialer
	c, err := d.DialContext(hctx, "tcp", addr)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("stopped while connecting: %w", ctx.Err())
		}
		return nil
	}
	defer c.Close()
	err = tls.Client(c, &tls.Config{InsecureSkipVerify: true, MinVersion: tls.VersionTLS12}).HandshakeContext(hctx) // #nosec G402: whether it answers, not whom
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("stopped while connecting: %w", ctx.Err())
	case err != nil && hctx.Err() != nil:
		return fmt.Errorf("TLS: no answer to the handshake within %s: a server that does not speak TLS at %s? (couchbase.url: couchbase:// for a plain port, or the address of its TLS port)", timeout, addr)
	}
	return nil
}

// clusterOptions maps the connection's security to gocb's: the CAs of
// couchbase.tls.ca (else gocb's own: the system's and Capella's), no
// verification with couchbase.tls.insecure, and the client certificate
// as the authenticator when one is given; else the user and password
// (by default the bucket name and an empty password, as YCSB's couchbase2
// binding authenticated: bucket name and bucket password), which gocb
// proves by SCRAM on a plain key-value connection (but sends as HTTP
// basic authentication, in clear over couchbase://, to the query service
// for SQL++ scans and where it bootstraps over http: bootstrap_on=http).
func clusterOptions(t wire.TLS, tc *tls.Config, user, password string) gocb.ClusterOptions {
	var opts gocb.ClusterOptions
	if tc != nil {
		opts.SecurityConfig = gocb.SecurityConfig{TLSRootCAs: tc.RootCAs, TLSSkipVerify: t.Insecure}
		if len(tc.Certificates) > 0 {
			opts.Authenticator = gocb.CertificateAuthenticator{ClientCertificate: &tc.Certificates[0]}
			return opts
		}
	}
	opts.Authenticator = gocb.PasswordAuthenticator{Username: user, Password: password}
	return opts
}

// keyspace quotes a SQL++ keyspace path.
func keyspace(bucket, scope, collection string) string {
	q := func(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
	return q(bucket) + "." + q(scope) + "." + q(collection)
}

// scanStatement is the study's SQL++ scan; start key and count are
// positional parameters, never spliced into the text.
func scanStatement(keyspace string) string {
	return "SELECT RAW meta().id FROM " + keyspace + " WHERE meta().id >= $1 ORDER BY meta().id LIMIT $2"
}

// docID is the id of a record's document: its table, a colon and its key,
// as YCSB's Couchbase bindings name it (formatId: "usertable:user6284781860667377211"),
// so that tables share a collection and keep their records apart; the
// key alone for no table.
func docID(table, key string) string {
	if table == "" {
		return key
	}
	return table + ":" + key
}

// keyOf is the key of a document of table, its id without the table.
func keyOf(table, id string) string {
	if k, ok := strings.CutPrefix(id, table+":"); ok && table != "" {
		return k
	}
	return id
}

// wrap maps gocb errors to outcomes; nil stays nil.
func wrap(op, key string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gocb.ErrDocumentNotFound):
		return fmt.Errorf("couchbase: %s %s: %w", op, key, db.ErrNotFound)
	case errors.Is(err, gocb.ErrTimeout), errors.Is(err, gocb.ErrUnambiguousTimeout), errors.Is(err, gocb.ErrAmbiguousTimeout):
		return fmt.Errorf("couchbase: %s %s: %w: %v", op, key, db.ErrTimeout, err)
	case errors.Is(err, gocb.ErrTemporaryFailure), errors.Is(err, gocb.ErrServiceNotAvailable), errors.Is(err, gocb.ErrOverload),
		db.ConnectionLost(err):
		return fmt.Errorf("couchbase: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	case errors.Is(err, gocb.ErrFeatureNotAvailable):
		return fmt.Errorf("couchbase: %s %s: %w: %v", op, key, db.ErrNotImplemented, err)
	}
	return fmt.Errorf("couchbase: %s %s: %w", op, key, err)
}

// addDoc adds a document's fields (see jsondoc.AddDocument).
func addDoc(dst *db.Record, doc json.RawMessage) error { return jsondoc.AddDocument(dst, doc, nil) }

// newDoc is the JSON document of a record: YCSB's values as strings, a
// document's fields with their own JSON (nested objects stay nested).
func newDoc(values *db.Record) any {
	if values.JSON {
		return json.RawMessage(jsondoc.AppendObject(nil, values))
	}
	doc := make(map[string]string, values.Len())
	for _, f := range values.Fields() {
		doc[f.Name] = string(f.Value)
	}
	return doc
}

// fieldValue is one field's value for a sub-document upsert.
func fieldValue(values *db.Record, v []byte) any {
	if values.JSON {
		return json.RawMessage(v)
	}
	return string(v)
}

// Read is a key-value get, projected to the fields asked for.
func (s *Store) Read(ctx context.Context, table, key string, fields []string, dst *db.Record) error {
	res, err := s.coll.Get(docID(table, key), &gocb.GetOptions{Project: fields, Context: ctx})
	if err != nil {
		return wrap("read", key, err)
	}
	var doc json.RawMessage
	if err := res.Content(&doc); err != nil {
		return fmt.Errorf("couchbase: read %s: %w", key, err)
	}
	if err := addDoc(dst, doc); err != nil {
		return fmt.Errorf("couchbase: read %s: %w", key, err)
	}
	return nil
}

// Update writes the fields with sub-document upserts (other fields kept);
// with couchbase.update=replace, replaces the document with the updated
// fields (YCSB's couchbase2 binding); with couchbase.update=upsert,
// upserts it (collection.upsert(id, content): the 2023 study's Table
// 4.1.2 and 4.3.2, and YCSB's couchbase3 binding).
func (s *Store) Update(ctx context.Context, table, key string, values *db.Record) error {
	id := docID(table, key)
	switch s.updateMode {
	case "replace":
		_, err := s.coll.Replace(id, newDoc(values), &gocb.ReplaceOptions{Expiry: s.expiry, DurabilityLevel: s.durability, Context: ctx})
		return wrap("update", key, err)
	case "upsert":
		_, err := s.coll.Upsert(id, newDoc(values), &gocb.UpsertOptions{Expiry: s.expiry, DurabilityLevel: s.durability, Context: ctx})
		return wrap("update", key, err)
	}
	specs := make([]gocb.MutateInSpec, 0, values.Len())
	for _, f := range values.Fields() {
		specs = append(specs, gocb.UpsertSpec(f.Name, fieldValue(values, f.Value), nil))
	}
	_, err := s.coll.MutateIn(id, specs, &gocb.MutateInOptions{Expiry: s.expiry, DurabilityLevel: s.durability, Context: ctx})
	return wrap("update", key, err)
}

// Insert creates the document (or overwrites it with couchbase.upsert).
func (s *Store) Insert(ctx context.Context, table, key string, values *db.Record) error {
	id := docID(table, key)
	var err error
	if s.upsert {
		_, err = s.coll.Upsert(id, newDoc(values), &gocb.UpsertOptions{Expiry: s.expiry, DurabilityLevel: s.durability, Context: ctx})
	} else {
		_, err = s.coll.Insert(id, newDoc(values), &gocb.InsertOptions{Expiry: s.expiry, DurabilityLevel: s.durability, Context: ctx})
	}
	return wrap("insert", key, err)
}

func (s *Store) Delete(ctx context.Context, table, key string) error {
	_, err := s.coll.Remove(docID(table, key), &gocb.RemoveOptions{DurabilityLevel: s.durability, Context: ctx})
	return wrap("delete", key, err)
}

// rows is what a SQL++ result offers (gocb.QueryResult), so the result
// handling can be tested without a query engine.
type rows interface {
	Next() bool
	Row(valuePtr interface{}) error
	Err() error
	Close() error
}

// readIDs collects at most max document ids from a SELECT RAW meta().id
// result.
func readIDs(r rows, max int) ([]string, error) {
	var ids []string
	for len(ids) < max && r.Next() {
		var id string
		if err := r.Row(&id); err != nil {
			r.Close()
			return nil, err
		}
		ids = append(ids, id)
	}
	if err := r.Close(); err != nil {
		return nil, err
	}
	return ids, r.Err()
}

// Scan finds the ids with SQL++ (or a range scan) and reads them with
// key-value gets, as the study did.
func (s *Store) Scan(ctx context.Context, table, start string, count int, fields []string, dst *db.RecordSet) error {
	if s.scanMode == "rangescan" {
		return s.rangeScan(ctx, table, start, count, fields, dst)
	}
	res, err := s.cluster.Query(scanStatement(s.keyspace), &gocb.QueryOptions{
		PositionalParameters: []interface{}{docID(table, start), count}, Adhoc: false, Context: ctx,
	})
	if err != nil {
		return wrap("scan", start, s.queryErr(ctx, err))
	}
	ids, err := readIDs(res, count)
	if err != nil {
		return wrap("scan", start, s.queryErr(ctx, err))
	}
	return s.getAll(ctx, table, ids, fields, dst)
}

// getAll reads the documents ids at once, as YCSB's couchbase2 binding
// reads a scan's (a flatMap of asynchronous gets): gocb's bulk get sends
// every get before it waits for an answer, where one get after another
// took a round trip each (up to 100 a scan). Each document is added in
// the order of ids, to the fields asked for (YCSB's couchbase2 filters
// the whole document it gets); one deleted since the query is left out.
func (s *Store) getAll(ctx context.Context, table string, ids []string, fields []string, dst *db.RecordSet) error {
	if len(ids) == 0 {
		return nil
	}
	gets := make([]gocb.GetOp, len(ids))
	ops := make([]gocb.BulkOp, len(ids))
	for i, id := range ids {
		gets[i].ID = id
		ops[i] = &gets[i]
	}
	if err := s.coll.Do(ops, &gocb.BulkOpOptions{Context: ctx}); err != nil {
		return wrap("scan", ids[0], err)
	}
	for i := range gets {
		g := &gets[i]
		if g.Err != nil {
			if errors.Is(g.Err, gocb.ErrDocumentNotFound) {
				continue
			}
			return wrap("scan", g.ID, g.Err)
		}
		var doc json.RawMessage
		if err := g.Result.Content(&doc); err != nil {
			return fmt.Errorf("couchbase: scan %s: %w", g.ID, err)
		}
		r := dst.Next()
		r.SetKey([]byte(keyOf(table, g.ID)))
		if err := jsondoc.AddDocument(r, doc, jsondoc.Only(fields)); err != nil {
			return fmt.Errorf("couchbase: scan %s: %w", g.ID, err)
		}
	}
	return nil
}

func (s *Store) rangeScan(ctx context.Context, table, start string, count int, fields []string, dst *db.RecordSet) error {
	res, err := s.coll.Scan(gocb.RangeScan{From: &gocb.ScanTerm{Term: docID(table, start)}}, &gocb.ScanOptions{Context: ctx})
	if err != nil {
		return wrap("scan", start, err)
	}
	defer res.Close()
	for dst.Len() < count {
		item := res.Next()
		if item == nil {
			break
		}
		r := dst.Next()
		r.SetKey([]byte(keyOf(table, item.ID())))
		var doc json.RawMessage
		if err := item.Content(&doc); err != nil {
			return fmt.Errorf("couchbase: scan %s: %w", start, err)
		}
		err := jsondoc.AddDocument(r, doc, jsondoc.Only(fields))
		if err != nil {
			return fmt.Errorf("couchbase: scan %s: %w", start, err)
		}
	}
	return wrap("scan", start, res.Err())
}

// ServerVersion asks the cluster manager what it is (see
// manager.version), over the connection's security.
func (s *Store) ServerVersion(ctx context.Context) (string, error) { return s.mgmt.version(ctx) }

// Close disconnects.
func (s *Store) Close() error { return s.cluster.Close(nil) }

// Driver names the client library.
func (s *Store) Driver() string { return db.DriverName("gocb", "github.com/couchbase/gocb/v2") }

// AdminLanguage: a setup statement is SQL++.
func (binding) AdminLanguage() string {
	return "SQL++ ({keyspace}: the binding's `bucket`.`scope`.`collection`)"
}

// Admin runs one SQL++ statement ({keyspace} replaced by the binding's
// keyspace: CREATE PRIMARY INDEX ON {keyspace} WITH {"num_replica": 1})
// and returns its first row, or its status.
func (s *Store) Admin(ctx context.Context, _, statement string) (string, error) {
	res, err := s.cluster.Query(strings.ReplaceAll(statement, "{keyspace}", s.keyspace), &gocb.QueryOptions{Context: ctx})
	if err != nil {
		return "", fmt.Errorf("couchbase: %w", s.queryErr(ctx, err))
	}
	answer := ""
	if res.Next() {
		var row any
		if err := res.Row(&row); err == nil {
			answer = fmt.Sprint(row)
		}
	}
	if err := res.Close(); err != nil {
		return "", fmt.Errorf("couchbase: %w", s.queryErr(ctx, err))
	}
	if answer == "" {
		if md, err := res.MetaData(); err == nil {
			answer = string(md.Status)
		}
	}
	if createsIndex(statement) {
		online, err := s.indexesOnline(ctx)
		if err != nil {
			return "", err
		}
		answer += "; " + online
	}
	return answer, nil
}

// createsIndex reports whether a statement creates or builds an index.
var createsIndex = regexp.MustCompile(`(?is)^\s*(create\s+(primary\s+)?index|build\s+index)\b`).MatchString

// indexWait bounds the wait for a collection's indexes to be online.
var indexWait = time.Hour

// indexesOnline waits until every index on the binding's collection is
// online, asking once a second, at most indexWait: a CREATE INDEX may
// return while the index (a deferred one, its replicas) still builds, and
// the workload after the step (E's scans, the query) would start on an
// index being built. It says how many were online after how long.
func (s *Store) indexesOnline(ctx context.Context) (string, error) {
	start := time.Now()
	for {
		ixs, err := s.coll.QueryIndexes().GetAllIndexes(&gocb.GetAllQueryIndexesOptions{Context: ctx})
		if err != nil {
			return "", fmt.Errorf("couchbase: waiting for the indexes of %s: %w", s.keyspace, err)
		}
		var building []string
		for _, ix := range ixs {
			if ix.State != "online" {
				building = append(building, ix.Name+" "+ix.State)
			}
		}
		waited := time.Since(start).Round(time.Second)
		if len(building) == 0 {
			return fmt.Sprintf("%d indexes of %s online after %s", len(ixs), s.keyspace, waited), nil
		}
		if waited >= indexWait {
			return "", fmt.Errorf("couchbase: indexes of %s not online within %s: %s", s.keyspace, indexWait, strings.Join(building, ", "))
		}
		select {
		case <-ctx.Done():
			return "", fmt.Errorf("couchbase: stopped waiting for the indexes of %s to be online: %w", s.keyspace, ctx.Err())
		case <-time.After(time.Second):
		}
	}
}
