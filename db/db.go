// Package db defines what a database binding implements, the outcomes it
// reports, and the registry bindings join by name.
//
// One DB value serves every client thread: it must be safe for concurrent
// use (database clients are connection pools). Keys, field names and values
// passed in are only valid during the call.
package db

import (
	"context"
	"runtime/debug"
	"strings"
	"unicode/utf8"

	"github.com/servbench/servbench/props"
)

// DB is the set of operations every binding implements, with YCSB's
// meaning. fields == nil means all fields. Errors carry their outcome (see
// Classify); a read of a missing key returns an error wrapping ErrNotFound.
type DB interface {
	// Read fills dst with the requested fields of key.
	Read(ctx context.Context, table, key string, fields []string, dst *Record) error
	// Scan fills dst with up to count records in key order starting at
	// startKey (inclusive), each with its Key set.
	Scan(ctx context.Context, table, startKey string, count int, fields []string, dst *RecordSet) error
	// Update writes the given fields of an existing record.
	Update(ctx context.Context, table, key string, values *Record) error
	// Insert writes a new record.
	Insert(ctx context.Context, table, key string, values *Record) error
	// Delete removes a record.
	Delete(ctx context.Context, table, key string) error
	// Close releases the connection or store.
	Close() error
}

// ThreadIniter is implemented by bindings that keep per-thread state: the
// runner calls InitThread once per client thread before its first operation
// and uses the returned DB for that thread.
type ThreadIniter interface {
	InitThread(ctx context.Context, thread, threads int) (DB, error)
}

// Preparer is implemented by bindings that create tables, indexes or
// buckets before a phase starts (once per run, not per thread).
type Preparer interface {
	Prepare(ctx context.Context, table string, load bool) error
}

// BatchInserter is implemented by bindings that insert several records in
// one call (MongoDB insertMany, CouchDB _bulk_docs). The load phase uses it
// when batchsize > 1. keys[i] and values[i] are only valid during the call.
type BatchInserter interface {
	BatchInsert(ctx context.Context, table string, keys []string, values []*Record) error
}

// A BatchError is the error of a BatchInsert that wrote some of its
// records and not the others: Failed are the indices, in the call's keys
// and ascending, of those it did not write, Err why (classified as any
// operation's error). A binding that knows which records a failed batch
// wrote returns it, so that they count as done and only the others as
// failed (or are sent again); any other error fails the whole batch.
type BatchError struct {
	Failed []int
	Err    error
}

func (e *BatchError) Error() string { return e.Err.Error() }
func (e *BatchError) Unwrap() error { return e.Err }

// InputError is a binding's refusal of its input that names no property
// (a file the environment or a default names, a setting in a driver's
// own file): bad input, as a property's error (props.Error) is; the
// command exits as it does for bad input.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Pipeliner is implemented by bindings that can send a thread's next
// reads and updates together on one connection and then read their
// answers, as redis-benchmark -P does: an explicit pipelining window.
// Window is its size (operations per exchange; below 2, off). The run
// phase then hands each thread's operations to Pipeline in windows; every
// operation of a window is measured from the window's start to the end of
// the exchange. ops[i].Key and the records are only valid during the call.
type Pipeliner interface {
	Window() int
	Pipeline(ctx context.Context, table string, ops []PipelineOp)
}

// PipelineOp is one operation of a pipelining window: a read (Values nil)
// into Result, or an update of Values. Pipeline sets Err, as Read and
// Update would return it.
type PipelineOp struct {
	Key    string
	Fields []string // read: the fields asked for, nil = all
	Values *Record  // update: the fields to write
	Result *Record  // read: filled with the record
	Err    error
}

// Describer is implemented by bindings that can tell the server's own
// product and version ("PouchDB Server 4.2.0"), recorded in results so a
// stand-in is never presented as the real product.
type Describer interface {
	ServerVersion(ctx context.Context) (string, error)
}

// DriverNamer is implemented by bindings that name their driver: the
// client library that speaks to the server, its version and how it is used
// ("rueidis v1.0.79, auto-pipelining"), recorded in results beside the
// server's version.
type DriverNamer interface {
	Driver() string
}

// Administrator is implemented by bindings that run the server's own
// administrative statements, as a plan's setup steps give them: SQL,
// CQL, SQL++, a MongoDB command as JSON, a Redis command, DynamoDB's
// UpdateTable as JSON. table is the data set's table (a statement
// names it as {table}, replaced before Admin sees it). Admin returns the
// server's answer in one short line (a command tag, a row, a reply).
type Administrator interface {
	Admin(ctx context.Context, table, statement string) (answer string, err error)
}

// AdminLanguager is implemented by the Binding of a DB that is an
// Administrator: the language of its statements, named in errors and
// logs ("SQL (PostgreSQL)").
type AdminLanguager interface {
	AdminLanguage() string
}

// AdminLanguage is the language of the statements the binding named name
// runs in setup steps, "" when it runs none.
func AdminLanguage(name string) string {
	b, _ := Lookup(name)
	if a, ok := b.(AdminLanguager); ok {
		return a.AdminLanguage()
	}
	return ""
}

// MaxAnswer bounds an Administrator's answer: longer ones are cut.
const MaxAnswer = 500

// Answer folds a server's answer onto one line of at most MaxAnswer
// bytes.
func Answer(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > MaxAnswer {
		cut := MaxAnswer
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + " …"
	}
	return s
}

// Binding creates DB instances from properties.
type Binding interface {
	// Open reads and checks the binding's properties, then connects. It
	// reads every property it uses through p before connecting, whatever
	// their values: with o.CheckOnly it stops there and returns (nil, nil),
	// and the keys p records as read are the binding's (a key nobody reads
	// is refused as unknown).
	Open(ctx context.Context, p *props.Props, o Options) (DB, error)
	// Summary is one line for --help.
	Summary() string
}

// A SecretDeclarer is a Binding that declares the secrets of its own
// properties that no general rule finds (a connection string of a form
// only its driver knows, Oracle's user/password@host). Register hands
// Secrets to every redaction (props.DeclareSecrets): each value it
// returns is hidden wherever it stands, in every result, report, plan
// copy, manifest and message, whatever binding the run uses.
type SecretDeclarer interface {
	// Secrets returns the secrets in the value of property key (nil: none
	// there). It is asked of every property of every run, its own or
	// not: it returns at once for a key not its own.
	Secrets(key, value string) []string
}

// Options are the facts of the run a binding is opened for.
type Options struct {
	// Threads is the number of client threads that will call the DB at
	// once (size connection pools for it).
	Threads int
	// Load is true for the load phase.
	Load bool
	// CheckOnly asks Open to read and check the properties and connect
	// to nothing.
	CheckOnly bool
	// Schema is what the workload writes: a binding that declares columns
	// takes them from here, not from the workload's properties.
	Schema Schema
	// AnswerBytes is the most one operation's answer can hold, its
	// records written as JSON (the longest scan's, escapes and names
	// counted); 0 when not known. A binding whose driver reads an answer
	// whole bounds it there, past its own framing: no answer of this run
	// passes it.
	AnswerBytes int64
	// AnswerElements is the most elements such an answer holds when
	// structured (a name and a value a field, a few a record); 0 when
	// not known.
	AnswerElements int64
	// Memory is the memory available to the client (the kernel's
	// MemAvailable; 0: not known), for a binding to refuse a
	// configuration whose answers in flight could not fit (threads ×
	// its window × an answer's bound).
	Memory int64
}

// Schema describes the records a workload writes.
type Schema struct {
	// Fields are the record's field names, in order: YCSB's field0 ..
	// fieldN-1 (fieldcount, fieldnameprefix), or a customer document's
	// top-level fields.
	Fields []string
	// Documents is true when each field's value is a JSON document
	// (document=customer) rather than a string.
	Documents bool
}

// Ephemeral is implemented by stores that may start empty each time they
// are opened (an embedded store in a temporary directory). When Ephemeral
// returns true, a run phase loads the data set first.
type Ephemeral interface {
	Ephemeral() bool
}

// Embedded is a binding whose store runs inside the client process (an
// embedded engine such as Pebble), not in a server: each process has a
// store of its own, so a phase cannot be spread over clients, and a plan
// keeps each data set's store in a directory of its own, given in the
// property DataDirProperty names.
type Embedded interface {
	DataDirProperty() string
}

// Located is a binding of a server's: Location names the properties
// that say where the server is and who the client is to it, the first
// taking a URL (a plan's rehearsal puts the URL it is given there, and
// leaves out the others the plan gives: its credentials and TLS files
// are the service's, not the rehearsal's endpoint's).
type Located interface {
	Location() []string
}

// OneTable is a binding, and its DB, that keeps every table's records in
// one place (YCSB's Redis and Couchbase bindings ignore the table): two
// data sets of a plan cannot be kept side by side in it, and the next
// one's load meets the keys of the one before. OneTable says where the
// records go, for the log. The conformance kit (dbtest) checks the claim
// both ways.
type OneTable interface {
	OneTable() string
}

// OneTableOf is where the binding named keeps every table's records, ""
// when it keeps each table apart.
func OneTableOf(name string) string {
	b, _ := Lookup(name)
	if o, ok := b.(OneTable); ok {
		return o.OneTable()
	}
	return ""
}

// EmbeddedDir is the property that holds the store's directory when the
// binding named name is Embedded ("pebble.dir"), "" for a server's.
func EmbeddedDir(name string) string {
	b, _ := Lookup(name)
	if e, ok := b.(Embedded); ok {
		return e.DataDirProperty()
	}
	return ""
}

// moduleVersion returns the version of a Go module built into this binary
// ("v1.0.79"), or "" when it is not known (a test binary, say).
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == path {
				return m.Version
			}
		}
	}
	return ""
}

// DriverName is "name version" of a driver's module, or name alone
// when the version is not known.
func DriverName(name, module string) string {
	return strings.TrimSpace(name + " " + moduleVersion(module))
}

// Sampler is implemented by bindings that read their server's own
// counters (Redis INFO, pg_stat_database, serverStatus ...): servbench
// calls Sample once before a run, every interval during it and once after,
// from a goroutine of its own, never on an operation's path. It must be
// read-only and cheap. A sample that could read part of what it asks for
// returns that part with the error.
type Sampler interface {
	Sample(ctx context.Context) (Sample, error)
}

// Sample is what a Sampler read.
type Sample struct {
	Stats []Stat
	// Missing names what the server does not answer (a stand-in serving
	// part of serverStatus), said once in the result.
	Missing []string
	// PerClient is true when the stats count this client's operations
	// only (DynamoDB's consumed capacity, summed from its answers): each
	// client of a spread phase samples, and merging sums them. Otherwise
	// the server's whole is read by the phase's first client only.
	PerClient bool
}

// Stat is one value a sampler read.
type Stat struct {
	// Name is the quantity, in the GLOSSARY's words where one applies:
	// "commands", "cpu_busy_pct", "disk_read_bytes".
	Name string
	// Node is the shard, node or device it is of, when there are several.
	Node string
	// Unit of Value ("ops", "B", "%"); a counter's rate is per second.
	Unit string
	// Counter is true for a count that only grows: results show its rate
	// per interval and its growth over the run. A busy percentage is
	// given as a counter of %·seconds, whose rate is the percentage.
	Counter bool
	Value   float64
}

// MaxConnections bounds a binding's pool size or connection count
// (redis.poolsize, postgres.poolsize, mongodb.poolsize,
// cassandra.maxconnections): a client reaches one server address from at
// most 65,535 ports. Drivers give memory to the size they are given
// (mongodb.poolsize=100000000000 ran out of memory).
const MaxConnections = 65535
