package result

import (
	"fmt"
	"strconv"
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
	bytes := func(n float64) Source {
		return Source{Name: "dynamodb", Kind: SourceClient, PerClient: true,
			Series: []Series{{Name: "sent_bytes", Unit: "B/s", Counter: true, Points: [][2]float64{{1, n}}, Total: n}}}
	}
	d0 := serverDoc(0, t0, 100, units(10, 20, 30), host, bytes(1000))
	d1 := serverDoc(1, t0, 300, units(5, 5, 10), bytes(3000))
	d1.Properties["clientindex"] = "1"
	m, err := Merge([]*Doc{d0, d1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.ServerSide.Sources) != 3 {
		t.Fatalf("sources %+v", m.ServerSide.Sources)
	}
	// Each client's connections' bytes add up, apart from the binding's
	// source of the same name.
	if sent := m.ServerSide.Find(SourceClient, "dynamodb").Get("sent_bytes", ""); sent.Total != 4000 || sent.PerOperation != 10 {
		t.Errorf("bytes sent merged %+v: want 4,000, 10 per operation", sent)
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

// Clients sample on their own ticks and measure for different lengths:
// their per-client points are merged by interval, in time order (a
// client of one point at 0.5 s and another of points at 0.3 and 0.45 s
// made a merged result out of time order, which every reader refused).
func TestMergeServerSidePointsInTimeOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	sent := func(pts ...[2]float64) Source {
		return Source{Name: "cassandra", Kind: SourceClient, PerClient: true,
			Series: []Series{{Name: "sent_bytes", Unit: "B/s", Counter: true, Points: pts}}}
	}
	docs := []*Doc{
		serverDoc(0, t0, 10, sent([2]float64{1.02, 10})),
		serverDoc(1, t0, 10, sent([2]float64{0.3, 1}, [2]float64{0.98, 2}, [2]float64{2.01, 4})),
		serverDoc(2, t0, 10, sent([2]float64{1.1, 100}, [2]float64{3, 1000})),
	}
	for i, d := range docs {
		d.Properties["clientindex"], d.Properties["clients"] = strconv.Itoa(i), "3"
	}
	m, err := Merge(docs)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Validate(); err != nil {
		t.Fatalf("the merged result: %v", err)
	}
	got := m.ServerSide.Find(SourceClient, "cassandra").Get("sent_bytes", "").Points
	want := [][2]float64{{0.3, 1}, {1.02, 112}, {2.01, 4}, {3, 1000}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("points %v, want %v", got, want)
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
		{Source{Name: "x", Kind: SourceBinding, Dropped: -1}, "a negative count"},
		{Source{Name: "x", Kind: SourceBinding, Failed: -5}, "a negative count"},
	} {
		err := serverDoc(0, t0, 1, c.src).Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.src, err, c.want)
		}
	}
}

// Two clients whose interval boundaries move with the drains' timing (as
// seen on a busy machine for 100 ms intervals: from 79 to 201 ms) still
// merge into one time series, interval by interval. Found as an empty
// merged series in a spread run of half a second.
func TestMergeSeriesJitter(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	d0, d1 := serverDoc(0, t0, 500), serverDoc(1, t0, 500)
	d0.ServerSide, d1.ServerSide = nil, nil
	d1.Properties["clientindex"] = "1"
	// Their medians differ by a fifth.
	d0.Series = intervals(0, 0.1018, 0.2020, 0.3561, 0.4384, 0.5360)
	d1.Series = intervals(0, 0.0992, 0.2146, 0.3355, 0.4607, 0.5812)
	m, err := Merge([]*Doc{d0, d1})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range m.Series {
		if p.Operations != 200 {
			t.Errorf("slot at %v s: %d operations, want both clients' 100", p.StartS, p.Operations)
		}
	}
	if len(m.Series) < 3 {
		t.Errorf("merged series %+v: want the clients' intervals added", m.Series)
	}
}

// Two intervals of one client that round to the same slot count that
// client once: a slot the other client has no interval in is not merged.
func TestMergeSeriesSlotOnce(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	d0, d1 := serverDoc(0, t0, 500), serverDoc(1, t0, 300)
	d0.ServerSide, d1.ServerSide = nil, nil
	d1.Properties["clientindex"] = "1"
	d0.Series = intervals(0, 0.1, 0.26, 0.34, 0.5) // slots 0, 1, 3, 3
	d1.Series = intervals(0, 0.1, 0.2, 0.3)        // slots 0, 1, 2
	m, err := Merge([]*Doc{d0, d1})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Series) != 2 || m.Series[1].StartS != 0.1 {
		t.Errorf("merged %+v: want the slots both clients have, 0 and 0.1 s", m.Series)
	}
}

// intervals is a client's time series with these boundaries, 100 reads in
// each interval.
func intervals(bounds ...float64) []Point {
	var pts []Point
	for i := 1; i < len(bounds); i++ {
		pts = append(pts, Point{StartS: bounds[i-1], EndS: bounds[i], Operations: 100, Throughput: 1000, Ops: PointOps{{Name: "READ", PointOp: PointOp{Count: 100}}}})
	}
	return pts
}

// Clients' per-client points merged past what a result may hold make the
// merge fail, not a result that every reader refuses.
func TestMergeServerSidePointsBounded(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	half := MaxSamples/2 + 1
	docs := make([]*Doc, 2)
	for c := range docs {
		pts := make([][2]float64, half)
		for i := range pts {
			pts[i] = [2]float64{float64(2*i + c), 1}
		}
		docs[c] = serverDoc(c, t0, 10, Source{Name: "redis", Kind: SourceClient, PerClient: true,
			Series: []Series{{Name: "sent_bytes", Unit: "B/s", Counter: true, Points: pts}}})
	}
	if _, err := Merge(docs); err == nil || !strings.Contains(err.Error(), "more than a result holds") {
		t.Errorf("merged %d points each: %v", half, err)
	}
}
