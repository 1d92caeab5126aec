// Package basic is YCSB's BasicDB: a binding that does nothing (optionally
// after a simulated delay), for measuring the harness itself.
package basic

import (
	"bufio"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// Name is the binding's name: engine.Spec{Binding: basic.Name} runs it (and
// the import that names it registers it).
const Name = "basic"

func init() { db.Register(Name, binding{}) }

type binding struct{}

func (binding) Summary() string {
	return "does nothing; measures the harness (basicdb.verbose, basicdb.simulatedelay, basicdb.randomizedelay)"
}

// Output is where basicdb.verbose prints; tests may replace it.
var Output io.Writer = os.Stdout

func (binding) Open(_ context.Context, p *props.Props, o db.Options) (db.DB, error) {
	b := &DB{}
	var err error
	// YCSB defaults basicdb.verbose to true; servbench to false, because
	// printing every operation measures the terminal, not the harness.
	if b.verbose, err = p.Bool("basicdb.verbose", false); err != nil {
		return nil, err
	}
	ms, err := p.Int64Min("basicdb.simulatedelay", 0, 0)
	if err != nil {
		return nil, err
	}
	b.delay = time.Duration(ms) * time.Millisecond
	if b.randomize, err = p.Bool("basicdb.randomizedelay", true); err != nil {
		return nil, err
	}
	if o.CheckOnly {
		return nil, nil
	}
	if b.verbose {
		b.out = bufio.NewWriter(Output)
	}
	return b, nil
}

// DB is the do-nothing database.
type DB struct {
	verbose   bool
	randomize bool
	delay     time.Duration

	mu  sync.Mutex // only taken when verbose
	out *bufio.Writer
	buf []byte
}

// wait sleeps basicdb.simulatedelay, or a uniform part of it when
// basicdb.randomizedelay is on, as YCSB's BasicDB.delay does.
func (b *DB) wait(ctx context.Context) error {
	if b.delay <= 0 {
		return nil
	}
	d := b.delay
	if b.randomize {
		d = time.Duration(rand.Int64N(int64(d)))
	}
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// print writes one line in YCSB's BasicDB format.
func (b *DB) print(fill func(buf []byte) []byte) {
	b.mu.Lock()
	b.buf = append(fill(b.buf[:0]), '\n')
	b.out.Write(b.buf)
	b.mu.Unlock()
}

func appendFields(buf []byte, fields []string) []byte {
	buf = append(buf, " [ "...)
	if fields == nil {
		buf = append(buf, "<all fields>"...)
	}
	for _, f := range fields {
		buf = append(append(buf, f...), ' ')
	}
	return append(buf, ']')
}

func appendValues(buf []byte, r *db.Record) []byte {
	buf = append(buf, " [ "...)
	for _, f := range r.Fields() {
		buf = append(buf, f.Name...)
		buf = append(buf, '=')
		buf = append(buf, f.Value...)
		buf = append(buf, ' ')
	}
	return append(buf, ']')
}

func head(buf []byte, op, table, key string) []byte {
	buf = append(buf, op...)
	buf = append(buf, ' ')
	buf = append(buf, table...)
	buf = append(buf, ' ')
	return append(buf, key...)
}

// Read returns no fields.
func (b *DB) Read(ctx context.Context, table, key string, fields []string, _ *db.Record) error {
	if b.verbose {
		b.print(func(buf []byte) []byte { return appendFields(head(buf, "READ", table, key), fields) })
	}
	return b.wait(ctx)
}

// Scan returns no rows.
func (b *DB) Scan(ctx context.Context, table, start string, count int, fields []string, _ *db.RecordSet) error {
	if b.verbose {
		b.print(func(buf []byte) []byte {
			buf = append(head(buf, "SCAN", table, start), ' ')
			return appendFields(strconv.AppendInt(buf, int64(count), 10), fields)
		})
	}
	return b.wait(ctx)
}

// Update does nothing.
func (b *DB) Update(ctx context.Context, table, key string, values *db.Record) error {
	if b.verbose {
		b.print(func(buf []byte) []byte { return appendValues(head(buf, "UPDATE", table, key), values) })
	}
	return b.wait(ctx)
}

// Insert does nothing.
func (b *DB) Insert(ctx context.Context, table, key string, values *db.Record) error {
	if b.verbose {
		b.print(func(buf []byte) []byte { return appendValues(head(buf, "INSERT", table, key), values) })
	}
	return b.wait(ctx)
}

// Delete does nothing.
func (b *DB) Delete(ctx context.Context, table, key string) error {
	if b.verbose {
		b.print(func(buf []byte) []byte { return head(buf, "DELETE", table, key) })
	}
	return b.wait(ctx)
}

// Query returns no rows.
func (b *DB) Query(ctx context.Context, table string, q *db.Query, _ *db.RecordSet) error {
	if b.verbose {
		b.print(func(buf []byte) []byte {
			buf = append(head(buf, "QUERY", table, q.Field), " = "...)
			buf = append(buf, q.Value...)
			buf = append(buf, " OFFSET "...)
			buf = strconv.AppendInt(buf, int64(q.Offset), 10)
			buf = append(buf, " LIMIT "...)
			return strconv.AppendInt(buf, int64(q.Limit), 10)
		})
	}
	return b.wait(ctx)
}

// Close flushes verbose output.
func (b *DB) Close() error {
	if b.out != nil {
		return b.out.Flush()
	}
	return nil
}

// ServerVersion says what basic is: no server, and nothing stored.
func (b *DB) ServerVersion(context.Context) (string, error) {
	return "BasicDB (no database: stores nothing)", nil
}
