package workload

import (
	"context"
	"strings"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
)

// windowStore is a throwaway store that takes reads and updates in
// windows and answers each read with the record dataintegrity expects.
type windowStore struct {
	callLog
	names   []string
	size    int
	windows [][]string // the keys of each window
}

func (s *windowStore) Window() int { return 8 }

func (s *windowStore) Pipeline(_ context.Context, _ string, ops []db.PipelineOp) {
	keys := make([]string, len(ops))
	for i := range ops {
		keys[i] = strings.Clone(ops[i].Key)
		if ops[i].Values != nil {
			s.updates++
			continue
		}
		s.reads++
		for _, name := range s.names {
			ops[i].Result.Add(name, AppendDeterministicValue(nil, ops[i].Key, name, s.size))
		}
	}
	s.windows = append(s.windows, keys)
}

// Window sends the reads and updates it draws together, each with its own
// key (not one buffer shared by the window), runs an insert alone, counts
// every transaction once and verifies every read.
func TestWindow(t *testing.T) {
	w, err := New(propsOf(t, "", "recordcount", "100000", "operationcount", "8000", "readproportion", "0.5",
		"updateproportion", "0.4", "insertproportion", "0.1", "requestdistribution", "uniform",
		"dataintegrity", "true", "fieldcount", "3", "fieldlength", "20"), true)
	if err != nil {
		t.Fatal(err)
	}
	s := &windowStore{names: w.fieldNames, size: 20}
	th := w.NewThread(0, 1)
	rec := measure.NewRecorder()
	th.Bind(s, rec)
	th.Measuring = true
	for i := 0; i < 1000; i++ {
		if err := th.Window(context.Background(), 8); err != nil {
			t.Fatal(err)
		}
	}
	ops := 0
	full := 0
	for _, keys := range s.windows {
		ops += len(keys)
		if len(keys) > 8 {
			t.Fatalf("a window of %d operations", len(keys))
		}
		if len(keys) == 8 {
			full++
		}
		distinct := map[string]bool{}
		for _, k := range keys {
			distinct[k] = true
		}
		if len(keys) > 2 && len(distinct) < len(keys)-1 {
			t.Fatalf("window keys %v: one buffer for all", keys)
		}
	}
	if ops+s.callLog.inserts != 8000 || s.callLog.inserts == 0 || full == 0 {
		t.Errorf("%d operations in %d windows (%d full) and %d inserts alone; want 8000 in all", ops, len(s.windows), full, s.callLog.inserts)
	}
	got := &measure.Set{}
	rec.DrainInto(got)
	if r, u, v := got.OpCount(measure.Read), got.OpCount(measure.Update), got.OpCount(measure.Verify); r != int64(s.reads) || u != int64(s.updates) || v != r {
		t.Errorf("measured %d reads, %d updates, %d verified; the store saw %d and %d", r, u, v, s.reads, s.updates)
	}
	if all, ok := got.ClientOps(); all != 8000 || ok != 8000 {
		t.Errorf("%d transactions counted, %d OK; want 8000", all, ok)
	}
	if n := got.Count(measure.Verify, db.OK); n != int64(s.reads) {
		t.Errorf("%d reads verified OK of %d", n, s.reads)
	}
}
