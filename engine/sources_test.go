package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/result"
)

// sampled is a database handle that samples its server and counts its own
// traffic; nothing else of it is called.
type sampled struct{ db.DB }

func (sampled) Sample(context.Context) (db.Sample, error) { return db.Sample{}, nil }
func (sampled) Traffic() (sent, received int64)           { return 0, 0 }

// The servers' whole is sampled by a spread phase's first client only (the
// merge keeps the first's); each client counts its own traffic, which the
// merge sums. A phase that is not spread samples both.
func TestFirstClientSamplesTheServers(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		want []string
	}{
		{nil, []string{result.SourceBinding, result.SourceClient, result.SourcePrometheus}},
		{[]string{"clients", "4", "clientindex", "0"}, []string{result.SourceBinding, result.SourceClient, result.SourcePrometheus}},
		{[]string{"clients", "4", "clientindex", "3"}, []string{result.SourceClient}},
	} {
		s, err := Check(specOf(t, append(c.kv, "threadcount", "4", "server.metrics", "http://127.0.0.1:9/metrics")...))
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, src := range s.sources(sampled{}) {
			kinds = append(kinds, src.Kind())
		}
		if !slices.Equal(kinds, c.want) {
			t.Errorf("%v: samples %v, want %v", c.kv, kinds, c.want)
		}
	}
}
