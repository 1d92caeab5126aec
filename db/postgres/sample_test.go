package postgres_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
)

// Blocks read plus hit grow by at least one per read (a primary-key read
// touches the index and the heap). PostgreSQL publishes each connection's
// counts at most once a second, so the sampler is read again until they
// show (bounded; not a timing assertion). PostgreSQL 15 has no pg_stat_io:
// it is named missing.
func TestServerSide(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	drop(t, url, "sbsample")
	d := dbtest.Open(t, "postgres", "postgres.url", url)
	ctx := context.Background()
	if err := d.(db.Preparer).Prepare(ctx, "sbsample", true); err != nil {
		t.Fatal(err)
	}
	const keys, reads = 50, 1000
	for i := range keys {
		rec := &db.Record{}
		rec.Add("field0", []byte("v"))
		if err := d.Insert(ctx, "sbsample", fmt.Sprintf("k%d", i), rec); err != nil {
			t.Fatal(err)
		}
	}
	blocks := func() (float64, []string) {
		s, err := d.(db.Sampler).Sample(ctx)
		if err != nil {
			t.Fatal(err)
		}
		v := 0.0
		for _, st := range s.Stats {
			if st.Name == "blocks_hit" || st.Name == "blocks_read" {
				v += st.Value
			}
		}
		return v, s.Missing
	}
	before, missing := blocks()
	rec := &db.Record{}
	for i := range reads {
		if err := d.Read(ctx, "sbsample", fmt.Sprintf("k%d", i%keys), nil, rec); err != nil {
			t.Fatal(err)
		}
	}
	var grown float64
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		after, _ := blocks()
		if grown = after - before; grown >= reads {
			break
		}
	}
	if grown < reads {
		t.Errorf("blocks read plus hit grew by %v over %d reads", grown, reads)
	}
	if len(missing) == 0 {
		t.Log("pg_stat_io present (PostgreSQL 16 or later)")
	}
}

// A user the server does not let read pg_stat_database (as a managed
// service may) gets one line that says why the server side is not
// sampled. The refusal is made for that user alone: its search path
// finds a view of that name it may not read before pg_catalog's.
func TestServerSideRefused(t *testing.T) {
	url := dbtest.ServerURL(t, "SERVBENCH_POSTGRES_URL")
	ctx := context.Background()
	c, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	for _, q := range []string{
		"DROP SCHEMA IF EXISTS sbhidden CASCADE", "DROP ROLE IF EXISTS sbnostats", "CREATE ROLE sbnostats LOGIN",
		"CREATE SCHEMA sbhidden", "CREATE VIEW sbhidden.pg_stat_database AS SELECT * FROM pg_catalog.pg_stat_database", "GRANT USAGE ON SCHEMA sbhidden TO sbnostats",
		"ALTER ROLE sbnostats SET search_path = sbhidden, pg_catalog",
	} {
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(ctx, url)
		if err != nil {
			return
		}
		defer c.Close(ctx)
		c.Exec(ctx, "DROP SCHEMA IF EXISTS sbhidden CASCADE")
		c.Exec(ctx, "DROP ROLE IF EXISTS sbnostats")
	})
	d := dbtest.Open(t, "postgres", "postgres.url", strings.Replace(url, "postgres@", "sbnostats@", 1))
	_, err = d.(db.Sampler).Sample(ctx)
	t.Log(err)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "pg_stat_database: refused to this user") ||
		!strings.Contains(err.Error(), "pg_monitor") {
		t.Errorf("pg_stat_database refused: %v, want one line that says so", err)
	}
}
