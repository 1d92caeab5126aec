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
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/runner"
)

// Format and FormatVersion identify servbench result documents. The
// version changes whenever a field changes meaning or is removed.
//
// Version 2: histograms are HdrHistogram's standard text encoding (base64
// of the compressed V2 form, as HdrHistogram's log readers and Decode take
// them), where version 1 wrapped it in base64 a second time; operations the
// run stopped before they finished are counted in "abandoned" and nowhere
// else; CLEANUP has its own field; the last interval of the time series is
// never a sliver.
const (
	Format        = "servbench-result"
	FormatVersion = 2
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
	// Abandoned counts operations the run stopped before they finished
	// (Ctrl-C, or still inside the binding when the stop grace ran out):
	// neither successes nor failures.
	Abandoned int64 `json:"abandoned,omitempty"`
	// Clients is the number of client results merged into this one
	// (servbench merge); 0 for a single client\'s.
	Clients int `json:"clients,omitempty"`

	Operations   int64   `json:"operations"`    // client operations, any outcome (YCSB's count)
	Throughput   float64 `json:"throughput"`    // operations / runtime, as YCSB
	OKOperations int64   `json:"ok_operations"` // operations that succeeded
	Goodput      float64 `json:"goodput"`       // ok_operations / runtime

	Ops      []OpResult `json:"ops"`
	Schedule *Schedule  `json:"schedule,omitempty"`
	// Cleanup is each thread's release of its binding state after the run
	// (YCSB's CLEANUP).
	Cleanup *Latency `json:"cleanup,omitempty"`
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
	// Histograms per outcome in HdrHistogram's standard encoding (base64 of
	// the compressed V2 form, readable by HdrHistogram's own decoders), so
	// results of several clients merge exactly.
	Histograms map[string]string `json:"histograms"`
	// Errors holds the first error message of each failed outcome, with
	// credentials hidden.
	Errors             map[string]string `json:"errors,omitempty"`
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
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	// Partial marks a last interval shorter than the others (a sliver is
	// merged into the one before it instead).
	Partial    bool               `json:"partial,omitempty"`
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
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase) // already base64 text
	if err != nil {
		return ""
	}
	return string(b)
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

// DecodeHistogram decodes a histogram from a result document: the standard
// encoding, or the doubly base64-encoded one of version 1 documents.
func DecodeHistogram(s string) (*hdr.Histogram, error) {
	h, err := hdr.Decode([]byte(s))
	if err == nil {
		return h, nil
	}
	if b, err1 := base64.StdEncoding.DecodeString(s); err1 == nil {
		if h, err1 := hdr.Decode(b); err1 == nil {
			return h, nil
		}
	}
	return nil, fmt.Errorf("histogram: %w", err)
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
		Stop: string(res.Reason), Stuck: res.StuckThreads, Abandoned: res.Abandoned(),
		Operations: all, OKOperations: ok,
		Throughput: throughput(all, res.Runtime), Goodput: throughput(ok, res.Runtime),
		HistogramUnit: "ns",
	}
	if res.Err != nil {
		d.Error = res.Err.Error()
	}
	pcts := DefaultPercentiles
	t := res.Total
	d.Cleanup = summarize(t.Merged(measure.Cleanup, false, anyStatus), pcts)
	for op := measure.Op(0); op < measure.NumOps; op++ {
		if t.OpCount(op) == 0 || !op.IsWorkload() {
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
				if e := t.Errors[op][s]; e != "" {
					if r.Errors == nil {
						r.Errors = map[string]string{}
					}
					r.Errors[s.String()] = props.RedactText(e)
				}
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
// runner.Observer. The run's last interval usually ends between two ticks:
// one shorter than half an interval is merged into the one before it, a
// longer one is kept and marked partial, so no rate or percentile is drawn
// from a sliver.
type Series struct {
	Points []Point

	prev      measure.Set // the last point's interval, for merging a sliver
	prevStart time.Duration
}

// Interval implements runner.Observer: it keeps intervals that end after
// warmup.
func (s *Series) Interval(p runner.Progress) {
	if p.Warmup || p.End <= p.Start {
		return
	}
	n := len(s.Points)
	if p.Final && n > 0 {
		full := s.Points[n-1].EndS - s.Points[n-1].StartS
		if sliver := (p.End - p.Start).Seconds(); sliver < full/2 {
			s.prev.Merge(p.Interval)
			s.Points[n-1] = newPoint(s.prevStart, p.End, &s.prev)
			return
		} else if sliver < full*0.99 {
			pt := newPoint(p.Start, p.End, p.Interval)
			pt.Partial = true
			s.Points = append(s.Points, pt)
			return
		}
	}
	s.Points = append(s.Points, newPoint(p.Start, p.End, p.Interval))
	s.prev.Reset()
	s.prev.Merge(p.Interval)
	s.prevStart = p.Start
}

func newPoint(start, end time.Duration, set *measure.Set) Point {
	all, _ := set.ClientOps()
	pt := Point{
		StartS: start.Seconds(), EndS: end.Seconds(), Operations: all,
		Throughput: throughput(all, end-start), Ops: map[string]PointOp{},
	}
	for op := measure.Op(0); op < measure.NumOps; op++ {
		n := set.OpCount(op)
		if n == 0 || !op.IsWorkload() {
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
