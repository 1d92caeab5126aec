package cli

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/servbench/servbench/result"
)

func readDoc(t *testing.T, path string) *result.Doc {
	t.Helper()
	d, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// Two clients at 2,000 ops/s each for the same 3 s merge into one of
// 4,000 ops/s whose histograms hold every operation of both.
func TestMergeClientsThatRanTogether(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	codes := make([]int, 3)
	for i, w := range []string{"a", "a", "c"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = servbench(t, "run", "basic", "-w", w, "-threads", "2", "-target", "2000", "-p", "operationcount=0",
				"-p", "maxexecutiontime=3", "-p", "status.interval=0.5", "-l", "client"+string(rune('1'+i)), "-o", filepath.Join(dir, string(rune('1'+i))+".json"))
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Fatalf("client %d: exit %d", i+1, c)
		}
	}
	out := filepath.Join(dir, "merged.json")
	code, stdout, e := servbench(t, "merge", filepath.Join(dir, "1.json"), filepath.Join(dir, "2.json"), "-o", out)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, e)
	}
	m := readDoc(t, out)
	a, b := readDoc(t, filepath.Join(dir, "1.json")), readDoc(t, filepath.Join(dir, "2.json"))
	if m.Clients != 2 || m.Threads != 4 || m.Operations != a.Operations+b.Operations || m.Label != "client1+client2" {
		t.Errorf("merged %d clients, %d threads, %d operations (%d + %d), label %q", m.Clients, m.Threads, m.Operations, a.Operations, b.Operations, m.Label)
	}
	if m.Throughput < 3800 || m.Throughput > 4200 {
		t.Errorf("merged throughput %.0f, want about 4000", m.Throughput)
	}
	if !strings.Contains(stdout, "merged 2 clients") {
		t.Errorf("stdout %q", stdout)
	}
	for _, o := range m.Ops {
		var want int64
		for _, d := range []*result.Doc{a, b} {
			for _, x := range d.Ops {
				if x.Name == o.Name {
					want += x.Outcomes["OK"]
				}
			}
		}
		h, err := result.DecodeHistogram(o.Histograms["OK"])
		if err != nil || h.TotalCount() != want || o.Latency.Count != want || o.Outcomes["OK"] != want {
			t.Errorf("%s: histogram %v, latency count %d, outcomes %d; want %d (%v)", o.Name, h.TotalCount(), o.Latency.Count, o.Outcomes["OK"], want, err)
		}
		if o.Response == nil || o.Response.Count != want {
			t.Errorf("%s: response times not merged", o.Name)
		}
	}
	// Different workloads are different experiments.
	if code, _, e := servbench(t, "merge", filepath.Join(dir, "1.json"), filepath.Join(dir, "3.json"), "-o", out); code != ExitUsage || !strings.Contains(e, "one experiment") {
		t.Errorf("merging workloads a and c: exit %d: %s", code, e)
	}
	later := filepath.Join(dir, "later.json")
	if code, _, e := servbench(t, "run", "basic", "-w", "a", "-p", "operationcount=100", "-o", later); code != 0 {
		t.Fatal(e)
	}
	if code, _, e := servbench(t, "merge", filepath.Join(dir, "1.json"), later, "-o", out); code != ExitUsage || !strings.Contains(e, "did not overlap") {
		t.Errorf("runs at different times: exit %d: %s", code, e)
	}
	if code, _, e := servbench(t, "merge", filepath.Join(dir, "1.json"), "-o", out); code != ExitUsage || !strings.Contains(e, "two results") {
		t.Errorf("one result: exit %d: %s", code, e)
	}
}
