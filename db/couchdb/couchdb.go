// Package couchdb is the CouchDB binding (kivik v4): one database per
// table, one document per record. Reads are GET /db/key, updates read the
// current revision and PUT it back (retrying on a conflict), deletes name
// the revision, and scans are _all_docs?startkey&limit&include_docs.
package couchdb

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	kivik "github.com/go-kivik/kivik/v4"
	"github.com/go-kivik/kivik/v4/couchdb"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/props"
)

// Name is the binding's name: engine.Spec{Binding: couchdb.Name} runs it (and
// the import that names it registers it).
const Name = "couchdb"

func init() { db.Register(Name, binding{}) }

type binding struct{}

func (binding) Summary() string {
	return "CouchDB HTTP API through kivik v4 (couchdb.url, couchdb.user, couchdb.password, couchdb.tls.*)"
}

// Location is where the server is and who the client is to it
// (db.Located): a rehearsal's URL goes to the first.
func (binding) Location() []string {
	return []string{"couchdb.url", "couchdb.user", "couchdb.password", "couchdb.tls", "couchdb.tls."}
}

// Store is a client of one server.
type Store struct {
	traffic wire.Traffic // the bytes its connections sent and received
	c       *kivik.Client
	retries int
	create  bool
	where   string
	// slow has no request timeout: building an index over a loaded
	// database can take minutes (see Index).
	slow *kivik.Client
	// base and hc reach the node's statistics (see Sample), over the
	// same transport: the same TLS.
	base *url.URL
	hc   *http.Client
	tls  wire.TLS
	// asked is what a server asking for a client certificate was given.
	asked wire.CertAsked
}

func (binding) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	raw := p.String("couchdb.url", "http://127.0.0.1:5984/")
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, p.Errorf("couchdb.url", "want http(s)://host:port/")
	}
	if u.User != nil && strings.Contains(u.Path+u.RawQuery+u.Fragment, "@") {
		// user:pa@ss/word@host: Go takes "ss" for the host, and the
		// rest of the password would be looked up and printed.
		return nil, p.Errorf("couchdb.url", "an @ after the host: a password holding / ? or # is written percent-encoded (%%2F %%3F %%23), or given as couchdb.password")
	}
	if user, password := p.String("couchdb.user", ""), p.String("couchdb.password", ""); user != "" {
		u.User = url.UserPassword(user, password)
	}
	s := &Store{where: u.Host}
	// https:// is TLS; the TLS properties (couchdb.tls.ca, ...) refine it,
	// and refuse an http:// URL.
	if s.tls, err = wire.ReadTLS(p, Name); err != nil {
		return nil, err
	}
	if s.tls, err = s.tls.Agree(p, "couchdb.url", u.Scheme == "https"); err != nil {
		return nil, err
	}
	r, err := p.Int64Min("couchdb.retries", 5, 0)
	if err != nil {
		return nil, err
	}
	s.retries = int(r)
	if s.create, err = p.Bool("couchdb.createdb", true); err != nil {
		return nil, err
	}
	ms, err := p.Int64Min("couchdb.timeout", 10000, 1)
	if err != nil {
		return nil, err
	}
	if o.CheckOnly {
		return nil, nil
	}
	// The files are read where the phase runs (a spread phase's clients).
	tc, err := s.tls.Config(ctx, p)
	if err != nil {
		return nil, err
	}
	// One kept-alive connection per client thread (Go's default keeps 2).
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = max(o.Threads, 1) + 2
	tr.DialContext = s.traffic.Dialer(tr.DialContext) // TLS runs over it: the bytes on the wire
	tr.TLSClientConfig = s.asked.Watch(tc)
	// kivik reads an answer whole (a document, a page of a scan): bounded
	// where no answer of the run reaches, an endless one fails its request.
	bt := wire.BoundTransport{RoundTripper: tr, Max: wire.MaxHTTPAnswer + o.AnswerBytes, Budget: wire.NewAnswerBudget(o.Memory)}
	hc := &http.Client{Transport: bt, Timeout: time.Duration(ms) * time.Millisecond}
	s.base, s.hc = u, hc
	if s.slow, err = kivik.New("couch", u.String(), couchdb.OptionHTTPClient(&http.Client{Transport: bt})); err != nil {
		return nil, fmt.Errorf("couchdb: %s: %s", s.where, props.RedactURL(err.Error()))
	}
	if s.c, err = kivik.New("couch", u.String(), couchdb.OptionHTTPClient(hc)); err != nil {
		return nil, fmt.Errorf("couchdb: %s: %s", s.where, props.RedactURL(err.Error()))
	}
	if _, err := s.c.Version(ctx); err != nil {
		s.Close()
		var ne net.Error
		if ctx.Err() == nil && (errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded)) {
			return nil, fmt.Errorf("couchdb: connect %s: no answer within %s (couchdb.timeout)", s.where, hc.Timeout)
		}
		return nil, fmt.Errorf("couchdb: connect %s: %s", s.where, s.explain(err))
	}
	return s, nil
}

// explain is an error's text, a failed TLS handshake said in one line
// (see wire.TLS.Explain), credentials redacted.
func (s *Store) explain(err error) string {
	return props.RedactURL(s.asked.Explain(s.tls, err).Error())
}

var dbName = regexp.MustCompile(`^[a-z][a-z0-9_$()+/-]*$`)

// Prepare creates the table's database when missing (couchdb.createdb).
func (s *Store) Prepare(ctx context.Context, table string, _ bool) error {
	if !dbName.MatchString(table) {
		return fmt.Errorf("couchdb: table %q is not a valid database name (lower case letter first)", table)
	}
	if !s.create {
		return nil
	}
	ok, err := s.c.DBExists(ctx, table)
	if err != nil {
		return wrap("prepare", table, err)
	}
	if !ok {
		if err := s.c.CreateDB(ctx, table); err != nil && kivik.HTTPStatus(err) != http.StatusPreconditionFailed {
			return wrap("create database", table, err)
		}
	}
	return nil
}

func wrap(op, key string, err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("couchdb: %s %s: %w: %v", op, key, db.ErrTimeout, err)
	}
	switch kivik.HTTPStatus(err) {
	case http.StatusNotFound:
		return fmt.Errorf("couchdb: %s %s: %w", op, key, db.ErrNotFound)
	case http.StatusTooManyRequests:
		return fmt.Errorf("couchdb: %s %s: %w: %v", op, key, db.ErrThrottled, err)
	case http.StatusServiceUnavailable, http.StatusBadGateway:
		return fmt.Errorf("couchdb: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	case http.StatusForbidden, http.StatusUnauthorized:
		return fmt.Errorf("couchdb: %s %s: %w: %v", op, key, db.ErrForbidden, err)
	}
	if db.ConnectionLost(err) {
		return fmt.Errorf("couchdb: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	}
	return fmt.Errorf("couchdb: %s %s: %w", op, key, err)
}

// addDoc adds the fields of a document (not _id, _rev): see
// jsondoc.AddDocument.
func addDoc(dst *db.Record, doc json.RawMessage, fields []string) error {
	if fields == nil {
		return jsondoc.AddDocument(dst, doc, func(name []byte) bool { return len(name) == 0 || name[0] != '_' })
	}
	return jsondoc.AddDocument(dst, doc, jsondoc.Only(fields))
}

func (s *Store) Read(ctx context.Context, table, key string, fields []string, dst *db.Record) error {
	var doc json.RawMessage
	if err := s.c.DB(table).Get(ctx, key).ScanDoc(&doc); err != nil {
		return wrap("read", key, err)
	}
	if err := addDoc(dst, doc, fields); err != nil {
		return fmt.Errorf("couchdb: read %s: %w", key, err)
	}
	return nil
}

func (s *Store) Scan(ctx context.Context, table, start string, count int, fields []string, dst *db.RecordSet) error {
	rows := s.c.DB(table).AllDocs(ctx, kivik.Params(map[string]any{"startkey": start, "limit": count, "include_docs": true}))
	defer rows.Close()
	for rows.Next() {
		id, err := rows.ID()
		if err != nil {
			return wrap("scan", start, err)
		}
		var doc json.RawMessage
		if err := rows.ScanDoc(&doc); err != nil {
			return wrap("scan", start, err)
		}
		r := dst.Next()
		r.SetKey([]byte(id))
		if err := addDoc(r, doc, fields); err != nil {
			return fmt.Errorf("couchdb: scan %s: %w", start, err)
		}
	}
	if err := rows.Err(); err != nil {
		return wrap("scan", start, err)
	}
	return nil
}

func newDoc(values *db.Record) map[string]any {
	doc := make(map[string]any, values.Len()+1)
	setFields(doc, values)
	return doc
}

// setFields sets the fields of values in doc: YCSB's values as strings, a
// document's JSON texts as they are (nested objects stay nested).
func setFields(doc map[string]any, values *db.Record) {
	for _, f := range values.Fields() {
		if values.JSON {
			doc[f.Name] = json.RawMessage(append([]byte(nil), f.Value...))
		} else {
			doc[f.Name] = string(f.Value)
		}
	}
}

// BatchInsert writes the records with one _bulk_docs request; any
// document the server refuses fails the batch.
func (s *Store) BatchInsert(ctx context.Context, table string, keys []string, values []*db.Record) error {
	docs := make([]any, len(keys))
	for i, k := range keys {
		d := newDoc(values[i])
		d["_id"] = k
		docs[i] = d
	}
	res, err := s.c.DB(table).BulkDocs(ctx, docs)
	if err != nil {
		return wrap("insert batch from", keys[0], err)
	}
	for _, r := range res {
		if r.Error != nil {
			return wrap("insert batch", r.ID, r.Error)
		}
	}
	return nil
}

// Update reads the document's current revision, sets the fields and
// writes it back, retrying (couchdb.retries) when another writer got there
// first (409 Conflict).
func (s *Store) Update(ctx context.Context, table, key string, values *db.Record) error {
	d := s.c.DB(table)
	for attempt := 0; ; attempt++ {
		var doc map[string]any
		if err := d.Get(ctx, key).ScanDoc(&doc); err != nil {
			return wrap("update", key, err)
		}
		setFields(doc, values)
		_, err := d.Put(ctx, key, doc)
		if err == nil {
			return nil
		}
		if kivik.HTTPStatus(err) != http.StatusConflict || attempt >= s.retries {
			return wrap("update", key, err)
		}
	}
}

func (s *Store) Insert(ctx context.Context, table, key string, values *db.Record) error {
	if _, err := s.c.DB(table).Put(ctx, key, newDoc(values)); err != nil {
		return wrap("insert", key, err)
	}
	return nil
}

// Delete removes the current revision, retrying on a conflict.
func (s *Store) Delete(ctx context.Context, table, key string) error {
	d := s.c.DB(table)
	for attempt := 0; ; attempt++ {
		// The revision is read from the document's _rev: kivik's GetRev and
		// Rev trust the ETag header, which pouchdb-server fills with a
		// content hash.
		var cur struct {
			Rev string `json:"_rev"`
		}
		if err := d.Get(ctx, key).ScanDoc(&cur); err != nil {
			return wrap("delete", key, err)
		}
		_, err := d.Delete(ctx, key, cur.Rev)
		if err == nil {
			return nil
		}
		if kivik.HTTPStatus(err) != http.StatusConflict || attempt >= s.retries {
			return wrap("delete", key, err)
		}
	}
}

// ServerVersion names the server as it names itself: pouchdb-server
// answers GET / with "express-pouchdb", CouchDB with "couchdb".
func (s *Store) ServerVersion(ctx context.Context) (string, error) {
	v, err := s.c.Version(ctx)
	if err != nil {
		return "", err
	}
	if strings.Contains(string(v.RawResponse), "express-pouchdb") {
		return "PouchDB Server " + v.Version, nil
	}
	return "CouchDB " + v.Version, nil
}

// Close releases the clients.
func (s *Store) Close() error {
	s.slow.Close()
	return s.c.Close()
}

// Driver names the client library.
func (s *Store) Driver() string { return db.DriverName("kivik", "github.com/go-kivik/kivik/v4") }

// Traffic is the bytes this client's connections sent and received.
func (s *Store) Traffic() (sent, received int64) { return s.traffic.Bytes() }

// Peers implements db.Peered.
func (s *Store) Peers() (local, remote int) { return s.traffic.Peers() }
