package workload

import (
	"context"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workloads"
)

func propsOf(t *testing.T, builtin string, kv ...string) *props.Props {
	return propsFor(t, builtin, kv...)
}

func propsFor(t testing.TB, builtin string, kv ...string) *props.Props {
	t.Helper()
	p := props.New()
	if builtin != "" {
		if err := workloads.Load(p, builtin); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "-p "+kv[i])
	}
	return p
}

func TestBuiltinsMatchYCSB(t *testing.T) {
	type mix struct{ r, u, i, s, rmw float64 }
	want := map[string]struct {
		m    mix
		dist string
	}{
		"a": {mix{0.5, 0.5, 0, 0, 0}, "zipfian"},
		"b": {mix{0.95, 0.05, 0, 0, 0}, "zipfian"},
		"c": {mix{1, 0, 0, 0, 0}, "zipfian"},
		"d": {mix{0.95, 0, 0.05, 0, 0}, "latest"},
		"e": {mix{0, 0, 0.05, 0.95, 0}, "zipfian"},
		"f": {mix{0.5, 0, 0, 0, 0.5}, "zipfian"},
		"g": {mix{0.05, 0.95, 0, 0, 0}, "zipfian"},
		"h": {mix{0, 1, 0, 0, 0}, "zipfian"},
	}
	if got := strings.Join(workloads.Names(), ","); got != "a,b,c,d,e,f,g,h,pagination" {
		t.Fatalf("built-ins %q", got)
	}
	for name, w := range want {
		c, err := ParseConfig(propsOf(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := mix{c.Read, c.Update, c.Insert, c.Scan, c.ReadModifyWrite}
		if got != w.m || c.RequestDist != w.dist || c.RecordCount != 1000 || c.OperationCount != 1000 || !c.ReadAllFields {
			t.Errorf("%s: %+v %s %d %d", name, got, c.RequestDist, c.RecordCount, c.OperationCount)
		}
	}
	e, _ := ParseConfig(propsOf(t, "e"))
	if e.MaxScanLength != 100 || e.ScanLengthDist != "uniform" {
		t.Errorf("workload e scan: %d %s", e.MaxScanLength, e.ScanLengthDist)
	}
	// YCSB's defaults.
	d, _ := ParseConfig(propsOf(t, "", "recordcount", "10"))
	if d.FieldCount != 10 || d.FieldLength != 100 || d.Table != "usertable" || d.Read != 0.95 || d.Update != 0.05 ||
		d.RequestDist != "uniform" || d.OrderedInserts || d.ZeroPadding != 1 || d.MaxScanLength != 1000 ||
		d.HotsetFraction != 0.2 || d.HotopnFraction != 0.8 || d.ExpPercentile != 95 || d.ExpFrac != 0.8571428571 {
		t.Errorf("defaults: %+v", d)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"readproportion", "0.5"}, "add up to 0.55"},
		{[]string{"readproportion", "1.5"}, "outside"},
		{[]string{"fieldlengthdistribution", "uniform", "dataintegrity", "true"}, "needs fieldlengthdistribution=constant"},
		{[]string{"recordcount", "10", "insertstart", "5", "insertcount", "6"}, "exceeds recordcount"},
		{[]string{"requestdistribution", "pareto"}, "not one of"},
		{[]string{"fieldcount", "0"}, "less than 1"},
		{[]string{"recordcount", "-1"}, "less than 0"},
		{[]string{"workload", "site.ycsb.workloads.TimeSeriesWorkload"}, "TimeSeriesWorkload is not implemented"},
		{[]string{"workload", "com.example.MyWorkload"}, "not a workload"},
		{[]string{"minscanlength", "10", "maxscanlength", "5"}, "less than 10"},
	} {
		p := propsOf(t, "", "recordcount", "100")
		for i := 0; i+1 < len(c.kv); i += 2 {
			p.Set(c.kv[i], c.kv[i+1], "-p "+c.kv[i])
		}
		_, err := ParseConfig(p)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: err = %v, want one line with %q", c.kv, err, c.want)
		}
	}
}

func TestKeynumSingleClientIsIdentity(t *testing.T) {
	w, err := New(propsOf(t, "d", "recordcount", "1000"), true)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range []int64{0, 1, 999, 1000, 1001, 5000} {
		if got := w.Keynum(i); got != i {
			t.Errorf("keynum(%d) = %d, want %d (YCSB's keys)", i, got, i)
		}
	}
}

func TestKeynumClientsNeverOverlap(t *testing.T) {
	seen := map[int64]int{}
	for client := 0; client < 3; client++ {
		start := []string{"0", "400", "700"}[client]
		count := []string{"400", "300", "300"}[client]
		w, err := New(propsOf(t, "d", "recordcount", "1000", "insertstart", start, "insertcount", count), true)
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(0); i < 2000; i++ {
			k := w.Keynum(i)
			if prev, dup := seen[k]; dup {
				t.Fatalf("key %d used by clients %d and %d", k, prev, client)
			}
			seen[k] = client
			if i < w.Cfg.InsertCount && (k < w.Cfg.InsertStart || k >= w.Cfg.InsertStart+w.Cfg.InsertCount) {
				t.Fatalf("client %d logical %d -> %d outside its loaded range", client, i, k)
			}
		}
	}
	for k := int64(0); k < 1000; k++ {
		if _, ok := seen[k]; !ok {
			t.Fatalf("loaded key %d belongs to no client", k)
		}
	}
}

// Clients of one run phase each read the whole loaded key space (as YCSB
// clients given one workload file do) and insert keys no other client
// inserts, none of them a loaded key.
func TestKeynumRunClientsShareReadsNotInserts(t *testing.T) {
	const n, records, inserts = 3, 1000, 2500
	owner := map[int64]int{}
	for client := 0; client < n; client++ {
		cfg, err := ParseConfig(propsOf(t, "d", "recordcount", "1000"))
		if err != nil {
			t.Fatal(err)
		}
		cfg.Clients, cfg.Client = n, client
		w, err := Build(context.Background(), cfg, true)
		if err != nil {
			t.Fatal(err)
		}
		for i := int64(0); i < records; i++ {
			if k := w.Keynum(i); k != i {
				t.Fatalf("client %d reads logical %d as key %d, want %d", client, i, k, i)
			}
		}
		for j := int64(0); j < inserts; j++ {
			k := w.Keynum(records + j)
			if k < records {
				t.Fatalf("client %d's insert %d is loaded key %d", client, j, k)
			}
			if prev, dup := owner[k]; dup {
				t.Fatalf("key %d inserted by clients %d and %d", k, prev, client)
			}
			owner[k] = client
		}
	}
	// Together they fill the first copy of the key space before the next.
	for k := int64(records); k < records+n*inserts; k++ {
		if _, ok := owner[k]; !ok {
			t.Fatalf("key %d skipped", k)
		}
	}
}

// callLog is a throwaway store that records what the workload asks for.
type callLog struct {
	reads, updates, inserts, scans, deletes int
	fields                                  [][]string
	updateFields                            []int
	keys                                    map[string]bool
}

func (c *callLog) Read(_ context.Context, _, key string, fields []string, dst *db.Record) error {
	c.reads++
	c.fields = append(c.fields, append([]string(nil), fields...))
	return nil
}
func (c *callLog) Scan(context.Context, string, string, int, []string, *db.RecordSet) error {
	c.scans++
	return nil
}
func (c *callLog) Update(_ context.Context, _, _ string, v *db.Record) error {
	c.updates++
	c.updateFields = append(c.updateFields, v.Len())
	return nil
}
func (c *callLog) Insert(_ context.Context, _, key string, v *db.Record) error {
	c.inserts++
	if c.keys == nil {
		c.keys = map[string]bool{}
	}
	c.keys[strings.Clone(key)] = true
	return nil
}
func (c *callLog) Delete(context.Context, string, string) error { c.deletes++; return nil }
func (c *callLog) Close() error                                 { return nil }

func TestOperationMixAndFields(t *testing.T) {
	w, err := New(propsOf(t, "", "recordcount", "100", "operationcount", "10000", "readproportion", "0.4",
		"updateproportion", "0.3", "deleteproportion", "0.1", "scanproportion", "0.1", "insertproportion", "0.1",
		"readallfields", "false"), true)
	if err != nil {
		t.Fatal(err)
	}
	log := &callLog{}
	th := w.NewThread(0, 1)
	rec := measure.NewRecorder()
	th.Bind(log, rec)
	th.Measuring = true
	for i := 0; i < 10000; i++ {
		if err := th.Transaction(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	near := func(name string, got int, want float64) {
		if d := float64(got) - want*10000; d*d > 16*want*10000 {
			t.Errorf("%s: %d of 10000, want about %.0f", name, got, want*10000)
		}
	}
	near("reads", log.reads, 0.4)
	near("updates", log.updates, 0.3)
	near("deletes", log.deletes, 0.1)
	near("scans", log.scans, 0.1)
	near("inserts", log.inserts, 0.1)
	for _, f := range log.fields {
		if len(f) != 1 {
			t.Fatalf("readallfields=false read %v, want one field", f)
		}
	}
	for _, n := range log.updateFields {
		if n != 1 {
			t.Fatalf("writeallfields=false wrote %d fields, want 1", n)
		}
	}
	// Run-phase inserts continue after the loaded keys.
	for k := range log.keys {
		if k == KeyName(0, 1, false) {
			t.Fatalf("run-phase insert rewrote loaded key %s", k)
		}
	}
	drained := &measure.Set{}
	rec.DrainInto(drained)
	if got := drained.OpCount(measure.Read); got != int64(log.reads) {
		t.Errorf("recorded %d reads, store saw %d", got, log.reads)
	}
}

func TestReadsNeverPassTheLastInsert(t *testing.T) {
	// Zipfian over recordcount+expected new keys: reads must still stay
	// at or below the last acknowledged insert (YCSB's nextKeynum guard).
	w, err := New(propsOf(t, "", "recordcount", "50", "operationcount", "2000", "readproportion", "0.5",
		"updateproportion", "0", "insertproportion", "0.5", "requestdistribution", "zipfian"), true)
	if err != nil {
		t.Fatal(err)
	}
	th := w.NewThread(0, 3)
	for i := 0; i < 20000; i++ {
		if k := th.nextLogical(); k > w.txInsert.Last() {
			t.Fatalf("drew %d beyond last insert %d", k, w.txInsert.Last())
		}
	}
}
