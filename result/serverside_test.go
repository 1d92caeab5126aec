package result

import (
	"strings"
	"testing"
	"time"
)

func serverDoc(i int, t0 time.Time, ops int64, sources ...Source) *Doc {
	return &Doc{Format: Format, Version: FormatVersion, Command: "run", Binding: "dynamodb", Workload: "workload a", Threads: 2,
		Properties: map[string]string{"clients": "2", "clientindex": string(rune('0' + i))},
		Start:      t0, End: t0.Add(2 * time.Second), RuntimeMs: 2000, Stop: Completed, HistogramUnit: "ns",
		Operations: ops, OKOperations: ops, Throughput: float64(ops) / 2, Seed: uint64(i + 1),
		Ops:        []OpResult{{Name: "READ", Count: ops, Outcomes: map[string]int64{"OK": ops}, Histograms: map[string]string{}}},
		ServerSide: &ServerSide{IntervalS: 1, Sources: sources}}
}

// Merging: what each client counted of its own operations (DynamoDB's
// consumed capacity) is summed point by point and in total; the server's
// whole, which only the first client reads, is taken once; per operation
// is over the merged operations.
func TestMergeServerSide(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	units := func(a, b, total float64) Source {
		return Source{Name: "dynamodb", Kind: SourceBinding, PerClient: true,
			Series: []Series{{Name: "read_units", Unit: "RU/s", Counter: true, Points: [][2]float64{{1, a}, {2, b}}, Total: total}}}
	}
	host := Source{Name: "http://db1:9100/metrics", Kind: SourcePrometheus,
		Series: []Series{{Name: "cpu_busy_pct", Unit: "%", Counter: true, Points: [][2]float64{{1, 40}, {2, 60}}}}}
	d0 := serverDoc(0, t0, 100, units(10, 20, 30), host)
	d1 := serverDoc(1, t0, 300, units(5, 5, 10))
	d1.Properties["clientindex"] = "1"
	m, err := Merge([]*Doc{d0, d1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ServerSide.Sources) != 2 {
		t.Fatalf("sources %+v", m.ServerSide.Sources)
	}
	ru := m.ServerSide.Find(SourceBinding, "dynamodb").Get("read_units", "")
	if ru.Points[0][1] != 15 || ru.Points[1][1] != 25 || ru.Total != 40 || ru.PerOperation != 0.1 || ru.Max != 25 {
		t.Errorf("read units merged %+v: want points 15, 25, total 40, 0.1 per operation", ru)
	}
	cpu := m.ServerSide.Find(SourcePrometheus, "http://db1:9100/metrics").Get("cpu_busy_pct", "")
	if cpu.Mean != 50 || cpu.Max != 60 {
		t.Errorf("host CPU %+v: want it once, mean 50", cpu)
	}
	if d0.ServerSide.Sources[0].Series[0].Points[0][1] != 10 {
		t.Error("merging changed a client's result")
	}
}

// A reader refuses a server_side section it cannot rely on, naming it.
func TestServerSideValidate(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		src  Source
		want string
	}{
		{Source{Name: "", Kind: SourceBinding}, "source 1: want a name"},
		{Source{Name: "x", Kind: "telepathy"}, "source 1: want a name and kind"},
		{Source{Name: "x", Kind: SourceBinding, Series: []Series{{Name: ""}}}, "a series has no name"},
		{Source{Name: "x", Kind: SourceBinding, Series: []Series{{Name: "c", Points: [][2]float64{{2, 1}, {1, 1}}}}}, "points out of time order"},
	} {
		err := serverDoc(0, t0, 1, c.src).Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.src, err, c.want)
		}
	}
}

// Two clients whose interval boundaries jitter by a few milliseconds (the
// drains' timing on a busy machine: 101.8 and 99.2 ms for 100 ms) still
// merge into one time series. Found as an empty merged series in a spread
// run of half a second.
func TestMergeSeriesJitter(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	series := func(first float64) []Point {
		var pts []Point
		start := 0.0
		for i := range 5 {
			end := start + 0.1
			if i == 0 {
				end = first
			}
			pts = append(pts, Point{StartS: start, EndS: end, Operations: 100, Throughput: 1000, Ops: map[string]PointOp{"READ": {Count: 100}}})
			start = end
		}
		return pts
	}
	d0, d1 := serverDoc(0, t0, 500), serverDoc(1, t0, 500)
	d0.ServerSide, d1.ServerSide = nil, nil
	d1.Properties["clientindex"] = "1"
	d0.Series, d1.Series = series(0.1018), series(0.0992)
	m, err := Merge([]*Doc{d0, d1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Series) < 4 || m.Series[0].Operations != 200 {
		t.Errorf("merged series %+v: want the clients' intervals added", m.Series)
	}
}
