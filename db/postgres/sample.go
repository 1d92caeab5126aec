package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
)

// databaseStats are pg_stat_database's columns sampled (of the database
// connected to), with servbench's names and units; all are counters.
var databaseStats = []struct{ column, name, unit string }{
	{"xact_commit", "transactions_committed", "tx"},
	{"xact_rollback", "transactions_rolled_back", "tx"},
	{"blks_read", "blocks_read", "blocks"},
	{"blks_hit", "blocks_hit", "blocks"},
	{"tup_returned", "rows_returned", "rows"},
	{"tup_fetched", "rows_fetched", "rows"},
	{"tup_inserted", "rows_inserted", "rows"},
	{"tup_updated", "rows_updated", "rows"},
	{"tup_deleted", "rows_deleted", "rows"},
	{"temp_bytes", "temp_bytes", "B"},
	{"deadlocks", "deadlocks", ""},
}

// bgwriterStats are pg_stat_bgwriter's columns sampled (PostgreSQL 15
// and earlier name them so; 17 moved the checkpoints' to
// pg_stat_checkpointer, and these are then missing).
var bgwriterStats = []struct{ column, name, unit string }{
	{"buffers_checkpoint", "buffers_written_checkpoint", "blocks"},
	{"buffers_clean", "buffers_written_bgwriter", "blocks"},
	{"buffers_backend", "buffers_written_backend", "blocks"},
}

// Sample reads pg_stat_database (blocks read and hit, transactions, rows,
// temporary bytes), pg_stat_bgwriter and, where the server has it
// (PostgreSQL 16 and later), pg_stat_io's reads and writes, through the
// pool's spare connection (with the binding's TLS). A server that hides
// pg_stat_database (refuses it to this user, or has no such view: a
// service that speaks PostgreSQL's protocol over another engine) is said
// in one line.
func (s *Store) Sample(ctx context.Context) (db.Sample, error) {
	var out db.Sample
	q := "SELECT "
	for i, c := range databaseStats {
		if i > 0 {
			q += ", "
		}
		q += "coalesce(" + c.column + ", 0)::float8"
	}
	q += " FROM pg_stat_database WHERE datname = current_database()"
	vals := make([]float64, len(databaseStats))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := s.pool.QueryRow(ctx, q).Scan(ptrs...); err != nil {
		return out, fmt.Errorf("postgres: pg_stat_database: %w", statsHidden(err))
	}
	for i, c := range databaseStats {
		out.Stats = append(out.Stats, db.Stat{Name: c.name, Unit: c.unit, Counter: true, Value: vals[i]})
	}
	var firstErr error
	for _, c := range bgwriterStats {
		var v float64
		err := s.pool.QueryRow(ctx, "SELECT "+c.column+"::float8 FROM pg_stat_bgwriter").Scan(&v)
		if missing(err) {
			out.Missing = append(out.Missing, "pg_stat_bgwriter."+c.column)
			continue
		}
		if err != nil {
			firstErr = fmt.Errorf("postgres: pg_stat_bgwriter: %w", err)
			break
		}
		out.Stats = append(out.Stats, db.Stat{Name: c.name, Unit: c.unit, Counter: true, Value: v})
	}
	var reads, writes float64
	err := s.pool.QueryRow(ctx, "SELECT coalesce(sum(reads), 0)::float8, coalesce(sum(writes), 0)::float8 FROM pg_stat_io").Scan(&reads, &writes)
	switch {
	case missing(err):
		out.Missing = append(out.Missing, "pg_stat_io (PostgreSQL 16 and later)")
	case err != nil:
		if firstErr == nil {
			firstErr = fmt.Errorf("postgres: pg_stat_io: %w", err)
		}
	default:
		out.Stats = append(out.Stats, db.Stat{Name: "io_reads", Unit: "ops", Counter: true, Value: reads},
			db.Stat{Name: "io_writes", Unit: "ops", Counter: true, Value: writes})
	}
	return out, firstErr
}

// statsHidden says in one line why a server did not answer a
// statistics view, where it hides it: refused to this user, or a view it
// does not have.
func statsHidden(err error) error {
	var pe *pgconn.PgError
	switch {
	case !errors.As(err, &pe):
		return err
	case pe.Code == "42501":
		return fmt.Errorf("refused to this user (%s): the server side cannot be sampled without reading the statistics views (a role such as pg_monitor, which a managed service may not grant)", props.Cut(pe.Message, 100))
	case missing(err):
		return fmt.Errorf("the server has no such view (%s): a service that speaks PostgreSQL's protocol over another engine hides its statistics", props.Cut(pe.Message, 100))
	}
	return err
}

// missing reports whether err says a relation or column does not exist.
func missing(err error) bool {
	var pe *pgconn.PgError
	return err != nil && errors.As(err, &pe) && (pe.Code == "42P01" || pe.Code == "42703")
}
