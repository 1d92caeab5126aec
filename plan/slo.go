package plan

import (
	"fmt"
	"math"
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
	// before it ends (the steps beyond the first break show the peak).
	After int
	// MaxFailedPct, when ≥ 0, also bounds failed operations (percent of
	// all): a step that answers fast by failing does not meet the SLO.
	MaxFailedPct float64
	Line         int
}

var sloPercentiles = map[string]float64{"p50": 50, "p90": 90, "p95": 95, "p99": 99, "p99.9": 99.9, "p99.99": 99.99}

func (p *Plan) parseSLO(v *yaml.Node, errf errFunc) error {
	if v.Kind != yaml.MappingNode {
		return errf(v.Line, "slo: want a mapping (latency, bound_ms, operation, step, after, max_failed_percent)")
	}
	s := &SLO{Latency: "p99", MaxFailedPct: -1, Line: v.Line}
	var bound float64 = -1
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		var err error
		switch k.Value {
		case "latency":
			err = val.Decode(&s.Latency)
			if _, ok := sloPercentiles[s.Latency]; err == nil && !ok && s.Latency != "mean" {
				err = errf(val.Line, "slo latency %q: use mean, p50, p90, p95, p99, p99.9 or p99.99", s.Latency)
			}
		case "bound_ms":
			err = decodeNumber(val, &bound, errf, "a bound in milliseconds > 0")
			if err == nil && bound == 0 {
				err = errf(val.Line, "slo bound_ms must be above 0")
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
			err = decodeNumber(val, &s.After, errf, "a number of steps ≥ 0")
		case "max_failed_percent":
			err = decodeNumber(val, &s.MaxFailedPct, errf, "a percentage from 0 to 100")
			if err == nil && s.MaxFailedPct > 100 {
				err = errf(val.Line, "%q is not a percentage from 0 to 100", short(val.Value))
			}
		default:
			err = errf(k.Line, "slo: unknown key %q (known: latency, bound_ms, operation, step, after, max_failed_percent)", short(k.Value))
		}
		if err != nil {
			if _, ok := err.(*Error); ok {
				return err
			}
			return errf(val.Line, "slo %s: %s", k.Value, oneLine(err.Error()))
		}
	}
	if bound < 0 {
		return errf(v.Line, "slo: no bound_ms given")
	}
	s.BoundUs = bound * 1000
	s.Percentile = sloPercentiles[s.Latency]
	p.SLO = s
	return nil
}

// checkSLO fixes the stepped dimension and requires its values ascending.
func (p *Plan) checkSLO(errf errFunc) error {
	s := p.SLO
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
	return us <= s.BoundUs && (s.MaxFailedPct < 0 || failed <= s.MaxFailedPct)
}

// String describes the SLO: "p99 ≤ 1 ms (every operation)".
func (s *SLO) String() string {
	op := "every operation"
	if s.Operation != "" {
		op = s.Operation
	}
	out := fmt.Sprintf("%s ≤ %s ms (%s, stepping %s)", s.Latency, strconv.FormatFloat(s.BoundUs/1000, 'f', -1, 64), op, s.Step)
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
