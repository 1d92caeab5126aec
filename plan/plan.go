// Package plan reads experiment plans: deployments × workloads × record
// counts × thread counts × rates × repetitions, the matrix the published
// NoSQL studies are made of, and expands them into the runs to execute
// (each cell of the matrix once per repetition), in an order that loads each
// deployment's data once per record count. It runs nothing: it imports no
// runner, workload or generator.
package plan

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/servbench/servbench/internal/inputfile"
	"github.com/servbench/servbench/props"
	"go.yaml.in/yaml/v3"
)

// Plan is a parsed plan file.
type Plan struct {
	File string // the path it was read from
	Dir  string // its directory: relative workload files are found from here
	// Reference is a CSV file of published figures the report draws
	// beside the measured ones (reference:, relative to the plan).
	Reference   string
	Name        string
	Deployments []Deployment
	Workloads   []Workload
	Records     []int64
	Threads     []int
	// Clients are the numbers of servbench clients a run is spread over
	// (default 1: one process), a dimension like threads: each run's
	// threads and rate are the whole run's, shared among its clients.
	Clients    []int
	Rates      []float64 // total operations per second; 0 = as fast as possible
	Warmup     float64   // seconds, excluded from the results
	Duration   float64   // seconds per run (maxexecutiontime); 0 = operations decides
	stagesSpan float64   // the stages' seconds, when given (they are the property stages)
	Operations int64     // operations per run; 0 = duration decides
	// OpsPerRecord, when set, makes each run's operation count its record
	// count (operations: records), as studies that scale both do.
	OpsPerRecord bool
	// Repetitions are a cell's runs at most; RepetitionsMin at least: a
	// cell stops between them once its figures' intervals are within
	// Until (repetitions: {min, max, until}). Without until both are the
	// one count given.
	Repetitions    int
	RepetitionsMin int
	Until          *Until
	LoadThreads    int // threads of the load phase (default: the most threads of the plan)
	// Departures are where the plan departs from the study it
	// reproduces, and why.
	Departures []Departure
	// Currency names the prices' currency (USD, EUR, …), for the report.
	Currency   string
	Properties []Property
	SLO        *SLO // nil: run every cell
	// Rehearsal, when set, says the plan is a rehearsal of the plan in
	// File: its shape at a scale, against other endpoints.
	Rehearsal *Rehearsal
}

// Rehearsal is how a plan was reshaped to be rehearsed: its sizes' scale
// and the endpoints its deployments ran against (deployment label or
// binding → URL, credentials hidden where written).
type Rehearsal struct {
	Scale float64           `json:"scale"`
	At    map[string]string `json:"at"`
	// Ends: of the plan's thread steps and rates, the first and the last
	// only (every deployment, workload, record count, client count and
	// repetition still).
	Ends bool `json:"ends,omitempty"`
	// Properties are the rehearsal's own (-p), also those no deployment
	// reads: never written, each secret one known wherever the plan
	// writes.
	Properties []Property `json:"-"`
}

// Deployment is one system at one size under test: a binding with its
// connection properties, cluster size and price. Plans written before 0.2
// call deployments "targets"; the word now means only a rate.
type Deployment struct {
	Label   string
	Binding string
	// System names the product the report compares across cluster sizes
	// (default: the binding); deployments of one system differ in nodes.
	System    string
	Records   []int64 // record counts for this deployment only (default: the plan's)
	Nodes     int     // cluster size, for the report (0: not given)
	PriceHour float64 // price per hour of the configuration (0: not given)
	// LoadRate paces its loads, in records per second over all load
	// threads and clients (load_rate:; 0: as fast as they go): a
	// provisioned table's write capacity, say.
	LoadRate float64
	// Usage are the prices of what a run uses, as providers bill it
	// (usage_prices:; UsageTerms names them), in the plan's currency.
	Usage      map[string]float64
	Properties []Property
	// Setup are the steps run before its loads and workloads.
	Setup []Step
	Line  int
}

// Workload is a built-in workload name or a property file.
type Workload struct {
	Name string // as written
	File string // the property file, resolved against the plan's directory; "" for a built-in
	// Setup are the steps each deployment runs before this workload's
	// runs (a statement only on deployments of its binding).
	Setup []Step
	Line  int
}

// Property is one key=value, in the order written.
type Property struct {
	Key, Value string
	Line       int
	// Source, when set, is where the property comes from instead of the
	// plan's line (a rehearsal's --at or -p).
	Source string
}

// A Departure is where a plan departs from the study it reproduces, and
// why (departures:); the report lists them.
type Departure struct {
	What string `json:"what"`
	Why  string `json:"why"`
	// Seed is where the study says what the plan departs from
	// (file:line), when it says it.
	Seed string `json:"seed,omitempty"`
}

// parseDepartures reads departures: a list of {what, why, seed}.
func (p *Plan) parseDepartures(v *yaml.Node, errf errFunc) error {
	if v.Kind != yaml.SequenceNode {
		return errf(v.Line, "departures: want a list of {what, why, seed}")
	}
	for _, n := range v.Content {
		var d Departure
		if n.Kind != yaml.MappingNode {
			return errf(n.Line, "a departure is a mapping {what, why, seed}")
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			if val.Kind != yaml.ScalarNode {
				return errf(val.Line, "departure %s: want text", short(k.Value))
			}
			switch k.Value {
			case "what":
				d.What = val.Value
			case "why":
				d.Why = val.Value
			case "seed":
				d.Seed = val.Value
			default:
				return errf(k.Line, "departure: unknown key %q (known: what, why, seed)", short(k.Value))
			}
		}
		if strings.TrimSpace(d.What) == "" || strings.TrimSpace(d.Why) == "" {
			return errf(n.Line, "a departure says what and why")
		}
		if len(d.What)+len(d.Why)+len(d.Seed) > 4000 || len(p.Departures) >= 1000 {
			return errf(n.Line, "departures: at most 1,000 of at most 4,000 bytes each")
		}
		p.Departures = append(p.Departures, d)
	}
	return nil
}

// HoursPerMonth converts monthly prices, as cloud price lists do (730 h).
const HoursPerMonth = 730

// Error is a problem in a plan file, with where it is.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// Load reads and checks a plan file. builtin reports whether a workload
// name is built in.
func Load(path string, builtin func(string) bool) (*Plan, error) {
	return LoadContext(context.Background(), path, builtin)
}

// MaxFileBytes is the largest plan file read.
const MaxFileBytes = 16 << 20

// LoadContext is Load that gives way when ctx ends (a named pipe nobody
// writes); a plan is at most MaxFileBytes.
func LoadContext(ctx context.Context, path string, builtin func(string) bool) (*Plan, error) {
	raw, err := inputfile.Read(ctx, path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", path, err)
	}
	return Parse(raw, path, builtin)
}

// Parse reads a plan from its text; path names it in errors.
func Parse(raw []byte, path string, builtin func(string) bool) (*Plan, error) {
	p := &Plan{File: path, Dir: filepath.Dir(path), Repetitions: 1, RepetitionsMin: 1}
	var known *props.Redactor // the plan's secrets, hidden in what its errors quote
	hide := func(msg string) string {
		if known == nil {
			known = Secrets(string(raw))
		}
		return known.Redact(msg)
	}
	errf := func(line int, format string, args ...any) error {
		return &Error{File: path, Line: line, Msg: hide(fmt.Sprintf(format, args...))}
	}
	root, err := rootMapping(raw, errf)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if seen[k.Value] {
			return nil, errf(k.Line, "%q is given twice", short(k.Value))
		}
		seen[k.Value] = true
		if err := p.parseKey(k, v, seen, errf, builtin); err != nil {
			if pe, ok := err.(*Error); ok {
				return nil, pe
			}
			return nil, &Error{File: path, Line: v.Line, Msg: hide(fmt.Sprintf("%s: %s", k.Value, oneLine(err.Error())))}
		}
	}
	if err := p.complete(seen, errf); err != nil {
		return nil, err
	}
	return p, nil
}

// rootMapping decodes the plan's YAML and returns its top-level mapping.
func rootMapping(raw []byte, errf errFunc) (*yaml.Node, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errf(0, "the plan is empty: want a mapping of plan keys (deployments, workloads, records, threads, ...)")
		}
		return nil, errf(0, "%s", oneLine(err.Error()))
	}
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, errf(more.Line, "the plan holds more than one YAML document (---): want one")
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, errf(0, "want a mapping of plan keys (deployments, workloads, records, threads, ...)")
	}
	return doc.Content[0], nil
}

// parseKey reads one top-level key k with value v into p. An error that is
// not an *Error is located at v by the caller.
func (p *Plan) parseKey(k, v *yaml.Node, seen map[string]bool, errf errFunc, builtin func(string) bool) error {
	switch k.Value {
	case "name":
		if err := v.Decode(&p.Name); err != nil {
			return err
		}
		if !plain(p.Name, 0, 100) { // a plan's name is printed on terminals and pages
			return errf(v.Line, "name: want at most 100 characters and no control characters, not %q", short(p.Name))
		}
		return nil
	case "reference":
		if err := v.Decode(&p.Reference); err != nil || p.Reference == "" || strings.ContainsFunc(p.Reference, unicode.IsControl) {
			return errf(v.Line, "reference: want the path of a CSV file of published figures (system, workload, threads, throughput, latency_ms, latency, source)")
		}
		if !filepath.IsAbs(p.Reference) {
			p.Reference = filepath.Join(p.Dir, p.Reference)
		}
		return nil
	case "currency":
		if err := v.Decode(&p.Currency); err != nil {
			return err
		}
		if !plain(p.Currency, 1, 8) {
			return errf(v.Line, "currency: want a short name such as USD or EUR, not %q", short(p.Currency))
		}
		return nil
	case "deployments", "targets": // "targets" before 0.2
		if seen["deployments"] && seen["targets"] {
			return errf(k.Line, "give deployments or targets (their old name), not both")
		}
		return p.parseDeployments(v, errf)
	case "workloads":
		return p.parseWorkloads(v, errf, builtin)
	case "records":
		return decodeList(v, &p.Records, errf, func(x int64) bool { return x > 0 }, "a positive record count")
	case "threads":
		return decodeList(v, &p.Threads, errf, func(x int) bool { return x > 0 }, "a positive thread count")
	case "clients":
		return decodeList(v, &p.Clients, errf, func(x int) bool { return x > 0 && x <= 10000 }, "a client count from 1 to 10,000")
	case "rates":
		return decodeList(v, &p.Rates, errf, func(x float64) bool { return x >= 0 && !math.IsInf(x, 0) }, "a rate ≥ 0 (0: as fast as possible)")
	case "warmup":
		return decodeSeconds(v, &p.Warmup, errf, "warmup")
	case "duration":
		return decodeSeconds(v, &p.Duration, errf, "duration")
	case "operations":
		if v.Kind == yaml.ScalarNode && v.Value == "records" {
			p.OpsPerRecord = true
			return nil
		}
		return decodeNumber(v, &p.Operations, errf, "operations ≥ 0 or \"records\" (as many as the record count)")
	case "repetitions":
		if v.Kind == yaml.MappingNode {
			return p.decodeUntil(v, errf)
		}
		if err := decodeNumber(v, &p.Repetitions, errf, "repetitions ≥ 1"); err != nil {
			return err
		}
		if p.Repetitions < 1 {
			return errf(v.Line, "repetitions must be at least 1")
		}
		p.RepetitionsMin = p.Repetitions
		return nil
	case "load_threads":
		return decodeNumber(v, &p.LoadThreads, errf, "load threads ≥ 1")
	case "properties":
		ps, err := decodeProperties(v, errf)
		p.Properties = append(p.Properties, ps...)
		return err
	case "stages":
		return p.parseStages(v, errf)
	case "slo":
		return p.parseSLO(v, errf)
	case "departures":
		return p.parseDepartures(v, errf)
	}
	return errf(k.Line, "unknown key %q (known: name, currency, reference, deployments, workloads, records, threads, clients, rates, stages, warmup, duration, operations, repetitions, load_threads, properties, slo, departures)", short(k.Value))
}

// complete checks what the keys say together once all are read (what is
// required, how many runs) and fills in the defaults.
func (p *Plan) complete(seen map[string]bool, errf errFunc) error {
	if seen["targets"] {
		seen["deployments"] = true
	}
	for _, need := range []string{"deployments", "workloads", "records", "threads"} {
		if need == "records" && p.everyDeploymentHasRecords() {
			continue
		}
		if !seen[need] {
			return errf(0, "no %s given", need)
		}
	}
	if p.Until != nil && p.SLO != nil && p.SLO.Search != "" {
		return errf(0, "repetitions until: a capacity search repeats its answer its own way; give repetitions as one count")
	}
	if p.stagesSpan > 0 {
		n := 0
		for _, x := range p.Properties {
			if x.Key == "stages" {
				n++
			}
		}
		if n > 1 {
			return errf(0, "give stages or properties' stages, not both")
		}
		if len(p.Rates) > 0 {
			return errf(0, "give rates or stages, not both: stages shape each run's rate")
		}
		if p.Duration == 0 && p.Operations == 0 && !p.OpsPerRecord {
			p.Duration = p.stagesSpan - p.Warmup // the stages are the run, warmup included
		}
	}
	if len(p.Rates) == 0 {
		p.Rates = []float64{0}
	}
	if len(p.Clients) == 0 {
		p.Clients = []int{1}
	}
	if p.Name == "" {
		p.Name = strings.TrimSuffix(filepath.Base(p.File), filepath.Ext(p.File))
	}
	if p.Duration == 0 && p.Operations == 0 && !p.OpsPerRecord {
		return errf(0, "give duration (seconds per run) or operations (per run)")
	}
	// Count the runs before anyone expands them: a typo of a few digits
	// must not become a billion runs, or memory for them.
	runs := 0.0
	for i := range p.Deployments {
		runs += float64(len(p.RecordsOf(&p.Deployments[i])))
	}
	runs *= float64(len(p.Workloads)) * float64(len(p.Threads)) * float64(len(p.Clients)) * float64(len(p.Rates)) * float64(p.Repetitions)
	if runs > maxRuns {
		return errf(0, "the plan expands to %.0f runs: at most %d", runs, maxRuns)
	}
	if p.SLO != nil {
		if err := p.checkSLO(errf); err != nil {
			return err
		}
	}
	if err := p.checkSteps(errf); err != nil {
		return err
	}
	if p.LoadThreads == 0 {
		for _, t := range p.Threads {
			p.LoadThreads = max(p.LoadThreads, t)
		}
	}
	return nil
}

type errFunc func(line int, format string, args ...any) error

var labelRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// plain reports whether s is lo to hi characters, none a control or
// format character (Unicode's category C: s is printed on terminals and
// pages), a byte that is not UTF-8 counted as one, as a regular
// expression ^\PC{lo,hi}$ reads it (which, compiled, took a third of the
// CPU time each client process of a spread run spent).
func plain(s string, lo, hi int) bool {
	n := 0
	for _, r := range s {
		if n++; n > hi || unicode.Is(unicode.C, r) {
			return false
		}
	}
	return n >= lo
}

func (p *Plan) parseDeployments(v *yaml.Node, errf errFunc) error {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return errf(v.Line, "deployments: want a list of deployments")
	}
	labels := map[string]bool{}
	for _, n := range v.Content {
		if n.Kind != yaml.MappingNode {
			return errf(n.Line, "a deployment is a mapping (label, binding, properties, nodes, price_per_hour or price_per_month)")
		}
		t := Deployment{Line: n.Line}
		var month float64
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			var err error
			switch k.Value {
			case "label":
				err = val.Decode(&t.Label)
			case "binding":
				err = val.Decode(&t.Binding)
			case "system":
				err = val.Decode(&t.System)
			case "records":
				err = decodeList(val, &t.Records, errf, func(x int64) bool { return x > 0 }, "a positive record count")
			case "nodes":
				err = decodeNumber(val, &t.Nodes, errf, "nodes ≥ 1")
			case "price_per_hour":
				err = decodeNumber(val, &t.PriceHour, errf, "a price ≥ 0")
			case "price_per_month":
				err = decodeNumber(val, &month, errf, "a price ≥ 0")
			case "server":
				var ps []Property
				if ps, err = decodeProperties(val, errf); err == nil {
					for i := range ps {
						ps[i].Key = "server.setting." + ps[i].Key
					}
					t.Properties = append(t.Properties, ps...)
				}
			case "load_rate":
				err = decodeNumber(val, &t.LoadRate, errf, "records per second ≥ 0")
			case "properties":
				var ps []Property
				ps, err = decodeProperties(val, errf)
				t.Properties = append(t.Properties, ps...)
			case "usage_prices":
				t.Usage, err = decodeUsage(val, errf)
			case "metrics":
				var m Property
				m, err = decodeMetrics(val, errf)
				t.Properties = append(t.Properties, m)
			case "setup":
				t.Setup, err = parseSteps(val, errf, false)
			default:
				err = errf(k.Line, "deployment: unknown key %q (known: label, binding, system, nodes, records, price_per_hour, price_per_month, load_rate, usage_prices, properties, metrics, server, setup)", short(k.Value))
			}
			if err != nil {
				if _, ok := err.(*Error); ok {
					return err
				}
				return errf(val.Line, "%s: %s", k.Value, oneLine(err.Error()))
			}
		}
		if t.Binding == "" {
			return errf(n.Line, "deployment without a binding")
		}
		seen := map[string]int{}
		for _, pr := range t.Properties { // metrics: is server.metrics
			if line, ok := seen[pr.Key]; ok {
				return errf(pr.Line, "property %s is given twice (line %d too): give metrics or properties' server.metrics", pr.Key, line)
			}
			seen[pr.Key] = pr.Line
		}
		if t.Label == "" {
			t.Label = t.Binding
		}
		if t.System == "" {
			t.System = t.Binding
		}
		if !labelRE.MatchString(t.Label) {
			return errf(n.Line, "label %q: use letters, digits, '.', '_' and '-'", short(t.Label))
		}
		if labels[t.Label] {
			return errf(n.Line, "two deployments are labelled %q", t.Label)
		}
		labels[t.Label] = true
		if month > 0 {
			if t.PriceHour > 0 {
				return errf(n.Line, "give price_per_hour or price_per_month, not both")
			}
			t.PriceHour = month / HoursPerMonth
		}
		p.Deployments = append(p.Deployments, t)
	}
	return nil
}

// parseStages reads stages: a list of {duration: SECONDS, rate: OPS/S,
// step: true|false}, the runner's property stages.
func (p *Plan) parseStages(v *yaml.Node, errf errFunc) error {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return errf(v.Line, "stages: want a list of {duration: SECONDS, rate: OPS/S}, a step where asked ({..., step: true})")
	}
	var parts []string
	for _, n := range v.Content {
		var st struct {
			Duration *float64 `yaml:"duration"`
			Rate     *float64 `yaml:"rate"`
			Step     bool     `yaml:"step"`
		}
		if n.Kind != yaml.MappingNode || n.Decode(&st) != nil || st.Duration == nil || st.Rate == nil ||
			!(*st.Duration > 0) || *st.Duration > 365*86400 || !(*st.Rate >= 0) || *st.Rate > 1e12 {
			return errf(n.Line, "stages: want {duration: SECONDS, rate: OPS/S} with a duration above 0 and a rate of 0 or more")
		}
		part := strconv.FormatFloat(*st.Duration, 'g', -1, 64) + ":" + strconv.FormatFloat(*st.Rate, 'g', -1, 64)
		if st.Step {
			part += ":step"
		}
		parts = append(parts, part)
		p.stagesSpan += *st.Duration
	}
	p.Properties = append(p.Properties, Property{Key: "stages", Value: strings.Join(parts, ","), Line: v.Line})
	return nil
}

// UsageTerms are the usage prices a deployment may give: storage per
// GB-hour of the data loaded, transfer per GB the client sent and
// received, DynamoDB's on-demand prices per million read and write
// request units consumed, and its provisioned prices per read and write
// capacity unit-hour (for the capacity the consumed units need: their
// rate, per second, held for the hours the operations take).
var UsageTerms = []string{"storage_gb_hour", "transfer_gb", "read_request_units_million", "write_request_units_million", "read_capacity_unit_hour", "write_capacity_unit_hour"}

// decodeUsage reads usage_prices: {storage_gb_hour: 0.000182, ...}.
func decodeUsage(v *yaml.Node, errf errFunc) (map[string]float64, error) {
	if v.Kind != yaml.MappingNode {
		return nil, errf(v.Line, "usage_prices: want a mapping of %s to prices", strings.Join(UsageTerms, ", "))
	}
	out := map[string]float64{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if !slices.Contains(UsageTerms, k.Value) {
			return nil, errf(k.Line, "usage_prices: unknown price %q (known: %s)", short(k.Value), strings.Join(UsageTerms, ", "))
		}
		var x float64
		if err := decodeNumber(val, &x, errf, "a price ≥ 0"); err != nil {
			return nil, err
		}
		out[k.Value] = x
	}
	return out, nil
}

// decodeMetrics reads a deployment's metrics: the Prometheus endpoints
// its runs scrape (node_exporter on its hosts, its exporters), as the
// property server.metrics.
func decodeMetrics(v *yaml.Node, errf errFunc) (Property, error) {
	var urls []string
	if v.Kind != yaml.SequenceNode || v.Decode(&urls) != nil || len(urls) == 0 {
		return Property{}, errf(v.Line, "metrics: want a list of endpoint URLs, such as [http://db1:9100/metrics]")
	}
	for i, s := range urls {
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Contains(s, ",") {
			return Property{}, errf(v.Content[i].Line, "metrics: %q: want http://HOST:PORT/PATH or https://…", short(props.RedactText(s)))
		}
	}
	return Property{Key: "server.metrics", Value: strings.Join(urls, ","), Line: v.Line}, nil
}

func (p *Plan) parseWorkloads(v *yaml.Node, errf errFunc, builtin func(string) bool) error {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		return errf(v.Line, "workloads: want a list of built-in names or property files")
	}
	for _, n := range v.Content {
		w := Workload{Line: n.Line}
		if n.Kind == yaml.MappingNode { // {name: a, setup: [...]}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, val := n.Content[i], n.Content[i+1]
				var err error
				switch k.Value {
				case "name":
					if val.Kind != yaml.ScalarNode {
						return errf(val.Line, "a workload's name is a built-in name or a property file")
					}
					w.Name = val.Value
				case "setup":
					w.Setup, err = parseSteps(val, errf, true)
				default:
					err = errf(k.Line, "workload: unknown key %q (known: name, setup)", short(k.Value))
				}
				if err != nil {
					return err
				}
			}
		} else if n.Kind == yaml.ScalarNode {
			w.Name = n.Value
		}
		if w.Name == "" {
			return errf(n.Line, "a workload is a built-in name or a property file (or {name: ..., setup: [...]})")
		}
		if !builtin(w.Name) {
			w.File = w.Name
			if !filepath.IsAbs(w.File) {
				w.File = filepath.Join(p.Dir, w.File)
			}
			if _, err := os.Stat(w.File); err != nil {
				return errf(n.Line, "workload %q is neither built in nor a readable file", w.Name)
			}
		}
		// A run's ID names its workload by the file's base name: two
		// workloads of one name would share their runs' files.
		for _, o := range p.Workloads {
			if filepath.Base(o.Name) == filepath.Base(w.Name) {
				return errf(n.Line, "workloads %q (line %d) and %q would share run names (%s): give each workload file its own name", o.Name, o.Line, w.Name, filepath.Base(w.Name))
			}
		}
		p.Workloads = append(p.Workloads, w)
	}
	return nil
}

func decodeList[T int | int64 | float64](v *yaml.Node, dst *[]T, errf errFunc, ok func(T) bool, what string) error {
	nodes := []*yaml.Node{v}
	if v.Kind == yaml.SequenceNode {
		nodes = v.Content
	}
	if len(nodes) == 0 {
		return errf(v.Line, "want %s or a list of them", what)
	}
	if len(nodes) > maxListLen {
		return errf(v.Line, "%d values: at most %d", len(nodes), maxListLen)
	}
	for _, n := range nodes {
		x, good := scalarNumber[T](n)
		if !good || !ok(x) {
			return errf(n.Line, "%q is not %s", short(n.Value), what)
		}
		if slices.Contains(*dst, x) {
			return errf(n.Line, "%s is given twice: two runs would share one result", short(n.Value))
		}
		*dst = append(*dst, x)
	}
	return nil
}

func decodeNumber[T int | int64 | float64](v *yaml.Node, dst *T, errf errFunc, what string) error {
	x, good := scalarNumber[T](v)
	if !good || x < 0 {
		return errf(v.Line, "%q is not %s", short(v.Value), what)
	}
	*dst = x
	return nil
}

// MaxRepetitions bounds a cell's repetitions until its intervals are
// tight (the plan's runs are bounded as a whole).
const MaxRepetitions = 1000

// Until is when a cell stops repeating before its most: the 95%
// confidence interval of its throughput, and of each of its operations'
// p99 latency, as a fraction of the mean (0: not asked), over its
// repetitions so far.
type Until struct {
	Throughput float64 `json:"throughput,omitempty"`
	P99        float64 `json:"p99,omitempty"`
}

// decodeUntil reads repetitions: {min: 3, max: 30, until: {throughput: 2%,
// p99: 5%}}.
func (p *Plan) decodeUntil(v *yaml.Node, errf errFunc) error {
	p.Repetitions, p.RepetitionsMin = 0, 0
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, x := v.Content[i], v.Content[i+1]
		var err error
		switch k.Value {
		case "min":
			err = decodeNumber(x, &p.RepetitionsMin, errf, "a repetition count ≥ 2")
		case "max":
			err = decodeNumber(x, &p.Repetitions, errf, "a repetition count ≥ 2")
		case "until":
			p.Until, err = decodeUntilBounds(x, errf)
		default:
			err = errf(k.Line, "repetitions: unknown key %q (known: min, max, until)", short(k.Value))
		}
		if err != nil {
			return err
		}
	}
	switch {
	case p.Until == nil:
		return errf(v.Line, "repetitions: a mapping needs until: {throughput: 2%%, p99: 5%%} (or give one count)")
	case p.RepetitionsMin < 2:
		return errf(v.Line, "repetitions: min must be at least 2 (an interval needs two runs)")
	case p.Repetitions < p.RepetitionsMin:
		return errf(v.Line, "repetitions: max (%d) must be at least min (%d)", p.Repetitions, p.RepetitionsMin)
	case p.Repetitions > MaxRepetitions:
		return errf(v.Line, "repetitions: max %d is more than %d", p.Repetitions, MaxRepetitions)
	}
	return nil
}

func decodeUntilBounds(v *yaml.Node, errf errFunc) (*Until, error) {
	if v.Kind != yaml.MappingNode {
		return nil, errf(v.Line, "repetitions until: want {throughput: 2%%, p99: 5%%}")
	}
	u := &Until{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, x := v.Content[i], v.Content[i+1]
		var dst *float64
		switch k.Value {
		case "throughput":
			dst = &u.Throughput
		case "p99":
			dst = &u.P99
		default:
			return nil, errf(k.Line, "repetitions until: unknown figure %q (known: throughput, p99)", short(k.Value))
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(x.Value), "%"), 64)
		if x.Kind != yaml.ScalarNode || err != nil || !(f > 0 && f <= 100) {
			return nil, errf(x.Line, "repetitions until %s: %q is not a percentage above 0 and at most 100", k.Value, short(x.Value))
		}
		*dst = f / 100
	}
	if *u == (Until{}) {
		return nil, errf(v.Line, "repetitions until: give throughput, p99 or both")
	}
	return u, nil
}

// planSets are the properties each run gets from the plan's keys: a
// property of the same name would be silently overridden.
var planSets = map[string]string{
	"threadcount": "threads:", "recordcount": "records:", "target": "rates:", "clients": "clients:",
	"operationcount": "operations:", "maxexecutiontime": "duration:", "warmuptime": "warmup:", "label": "deployment label:",
	"result.file": "directory (each run's result is DIR/runs/ID.json):",
}

// MaxSeconds bounds a plan's duration and warmup as the runner bounds
// maxexecutiontime: a year.
const MaxSeconds = 365 * 86400

func decodeSeconds(v *yaml.Node, dst *float64, errf errFunc, what string) error {
	if err := decodeNumber(v, dst, errf, what+" seconds ≥ 0"); err != nil {
		return err
	}
	if *dst > MaxSeconds {
		return errf(v.Line, "%s %s seconds is more than a year (%d seconds)", what, short(v.Value), MaxSeconds)
	}
	if *dst > 0 && *dst < 1e-9 { // it would read as none: no limit
		return errf(v.Line, "%s %s seconds is less than a nanosecond", what, short(v.Value))
	}
	return nil
}

// maxListLen bounds a dimension's values: a plan of more runs than anyone
// can wait for is a typo.
const maxListLen = 1000

// maxRuns bounds the runs of one plan.
const maxRuns = 100_000

// scalarNumber reads a YAML scalar as a finite number of type T: no NaN,
// no infinity, no fraction where a whole number is wanted (threads: 1.5 is
// not 1), nothing beyond what T holds exactly.
func scalarNumber[T int | int64 | float64](n *yaml.Node) (T, bool) {
	var f float64
	if n.Kind != yaml.ScalarNode || n.Decode(&f) != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	var x T
	switch any(x).(type) {
	case float64:
	default:
		if f != math.Trunc(f) {
			return 0, false
		}
	}
	return T(f), true
}

// short is a value for a message (quoted by the caller): at most 40
// bytes.
func short(s string) string { return props.Cut(s, 40) }

func decodeProperties(v *yaml.Node, errf errFunc) ([]Property, error) {
	if v.Kind != yaml.MappingNode {
		return nil, errf(v.Line, "properties: want key: value lines")
	}
	var out []Property
	seen := map[string]int{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], v.Content[i+1]
		if val.Kind != yaml.ScalarNode {
			return nil, errf(val.Line, "property %s takes a single value", short(k.Value))
		}
		if line, dup := seen[k.Value]; dup {
			return nil, errf(k.Line, "property %s is given twice (line %d too)", short(k.Value), line)
		}
		seen[k.Value] = k.Line
		if dim, ok := planSets[k.Value]; ok {
			return nil, errf(k.Line, "property %s is the plan's %s set it there, where every run sees it", k.Value, dim)
		}
		out = append(out, Property{Key: k.Value, Value: val.Value, Line: k.Line})
	}
	return out, nil
}

func oneLine(s string) string {
	return string(bytes.Join(bytes.Fields([]byte(s)), []byte(" ")))
}

// Run is one run of the plan: a cell (deployment, workload, records,
// threads, clients, rate) and its repetition.
type Run struct {
	Deployment *Deployment
	Workload   *Workload
	Records    int64
	Threads    int
	Clients    int // 1: one process
	Rate       float64
	Repetition int // from 1
}

// ID names the run uniquely and is its file name below the output
// directory: label/workload/r<records>-t<threads>[-c<clients>]-q<rate>-<repetition>
// (clients only when more than one, so a plan's directory of one client
// keeps its names).
func (c *Run) ID() string {
	rate := "max"
	if c.Rate > 0 {
		rate = strconv.FormatFloat(c.Rate, 'f', -1, 64)
	}
	clients := ""
	if c.Clients > 1 {
		clients = fmt.Sprintf("-c%d", c.Clients)
	}
	return fmt.Sprintf("%s/%s/r%d-t%d%s-q%s-%d", c.Deployment.Label, filepath.Base(c.Workload.Name), c.Records, c.Threads, clients, rate, c.Repetition)
}

func (p *Plan) everyDeploymentHasRecords() bool {
	for _, t := range p.Deployments {
		if len(t.Records) == 0 {
			return false
		}
	}
	return len(p.Deployments) > 0
}

// RecordsOf is the record counts deployment t runs with.
func (p *Plan) RecordsOf(t *Deployment) []int64 {
	if len(t.Records) > 0 {
		return t.Records
	}
	return p.Records
}

// OperationsOf is the operation count of a run on records records (0:
// the duration decides).
func (p *Plan) OperationsOf(records int64) int64 {
	if p.OpsPerRecord {
		return records
	}
	return p.Operations
}

// Runs expands the plan, grouped by deployment and record count (so each
// data set is loaded once), then workload, threads, clients, rate,
// repetition.
func (p *Plan) Runs() []Run {
	var runs []Run
	clients := p.Clients
	if len(clients) == 0 {
		clients = []int{1}
	}
	for ti := range p.Deployments {
		for _, r := range p.RecordsOf(&p.Deployments[ti]) {
			for wi := range p.Workloads {
				for _, th := range p.Threads {
					for _, cl := range clients {
						for _, q := range p.Rates {
							for rep := 1; rep <= p.Repetitions; rep++ {
								runs = append(runs, Run{Deployment: &p.Deployments[ti], Workload: &p.Workloads[wi], Records: r, Threads: th, Clients: cl, Rate: q, Repetition: rep})
							}
						}
					}
				}
			}
		}
	}
	return runs
}

// Spread is how many clients the run is spread over: its clients, or as
// many as it has threads when it has fewer (each client needs a thread),
// as the 2014 study's low steps on 32 client machines ran.
func (c *Run) Spread() int { return max(1, min(c.Clients, c.Threads)) }

// CostPerBillion is the cost of a billion operations at throughput ops/s
// on a configuration priced per hour: a billion operations take
// 10^9 / throughput seconds, i.e. 10^9 / (3600 · throughput) hours.
func CostPerBillion(priceHour, throughput float64) float64 {
	if priceHour <= 0 || throughput <= 0 {
		return 0
	}
	return priceHour * 1e9 / (3600 * throughput)
}
