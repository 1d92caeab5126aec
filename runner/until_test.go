package runner

import (
	"testing"
	"time"

	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/stats"
)

// A p99 bound with no operation's p99 to judge (none succeeded) is not
// met, however steady the throughput; a steady one with them is.
func TestSettlerNeedsSomethingToJudge(t *testing.T) {
	s := &settler{until: Until{Throughput: 0.5, P99: 0.5}}
	for range stats.MinBatches {
		s.batches = append(s.batches, untilBatch{ops: 100, dur: time.Second})
	}
	if st := s.judge(); st.Met {
		t.Errorf("no successful operation: %+v, want not met", st)
	}
	for i := range s.batches {
		h := newBatchHistogram()
		h.RecordValue(int64(time.Millisecond))
		s.batches[i].hists[measure.Read] = h
	}
	if st := s.judge(); !st.Met || st.P99["READ"] != 0 {
		t.Errorf("steady throughput and p99: %+v, want met", st)
	}
}
