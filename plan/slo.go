package plan

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/servbench/servbench/result"
)

// SLO is a latency bound to search under, as the Fall 2014 study did: step
// client threads (or the target rate) upwards, and keep the highest
// throughput whose latency stays within the bound.
type SLO struct {
	// Latency is what is bounded: "mean" or a percentile, "p99", "p99.9".
	Latency    string
	Percentile float64 // 0 for the mean
	BoundUs    float64
	// Operation is the operation bounded ("READ"); "" bounds every
	// operation of the workload (the worst one decides).
	Operation string
	// Step is the dimension stepped: "threads" or "rate".
	Step string
	// After is how many more steps over the bound the curve may take
	// before it ends (the steps beyond the first break show the peak);
	// -1 (after: all): it never ends before its last listed step.
	After int
	// MaxFailedPct, when ≥ 0, also bounds failed operations (percent of
	// all): a step that answers fast by failing does not meet the SLO.
	MaxFailedPct float64
	Line         int

	// Search, when set ("threads" or "rate"), replaces the walk over
	// listed steps by a capacity search (see Capacity): the highest step
	// meeting each of Bounds, bracketed by doubling from From up to Max
	// (or halving down to 1) and bisected until the interval is at most
	// PrecisionPct of its lower end (at least one thread or one op/s).
	Search       string
	Bounds       []float64 // µs, ascending; BoundUs is the first
	From, Max    float64
	PrecisionPct float64
}

var sloPercentiles = map[string]float64{"p50": 50, "p90": 90, "p95": 95, "p99": 99, "p99.9": 99.9, "p99.99": 99.99}

// parseSLO reads the plan's slo mapping into p.SLO, its bounds sorted
// and in µs.
func (p *Plan) parseSLO(v *yaml.Node, errf errFunc) error {
	if v.Kind != yaml.MappingNode {
		return errf(v.Line, "slo: want a mapping (latency, bound_ms, operation, step, after, max_failed_percent, search, from, max, precision_percent)")
	}
	s := &SLO{Latency: "p99", MaxFailedPct: -1, Line: v.Line, PrecisionPct: 5}
	var bounds []float64
	after := false
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if err := s.decodeKey(k, val, &bounds, &after, errf); err != nil {
			if _, ok := err.(*Error); ok {
				return err
			}
			return errf(val.Line, "slo %s: %s", k.Value, oneLine(err.Error()))
		}
	}
	if len(bounds) == 0 {
		return errf(v.Line, "slo: no bound_ms given")
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	for _, b := range bounds {
		s.Bounds = append(s.Bounds, b*1000)
	}
	s.BoundUs = s.Bounds[0]
	switch {
	case s.Search == "" && (s.From > 0 || s.Max > 0):
		return errf(v.Line, "slo: from and max belong to a search (search: threads or rate)")
	case s.Search != "" && s.Step != "":
		return errf(v.Line, "slo: give step (walk the listed steps) or search (find the capacity), not both")
	case s.Search != "" && after:
		return errf(v.Line, "slo: after belongs to a walk over listed steps (step:); a search ends by itself")
	}
	s.Percentile = sloPercentiles[s.Latency]
	p.SLO = s
	return nil
}

// decodeKey decodes the value val of the slo's key k into s: bound_ms
// into *bounds (ms, as given), and whether after is given into *after.
func (s *SLO) decodeKey(k, val *yaml.Node, bounds *[]float64, after *bool, errf errFunc) error {
	var err error
	switch k.Value {
	case "latency":
		err = val.Decode(&s.Latency)
		if _, ok := sloPercentiles[s.Latency]; err == nil && !ok && s.Latency != "mean" {
			err = errf(val.Line, "slo latency %q: use mean, p50, p90, p95, p99, p99.9 or p99.99", s.Latency)
		}
	case "bound_ms": // one bound, or a list of them
		err = decodeBounds(val, bounds, errf)
	case "search":
		err = val.Decode(&s.Search)
		if err == nil && s.Search != "threads" && s.Search != "rate" {
			err = errf(val.Line, "slo search %q: use threads or rate", short(s.Search))
		}
	case "from", "max":
		dst := &s.From
		if k.Value == "max" {
			dst = &s.Max
		}
		err = decodeNumber(val, dst, errf, "a number of threads or a rate ≥ 1")
		if err == nil && (*dst < 1 || math.IsInf(*dst, 0) || *dst > 1e12) {
			err = errf(val.Line, "slo %s %s: want a number of threads or a rate from 1 to 10^12", k.Value, short(val.Value))
		}
	case "precision_percent":
		err = decodeNumber(val, &s.PrecisionPct, errf, "a percentage above 0 and at most 100")
		if err == nil && (s.PrecisionPct == 0 || s.PrecisionPct > 100) {
			err = errf(val.Line, "slo precision_percent %s: want a percentage above 0 and at most 100", short(val.Value))
		}
	case "operation":
		err = val.Decode(&s.Operation)
		s.Operation = strings.ToUpper(s.Operation)
		if s.Operation == "ANY" {
			s.Operation = ""
		}
	case "step":
		err = val.Decode(&s.Step)
		if err == nil && s.Step != "threads" && s.Step != "rate" {
			err = errf(val.Line, "slo step %q: use threads or rate", s.Step)
		}
	case "after":
		if val.Value == "all" { // every listed step runs: the curve's peak is measured whatever the bound
			s.After = -1
		} else {
			err = decodeNumber(val, &s.After, errf, "a number of steps ≥ 0, or all")
		}
		*after = true
	case "max_failed_percent":
		err = decodeNumber(val, &s.MaxFailedPct, errf, "a percentage from 0 to 100")
		if err == nil && s.MaxFailedPct > 100 {
			err = errf(val.Line, "%q is not a percentage from 0 to 100", short(val.Value))
		}
	default:
		err = errf(k.Line, "slo: unknown key %q (known: latency, bound_ms, operation, step, after, max_failed_percent, search, from, max, precision_percent)", short(k.Value))
	}
	return err
}

// decodeBounds decodes bound_ms, one bound or a list of them, each
// above 0, into *bounds.
func decodeBounds(val *yaml.Node, bounds *[]float64, errf errFunc) error {
	if val.Kind == yaml.SequenceNode {
		err := decodeList(val, bounds, errf, func(x float64) bool { return x > 0 && !math.IsInf(x, 0) }, "a bound in milliseconds > 0")
		if err == nil && len(*bounds) == 0 {
			err = errf(val.Line, "slo bound_ms: an empty list")
		}
		return err
	}
	var bound float64
	err := decodeNumber(val, &bound, errf, "a bound in milliseconds > 0")
	if err == nil && (bound == 0 || math.IsInf(bound, 0)) {
		err = errf(val.Line, "slo bound_ms must be above 0")
	}
	*bounds = []float64{bound}
	return err
}

// checkSLO fixes the stepped dimension and requires its values ascending.
func (p *Plan) checkSLO(errf errFunc) error {
	s := p.SLO
	if s.Search != "" {
		return p.checkSearch(errf)
	}
	if s.Step == "" {
		s.Step = "threads"
		if len(p.Threads) == 1 && len(p.Rates) > 1 {
			s.Step = "rate"
		}
	}
	if s.Step == "rate" {
		for i := 1; i < len(p.Rates); i++ {
			if p.Rates[i] <= p.Rates[i-1] || p.Rates[i-1] == 0 {
				return errf(s.Line, "slo steps the rate: list rates ascending, all above 0 (got %v)", p.Rates)
			}
		}
		return nil
	}
	for i := 1; i < len(p.Threads); i++ {
		if p.Threads[i] <= p.Threads[i-1] {
			return errf(s.Line, "slo steps threads: list threads ascending (got %v)", p.Threads)
		}
	}
	return nil
}

// Value is the step's measure in the SLO's terms: the bounded latency
// (response time from the intended start when the run had a target rate,
// service time otherwise) of the bounded operation, or of the worst
// operation. ok is false when the run has no such operation.
func (s *SLO) Value(d *result.Doc) (us float64, ok bool) {
	for i := range d.Ops {
		op := &d.Ops[i]
		if s.Operation != "" && op.Name != s.Operation {
			continue
		}
		l := op.Latency
		if op.Response != nil {
			l = op.Response
		}
		if l == nil {
			continue
		}
		v := l.MeanUs
		if s.Percentile > 0 {
			v = l.Percentiles[strconv.FormatFloat(s.Percentile, 'f', -1, 64)]
		}
		us, ok = math.Max(us, v), true
	}
	return us, ok
}

// FailedPct is the percentage of a run's operations that failed.
func FailedPct(d *result.Doc) float64 {
	if d.Operations == 0 {
		return 0
	}
	return 100 * float64(d.Operations-d.OKOperations) / float64(d.Operations)
}

// Met reports whether a step with mean latency us and failed percentage
// failed meets the SLO.
func (s *SLO) Met(us, failed float64) bool {
	return s.MetBound(us, failed, s.BoundUs)
}

// MetBound reports whether a step's latency and failures meet one of the
// SLO's bounds (µs).
func (s *SLO) MetBound(us, failed, bound float64) bool {
	return us <= bound && (s.MaxFailedPct < 0 || failed <= s.MaxFailedPct)
}

// String describes the SLO: "p99 ≤ 1 ms (every operation)".
func (s *SLO) String() string {
	op := "every operation"
	if s.Operation != "" {
		op = s.Operation
	}
	var out string
	if s.Search != "" {
		out = fmt.Sprintf("%s ≤ %s ms (%s, searching %s from %g to %g, to %g%%)", s.Latency, msList(s.Bounds), op, s.Search, s.From, s.Max, s.PrecisionPct)
	} else {
		out = fmt.Sprintf("%s ≤ %s ms (%s, stepping %s)", s.Latency, strconv.FormatFloat(s.BoundUs/1000, 'f', -1, 64), op, s.Step)
	}
	if s.MaxFailedPct >= 0 {
		out += fmt.Sprintf(", failed ≤ %s%%", strconv.FormatFloat(s.MaxFailedPct, 'f', -1, 64))
	}
	return out
}

// Series names the curve a cell belongs to when the SLO is searched:
// everything but the stepped dimension and the repetition.
func (s *SLO) Series(c *Run) string {
	fixed := "qmax" // as the run IDs name the rate
	if c.Rate > 0 {
		fixed = "q" + strconv.FormatFloat(c.Rate, 'f', -1, 64)
	}
	if s.Step == "rate" {
		fixed = "t" + strconv.Itoa(c.Threads)
	}
	if c.Clients > 1 {
		fixed += "/c" + strconv.Itoa(c.Clients)
	}
	return fmt.Sprintf("%s/%s/r%d/%s", c.Deployment.Label, c.Workload.Name, c.Records, fixed)
}

// StepValue is the cell's value of the stepped dimension.
func (s *SLO) StepValue(c *Run) float64 {
	if s.Step == "rate" {
		return c.Rate
	}
	return float64(c.Threads)
}

// msList is bounds in µs as milliseconds: "0.6, 1".
func msList(us []float64) string {
	out := make([]string, len(us))
	for i, b := range us {
		out[i] = strconv.FormatFloat(b/1000, 'f', -1, 64)
	}
	return strings.Join(out, ", ")
}

// checkSearch takes the searched dimension's limits from the plan's list
// when the SLO does not give them: its first value is where the search
// starts, its last the most it tries.
func (p *Plan) checkSearch(errf errFunc) error {
	s := p.SLO
	s.Step = s.Search
	if s.Search == "rate" && p.stagesSpan > 0 {
		return errf(s.Line, "slo search rate: stages shape each run's rate; search threads, or give no stages")
	}
	var list []float64
	if s.Search == "rate" {
		list = p.Rates
	} else {
		for _, t := range p.Threads {
			list = append(list, float64(t))
		}
	}
	if len(list) > 2 {
		return errf(s.Line, "slo search %s: list at most two %s (where the search starts and the most it tries), not %d", s.Search, dimWord(s.Search), len(list))
	}
	if s.From == 0 && list[0] > 0 {
		s.From = list[0]
	}
	if s.Max == 0 && len(list) == 2 {
		s.Max = list[1]
	}
	switch {
	case s.From == 0:
		return errf(s.Line, "slo search rate: give from (the rate to start at) or rates: [FROM, MAX]")
	case s.Max == 0:
		return errf(s.Line, "slo search %s: give max (the most %s to try) or %s: [FROM, MAX]", s.Search, dimWord(s.Search), dimWord(s.Search))
	case s.Max < s.From:
		return errf(s.Line, "slo search %s: max %g is below from %g", s.Search, s.Max, s.From)
	case s.Search == "threads" && (s.From != math.Trunc(s.From) || s.Max != math.Trunc(s.Max) || s.Max > maxThreads):
		return errf(s.Line, "slo search threads: from and max are whole numbers of threads up to %d", maxThreads)
	}
	// Every run the search makes is a run of the plan: its IDs name the
	// searched value, and the load uses the most threads it may try.
	if s.Search == "threads" {
		p.Threads = []int{int(s.From)}
		if p.LoadThreads == 0 {
			p.LoadThreads = int(s.Max)
		}
	} else {
		p.Rates = []float64{s.From}
	}
	return nil
}

func dimWord(search string) string {
	if search == "rate" {
		return "rates"
	}
	return "threads"
}

// maxThreads is the most threads a run may have (threadcount's limit).
const maxThreads = 1_000_000
