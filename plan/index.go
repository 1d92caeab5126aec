package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/inputfile"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// IndexFormat identifies a plan's index file, DIR/index.json.
const IndexFormat = "servbench-plan"

// Index is DIR/index.json: what ran, where its result is, and its cost.
type Index struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	Plan    string `json:"plan"`
	File    string `json:"plan_file"`
	// Currency is the plan's prices' (currency:), "" when not given.
	Currency string     `json:"currency,omitempty"`
	Runs     []IndexRun `json:"runs"`
	SLO      *IndexSLO  `json:"slo,omitempty"`
	// Until, when the plan's repetitions stop on their intervals, says
	// how many each cell took and whether its intervals met the bounds.
	Until *IndexUntil `json:"until,omitempty"`
	// Departures are the plan's departures from its study.
	Departures []Departure `json:"departures,omitempty"`
	// Rehearsal, when set, says the runs are a rehearsal's: the plan's
	// shape at a scale, against other endpoints; their figures are not
	// the plan's.
	Rehearsal *Rehearsal `json:"rehearsal,omitempty"`
	Updated   time.Time  `json:"updated"`
}

// IndexUntil is how a plan's cells stopped repeating (repetitions:
// {min, max, until}).
type IndexUntil struct {
	Min    int         `json:"min"`
	Max    int         `json:"max"`
	Bounds Until       `json:"bounds"`
	Cells  []UntilCell `json:"cells"`
}

// UntilCell is one cell's repetitions: how many ran, whether its
// intervals met the bounds, and the intervals' half-widths as fractions
// of their means (the widest p99 of its operations).
type UntilCell struct {
	Cell        string  `json:"cell"` // its runs' id without the repetition
	Repetitions int     `json:"repetitions"`
	Reached     bool    `json:"reached"`
	Throughput  float64 `json:"throughput_ci"`
	P99         float64 `json:"p99_ci,omitempty"`
}

// IndexRun is one run of the plan.
type IndexRun struct {
	ID           string  `json:"id"`
	Deployment   string  `json:"deployment"`
	Binding      string  `json:"binding"`
	System       string  `json:"system"`
	Nodes        int     `json:"nodes,omitempty"`
	PricePerHour float64 `json:"price_per_hour,omitempty"`
	// UsagePrices are the deployment's usage_prices.
	UsagePrices map[string]float64 `json:"usage_prices,omitempty"`
	Workload    string             `json:"workload"`
	Records     int64              `json:"records"`
	Threads     int                `json:"threads"`
	Clients     int                `json:"clients,omitempty"` // more than 1: the run was spread over that many clients
	// PlanClients is the plan's clients: for the cell, which a step of
	// fewer threads runs on fewer clients (Clients): the steps of one
	// curve share it.
	PlanClients    int     `json:"plan_clients,omitempty"`
	Rate           float64 `json:"target_ops_per_sec,omitempty"`
	Repetition     int     `json:"repetition"`
	Result         string  `json:"result,omitempty"` // relative to DIR
	Status         string  `json:"status"`           // pending, done, failed, interrupted, skipped
	Error          string  `json:"error,omitempty"`
	Throughput     float64 `json:"throughput,omitempty"`
	FailedPct      float64 `json:"failed_percent,omitempty"`
	CostPerBillion float64 `json:"cost_per_billion_ops,omitempty"` // in the plan's currency
	SLOLatencyUs   float64 `json:"slo_latency_us,omitempty"`       // the SLO's measure of this run
}

// IndexSLO is the outcome of the SLO search: one curve per deployment,
// workload, record count and fixed dimension.
type IndexSLO struct {
	Latency   string     `json:"latency"`
	BoundUs   float64    `json:"bound_us"`
	Operation string     `json:"operation,omitempty"`
	Step      string     `json:"step"`
	Curves    []SLOCurve `json:"curves"`
	// A capacity search's terms (Search "threads" or "rate"; "" for a
	// walk over listed steps): every bound, where it started, the most it
	// tried and its precision.
	Search       string    `json:"search,omitempty"`
	BoundsUs     []float64 `json:"bounds_us,omitempty"`
	From         float64   `json:"from,omitempty"`
	Max          float64   `json:"max,omitempty"`
	PrecisionPct float64   `json:"precision_percent,omitempty"`
}

// SLOCurve is one stepped series: every step measured, the last step
// within the bound and the highest throughput seen.
type SLOCurve struct {
	Series     string     `json:"series"`
	Deployment string     `json:"deployment"`
	Workload   string     `json:"workload"`
	Records    int64      `json:"records"`
	Fixed      float64    `json:"fixed"`             // the dimension not stepped: the rate, or the threads
	Clients    int        `json:"clients,omitempty"` // more than 1: the curve's runs were spread over that many
	Steps      []SLOPoint `json:"steps"`
	// Best is the highest-throughput step within the bound (nil: none).
	Best *SLOPoint `json:"best,omitempty"`
	// Peak is the highest-throughput step of all.
	Peak    *SLOPoint `json:"peak,omitempty"`
	BrokeAt float64   `json:"broke_at,omitempty"` // first step over the bound (0: never)
	// A capacity search's answer for each bound, and how many runs it
	// made.
	Answers []SLOAnswer `json:"answers,omitempty"`
	Tried   int         `json:"tried,omitempty"`
}

// SLOAnswer is a capacity search's answer for one bound: the highest step
// whose runs met it on average (Step 0: none did, or the search goes on),
// and the lowest step above it that broke it (Below 0: none, the search
// reached its max). The capacity lies between Step and Below.
type SLOAnswer struct {
	BoundUs    float64 `json:"bound_us"`
	Step       float64 `json:"step,omitempty"`
	Below      float64 `json:"below,omitempty"`
	Throughput float64 `json:"throughput,omitempty"` // the mean of its runs
	// The lowest and highest throughput of its runs.
	ThroughputMin float64 `json:"throughput_min,omitempty"`
	ThroughputMax float64 `json:"throughput_max,omitempty"`
	LatencyUs     float64 `json:"latency_us,omitempty"`
	FailedPct     float64 `json:"failed_percent,omitempty"`
	Runs          int     `json:"runs,omitempty"`
	AtMax         bool    `json:"at_max,omitempty"`
	Searching     bool    `json:"searching,omitempty"` // the search was cut short before this answer
}

// SLOPoint is one step, its values the mean over its repetitions.
type SLOPoint struct {
	Step       float64 `json:"step"`
	Throughput float64 `json:"throughput"`
	LatencyUs  float64 `json:"latency_us"`
	FailedPct  float64 `json:"failed_percent"`
	Met        bool    `json:"met"`
	Runs       int     `json:"runs,omitempty"` // a capacity search's runs of the step
}

// MaxIndexBytes is the largest index read: maxRuns runs fit many times.
const MaxIndexBytes = 256 << 20

// maxIndexContainers bounds the objects and lists of an index: a run's
// few, for each of maxRuns, and the rest of the document's.
const maxIndexContainers = 8*maxRuns + 1<<16

// maxIndexMembers bounds the names of an index's objects: a run's fields
// and its deployment's usage prices, a few dozen, for each of maxRuns.
const maxIndexMembers = 64*maxRuns + 1<<16

// indexMembersBound is the bound ReadIndex applies: maxIndexMembers,
// lowered by a test that reads past it without millions of names.
var indexMembersBound = maxIndexMembers

// ReadIndex reads DIR/index.json. Every result it names must lie inside
// DIR.
func ReadIndex(dir string) (*Index, error) {
	path := filepath.Join(dir, "index.json")
	raw, err := readOwn(path, MaxIndexBytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	// A plan runs at most maxRuns runs, each a few objects in the index
	// (itself, its usage prices, a capacity search's step): a small file
	// of many empty ones would take gigabytes decoded.
	if err := result.CheckShape(raw, maxIndexContainers, indexMembersBound); err != nil {
		return nil, fmt.Errorf("%s: %w: a plan's index holds at most %d runs", path, err, maxRuns)
	}
	var ix Index
	if err := json.Unmarshal(raw, &ix); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if ix.Format != IndexFormat {
		return nil, fmt.Errorf("%s: not a servbench plan index (format %q)", path, ix.Format)
	}
	if ix.Runs == nil {
		if err := readOldIndex(raw, &ix); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	if len(ix.Runs) > maxRuns {
		return nil, fmt.Errorf("%s: %d runs: a plan's index holds at most %d runs", path, len(ix.Runs), maxRuns)
	}
	// Each run is listed once, with a result of its own: a run listed
	// again, or a result named twice, was not written by bench (60,000
	// entries naming one result ran report out of memory).
	ids := make(map[string]int, len(ix.Runs))
	results := make(map[string]int, len(ix.Runs))
	for i, r := range ix.Runs {
		if r.Result != "" && !filepath.IsLocal(r.Result) {
			return nil, fmt.Errorf("%s: runs[%d] result %q lies outside the plan's directory", path, i, props.Cut(r.Result, 60))
		}
		if j, dup := ids[r.ID]; dup {
			return nil, fmt.Errorf("%s: runs[%d] and runs[%d] are both run %q: a plan's index lists each run once", path, j, i, props.Cut(r.ID, 60))
		}
		ids[r.ID] = i
		if r.Result == "" {
			continue
		}
		res := filepath.Clean(r.Result)
		if j, dup := results[res]; dup {
			return nil, fmt.Errorf("%s: runs[%d] and runs[%d] both name result %q: each run has its own", path, j, i, props.Cut(r.Result, 60))
		}
		results[res] = i
	}
	return &ix, nil
}

// readOldIndex reads the words of servbench 0.1's indexes: "cells" for
// runs, "target" for the deployment.
func readOldIndex(raw []byte, ix *Index) error {
	type deployment struct {
		Target string `json:"target"`
	}
	var old struct {
		Cells []json.RawMessage `json:"cells"`
		SLO   *struct {
			Curves []deployment `json:"curves"`
		} `json:"slo"`
	}
	if err := json.Unmarshal(raw, &old); err != nil {
		return err
	}
	for _, c := range old.Cells {
		var r IndexRun
		var d deployment
		if err := json.Unmarshal(c, &r); err != nil {
			return err
		}
		if err := json.Unmarshal(c, &d); err != nil {
			return err
		}
		r.Deployment = d.Target
		ix.Runs = append(ix.Runs, r)
	}
	if old.SLO != nil && ix.SLO != nil && len(old.SLO.Curves) == len(ix.SLO.Curves) {
		for i, c := range old.SLO.Curves {
			if ix.SLO.Curves[i].Deployment == "" {
				ix.SLO.Curves[i].Deployment = c.Target
			}
		}
	}
	return nil
}

// WriteIndex replaces DIR/index.json atomically.
func WriteIndex(dir string, ix *Index) error {
	ix.Updated = time.Now().UTC()
	b, err := json.MarshalIndent(ix, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, "index.json"), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}

// SetupFile is where a plan's directory keeps its setup steps' log.
const SetupFile = "setup.json"

// SetupLog is DIR/setup.json: every setup step run, in order, with its
// outcome. A step logged done is not run again when the plan is resumed.
type SetupLog struct {
	Format string      `json:"format"` // "servbench-setup"
	Steps  []SetupStep `json:"steps"`
}

// SetupStep is one setup step's run.
type SetupStep struct {
	// ID names the step's place: "load/<load key>/<n>" before a data
	// set's load, "workload/<deployment>/r<records>/<workload>/<n>"
	// before a workload's runs (n counts from 1).
	ID         string    `json:"id"`
	Deployment string    `json:"deployment"`
	Workload   string    `json:"workload,omitempty"` // before a workload's runs
	Records    int64     `json:"records"`
	Line       int       `json:"line"`               // in the plan
	Kind       string    `json:"kind"`               // statement or shell
	Text       string    `json:"text"`               // credentials hidden
	Language   string    `json:"language,omitempty"` // a statement's
	Started    time.Time `json:"started"`
	Seconds    float64   `json:"seconds"`
	Answer     string    `json:"answer,omitempty"` // the server's answer, or the command's last line of output
	Error      string    `json:"error,omitempty"`
}

// MaxSetupBytes is the largest setup log read: each step's answer is a
// line.
const MaxSetupBytes = 64 << 20

// maxSetupSteps bounds the steps of a setup log, each an object of a few
// names: a small file of many empty ones would take gigabytes decoded (64
// MiB of {} took 12 GB).
const maxSetupSteps = 1 << 16

// ReadKept reads DIR/plan.yaml, the plan's copy bench keeps: a regular
// file of at most MaxFileBytes; Ctrl-C stops the read.
func ReadKept(ctx context.Context, path string) ([]byte, error) {
	return readOwnContext(ctx, path, MaxFileBytes)
}

// readOwn reads a file bench writes in a plan's directory: a regular file
// of at most limit bytes (a device or a pipe there was never written by
// bench: /dev/zero read to the bound took a gigabyte).
func readOwn(path string, limit int64) ([]byte, error) {
	return readOwnContext(context.Background(), path, limit)
}

// readOwnContext reads a file bench writes, a regular one of at most
// limit bytes.
func readOwnContext(ctx context.Context, path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s): bench writes it as one", st.Mode().Type())
	}
	return inputfile.Read(ctx, path, limit)
}

// ReadSetup reads DIR/setup.json; a directory without one has an empty
// log.
func ReadSetup(dir string) (*SetupLog, error) {
	path := filepath.Join(dir, SetupFile)
	raw, err := readOwn(path, MaxSetupBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return &SetupLog{Format: "servbench-setup"}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := result.CheckShape(raw, 2*maxSetupSteps+16, 32*maxSetupSteps+16); err != nil {
		return nil, fmt.Errorf("%s: %w: a setup log holds at most %d steps", path, err, maxSetupSteps)
	}
	var l SetupLog
	if err := json.Unmarshal(raw, &l); err != nil || l.Format != "servbench-setup" {
		return nil, fmt.Errorf("%s: not a setup log of servbench's (%v)", path, err)
	}
	return &l, nil
}

// WriteSetup replaces DIR/setup.json.
func WriteSetup(dir string, l *SetupLog) error {
	l.Format = "servbench-setup"
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, SetupFile), func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
