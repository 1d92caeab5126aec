package workload

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	_ "github.com/servbench/servbench/db/pebble"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/workload/customer"
)

func TestPaginationWorkloadFile(t *testing.T) {
	c, err := ParseConfig(propsOf(t, "pagination"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Query != 1 || c.Read+c.Update+c.Insert+c.Scan+c.ReadModifyWrite+c.Delete != 0 {
		t.Errorf("mix %+v: want 100%% query", c)
	}
	if c.QueryField != "address.country" || len(c.QueryValues) != 30 || c.MaxQueryLength != 100 || c.MaxQueryOffset != 5 ||
		c.QueryLengthDist != "uniform" || c.QueryOffsetDist != "uniform" || c.Document != "customer" || c.QueryDocuments {
		t.Errorf("query config %+v", c)
	}
	for i, v := range c.QueryValues {
		if v != customer.Countries[i] {
			t.Errorf("value %d is %q, the generator's is %q", i, v, customer.Countries[i])
		}
	}
	// The Altoros fork's defaults when only the proportion and field are set.
	c, err = ParseConfig(propsOf(t, "", "readproportion", "0", "updateproportion", "0", "query1proportion", "1",
		"query1filterfield", "field0", "query1filtervalues", " x , y ", "workload", "com.yahoo.ycsb.workloads.CoreWorkloadExtension"))
	if err != nil {
		t.Fatal(err)
	}
	if c.MaxQueryLength != 1000 || c.MaxQueryOffset != 20 || strings.Join(c.QueryValues, "|") != "x|y" || c.Document != "fields" {
		t.Errorf("defaults %+v", c)
	}
}

func TestQueryConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		kv   []string
		want string
	}{
		{[]string{"readproportion", "0.5", "query1proportion", "0.5", "updateproportion", "0"}, "query1filterfield"},
		{[]string{"readproportion", "0.5", "query1proportion", "0.5", "updateproportion", "0", "query1filterfield", "field0"}, "query1filtervalues"},
		{[]string{"query2proportion", "0.1"}, "query2proportion"},
		{[]string{"document", "xml"}, "document"},
		{[]string{"querylengthdistribution", "normal"}, "querylengthdistribution"},
		{[]string{"maxqueryoffset", "0"}, "maxqueryoffset"},
		{[]string{"query1filterfield", "address..country"}, "query1filterfield"},
		{[]string{"customer.notelength", "-1"}, "customer.notelength"},
	} {
		_, err := ParseConfig(propsOf(t, "", tc.kv...))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: err = %v, want it to name %s", tc.kv, err, tc.want)
		}
	}
}

// recorder is a binding wrapper that keeps the queries it is asked.
type recorder struct {
	db.DB
	queries []db.Query
}

func (r *recorder) Query(_ context.Context, _ string, q *db.Query, _ *db.RecordSet) error {
	r.queries = append(r.queries, *q)
	return nil
}

// OFFSET, LIMIT and the value are drawn uniformly from 1..5, 1..100 and the
// 30 countries (chi-square at the 0.999 level).
func TestQueryDraws(t *testing.T) {
	p := propsOf(t, "pagination", "operationcount", "60000")
	w, err := New(p, true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := db.Lookup("basic")
	d, _ := b.Open(context.Background(), p, db.Options{Threads: 1})
	rec := &recorder{DB: d}
	th := w.NewThread(0, 7)
	th.Bind(rec, measure.NewRecorder())
	for i := 0; i < 60000; i++ {
		th.Transaction(context.Background())
	}
	offsets, limits, values := make([]float64, 6), make([]float64, 101), map[string]float64{}
	for _, q := range rec.queries {
		if q.Offset < 1 || q.Offset > 5 || q.Limit < 1 || q.Limit > 100 || q.Field != "address.country" {
			t.Fatalf("query %+v out of range", q)
		}
		offsets[q.Offset]++
		limits[q.Limit]++
		values[q.Value]++
	}
	chi := func(obs []float64, crit float64) float64 {
		var sum, x float64
		for _, o := range obs {
			sum += o
		}
		e := sum / float64(len(obs))
		for _, o := range obs {
			x += (o - e) * (o - e) / e
		}
		if x > crit {
			t.Errorf("chi-square %.1f > %.1f for %v", x, crit, obs)
		}
		return x
	}
	chi(offsets[1:], 18.47) // 4 degrees of freedom
	chi(limits[1:], 148.2)  // 99
	var v []float64
	for _, c := range customer.Countries {
		v = append(v, values[c])
	}
	chi(v, 58.3) // 29
	if len(values) != 30 {
		t.Errorf("%d distinct values", len(values))
	}
}

// fault wraps a real store and spoils its query results in one way.
type fault struct {
	db.DB
	q     db.Querier
	spoil func(q *db.Query, rows *db.RecordSet)
}

func (f *fault) Query(ctx context.Context, table string, q *db.Query, rows *db.RecordSet) error {
	if err := f.q.Query(ctx, table, q, rows); err != nil {
		return err
	}
	f.spoil(q, rows)
	return nil
}

// loadedPebble returns a Pebble store with records customers loaded
// through the workload (the index declared first, as the command does).
func loadedPebble(t *testing.T, records int, kv ...string) (*Workload, db.DB) {
	t.Helper()
	p := propsOf(t, "pagination", append([]string{"recordcount", strconv.Itoa(records), "dataintegrity", "true"}, kv...)...)
	w, err := New(p, true)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := db.Lookup("pebble")
	d, err := b.Open(context.Background(), p, db.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	q := db.NewQuery(w.Cfg.QueryField)
	if _, err := d.(db.Indexer).Index(context.Background(), w.Cfg.Table, db.Index{Field: q.Field, Path: q.Path}); err != nil {
		t.Fatal(err)
	}
	loader := w.NewThread(0, 1)
	loader.Bind(d, measure.NewRecorder())
	for i := 0; i < records; i++ {
		if err := loader.Insert(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	return w, d
}

// verifyOutcomes runs n queries against d and returns the VERIFY outcomes.
func verifyOutcomes(t *testing.T, w *Workload, d db.DB, n int) map[db.Status]int64 {
	t.Helper()
	th := w.NewThread(1, 2)
	rec := measure.NewRecorder()
	th.Bind(d, rec)
	th.Measuring = true
	for i := 0; i < n; i++ {
		if err := th.Transaction(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	set := &measure.Set{}
	rec.DrainInto(set)
	out := map[db.Status]int64{}
	for s := db.Status(0); s < db.NumStatus; s++ {
		if c := set.Count(measure.Verify, s); c > 0 {
			out[s] = c
		}
	}
	if q := set.Count(measure.Query, db.OK); q != int64(n) {
		t.Errorf("%d of %d queries OK", q, n)
	}
	return out
}

// Query verification passes on correct results and catches every kind of
// wrong one: too few rows (too many: TestRowsPastTheLimitFail), a row of another country, a key that
// does not exist.
func TestQueryVerification(t *testing.T) {
	w, d := loadedPebble(t, 900)
	if got := verifyOutcomes(t, w, d, 300); len(got) != 1 || got[db.OK] != 300 {
		t.Fatalf("correct results: VERIFY %v", got)
	}
	// Documents in the result are checked row by row.
	wd, dd := loadedPebble(t, 600, "querydocuments", "true")
	if got := verifyOutcomes(t, wd, dd, 100); len(got) != 1 || got[db.OK] != 100 {
		t.Fatalf("documents: VERIFY %v", got)
	}
	// A key of another country: customer 0's country is not every country.
	other := func(value string) []byte {
		for n := int64(0); ; n++ {
			if customer.Country(n) != value {
				return AppendKey(nil, n, 1, false)
			}
		}
	}
	q := d.(db.Querier)
	for name, spoil := range map[string]func(*db.Query, *db.RecordSet){
		"a row missing": func(q *db.Query, rows *db.RecordSet) {
			if rows.Len() > 0 {
				r := *rows
				r.Reset()
				for i := 0; i < rows.Len()-1; i++ {
					r.Next().SetKey(rows.Row(i).Key)
				}
				*rows = r
			}
		},
		"wrong country": func(q *db.Query, rows *db.RecordSet) {
			for i := 0; i < rows.Len(); i++ {
				rows.Row(i).SetKey(other(q.Value))
			}
		},
		"no such key": func(q *db.Query, rows *db.RecordSet) {
			for i := 0; i < rows.Len(); i++ {
				rows.Row(i).SetKey([]byte("user-nobody"))
			}
		},
	} {
		got := verifyOutcomes(t, w, &fault{DB: d, q: q, spoil: spoil}, 200)
		bad := got[db.UnexpectedState]
		if bad == 0 {
			t.Errorf("%s: not caught (VERIFY %v)", name, got)
		}
		if name == "wrong country" || name == "no such key" {
			if math.Abs(float64(bad-200)) > 0 {
				t.Errorf("%s: %d of 200 caught", name, bad)
			}
		}
	}
}

// A server that answers more rows than a query or scan asked for fails
// that operation (ERROR, db.ErrPastLimit), the set holding no row past the
// limit however many the binding adds: one that ignored LIMIT, or paged
// without end, took memory row by row until the process died.
func TestRowsPastTheLimitFail(t *testing.T) {
	w, d := loadedPebble(t, 300)
	var most int
	endless := &fault{DB: d, q: d.(db.Querier), spoil: func(q *db.Query, rows *db.RecordSet) {
		for i := 0; i < 100000 && !rows.Over(); i++ {
			rows.Next().SetKey([]byte("user-extra"))
		}
		most = max(most, rows.Len())
	}}
	th := w.NewThread(1, 2)
	rec := measure.NewRecorder()
	th.Bind(endless, rec)
	th.Measuring = true
	for i := 0; i < 50; i++ {
		if err := th.Transaction(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	set := &measure.Set{}
	rec.DrainInto(set)
	if n := set.Count(measure.Query, db.Error); n != 50 {
		t.Errorf("%d of 50 queries ERROR (OK %d)", n, set.Count(measure.Query, db.OK))
	}
	if most == 0 || most > int(w.Cfg.MaxQueryLength) {
		t.Errorf("the set held %d rows: want at most the largest limit, %d", most, int(w.Cfg.MaxQueryLength))
	}
	if msg := set.Errors[measure.Query][db.Error]; !strings.Contains(msg, db.ErrPastLimit.Error()) {
		t.Errorf("the error kept is %q", msg)
	}
}
