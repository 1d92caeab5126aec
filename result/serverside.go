package result

import (
	"errors"
	"fmt"
	"math"
)

// ServerSide is what the servers and their hosts did during a run, as
// servbench sampled it every interval: the binding's own reading of its
// server's counters (Redis INFO, pg_stat_database, serverStatus ...) and
// any Prometheus endpoint the user named (node_exporter on the database
// hosts). Sampling runs beside the run, never on an operation's path.
type ServerSide struct {
	// IntervalS is the sampling interval, in seconds.
	IntervalS float64 `json:"interval_s"`
	// Sources are what was sampled, each once.
	Sources SourceList `json:"sources"`
}

// Source kinds.
const (
	SourceBinding    = "binding"    // the binding's own reading of its server
	SourcePrometheus = "prometheus" // a Prometheus endpoint, scraped
	SourceClient     = "client"     // the bytes the client's own connections sent and received
)

// Source is one thing sampled: a binding's server, or one endpoint.
type Source struct {
	// Name is the binding's name or the endpoint's URL, credentials
	// redacted.
	Name string `json:"name"`
	Kind string `json:"kind"`
	// PerClient is true for what each client counts of its own
	// operations (DynamoDB's consumed capacity): merged results sum it.
	// Otherwise the source is the server's whole, read by one client.
	PerClient bool `json:"per_client,omitempty"`
	// Error is why the source could not be read, or not all of it (the
	// first failure, one line); Failed counts the samples that failed.
	Error  string `json:"error,omitempty"`
	Failed int    `json:"failed_samples,omitempty"`
	// Missing names what the server does not answer (a stand-in that
	// serves part of serverStatus).
	Missing NameList `json:"missing,omitempty"`
	// Dropped is how many series the source served, in its largest
	// sample, beyond those kept: past the bound on series a source may
	// have, or named with control characters or at length.
	Dropped int        `json:"dropped_series,omitempty"`
	Series  SeriesList `json:"series"`
}

// Series is one quantity of a source over the run.
type Series struct {
	// Name is the quantity ("commands", "cpu_busy_pct"); Node the shard,
	// node or host it is of, when a source has several.
	Name string `json:"name"`
	Node string `json:"node,omitempty"`
	// Unit of the points: for a counter, per second ("ops/s", "B/s").
	Unit string `json:"unit"`
	// Counter is true for a cumulative count: its points are its rate
	// over each interval and Total its growth over the run.
	Counter bool `json:"counter,omitempty"`
	// Points are [seconds from the measured start, value]; negative
	// times fall in the warmup.
	Points SampleList `json:"points"`
	// FromS is when a counter was first read: its first point's rate is
	// over the time from there.
	FromS float64 `json:"from_s,omitempty"`
	// Mean and Max of the points within the measured run.
	Mean float64 `json:"mean"`
	Max  float64 `json:"max"`
	// Total is a counter's growth over the measured run, from its
	// readings (exact without warmup; with one, less the warmup's share
	// of the point across the start); PerOperation that divided by the
	// run's operations.
	Total        float64 `json:"total,omitempty"`
	PerOperation float64 `json:"per_operation,omitempty"`
}

// Find returns the source named name of kind, or nil.
func (s *ServerSide) Find(kind, name string) *Source {
	if s == nil {
		return nil
	}
	for i := range s.Sources {
		if s.Sources[i].Kind == kind && s.Sources[i].Name == name {
			return &s.Sources[i]
		}
	}
	return nil
}

// Get returns the source's series name of node, or nil.
func (s *Source) Get(name, node string) *Series {
	for i := range s.Series {
		if s.Series[i].Name == name && s.Series[i].Node == node {
			return &s.Series[i]
		}
	}
	return nil
}

// Summarise sets Mean and Max from the points of the measured run (times
// after 0; the last sample's, just after the run's end, included) and
// PerOperation from Total and operations.
func (x *Series) Summarise(operations int64) {
	x.Mean, x.Max, x.PerOperation = 0, 0, 0
	n := 0
	for _, p := range x.Points {
		if t, v := p[0], p[1]; t > 0 {
			if n == 0 || v > x.Max {
				x.Max = v
			}
			x.Mean += v
			n++
		}
	}
	if n > 0 {
		x.Mean /= float64(n)
	}
	if x.Counter && operations > 0 {
		x.PerOperation = x.Total / float64(operations)
	}
}

// Sampled reports whether x has a point within the measured run (a time
// after 0). A counter that only fell (a restart at every sample, or no
// counter at all) has none: its mean is unknown, not 0.
func (x *Series) Sampled() bool {
	for _, p := range x.Points {
		if p[0] > 0 {
			return true
		}
	}
	return false
}

// validate checks what a reader relies on: named sources and series,
// finite values, points in time order.
func (s *ServerSide) validate() error {
	if s.IntervalS < 0 || math.IsNaN(s.IntervalS) {
		return errors.New("server_side: interval_s is negative")
	}
	for i, src := range s.Sources {
		if src.Name == "" || (src.Kind != SourceBinding && src.Kind != SourcePrometheus && src.Kind != SourceClient) {
			return fmt.Errorf("server_side: source %d: want a name and kind %s, %s or %s", i+1, SourceBinding, SourcePrometheus, SourceClient)
		}
		if src.Failed < 0 || src.Dropped < 0 {
			return fmt.Errorf("server_side: source %s: a negative count of failed samples or dropped series", cut(src.Name))
		}
		for _, x := range src.Series {
			if x.Name == "" {
				return fmt.Errorf("server_side: source %s: a series has no name", cut(src.Name))
			}
			for j, p := range x.Points {
				if j > 0 && p[0] < x.Points[j-1][0] {
					return fmt.Errorf("server_side: %s %s: points out of time order", cut(src.Name), cut(x.Name))
				}
			}
		}
	}
	return nil
}

// mergeServerSide takes the server's whole from the first client that
// sampled it, and sums what each client counted of its own operations,
// point by point.
func mergeServerSide(docs []*Doc, operations int64) (*ServerSide, error) {
	var m *ServerSide
	for _, d := range docs {
		if d.ServerSide == nil {
			continue
		}
		if m == nil {
			m = &ServerSide{IntervalS: d.ServerSide.IntervalS}
		}
		for _, src := range d.ServerSide.Sources {
			have := m.Find(src.Kind, src.Name)
			switch {
			case have == nil:
				m.Sources = append(m.Sources, cloneSource(src))
			case src.PerClient:
				addSource(have, src, m.IntervalS)
			}
		}
	}
	if m == nil {
		return nil, nil
	}
	for i := range m.Sources {
		for j := range m.Sources[i].Series {
			x := &m.Sources[i].Series[j]
			if len(x.Points) > MaxSamples { // no reader would take the merged result
				return nil, fmt.Errorf("server_side: %s %s: the clients' points merged are %d, more than a result holds (%d)", cut(m.Sources[i].Name), cut(x.Name), len(x.Points), MaxSamples)
			}
			x.Summarise(operations)
		}
	}
	return m, nil
}

func cloneSource(s Source) Source {
	s.Missing = append([]string(nil), s.Missing...)
	series := make([]Series, len(s.Series))
	for i, x := range s.Series {
		x.Points = append([][2]float64(nil), x.Points...)
		series[i] = x
	}
	s.Series = series
	return s
}

// addSource adds a client's per-client counts to have's: its points
// merged in time order with have's, two points of one interval (interval
// s, the sampling's: the clients sample on their own clocks' ticks) summed
// into one at have's time.
func addSource(have *Source, src Source, interval float64) {
	have.Failed += src.Failed
	have.Dropped = max(have.Dropped, src.Dropped)
	if have.Error == "" {
		have.Error = src.Error
	}
	for _, x := range src.Series {
		h := have.Get(x.Name, x.Node)
		if h == nil {
			have.Series = append(have.Series, Series{Name: x.Name, Node: x.Node, Unit: x.Unit, Counter: x.Counter, FromS: x.FromS, Points: append([][2]float64(nil), x.Points...)})
			continue
		}
		h.Total += x.Total
		h.Points = mergePoints(h.Points, x.Points, interval)
	}
}

// mergePoints merges two series' points, each in time order, into one in
// time order, summing two of the same interval (the same time when
// interval is 0).
func mergePoints(a, b [][2]float64, interval float64) [][2]float64 {
	slot := func(t float64) float64 {
		if interval > 0 {
			return math.Round(t / interval)
		}
		return t
	}
	out := make([][2]float64, 0, max(len(a), len(b)))
	i, k := 0, 0
	for i < len(a) || k < len(b) {
		switch {
		case k == len(b) || i < len(a) && slot(a[i][0]) < slot(b[k][0]):
			out = append(out, a[i])
			i++
		case i == len(a) || slot(b[k][0]) < slot(a[i][0]):
			out = append(out, b[k])
			k++
		default:
			out = append(out, [2]float64{a[i][0], a[i][1] + b[k][1]})
			i++
			k++
		}
		if n := len(out); n > 1 && out[n-1][0] < out[n-2][0] { // two of one list in one interval
			out[n-1][0] = out[n-2][0]
		}
	}
	return out
}
