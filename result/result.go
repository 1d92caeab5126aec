package result

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
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

// Stop tells why a run ended.
type Stop string

// Reasons a run ends.
const (
	Completed    Stop = "completed"        // every thread did its operations
	TimeLimit    Stop = "maxexecutiontime" // the time limit was reached
	Interrupted  Stop = "interrupted"      // SIGINT/SIGTERM or the caller's context
	Failed       Stop = "failed"           // the run could not go on (see Doc.Error)
	LoadFailures Stop = "load-failures"    // loading threads stopped on failed inserts
	Settled      Stop = "until"            // its figures' intervals met the until bounds
)

// Finished reports whether a run ended as planned: every operation done,
// the time limit reached, or its figures sure (until).
func (s Stop) Finished() bool { return slices.Contains(FinishedStops, s) }

// FinishedStops are the stops a run that ended as planned has.
var FinishedStops = []Stop{Completed, TimeLimit, Settled}

// Doc is the JSON result of one run (one load or run phase of one client).
type Doc struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// ID is the run's identity, random (NewID); a merged result's is made
	// from its clients' (theirs are in ClientRuns), so that no run is
	// counted twice by merging a merged result with one of its clients.
	ID          string      `json:"id,omitempty"`
	Environment Environment `json:"environment"`
	Command     string      `json:"command"` // load or run
	Binding     string      `json:"binding"`
	Server      string      `json:"server,omitempty"` // the server's own version string
	// ServerSettings are how the deployment's servers were set up, as its
	// plan states them (a deployment's server:, properties
	// server.setting.NAME): the storage engine, shards, persistence,
	// replicas. servbench records them; it does not check them.
	ServerSettings Settings `json:"server_settings,omitempty"`
	Driver         string   `json:"driver,omitempty"` // the client library, its version and how it is used
	Workload       string   `json:"workload,omitempty"`
	Label          string   `json:"label,omitempty"`
	// QueryModel says how the binding answers queries: the database's own
	// secondary index, or a data-model change or emulation.
	QueryModel string    `json:"query_model,omitempty"`
	Properties Settings  `json:"properties"` // every property in force, credentials redacted
	Threads    int       `json:"threads"`
	Rate       float64   `json:"target_ops_per_sec,omitempty"`
	Seed       uint64    `json:"seed"`
	Start      time.Time `json:"start"`
	End        time.Time `json:"end"`
	RuntimeMs  float64   `json:"runtime_ms"`
	WarmupMs   float64   `json:"warmup_ms,omitempty"`
	// YCSBRuntimeMs is the runtime as YCSB counts its RunTime: the
	// binding's connecting and each thread's start and cleanup included,
	// warmup not (0: not measured; a merged phase: its slowest client's).
	YCSBRuntimeMs float64 `json:"ycsb_runtime_ms,omitempty"`
	Stop          Stop    `json:"stop"`
	Error         string  `json:"error,omitempty"`
	Stuck         int     `json:"stuck_threads,omitempty"`
	// Abandoned counts operations the run stopped before they finished
	// (Ctrl-C, or still inside the binding when the stop grace ran out):
	// neither successes nor failures.
	Abandoned int64 `json:"abandoned,omitempty"`
	// ClientCPUS is the CPU time the client process used while the phase
	// ran (warmup included; an embedded store's work too), in seconds:
	// with the operations, what the client cost. Merged results sum it.
	ClientCPUS float64 `json:"client_cpu_s,omitempty"`
	// ClientSchedP99Us is the 99th percentile of how long the client's
	// goroutines waited to run while the phase ran (the Go runtime's
	// /sched/latencies), in µs: the client's own scheduling, which every
	// latency it measured includes. Merged results keep the largest.
	ClientSchedP99Us float64 `json:"client_sched_p99_us,omitempty"`
	// Clients is the number of client results merged into this one
	// (servbench merge); 0 for a single client\'s.
	Clients int `json:"clients,omitempty"`
	// Clock is this client's clock against its coordinator's, measured
	// before the start from its coordinator's time (a spread phase's client):
	// Start and End are then on the coordinator's clock.
	Clock *Clock `json:"clock,omitempty"`
	// ClientRuns are, in a merged result, the merged clients one by one.
	ClientRuns ClientRunList `json:"client_runs,omitempty"`

	Operations   int64   `json:"operations"`    // client operations, any outcome (YCSB's count)
	Throughput   float64 `json:"throughput"`    // operations / runtime, as YCSB
	OKOperations int64   `json:"ok_operations"` // operations that succeeded
	Goodput      float64 `json:"goodput"`       // ok_operations / runtime

	Ops      Ops       `json:"ops"`
	Schedule *Schedule `json:"schedule,omitempty"`
	// Cleanup is each thread's release of its binding state after the run
	// (YCSB's CLEANUP).
	Cleanup *Latency `json:"cleanup,omitempty"`
	// CleanupHistograms are CLEANUP's service times by outcome, encoded as
	// an operation's Histograms: what YCSB's text report prints of it, also
	// from a merged result.
	CleanupHistograms Bounded[string] `json:"cleanup_histograms,omitempty"`
	// Histogram geometry of every encoded histogram: nanoseconds.
	HistogramUnit string     `json:"histogram_unit"`
	Series        TimeSeries `json:"timeseries"`
	// Stages are a shaped load's stages (stages), each measured apart.
	Stages StageList `json:"stages,omitempty"`
	// Imported names where a result not measured by servbench came from
	// ("YCSB text output run1.txt": servbench import ycsb).
	Imported string `json:"imported,omitempty"`
	// ServerSide is what the servers and their hosts did during the run,
	// when sampled.
	ServerSide *ServerSide `json:"server_side,omitempty"`
	// Until is how the run's figures stood against its until bounds when
	// it ended (until.throughput, until.p99; nil without them).
	Until *Until `json:"until,omitempty"`
}

// Until is a run's figures against its until bounds: each bounded
// figure's 95% interval (from batch means of its measured intervals), its
// half-width as a percentage of its mean.
type Until struct {
	ThroughputBoundPct float64 `json:"throughput_bound_pct,omitempty"`
	P99BoundPct        float64 `json:"p99_bound_pct,omitempty"`
	// Met: every bounded figure was within its bound when it ended.
	Met     bool `json:"met"`
	Batches int  `json:"batches"`
	// ThroughputPct and P99Pct (by operation) are the intervals, omitted
	// while there were too few batches to give one.
	ThroughputPct float64          `json:"throughput_pct,omitempty"`
	P99Pct        Bounded[float64] `json:"p99_pct,omitempty"`
}

// OpResult is one operation's totals.
type OpResult struct {
	Name     string         `json:"name"`
	Count    int64          `json:"count"`
	Outcomes Bounded[int64] `json:"outcomes"`
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
	Histograms Bounded[string] `json:"histograms"`
	// Errors holds the first error message of each failed outcome, with
	// credentials hidden.
	Errors             Bounded[string] `json:"errors,omitempty"`
	ResponseHistograms Bounded[string] `json:"response_histograms,omitempty"`
}

// Schedule describes how late operations started behind their intended
// start (only with a target rate).
type Schedule struct {
	Lag           *Latency `json:"lag"`
	LateThreshold float64  `json:"late_threshold_us"`
	Late          int64    `json:"late_operations"`
	Histogram     string   `json:"histogram"`
}

// TimeSeries is a run's time series, an interval a point.
type TimeSeries []Point

// MaxPoints bounds the intervals a result's time series may hold: a
// day's run at a tenth of a second has 864,000. A point takes about ten
// times its JSON text in memory (its map of operations), so the file's
// size alone bounded a reader's memory at gigabytes.
const MaxPoints = 1 << 20

// pointsBound is the bound UnmarshalJSON applies: MaxPoints, lowered by
// a test that reads past it without a million intervals.
var pointsBound = MaxPoints

// MaxPointOps bounds the operations one interval may name.
const MaxPointOps = 1 << 10

// UnmarshalJSON reads the points one at a time, refusing the one past
// MaxPoints before memory is given to it.
func (s *TimeSeries) UnmarshalJSON(b []byte) error {
	list, err := decodeList(b, "timeseries", "intervals", pointsBound, func(*Point, int) error { return nil }) // each interval's operations bounded by PointOps
	*s = list
	return err
}

// Point is one interval of the time series.
type Point struct {
	StartS float64 `json:"start_s"`
	EndS   float64 `json:"end_s"`
	// Partial marks a last interval shorter than the others (a sliver is
	// merged into the one before it instead).
	Partial    bool     `json:"partial,omitempty"`
	Operations int64    `json:"operations"`
	Throughput float64  `json:"throughput"`
	Ops        PointOps `json:"ops"`
}

// PointOp is one operation within an interval.
type PointOp struct {
	Count     int64          `json:"count"`
	Failed    Bounded[int64] `json:"failed,omitempty"`
	MeanUs    float64        `json:"mean_us"`
	P50Us     float64        `json:"p50_us"`
	P99Us     float64        `json:"p99_us"`
	P999Us    float64        `json:"p999_us"`
	MaxUs     float64        `json:"max_us"`
	RespP99Us float64        `json:"response_p99_us,omitempty"`
	Histogram string         `json:"histogram,omitempty"` // service time, all outcomes
}

// SetServiceTime fills the operation's service-time figures (mean, p50,
// p99, p99.9, max, the encoded histogram) from h, its histogram of the
// interval over every outcome.
func (o *PointOp) SetServiceTime(h *hdr.Histogram) { o.SetFigures(h, Encode(h)) }

// SetFigures is SetServiceTime with h's encoding given (text).
func (o *PointOp) SetFigures(h *hdr.Histogram, text string) {
	us := func(ns int64) float64 { return float64(ns) / 1000 }
	o.MeanUs, o.P50Us, o.P99Us = h.Mean()/1000, us(h.ValueAtPercentile(50)), us(h.ValueAtPercentile(99))
	o.P999Us, o.MaxUs, o.Histogram = us(h.ValueAtPercentile(99.9)), us(h.Max()), text
}

// Encode returns h in HdrHistogram's standard text encoding (base64 of
// the compressed V2 form); "" for an empty histogram.
func Encode(h *hdr.Histogram) string {
	if h == nil || h.TotalCount() == 0 {
		return ""
	}
	b, err := h.Encode(hdr.V2CompressedEncodingCookieBase) // already base64 text
	if err != nil {
		return ""
	}
	return string(b)
}

// Succeeded reports whether an outcome name (a key of OpResult.Outcomes)
// counts as a success: OK and BATCHED_OK, as YCSB's Status.isOk.
func Succeeded(outcome string) bool { return outcome == "OK" || outcome == "BATCHED_OK" }

// DecodeHistogram decodes a histogram from a result document: the standard
// encoding, or the doubly base64-encoded one of version 1 documents.
func DecodeHistogram(s string) (*hdr.Histogram, error) {
	if err := checkGeometry(s); err != nil {
		return nil, fmt.Errorf("histogram: %w", err)
	}
	h, err := hdr.Decode([]byte(s))
	if err == nil {
		return h, nil
	}
	if b, err1 := base64.StdEncoding.DecodeString(s); err1 == nil && checkGeometry(string(b)) == nil {
		if h, err1 := hdr.Decode(b); err1 == nil {
			return h, nil
		}
	}
	return nil, fmt.Errorf("histogram: %w", err)
}

// WriteJSON writes the document, indented.
func WriteJSON(w io.Writer, d *Doc) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// Clock is a client's clock against its coordinator's: OffsetMs is the
// coordinator's time minus the client's, known within ± RTTMs/2.
type Clock struct {
	OffsetMs float64 `json:"offset_ms"`
	RTTMs    float64 `json:"rtt_ms"`
}

// ClientRun is one client of a merged result: where it ran, how busy it
// was and how far its clock was from the coordinator's.
type ClientRun struct {
	Index      int     `json:"index"`        // clientindex; -1 when the result does not say
	ID         string  `json:"id,omitempty"` // the client's run (Doc.ID)
	Label      string  `json:"label,omitempty"`
	Hostname   string  `json:"hostname,omitempty"`
	Cores      int     `json:"cores"` // the cores it could use (GOMAXPROCS)
	Operations int64   `json:"operations"`
	CPUPct     float64 `json:"cpu_pct"` // its CPU time over its runtime × cores, in %
	Clock      *Clock  `json:"clock,omitempty"`
}

// BusyClientPct is the share of its cores above which a client is called
// busy: it may be the limit of the run, not the database.
const BusyClientPct = 80

// usableCores is how many cores the client could use: GOMAXPROCS when
// fewer than the machine's (0 when not recorded).
func (e Environment) usableCores() int {
	if g := e.GOMAXPROCS; g > 0 && (e.Cores == 0 || g < e.Cores) {
		return g
	}
	return e.Cores
}

// cpuPct is the share of its usable cores the run's client used, in %
// (0 when not recorded).
func (d *Doc) cpuPct() float64 {
	cores := d.Environment.usableCores()
	if cores == 0 || d.RuntimeMs <= 0 {
		return 0
	}
	return 100 * d.ClientCPUS / (d.RuntimeMs / 1000 * float64(cores))
}

// MeasuredClients are d's clients one by one (d itself when it is not
// merged), for their CPU; none when the run lasted less than a second,
// which is mostly start-up.
func (d *Doc) MeasuredClients() []ClientRun {
	switch {
	case d.RuntimeMs < 1000:
		return nil
	case len(d.ClientRuns) > 0:
		return d.ClientRuns
	}
	return []ClientRun{d.clientRun()}
}

// BusyClients lists the clients of d that used more than BusyClientPct of
// their cores (see MeasuredClients).
func (d *Doc) BusyClients() []ClientRun {
	var busy []ClientRun
	for _, r := range d.MeasuredClients() {
		if r.CPUPct > BusyClientPct {
			busy = append(busy, r)
		}
	}
	return busy
}

func (d *Doc) clientRun() ClientRun {
	r := ClientRun{Index: -1, ID: d.ID, Label: d.Label, Hostname: d.Environment.Hostname, Cores: d.Environment.usableCores(),
		Operations: d.Operations, CPUPct: d.cpuPct(), Clock: d.Clock}
	if i, err := strconv.Atoi(d.Properties["clientindex"]); err == nil {
		r.Index = i
	}
	return r
}

// NewID is a new run identity: 32 random hexadecimal digits.
func NewID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// mergedID is the identity of the merge of runs ids: the same runs give
// the same identity.
func mergedID(ids []string) string {
	sorted := slices.Clone(ids)
	slices.Sort(sorted)
	h := sha256.Sum256([]byte(strings.Join(sorted, ",")))
	return hex.EncodeToString(h[:16])
}

// StageResult is one stage of a shaped load as measured: its time within
// the measured run (seconds), the rate it asked (from and to: a ramp, or
// equal: a step), and what the intervals whose middle fell in it did.
type StageResult struct {
	StartS     float64  `json:"start_s"`
	EndS       float64  `json:"end_s"`
	FromRate   float64  `json:"from_ops_per_sec"`
	ToRate     float64  `json:"to_ops_per_sec"`
	Operations int64    `json:"operations"`
	Throughput float64  `json:"throughput"`
	Ops        StageOps `json:"ops,omitempty"`
}

// StageOp is one operation within a stage: its count, and its service
// time's mean and p99 from the intervals' histograms merged.
type StageOp struct {
	Count  int64   `json:"count"`
	MeanUs float64 `json:"mean_us"`
	P99Us  float64 `json:"p99_us"`
}
