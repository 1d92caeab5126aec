// Package history keeps every result a user ran, in a local SQLite
// database (modernc.org/sqlite: pure Go, no cgo) that any SQLite tool reads:
// one row a run, load or plan cell, with the figures a trend or a gate
// compares (throughput, each operation's percentiles, failures by cause).
//
// Invariants: a result's own files stay the truth; the history is an index
// of them, written after them, and a history that cannot be written (locked
// past its wait, corrupt, on a full disk) never loses a result. A result
// is recorded once (its id, or its checksum when it has none); several
// processes record into one history at once (SQLite's locks, a busy wait
// of BusyWait, WAL). Sizes a history returns are bounded (MaxList).
package history

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/servbench/servbench/result"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// Off is the value of the property history.file that records nothing
// (engine.HistoryProperty); the command line records into DefaultPath
// when it is not given.
const Off = "off"

// BusyWait is how long a writer waits for another process's lock.
const BusyWait = 10 * time.Second

// Deadline bounds a record in the history (a hostile database's endless
// trigger): the result files are written before, and a history that takes
// longer is said and left. A variable for the tests.
var Deadline = 30 * time.Second

// timeText is the fixed-width form times are kept in, so that they sort
// as text in time order (RFC 3339 with nanoseconds, always nine digits).
const timeText = "2006-01-02T15:04:05.000000000Z"

// MaxList bounds the entries one List returns.
const MaxList = 100000

// PathOr is path, or DefaultPath when it is "".
func PathOr(path string, getenv func(string) string) (string, error) {
	if path != "" {
		return path, nil
	}
	return DefaultPath(getenv)
}

// DefaultPath is where the history is kept unless history.file says
// otherwise: $XDG_DATA_HOME/servbench/history.db, or
// ~/.local/share/servbench/history.db.
func DefaultPath(getenv func(string) string) (string, error) {
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "servbench", "history.db"), nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("no HOME to keep the history in: give -p history.file=PATH, or history.file=off")
	}
	return filepath.Join(home, ".local", "share", "servbench", "history.db"), nil
}

// An Entry is one recorded result.
type Entry struct {
	ID       int64
	Recorded time.Time // when it was recorded
	Start    time.Time // when its measurement began
	Command  string    // load or run
	Label    string
	Binding  string
	Server   string // the server's version string
	Workload string
	// Config identifies what was measured, whatever its rate and
	// length: the command, binding, label, workload and every property but
	// those that set the rate, the length, the outputs and the run's
	// identity (ConfigDigest). A plan's cell is a config at a rate.
	Config     string
	Records    int64
	Threads    int
	Clients    int
	Rate       float64 // the target rate (0: as fast as it goes)
	Operations int64
	OK         int64
	Throughput float64
	RuntimeMs  float64
	Stop       string
	Host       string
	Version    string // servbench's
	ResultID   string
	Path       string // the result file, absolute ("": none written)
	SHA256     string // the result file's checksum
	// Figures are the entry's figures by name: "READ p99" (µs), "READ
	// failed SERVICE_UNAVAILABLE" (operations), ... (Figures).
	Figures map[string]float64
	// Props are the result's properties when it was read from its file
	// (a gate's explicit baseline); the history does not keep them.
	Props result.Settings
}

// Figure is the value of figure name: "throughput", "runtime_ms", or one of
// Figures ("READ p99"); ok is false when the entry has none.
func (e *Entry) Figure(name string) (float64, bool) {
	switch name {
	case "throughput":
		return e.Throughput, true
	case "runtime_ms":
		return e.RuntimeMs, true
	case "operations":
		return float64(e.Operations), true
	case "failed": // percent of all operations
		if e.Operations <= 0 {
			return 0, false
		}
		return 100 * float64(e.Operations-e.OK) / float64(e.Operations), true
	}
	v, ok := e.Figures[name]
	return v, ok
}

// OpFigure reports whether figure name is an operation's service-time
// statistic stat ("READ p99" for "p99", not "READ response p99"), and
// which operation's: its name may hold spaces.
func OpFigure(name, stat string) (op string, ok bool) {
	op, ok = strings.CutSuffix(name, " "+stat)
	return op, ok && op != "" && !strings.HasSuffix(op, " response")
}

// Percentiles are those an entry keeps of each operation.
var Percentiles = []string{"50", "95", "99", "99.9"}

// Figures are a result's figures an entry keeps: each operation's mean
// and percentiles of service time and of response time ("READ p99",
// "READ response p99", µs) and its operations by outcome ("READ failed
// ERROR").
func Figures(d *result.Doc) map[string]float64 {
	f := map[string]float64{}
	for _, op := range d.Ops {
		if op.Latency != nil {
			f[op.Name+" mean"] = op.Latency.MeanUs
			for _, p := range Percentiles {
				if v, ok := op.Latency.Percentiles[p]; ok {
					f[op.Name+" p"+p] = v
				}
			}
		}
		if op.Response != nil {
			for _, p := range Percentiles {
				if v, ok := op.Response.Percentiles[p]; ok {
					f[op.Name+" response p"+p] = v
				}
			}
		}
		for status, n := range op.Outcomes {
			if status != "OK" {
				f[op.Name+" failed "+status] = float64(n)
			}
		}
	}
	return f
}

// volatile are the properties a config leaves out:
// its rate and length (and when it stops: until), its outputs (the live
// page too), its identity, where its clients run.
var volatile = []string{"target", "operationcount", "maxexecutiontime", "warmuptime", "warmupoperationcount", "stopgrace",
	"result.file", "exportfile", "exporter", "label", "randomseed", "clientindex", "startat", "status"}

// volatilePrefixes are families of volatile properties.
var volatilePrefixes = []string{"hdrhistogram.", "timeseries.", "status.", "measurement", "coordinator.", "orchestrator",
	"ssh.", "docker.", "kubernetes.", "metrics.", "history.", "dashboard.", "until."}

// ConfigDigest identifies the config a result measured (Entry.Config).
func ConfigDigest(d *result.Doc) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", d.Command, d.Binding, d.Label, d.Workload)
	for _, k := range slices.Sorted(maps.Keys(d.Properties)) {
		if Volatile(k) {
			continue
		}
		fmt.Fprintf(h, "%s=%s\x00", k, d.Properties[k])
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Volatile reports whether property k is left out of a config.
func Volatile(k string) bool {
	return slices.Contains(volatile, k) || slices.ContainsFunc(volatilePrefixes, func(p string) bool { return strings.HasPrefix(k, p) })
}

// MaxText bounds each text an entry keeps of its result (label, server,
// host, ...): a run's label is at most 200 bytes, but an imported result
// may say anything.
const MaxText = 1000

// bounded is s cut to MaxText bytes.
func bounded(s string) string {
	if len(s) <= MaxText {
		return s
	}
	return strings.ToValidUTF8(s[:MaxText], "") + "…"
}

// EntryOf is the entry of result d, written at path (absolute; "" for no
// file) whose bytes have checksum sum.
func EntryOf(d *result.Doc, path, sum string) Entry {
	records, _ := strconv.ParseInt(d.Properties["recordcount"], 10, 64)
	clients := max(d.Clients, 1)
	return Entry{Start: d.Start, Command: bounded(d.Command), Label: bounded(d.Label), Binding: bounded(d.Binding), Server: bounded(d.Server),
		Workload: bounded(d.Workload), Config: ConfigDigest(d), Records: records, Threads: d.Threads, Clients: clients, Rate: d.Rate,
		Operations: d.Operations, OK: d.OKOperations, Throughput: d.Throughput, RuntimeMs: d.RuntimeMs,
		Stop: bounded(string(d.Stop)), Host: bounded(d.Environment.Hostname), Version: bounded(d.Environment.ServbenchVersion),
		ResultID: bounded(d.ID), Path: path, SHA256: sum, Figures: Figures(d)}
}

// ErrNotRegular is Checksum's error for a path that is not a regular
// file (a device, a named pipe: -o /dev/null), which it never reads.
var ErrNotRegular = errors.New("not a regular file")

// Checksum is the SHA-256 of the regular file at path, in hexadecimal. A
// named pipe or a device is not read (ErrNotRegular): its open does not
// wait for a writer, and nothing is read from it.
func Checksum(path string) (string, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return "", err
	} else if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// A Store is an opened history.
type Store struct {
	db   *sql.DB
	path string
}

const schema = `
CREATE TABLE IF NOT EXISTS entries (
  id INTEGER PRIMARY KEY,
  recorded TEXT NOT NULL,
  start TEXT NOT NULL,
  command TEXT NOT NULL,
  label TEXT NOT NULL,
  binding TEXT NOT NULL,
  server TEXT NOT NULL,
  workload TEXT NOT NULL,
  config TEXT NOT NULL,
  records INTEGER NOT NULL,
  threads INTEGER NOT NULL,
  clients INTEGER NOT NULL,
  rate REAL NOT NULL,
  operations INTEGER NOT NULL,
  ok_operations INTEGER NOT NULL,
  throughput REAL NOT NULL,
  runtime_ms REAL NOT NULL,
  stop TEXT NOT NULL,
  host TEXT NOT NULL,
  servbench_version TEXT NOT NULL,
  result_id TEXT NOT NULL,
  result_path TEXT NOT NULL,
  result_sha256 TEXT NOT NULL,
  once TEXT NOT NULL UNIQUE
);
CREATE INDEX IF NOT EXISTS entries_config ON entries (config, rate, start);
CREATE TABLE IF NOT EXISTS figures (
  entry INTEGER NOT NULL REFERENCES entries (id),
  name TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (entry, name)
);
PRAGMA user_version = 1;
`

// Open opens the history at path, creating it (and its folder) when it
// is not there.
func Open(ctx context.Context, path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("history %s: %w", path, err)
	}
	dsn := "file:" + path + "?_pragma=busy_timeout(" + strconv.Itoa(int(BusyWait/time.Millisecond)) + ")&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", path, err)
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("history %s: %w", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// OpenRead opens the history at path to read it: nothing is written, and
// a file that is no servbench history is refused.
func OpenRead(ctx context.Context, path string) (*Store, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&_pragma=busy_timeout("+strconv.Itoa(int(BusyWait/time.Millisecond))+")")
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", path, err)
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('entries', 'figures')`).Scan(&n); err != nil || n != 2 {
		db.Close()
		if err == nil {
			err = errors.New("not a servbench history (no tables entries and figures)")
		}
		return nil, fmt.Errorf("history %s: %w", path, err)
	}
	return &Store{db: db, path: path}, nil
}

// Close closes the history.
func (s *Store) Close() error { return s.db.Close() }

// Path is the history's file.
func (s *Store) Path() string { return s.path }

// Add records e; added is false when its result was recorded already.
func (s *Store) Add(ctx context.Context, e Entry) (added bool, err error) {
	once := e.ResultID
	if once == "" {
		once = "sha256:" + e.SHA256
	}
	if once == "sha256:" {
		return false, errors.New("history: a result with neither an id nor a file")
	}
	if e.Recorded.IsZero() {
		e.Recorded = time.Now()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return false, fmt.Errorf("history %s: %w", s.path, err)
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO entries (recorded, start, command, label, binding, server, workload,
  config, records, threads, clients, rate, operations, ok_operations, throughput, runtime_ms, stop, host, servbench_version,
  result_id, result_path, result_sha256, once) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		e.Recorded.UTC().Format(timeText), e.Start.UTC().Format(timeText), e.Command, e.Label, e.Binding,
		e.Server, e.Workload, e.Config, e.Records, e.Threads, e.Clients, e.Rate, e.Operations, e.OK, e.Throughput, e.RuntimeMs,
		e.Stop, e.Host, e.Version, e.ResultID, e.Path, e.SHA256, once)
	if err != nil {
		return false, fmt.Errorf("history %s: %w", s.path, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return false, nil
	}
	id, err := res.LastInsertId()
	if err != nil {
		return false, fmt.Errorf("history %s: %w", s.path, err)
	}
	for _, name := range slices.Sorted(maps.Keys(e.Figures)) {
		if _, err := tx.ExecContext(ctx, `INSERT INTO figures (entry, name, value) VALUES (?, ?, ?)`, id, name, e.Figures[name]); err != nil {
			return false, fmt.Errorf("history %s: %w", s.path, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("history %s: %w", s.path, err)
	}
	return true, nil
}

// A Filter selects entries: each field that is set must match (Workload:
// a built-in workload's letter matches its title, "a" "workload a").
type Filter struct {
	Label, Binding, Workload, Command, Config string
	// Rate, when set, is the target rate (0: as fast as it goes).
	Rate *float64
	// Completed keeps the runs that measured what they were asked: their
	// operations, until their time limit, or until their figures were
	// sure (result.Stop.Finished).
	Completed    bool
	Since, Until time.Time
	// Not leaves out the entries of these result ids or checksums (a
	// gate's new results among their own baseline).
	Not []string
	// Last keeps the most recent Last entries (0: MaxList).
	Last int
}

// List returns the entries f selects, oldest first, with their figures.
func (s *Store) List(ctx context.Context, f Filter) ([]Entry, error) {
	var where []string
	var args []any
	for _, c := range []struct{ col, v string }{{"label", f.Label}, {"binding", f.Binding}, {"command", f.Command}, {"config", f.Config}} {
		if c.v != "" {
			where, args = append(where, c.col+" = ?"), append(args, c.v)
		}
	}
	if f.Workload != "" { // a built-in's name ("a") or its title ("workload a"), or a file's
		where, args = append(where, "(workload = ? OR workload = ?)"), append(args, f.Workload, "workload "+f.Workload)
	}
	if f.Rate != nil {
		where, args = append(where, "rate = ?"), append(args, *f.Rate)
	}
	if f.Completed {
		where = append(where, "stop IN (?"+strings.Repeat(", ?", len(result.FinishedStops)-1)+")")
		for _, s := range result.FinishedStops {
			args = append(args, string(s))
		}
	}
	if !f.Since.IsZero() {
		where, args = append(where, "start >= ?"), append(args, f.Since.UTC().Format(timeText))
	}
	if !f.Until.IsZero() {
		where, args = append(where, "start < ?"), append(args, f.Until.UTC().Format(timeText))
	}
	for _, n := range f.Not {
		if n != "" { // an entry without an id or a checksum is not every entry without one
			where, args = append(where, "result_id != ? AND result_sha256 != ?"), append(args, n, n)
		}
	}
	last := f.Last
	if last <= 0 || last > MaxList {
		last = MaxList
	}
	q := `SELECT id, recorded, start, command, label, binding, server, workload, config, records, threads, clients, rate,
  operations, ok_operations, throughput, runtime_ms, stop, host, servbench_version, result_id, result_path, result_sha256 FROM entries`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY start DESC, id DESC LIMIT " + strconv.Itoa(last)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", s.path, err)
	}
	defer rows.Close()
	var out []Entry
	for rows.Next() {
		var e Entry
		var rec, start string
		if err := rows.Scan(&e.ID, &rec, &start, &e.Command, &e.Label, &e.Binding, &e.Server, &e.Workload, &e.Config, &e.Records,
			&e.Threads, &e.Clients, &e.Rate, &e.Operations, &e.OK, &e.Throughput, &e.RuntimeMs, &e.Stop, &e.Host, &e.Version,
			&e.ResultID, &e.Path, &e.SHA256); err != nil {
			return nil, fmt.Errorf("history %s: %w", s.path, err)
		}
		e.Recorded, _ = time.Parse(time.RFC3339Nano, rec) // timeText is RFC 3339
		e.Start, _ = time.Parse(time.RFC3339Nano, start)
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("history %s: %w", s.path, err)
	}
	slices.Reverse(out)
	for i := range out {
		if out[i].Figures, err = s.figures(ctx, out[i].ID); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *Store) figures(ctx context.Context, id int64) (map[string]float64, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT name, value FROM figures WHERE entry = ?`, id)
	if err != nil {
		return nil, fmt.Errorf("history %s: %w", s.path, err)
	}
	defer rows.Close()
	f := map[string]float64{}
	for rows.Next() && len(f) < result.MaxOps*64 {
		var n string
		var v float64
		if err := rows.Scan(&n, &v); err != nil {
			return nil, fmt.Errorf("history %s: %w", s.path, err)
		}
		f[n] = v
	}
	return f, rows.Err()
}

// Record adds result d, written at path ("" for none), to the history at
// file; added is false when it was there already. It gives up after
// Deadline, and retries a database another process holds (two runs that
// make a new history at once) until BusyWait.
func Record(ctx context.Context, file string, d *result.Doc, path string) (added bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, Deadline)
	defer cancel()
	for wait, until := 10*time.Millisecond, time.Now().Add(BusyWait); ; wait = min(2*wait, time.Second) {
		added, err = record(ctx, file, d, path)
		if !Busy(err) || time.Now().After(until) || ctx.Err() != nil {
			return added, err
		}
		select {
		case <-ctx.Done():
			return added, err
		case <-time.After(wait):
		}
	}
}

// Busy reports whether err is SQLite's: the database is locked by another
// connection.
func Busy(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "SQLITE_BUSY") || strings.Contains(err.Error(), "database is locked"))
}

func record(ctx context.Context, file string, d *result.Doc, path string) (added bool, err error) {
	var sum string
	if path != "" {
		if path, err = filepath.Abs(path); err != nil {
			return false, err
		}
		switch sum, err = Checksum(path); {
		case errors.Is(err, ErrNotRegular):
			sum = "" // a result written to a device or a pipe: its id alone
		case err != nil:
			return false, fmt.Errorf("history: the result file: %w", err)
		}
	}
	s, err := Open(ctx, file)
	if err != nil {
		return false, err
	}
	added, err = s.Add(ctx, EntryOf(d, path, sum))
	if cerr := s.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("history %s: %w", file, cerr)
	}
	return added, err
}
