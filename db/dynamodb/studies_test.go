package dynamodb

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/servbench/servbench/plan"
)

// S1's DynamoDB figures leave no time for a retry: an operation the SDK
// retries waits at least ycsbDelay(k, throttled, 0) before retry k, and at
// least as many operations as end failed were retried once, so with r
// retries and a failed share f, T threads complete at most
// T / (f × the shortest first wait) operations a second (T / (f × the
// shortest r waits) counting only those that end failed). For every
// published DynamoDB throughput with a failed share at the same size and
// workload, s1-kv's dynamodb.retries must allow it: YCSB's 3 retries hold
// a failing operation 1.75 s, 400 threads at 25% failed completing at most
// 914 ops/s against the published 109,350.
func TestS1RetriesFitThePublishedThroughput(t *testing.T) {
	p, err := plan.Parse(mustRead(t, "../../plans/s1-kv.yaml"), "../../plans/s1-kv.yaml", func(string) bool { return true })
	if err != nil {
		t.Fatal(err)
	}
	refs, err := plan.ParseReference(mustRead(t, p.Reference), p.Reference)
	if err != nil {
		t.Fatal(err)
	}
	if got := minHold(3); got != 1750*time.Millisecond {
		t.Fatalf("YCSB's 3 retries hold a throttled operation at least %v, want 1.75 s", got)
	}
	checked := 0
	for _, d := range p.Deployments {
		if d.Binding != "dynamodb" {
			continue
		}
		retries := ycsbRetries
		for _, list := range [][]plan.Property{p.Properties, d.Properties} {
			for _, x := range list {
				if x.Key == "dynamodb.retries" {
					if retries, err = strconv.Atoi(x.Value); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
		hold := minHold(retries)
		if retries > 0 {
			hold = minHold(1) // every operation that ends failed was retried at least once
		}
		for _, thr := range refs {
			if thr.System != "DynamoDB" || thr.Throughput == 0 || thr.Nodes != d.Nodes {
				continue
			}
			for _, fr := range refs {
				if fr.System != "DynamoDB" || fr.Workload != thr.Workload || fr.Nodes != d.Nodes || !fr.FailedPct.Given() {
					continue
				}
				for _, threads := range p.Threads {
					if threads < thr.ThreadsLo || threads > thr.ThreadsHi {
						continue
					}
					checked++
					f := fr.FailedPct.Lo / 100
					if hold > 0 && float64(threads)/(f*hold.Seconds()) < thr.Throughput {
						t.Errorf("%s: with %d retries every operation that fails waited %v or more: %d threads at %g%% failed complete at most %.0f ops/s, the study %.0f (%s)",
							d.Label, retries, hold, threads, fr.FailedPct.Lo, float64(threads)/(f*hold.Seconds()), thr.Throughput, thr.Source)
					}
				}
			}
		}
	}
	if checked < 2 {
		t.Errorf("%d published DynamoDB throughputs with a failed share checked, want A's and E's at 18 nodes", checked)
	}
}

// minHold is the shortest time r retries of a throttled request wait.
func minHold(r int) time.Duration {
	var d time.Duration
	for k := range r {
		d += ycsbDelay(k, true, 0)
	}
	return d
}

func mustRead(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Clean(file))
	if err != nil {
		t.Fatal(err)
	}
	return b
}
