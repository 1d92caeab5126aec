package report

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/measure"
	"github.com/servbench/servbench/runner"
)

// Format and FormatVersion identify servbench result documents. The
// version changes whenever a field changes meaning or is removed.
const (
	Format        = "servbench-result"
	FormatVersion = 1
)

// Doc is the JSON result of one run (one load or run phase of one client).
type Doc struct {
	Format      string      `json:"format"`
	Version     int         `json:"version"`
	Environment Environment `json:"environment"`
	Command     string      `json:"command"` // load or run
	Binding     string      `json:"binding"`
	Server      string      `json:"server,omitempty"` // the server's own version string
	Workload    string      `json:"workload,omitempty"`
	Label       string      `json:"label,omitempty"`
	// QueryModel says how the binding answers queries: the database's own
	// secondary index, or a data-model change or emulation.
	QueryModel string            `json:"query_model,omitempty"`
	Properties map[string]string `json:"properties"` // every property in force, credentials redacted
	Threads    int               `json:"threads"`
	Target     float64           `json:"target_ops_per_sec,omitempty"`
	Seed       uint64            `json:"seed"`
	Start      time.Time         `json:"start"`
	End        time.Time         `json:"end"`
	RuntimeMs  float64           `json:"runtime_ms"`
	WarmupMs   float64           `json:"warmup_ms,omitempty"`
	Stop       string            `json:"stop"` // completed, maxexecutiontime, interrupted, failed, load-failures
	Error      string            `json:"error,omitempty"`
	Stuck      int               `json:"stuck_threads,omitempty"`
	// Clients is the number of client results merged into this one
	// (servbench merge); 0 for a single client\'s.
	Clients int `json:"clients,omitempty"`

	Operations   int64   `json:"operations"`    // client operations, any outcome (YCSB's count)
	Throughput   float64 `json:"throughput"`    // operations / runtime, as YCSB
	OKOperations int64   `json:"ok_operations"` // operations that succeeded
	Goodput      float64 `json:"goodput"`       // ok_operations / runtime

	Ops      []OpResult `json:"ops"`
	Schedule *Schedule  `json:"schedule,omitempty"`
	// Histogram geometry of every encoded histogram: nanoseconds.
	HistogramUnit string  `json:"histogram_unit"`
	Series        []Point `json:"timeseries"`
}

// OpResult is one operation's totals.
type OpResult struct {
	Name     string           `json:"name"`
	Count    int64            `json:"count"`
	Outcomes map[string]int64 `json:"outcomes"`
	// Latency of successful operations (service time: actual start to
	// end), and of failed ones.
	Latency       *Latency `json:"latency,omitempty"`
	LatencyFailed *Latency `json:"latency_failed,omitempty"`
	// Response time (intended start to end) when a target rate was set.
	Response       *Latency `json:"response,omitempty"`
	ResponseFailed *Latency `json:"response_failed,omitempty"`
	// Histograms per outcome in HdrHistogram's compressed V2 encoding
	// (base64), so results of several clients merge exactly.
	Histograms         map[string]string `json:"histograms"`
	ResponseHistograms map[string]string `json:"response_histograms,omitempty"`
}

// Schedule describes how late operations started behind their intended
// start (only with a target rate).
type Schedule struct {
	Lag           *Latency `json:"lag"`
	LateThreshold float64  `json:"late_threshold_us"`
	Late          int64    `json:"late_operations"`
	Histogram     string   `json:"histogram"`
}

// Point is one interval of the time series.
type Point struct {
	StartS     float64            `json:"start_s"`
	EndS       float64            `json:"end_s"`
	Operations int64              `json:"operations"`
	Throughput float64            `json:"throughput"`
	Ops        map[string]PointOp `json:"ops"`
}

// PointOp is one operation within an interval.
type PointOp struct {
	Count     int64            `json:"count"`
	Failed    map[string]int64 `json:"failed,omitempty"`
	MeanUs    float64          `json:"mean_us"`
	P50Us     float64          `json:"p50_us"`
	P99Us     float64          `json:"p99_us"`
	P999Us    float64          `json:"p999_us"`
	MaxUs     float64          `json:"max_us"`
	RespP99Us float64          `json:"response_p99_us,omitempty"`
	Histogram string           `json:"histogram,omitempty"` // service time, all outcomes
}

// Meta is what the caller knows about a run beyond the runner's Result.
type Meta struct {
	Command, Binding, Server, Workload, Label, QueryModel string
	Properties                                            map[string]string
}

func encode(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}

// ReadFile reads a result document written by WriteJSON.
func ReadFile(path string) (*Doc, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var d Doc
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("%s: not a result file: %w", path, err)
	}
	if d.Format != Format {
		return nil, fmt.Errorf("%s: not a servbench result (format %q)", path, d.Format)
	}
	return &d, nil
}

// DecodeHistogram decodes a histogram from a result document.
func DecodeHistogram(s string) (*hdr.Histogram, error) {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	return hdr.Decode(b)
}

var isOK = func(s db.Status) bool { return s.IsOK() }
var isFailed = func(s db.Status) bool { return !s.IsOK() }
var anyStatus = func(db.Status) bool { return true }

// NewDoc builds the JSON document for a run.
func NewDoc(res *runner.Result, series []Point, m Meta, o Options) *Doc {
	all, ok := res.Total.ClientOps()
	d := &Doc{
		Format: Format, Version: FormatVersion, Environment: CurrentEnvironment(),
		Command: m.Command, Binding: m.Binding, Server: m.Server, Workload: m.Workload, Label: m.Label,
		QueryModel: m.QueryModel, Properties: m.Properties, Threads: res.Threads, Target: res.Config.Target, Seed: res.Config.Seed,
		Start: res.Start, End: res.End,
		RuntimeMs: ms(res.Runtime), WarmupMs: ms(res.Warmup),
		Stop: string(res.Reason), Stuck: res.StuckThreads,
		Operations: all, OKOperations: ok,
		Throughput: throughput(all, res.Runtime), Goodput: throughput(ok, res.Runtime),
		HistogramUnit: "ns",
	}
	if res.Err != nil {
		d.Error = res.Err.Error()
	}
	pcts := DefaultPercentiles
	t := res.Total
	for op := measure.Op(0); op < measure.NumOps; op++ {
		if t.OpCount(op) == 0 {
			continue
		}
		r := OpResult{
			Name: op.String(), Count: t.OpCount(op), Outcomes: map[string]int64{},
			Latency:        summarize(t.Merged(op, false, isOK), pcts),
			LatencyFailed:  summarize(t.Merged(op, false, isFailed), pcts),
			Response:       summarize(t.Merged(op, true, isOK), pcts),
			ResponseFailed: summarize(t.Merged(op, true, isFailed), pcts),
			Histograms:     map[string]string{},
		}
		for s := db.Status(0); s < db.NumStatus; s++ {
			if n := t.Count(op, s); n > 0 {
				r.Outcomes[s.String()] = n
				r.Histograms[s.String()] = encode(t.Service[op][s])
				if e := encode(t.Response[op][s]); e != "" {
					if r.ResponseHistograms == nil {
						r.ResponseHistograms = map[string]string{}
					}
					r.ResponseHistograms[s.String()] = e
				}
			}
		}
		d.Ops = append(d.Ops, r)
	}
	if t.Lag != nil && t.Lag.TotalCount() > 0 {
		d.Schedule = &Schedule{
			Lag:           summarize(t.Lag, pcts),
			LateThreshold: float64(o.LateThreshold.Microseconds()),
			Late:          countAbove(t.Lag, int64(o.LateThreshold)),
			Histogram:     encode(t.Lag),
		}
	}
	d.Series = series
	return d
}

// Series keeps the time series of a run as compact points; it is a
// runner.Observer.
type Series struct{ Points []Point }

// Interval implements runner.Observer: it keeps intervals that end after
// warmup.
func (s *Series) Interval(p runner.Progress) {
	if p.Warmup || p.End <= p.Start {
		return
	}
	s.Points = append(s.Points, newPoint(p.Start, p.End, p.Interval))
}

func newPoint(start, end time.Duration, set *measure.Set) Point {
	all, _ := set.ClientOps()
	pt := Point{
		StartS: start.Seconds(), EndS: end.Seconds(), Operations: all,
		Throughput: throughput(all, end-start), Ops: map[string]PointOp{},
	}
	for op := measure.Op(0); op < measure.NumOps; op++ {
		n := set.OpCount(op)
		if n == 0 {
			continue
		}
		h := set.Merged(op, false, anyStatus)
		po := PointOp{
			Count: n, MeanUs: h.Mean() / 1000, P50Us: us(h.ValueAtPercentile(50)),
			P99Us: us(h.ValueAtPercentile(99)), P999Us: us(h.ValueAtPercentile(99.9)),
			MaxUs: us(h.Max()), Histogram: encode(h),
		}
		if r := set.Merged(op, true, anyStatus); r != nil {
			po.RespP99Us = us(r.ValueAtPercentile(99))
		}
		for s := db.Status(0); s < db.NumStatus; s++ {
			if c := set.Count(op, s); c > 0 && !s.IsOK() {
				if po.Failed == nil {
					po.Failed = map[string]int64{}
				}
				po.Failed[s.String()] = c
			}
		}
		pt.Ops[op.String()] = po
	}
	return pt
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// WriteJSON writes the document, indented.
func WriteJSON(w io.Writer, d *Doc) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}
