package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/servbench/servbench/db"
	_ "github.com/servbench/servbench/db/cassandra" // the loads' tables
	_ "github.com/servbench/servbench/db/dynamodb"
	_ "github.com/servbench/servbench/db/mongodb"
	_ "github.com/servbench/servbench/db/postgres"
	_ "github.com/servbench/servbench/db/redis"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/tools/internal/peers"
	"github.com/servbench/servbench/workload"
)

// A load case loads records into a table of its own per run: before each
// run (of either client) the last run's table is dropped and a new one made
// by servbench's binding in YCSB's layout, which YCSB's bindings need to
// exist. Redis has no tables: its database is emptied instead (YCSB's
// binding writes database 0). DynamoDB Local's tables are left (its
// binding drops none): the script's servers are temporary.
type loads struct {
	args    map[string][]string // servbench's binding and properties, per database
	file    string              // the workload file (its fields)
	prefix  string
	n       int
	current string // the table of the run under way
	last    map[string]string
}

// loadCase is the load case of database name ("postgres-load").
func loadCase(name string, threads, records int) (peers.Case, bool) {
	d, ok := strings.CutSuffix(name, "-load")
	if !ok || !slices.Contains(loadDBs, d) {
		return peers.Case{}, false
	}
	return peers.Case{Workload: "workloada", DB: d, Threads: threads, Load: true,
		Properties: []string{"recordcount=" + strconv.Itoa(records)}, One: []string{"recordcount=1"}}, true
}

var loadDBs = []string{"postgres", "redis", "cassandra", "mongodb", "dynamodb"}

// table is the table of the run under way.
func (l *loads) table() string { return l.current }

// before makes the next run's table.
func (l *loads) before(ctx context.Context, c peers.Case) error {
	d, err := l.open(ctx, c.DB)
	if err != nil {
		return err
	}
	defer d.Close()
	if prev := l.last[c.DB]; prev != "" || c.DB == "redis" {
		if err := l.drop(ctx, d, c.DB, prev); err != nil {
			return err
		}
	}
	l.n++
	l.current = fmt.Sprintf("%sload%d", l.prefix, l.n)
	l.last[c.DB] = l.current
	if p, ok := d.(db.Preparer); ok {
		if err := p.Prepare(ctx, l.current, true); err != nil {
			return fmt.Errorf("%s: make table %s: %w", c.DB, l.current, err)
		}
	}
	return nil
}

// drop drops a load's table (empties Redis' database).
func (l *loads) drop(ctx context.Context, d db.DB, name, table string) error {
	var st string
	switch name {
	case "postgres":
		st = "DROP TABLE IF EXISTS " + table
	case "cassandra":
		ks := "ycsb"
		for _, kv := range l.args[name] {
			if v, ok := strings.CutPrefix(kv, "cassandra.keyspace="); ok {
				ks = v
			}
		}
		st = "DROP TABLE IF EXISTS " + ks + "." + table
	case "mongodb":
		st = `{"drop": "` + table + `"}`
	case "redis":
		st = "FLUSHDB"
	default:
		return nil
	}
	a, ok := d.(db.Administrator)
	if !ok {
		return nil
	}
	if _, err := a.Admin(ctx, table, st); err != nil && !(name == "mongodb" && strings.Contains(err.Error(), "ns not found")) {
		return fmt.Errorf("%s: %s: %w", name, st, err)
	}
	return nil
}

// cleanup drops the last tables.
func (l *loads) cleanup(ctx context.Context) error {
	for name, table := range l.last {
		d, err := l.open(ctx, name)
		if err != nil {
			return err
		}
		err = l.drop(ctx, d, name, table)
		d.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// open opens servbench's binding for a database as its load would.
func (l *loads) open(ctx context.Context, name string) (db.DB, error) {
	args := l.args[name]
	p := props.New()
	if err := p.LoadFile(l.file); err != nil {
		return nil, err
	}
	for i := 1; i+1 < len(args); i += 2 {
		k, v, err := props.ParseAssignment(args[i+1])
		if err != nil {
			return nil, err
		}
		p.Set(k, v, "benchpeers")
	}
	if name == "redis" {
		// Emptying a database of a million records takes the server
		// seconds on its one core.
		p.Set("redis.timeout", "300000", "benchpeers")
	}
	cfg, err := workload.ParseConfig(p.Clone())
	if err != nil {
		return nil, err
	}
	b, err := db.Lookup(args[0])
	if err != nil {
		return nil, err
	}
	return b.Open(ctx, p, db.Options{Threads: 1, Schema: cfg.Schema()})
}

// inserts undoes workload E's inserts between runs. Every run of E inserts
// YCSB's keys from recordcount on, in the same order: a run after another
// would find the first one's keys there (a PostgreSQL or MongoDB insert
// then fails as a duplicate; Cassandra's overwrites). The most inserts any
// run reported are removed before the next run.
type inserts struct {
	records int
	most    map[string]int64 // per database
}

// track reads a run's report and notes its inserts.
func (in *inserts) track(c peers.Case, r io.Reader) (peers.Report, error) {
	rep, err := peers.Parse(r)
	if c.Workload == "workloade" {
		in.most[c.DB] = max(in.most[c.DB], rep.Counts["INSERT"])
	}
	return rep, err
}

// undo deletes the keys the runs of E on c's database inserted.
func (in *inserts) undo(ctx context.Context, l *loads, c peers.Case, table string) error {
	n := in.most[c.DB]
	if c.Workload != "workloade" || n == 0 {
		return nil
	}
	d, err := l.open(ctx, c.DB)
	if err != nil {
		return err
	}
	defer d.Close()
	for i := range n {
		key := workload.KeyName(int64(in.records)+i, 1, false)
		if err := d.Delete(ctx, table, key); err != nil && !errors.Is(err, db.ErrNotFound) {
			return fmt.Errorf("%s: remove E's insert %s: %w", c.DB, key, err)
		}
	}
	in.most[c.DB] = 0
	return nil
}
