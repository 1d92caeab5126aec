// Package mongodb is the MongoDB binding (the official mongo-driver v2),
// issuing YCSB's queries: find({_id}) with a projection,
// updateOne({_id}, {$set}), insertOne, deleteOne, and scans as
// find({_id: {$gte: start}}).sort({_id: 1}).limit(n).
package mongodb

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/jsondoc"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/event"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readpref"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
)

// Name is the binding's name: engine.Spec{Binding: mongodb.Name} runs it (and
// the import that names it registers it).
const Name = "mongodb"

func init() { db.Register(Name, binding{}) }

type binding struct{}

func (binding) Summary() string {
	return "MongoDB wire protocol through mongo-driver v2 (mongodb.url, mongodb.database, mongodb.writeconcern, mongodb.readpreference, mongodb.tls.*)"
}

// Location is where the server is and who the client is to it
// (db.Located): a rehearsal's URL goes to the first.
func (binding) Location() []string {
	return []string{"mongodb.url", "mongodb.tls", "mongodb.tls."}
}

// Store is a connected client and its database.
type Store struct {
	traffic wire.Traffic // the bytes its connections sent and received
	client  *mongo.Client
	db      *mongo.Database
	copts   *options.CollectionOptionsBuilder
	create  bool
	// wrapArrays stores an array nested in an array as {"items": [...]}
	// (mongodb.nestedarrays=object), for servers that reject nested arrays
	// (FerretDB 1.x); MongoDB stores them as they are.
	wrapArrays bool

	mu    sync.Mutex
	colls map[string]*mongo.Collection
	last  atomic.Pointer[namedColl] // the previous call's table: no lock, no map lookup
}

type namedColl struct {
	name string
	c    *mongo.Collection
}

// Open reads the mongodb.* properties and the connection string, and
// connects as they say.
//
// Long: reads the binding's properties one after another, each checked
// where it is read, up to o.CheckOnly; then builds the driver's options
// from them and connects, in the order the driver needs.
func (binding) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	uri := p.String("mongodb.url", "mongodb://127.0.0.1:27017/ycsb")
	// The driver's errors quote what the string holds: its password, its
	// options' tokens and key files (open PATH: no such file) are hidden
	// by value.
	var red props.Redactor
	red.Hidden(uri)
	// The driver gives memory to the counts the string names: bounded as
	// mongodb.poolsize is, before it is given them.
	if err := wire.CountOptions(p, "mongodb.url", wire.QueryOptions(uri), db.MaxConnections, "maxPoolSize", "minPoolSize", "maxConnecting"); err != nil {
		return nil, err
	}
	cs, err := parseURI(uri, o.CheckOnly)
	if err != nil {
		return nil, p.Errorf("mongodb.url", "%s", red.Redact(err.Error()))
	}
	sec, err := readTLS(p, uri)
	if err != nil {
		return nil, err
	}
	var asked wire.CertAsked
	tc, err := sec.config(ctx, p, &asked)
	if err != nil {
		return nil, err
	}
	dbName := p.String("mongodb.database", cs.Database)
	if dbName == "" {
		dbName = "ycsb"
	}
	pool, err := p.Int64Range("mongodb.poolsize", min(int64(max(o.Threads, 1))+2, db.MaxConnections), 1, db.MaxConnections)
	if err != nil {
		return nil, err
	}
	// The URL's maxPoolSize is the pool's size (it was silently replaced
	// by mongodb.poolsize's default); 0, the driver's "no limit", is
	// refused, as is a mongodb.poolsize that says otherwise.
	for _, opt := range wire.QueryOptions(uri) {
		if !strings.EqualFold(opt.Name, "maxPoolSize") {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(opt.Value), 10, 64)
		switch _, given := p.Get("mongodb.poolsize"); {
		case err != nil:
			return nil, p.Errorf("mongodb.url", "maxPoolSize=%s is not a count", props.Cut(opt.Value, 40))
		case v == 0:
			return nil, p.Errorf("mongodb.url", "maxPoolSize=0 is no limit to the connections: give a count from 1 to %d", db.MaxConnections)
		case given && v != pool:
			return nil, p.Errorf("mongodb.url", "maxPoolSize=%d, but mongodb.poolsize=%d: give one", v, pool)
		}
		pool = v
	}
	s := &Store{colls: map[string]*mongo.Collection{}, copts: options.Collection()}
	if s.create, err = p.Bool("mongodb.createcollection", true); err != nil {
		return nil, err
	}
	nested, err := p.OneOf("mongodb.nestedarrays", "keep", "keep", "object")
	if err != nil {
		return nil, err
	}
	s.wrapArrays = nested == "object"
	wc, err := p.OneOf("mongodb.writeconcern", "", "", "unacknowledged", "acknowledged", "w1", "journaled", "majority")
	if err != nil {
		return nil, err
	}
	switch wc {
	case "unacknowledged":
		s.copts.SetWriteConcern(writeconcern.Unacknowledged())
	case "acknowledged", "w1":
		s.copts.SetWriteConcern(writeconcern.W1())
	case "journaled":
		s.copts.SetWriteConcern(writeconcern.Journaled())
	case "majority":
		s.copts.SetWriteConcern(writeconcern.Majority())
	}
	rp, err := p.OneOf("mongodb.readpreference", "", "", "primary", "primarypreferred", "secondary", "secondarypreferred", "nearest")
	if err != nil {
		return nil, err
	}
	switch rp {
	case "primary":
		s.copts.SetReadPreference(readpref.Primary())
	case "primarypreferred":
		s.copts.SetReadPreference(readpref.PrimaryPreferred())
	case "secondary":
		s.copts.SetReadPreference(readpref.Secondary())
	case "secondarypreferred":
		s.copts.SetReadPreference(readpref.SecondaryPreferred())
	case "nearest":
		s.copts.SetReadPreference(readpref.Nearest())
	}
	// A server that accepts but never answers fails the connection after
	// mongodb.connecttimeout, not after the driver's 30 s twice over.
	ms, err := p.Int64Min("mongodb.connecttimeout", 10000, 1)
	if err != nil {
		return nil, err
	}
	if o.CheckOnly {
		return nil, nil
	}
	connect := time.Duration(ms) * time.Millisecond
	// The driver makes a server, a monitor and a pool for each host a hello
	// lists: a plain connection's replies listing more than
	// wire.MaxMongoHosts fail as they arrive, before it reads them; over
	// TLS, the topology is counted once the driver has taken the list.
	// Either fails the connect.
	hosts := &hostsRefused{said: make(chan struct{})}
	var dialer options.ContextDialer = s.traffic.ContextDialer(&net.Dialer{Timeout: connect, KeepAlive: 5 * time.Minute}) // TLS runs over it
	if !sec.On {
		// The driver gives memory to what a message declares, up to the
		// bound the server states (4 GB at most): a plain connection's
		// messages are bounded as they arrive. Over TLS the driver's own
		// handshake hides them from the dialer.
		dialer = boundDialer{dialer, hosts.tell}
	}
	co := options.Client().ApplyURI(uri).SetMaxPoolSize(uint64(pool)).SetRetryWrites(false).SetRetryReads(false).
		SetConnectTimeout(connect).SetServerSelectionTimeout(connect).SetDialer(dialer).
		SetServerMonitor(&event.ServerMonitor{TopologyDescriptionChanged: hosts.topology})
	if tc != nil {
		co.SetTLSConfig(tc)
	}
	s.client, err = mongo.Connect(co)
	if err != nil {
		if sec.files != "" {
			return nil, filesError(p, uri, err)
		}
		return nil, fmt.Errorf("mongodb: connect %s: %s", strings.Join(cs.Hosts, ","), red.Redact(err.Error()))
	}
	pctx, cancel := context.WithTimeout(ctx, connect)
	defer cancel()
	go func() {
		select {
		case <-hosts.said:
			cancel()
		case <-pctx.Done():
		}
	}()
	err = s.client.Ping(pctx, nil)
	if hosts.hit() {
		s.client.Disconnect(context.Background())
		return nil, p.Errorf("mongodb.url", "connect %s: the server's hello lists more than %s hosts (hosts, passives, arbiters; a replica set has 50 members at most): not connected",
			strings.Join(cs.Hosts, ","), format.Thousands(wire.MaxMongoHosts))
	}
	if err != nil {
		s.client.Disconnect(context.Background())
		if e, ok := sec.explain(err, &asked); ok { // the servers' TLS failed: said in one line
			return nil, fmt.Errorf("mongodb: connect %s: %w", strings.Join(cs.Hosts, ","), e)
		}
		if ctx.Err() == nil && (pctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || mongo.IsTimeout(err)) {
			return nil, fmt.Errorf("mongodb: connect %s: no answer within %s (mongodb.connecttimeout)", strings.Join(cs.Hosts, ","), connect)
		}
		return nil, fmt.Errorf("mongodb: connect %s: %s", strings.Join(cs.Hosts, ","), red.Redact(err.Error()))
	}
	s.db = s.client.Database(dbName)
	return s, nil
}

// parseURI parses a connection string. A mongodb+srv:// one names a DNS
// SRV record the driver looks up: a check (offline) only parses its form.
func parseURI(uri string, offline bool) (*connstring.ConnString, error) {
	if rest, srv := strings.CutPrefix(uri, "mongodb+srv://"); srv && offline {
		u, err := url.Parse(uri)
		if err != nil || u.Host == "" || rest == "" {
			return nil, fmt.Errorf("want mongodb+srv://host[/database][?options], a user and password before the host as in any URL")
		}
		return &connstring.ConnString{Original: uri, Hosts: []string{u.Host}, Database: strings.TrimPrefix(u.Path, "/")}, nil
	}
	return connstring.ParseAndValidate(uri)
}

// coll returns the collection for table; the previous call's collection is
// reused without a map lookup.
func (s *Store) coll(table string) *mongo.Collection {
	if l := s.last.Load(); l != nil && l.name == table {
		return l.c
	}
	s.mu.Lock()
	c, ok := s.colls[table]
	if !ok {
		c = s.db.Collection(table, s.copts)
		s.colls[table] = c
	}
	s.mu.Unlock()
	s.last.Store(&namedColl{table, c})
	return c
}

// Prepare creates the collection when missing (mongodb.createcollection).
func (s *Store) Prepare(ctx context.Context, table string, _ bool) error {
	if !s.create {
		return nil
	}
	names, err := s.db.ListCollectionNames(ctx, bson.D{{Key: "name", Value: table}})
	if err != nil {
		return wrap("prepare", table, err)
	}
	if len(names) == 0 {
		if err := s.db.CreateCollection(ctx, table); err != nil && !strings.Contains(err.Error(), "already exists") {
			return wrap("create collection", table, err)
		}
	}
	return nil
}

func wrap(op, key string, err error) error {
	err = shallow(err)
	var me *wire.MessageError
	switch {
	case errors.As(err, &me): // an answer over its bound: the server's fault, not the network's
		return fmt.Errorf("mongodb: %s %s: %w", op, key, err)
	case errors.Is(err, mongo.ErrNoDocuments):
		return fmt.Errorf("mongodb: %s %s: %w", op, key, db.ErrNotFound)
	case mongo.IsTimeout(err):
		return fmt.Errorf("mongodb: %s %s: %w: %v", op, key, db.ErrTimeout, err)
	case mongo.IsNetworkError(err), errors.Is(err, mongo.ErrClientDisconnected), db.ConnectionLost(err):
		return fmt.Errorf("mongodb: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	}
	// The driver clears a server's connection pool when one connection
	// fails; the operations waiting on it fail with an error it marks
	// retryable.
	var pool interface{ Retryable() bool }
	if errors.As(err, &pool) && pool.Retryable() {
		return fmt.Errorf("mongodb: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	}
	var se mongo.ServerError
	if errors.As(err, &se) && (se.HasErrorLabel("RetryableWriteError") || se.HasErrorCode(91) || se.HasErrorCode(189) || se.HasErrorCode(11600)) {
		return fmt.Errorf("mongodb: %s %s: %w: %v", op, key, db.ErrServiceUnavailable, err)
	}
	return fmt.Errorf("mongodb: %s %s: %w", op, key, err)
}

func projection(fields []string) bson.D {
	if fields == nil {
		return nil
	}
	p := make(bson.D, 0, len(fields))
	for _, f := range fields {
		p = append(p, bson.E{Key: f, Value: 1})
	}
	return p
}

// addDoc adds every string field of a document except _id. A document
// with other types (a customer document) is added as JSON texts instead
// (see jsondoc.AddDocument).
func addDoc(dst *db.Record, raw bson.Raw) error {
	elems, err := raw.Elements()
	if err != nil {
		return err
	}
	for _, e := range elems {
		if t := e.Value().Type; e.Key() != "_id" && t != bson.TypeString && t != bson.TypeBinary {
			if err := checkDepth(raw); err != nil { // MarshalExtJSON recurses a level at a time
				return fmt.Errorf("mongodb: the server's document: %w", err)
			}
			text, err := bson.MarshalExtJSON(raw, false, false)
			if err != nil {
				return err
			}
			return jsondoc.AddDocument(dst, text, notID)
		}
	}
	for _, e := range elems {
		k := e.Key()
		if k == "_id" {
			continue
		}
		v := e.Value()
		if str, ok := v.StringValueOK(); ok {
			dst.Add(k, []byte(str))
		} else if _, b, ok := v.BinaryOK(); ok { // YCSB's Java binding stores binary values
			dst.Add(k, b)
		}
	}
	return nil
}

// wrapNested replaces every array that is an element of an array by
// {"items": array}, in place.
func wrapNested(v any) {
	switch x := v.(type) {
	case bson.D:
		for i := range x {
			wrapNested(x[i].Value)
		}
	case bson.A:
		for i := range x {
			if inner, ok := x[i].(bson.A); ok {
				wrapNested(inner)
				x[i] = bson.D{{Key: "items", Value: inner}}
				continue
			}
			wrapNested(x[i])
		}
	}
}

func notID(name []byte) bool { return string(name) != "_id" }

// doc builds the BSON document of a record: string fields for YCSB's
// values; a document's JSON texts become nested BSON values (objects,
// arrays, numbers, booleans, null).
func (s *Store) doc(values *db.Record, id string) (bson.D, error) {
	if values.JSON {
		var d bson.D
		if err := bson.UnmarshalExtJSON(jsondoc.AppendObject(nil, values), false, &d); err != nil {
			return nil, fmt.Errorf("document: %w", err)
		}
		if s.wrapArrays {
			wrapNested(d)
		}
		if id != "" {
			d = append(bson.D{{Key: "_id", Value: id}}, d...)
		}
		return d, nil
	}
	d := make(bson.D, 0, values.Len()+1)
	if id != "" {
		d = append(d, bson.E{Key: "_id", Value: id})
	}
	for _, f := range values.Fields() {
		d = append(d, bson.E{Key: f.Name, Value: string(f.Value)})
	}
	return d, nil
}

func (s *Store) Read(ctx context.Context, table, key string, fields []string, dst *db.Record) error {
	opts := options.FindOne()
	if fields != nil {
		opts.SetProjection(projection(fields))
	}
	raw, err := s.coll(table).FindOne(ctx, bson.D{{Key: "_id", Value: key}}, opts).Raw()
	if err != nil {
		return wrap("read", key, err)
	}
	return addDoc(dst, raw)
}

func (s *Store) Scan(ctx context.Context, table, start string, count int, fields []string, dst *db.RecordSet) error {
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(int64(count))
	if fields != nil {
		opts.SetProjection(projection(fields))
	}
	cur, err := s.coll(table).Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: start}}}}, opts)
	if err != nil {
		return wrap("scan", start, err)
	}
	defer cur.Close(ctx)
	b := batches{cur: cur}
	for b.next(ctx) {
		r := dst.Next()
		if id, ok := cur.Current.Lookup("_id").StringValueOK(); ok {
			r.SetKey([]byte(id))
		}
		if err := addDoc(r, cur.Current); err != nil {
			return fmt.Errorf("mongodb: scan %s: %w", start, err)
		}
	}
	if err := b.Err(); err != nil {
		return wrap("scan", start, err)
	}
	return nil
}

func (s *Store) Update(ctx context.Context, table, key string, values *db.Record) error {
	set, err := s.doc(values, "")
	if err != nil {
		return fmt.Errorf("mongodb: update %s: %w", key, err)
	}
	res, err := s.coll(table).UpdateOne(ctx, bson.D{{Key: "_id", Value: key}}, bson.D{{Key: "$set", Value: set}})
	if err != nil {
		return wrap("update", key, err)
	}
	if res.Acknowledged && res.MatchedCount == 0 {
		return fmt.Errorf("mongodb: update %s: %w", key, db.ErrNotFound)
	}
	return nil
}

func (s *Store) Insert(ctx context.Context, table, key string, values *db.Record) error {
	d, err := s.doc(values, key)
	if err != nil {
		return fmt.Errorf("mongodb: insert %s: %w", key, err)
	}
	if _, err := s.coll(table).InsertOne(ctx, d); err != nil {
		return wrap("insert", key, err)
	}
	return nil
}

// BatchInsert inserts the records with one unordered insertMany (as
// YCSB's binding does with batchsize).
func (s *Store) BatchInsert(ctx context.Context, table string, keys []string, values []*db.Record) error {
	docs := make([]any, len(keys))
	for i, k := range keys {
		d, err := s.doc(values[i], k)
		if err != nil {
			return fmt.Errorf("mongodb: insert %s: %w", k, err)
		}
		docs[i] = d
	}
	if _, err := s.coll(table).InsertMany(ctx, docs, options.InsertMany().SetOrdered(false)); err != nil {
		return wrap("insert batch from", keys[0], err)
	}
	return nil
}

func (s *Store) Delete(ctx context.Context, table, key string) error {
	res, err := s.coll(table).DeleteOne(ctx, bson.D{{Key: "_id", Value: key}})
	if err != nil {
		return wrap("delete", key, err)
	}
	if res.Acknowledged && res.DeletedCount == 0 {
		return fmt.Errorf("mongodb: delete %s: %w", key, db.ErrNotFound)
	}
	return nil
}

// ServerVersion reports the server's own version from buildInfo: a
// FerretDB server says so ("FerretDB v1.24.0"), whatever MongoDB version
// it emulates.
func (s *Store) ServerVersion(ctx context.Context) (string, error) {
	var info bson.M
	if err := decode(s.db.RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}), &info); err != nil {
		return "", err
	}
	if v, ok := info["ferretdbVersion"].(string); ok {
		return "FerretDB " + v, nil
	}
	if f, ok := info["ferretdb"].(bson.M); ok {
		if v, ok := f["version"].(string); ok {
			return "FerretDB " + v, nil
		}
	}
	return fmt.Sprintf("MongoDB %v", info["version"]), nil
}

// Close disconnects.
func (s *Store) Close() error { return s.client.Disconnect(context.Background()) }

// Driver names the client library.
func (s *Store) Driver() string {
	return db.DriverName("MongoDB Go driver", "go.mongodb.org/mongo-driver/v2")
}

// AdminLanguage: a setup statement is a MongoDB command as JSON.
func (binding) AdminLanguage() string { return "a MongoDB command as JSON" }

// Admin runs one database command written as MongoDB extended JSON,
// its first key the command ({"shardCollection": "ycsb.usertable", "key":
// {"_id": "hashed"}}), on the binding's database, or on the one its "$db"
// names ("$db": "admin" for sharding), and returns the answer as JSON.
func (s *Store) Admin(ctx context.Context, _, statement string) (string, error) {
	var cmd bson.D
	if err := bson.UnmarshalExtJSON([]byte(statement), false, &cmd); err != nil {
		return "", fmt.Errorf("mongodb: a command is a JSON document: %w", err)
	}
	target := s.db
	for i := 0; i < len(cmd); i++ {
		if cmd[i].Key != "$db" {
			continue
		}
		name, ok := cmd[i].Value.(string)
		if !ok || name == "" {
			return "", errors.New(`mongodb: "$db" names a database`)
		}
		target = s.client.Database(name)
		cmd = append(cmd[:i], cmd[i+1:]...)
		i--
	}
	if len(cmd) == 0 {
		return "", errors.New("mongodb: an empty command")
	}
	raw, err := target.RunCommand(ctx, cmd).Raw()
	if err == nil {
		err = checkDepth(raw) // written as JSON below, a level at a time
	}
	var ce mongo.CommandError
	if errors.As(err, &ce) && (ce.Code == 59 || ce.Name == "CommandNotFound") {
		// A server without the command (shardCollection on FerretDB or a
		// mongod that is no router): NOT_IMPLEMENTED, which a rehearsal
		// tells from a statement that failed.
		return "", fmt.Errorf("mongodb: %s: %w: the server has no such command (%v)", cmd[0].Key, db.ErrNotImplemented, err)
	}
	if err != nil {
		// FerretDB, a stand-in, lacks much of what a MongoDB cluster runs
		// (hashed indexes, sharding): NOT_IMPLEMENTED there, as SQL++ on
		// CouchbaseMock, so that a rehearsal states the step as not
		// rehearsable.
		if v, verr := s.ServerVersion(ctx); verr == nil && strings.HasPrefix(v, "FerretDB") {
			return "", fmt.Errorf("mongodb: %s: %w: %s, a stand-in for MongoDB, cannot run it (%v)", cmd[0].Key, db.ErrNotImplemented, v, err)
		}
		return "", fmt.Errorf("mongodb: %s: %w", cmd[0].Key, err)
	}
	out, err := bson.MarshalExtJSON(raw, false, false)
	if err != nil {
		return raw.String(), nil
	}
	return string(out), nil
}

// Traffic is the bytes this client's connections sent and received.
func (s *Store) Traffic() (sent, received int64) { return s.traffic.Bytes() }

// Peers implements db.Peered.
func (s *Store) Peers() (local, remote int) { return s.traffic.Peers() }

// boundDialer dials as its dialer does, each connection's messages
// bounded (wire.BoundMongo).
type boundDialer struct {
	options.ContextDialer
	refused func(error) // told why a connection failed its bound
}

func (d boundDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := d.ContextDialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return wire.BoundMongoTold(c, d.refused), nil
}

// hostsRefused is said once a connection's reply, or the topology, held
// more than wire.MaxMongoHosts hosts.
type hostsRefused struct {
	once sync.Once
	said chan struct{}
}

// tell says it when err is a connection's refusal of a reply's hosts.
func (h *hostsRefused) tell(err error) {
	var he *wire.HostsError
	if errors.As(err, &he) {
		h.once.Do(func() { close(h.said) })
	}
}

// topology says it when the topology holds more servers than the bound
// (the driver calls it with the topology locked: it only says).
func (h *hostsRefused) topology(e *event.TopologyDescriptionChangedEvent) {
	if len(e.NewDescription.Servers) > wire.MaxMongoHosts {
		h.once.Do(func() { close(h.said) })
	}
}

// hit says whether it was said.
func (h *hostsRefused) hit() bool {
	select {
	case <-h.said:
		return true
	default:
		return false
	}
}
