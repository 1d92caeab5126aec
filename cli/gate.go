package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/servbench/servbench/gate"
	"github.com/servbench/servbench/history"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/result"
)

const gateUsage = `usage: servbench gate NEW [--baseline B]... [-p gate.FIGURE=PERCENT]...

Judges new results against a baseline, figure by figure, and exits 0 when
none regressed, 1 when one did, 2 on bad input. A figure regressed when it
is worse than the baseline's mean by more than its threshold and by more
than the noise: the 95% interval of the difference (Welch's, over the
repetitions of both sides), or, for one new run, the 95% prediction
interval of one more baseline run; with one baseline run the threshold
alone decides, as the verdict says.

NEW is a result file, several (R1.json,R2.json: repetitions of one cell)
or a directory of them (a plan's: each cell judged on its own).

  --baseline B    result files or directories to compare with
                  (repeatable); their properties that differ from NEW's
                  are said (a changed target rate is your experiment).
                  Without it, the history's most recent runs of each
                  new cell (its config at its rate; at another rate when
                  it has none at that one, said so), the new ones left out
  --last N        how many of the history's runs (default 10)
  --db PATH       the history (default: servbench history's place)
  -p gate.throughput=5    throughput may drop by 5% (the default)
  -p gate.p99=10          each operation's p99 may grow by 10% (the
                          default); gate.p50, gate.p95, gate.p99.9 too;
                          =off leaves a figure out
  -p gate.failed=1        the failed operations may grow by 1 percentage
                          point of all (the default)

Only runs that completed are a baseline; a new run that did not
(interrupted, failed) fails the gate.
`

// gateCmd judges new results against a baseline.
func gateCmd(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("servbench gate", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var bases, ps []string
	fs.Func("baseline", "", func(s string) error { bases = append(bases, s); return nil })
	fs.Func("p", "", func(s string) error { ps = append(ps, s); return nil })
	last := fs.Int("last", 10, "")
	db := fs.String("db", "", "")
	pos, err := flagsAnywhere(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, gateUsage)
		return ExitOK, nil
	}
	if err != nil {
		return ExitUsage, badf("gate: %v", err)
	}
	if len(pos) != 1 {
		return ExitUsage, badf("gate: give the new results (usage: servbench gate NEW [--baseline B]...)")
	}
	if *last < 1 || *last > history.MaxList {
		return ExitUsage, badf("gate: --last %d: want 1 to %d", *last, history.MaxList)
	}
	ts, err := thresholds(ps)
	if err != nil {
		return ExitUsage, badf("gate: %v", err)
	}
	news, err := readEntries(ctx, pos[0])
	if err != nil {
		return ExitUsage, badf("gate: %v", err)
	}
	var explicit []history.Entry
	for _, b := range bases {
		es, err := readEntries(ctx, b)
		if err != nil {
			return ExitUsage, badf("gate: --baseline: %v", err)
		}
		explicit = append(explicit, es...)
	}
	var store *history.Store
	if len(bases) == 0 {
		if store, err = openHistory(ctx, *db); err != nil {
			return ExitUsage, badf("gate: no --baseline, and %v", err)
		}
		defer store.Close()
	}
	out := &stickyWriter{w: stdout}
	regressed := false
	cells := cellsOf(news)
	for _, cell := range cells {
		var base []history.Entry
		var note string
		if store != nil {
			if base, note, err = historyBaseline(ctx, store, cell, *last); err != nil {
				return ExitFailure, err
			}
		} else {
			base, note = givenBaseline(cell, explicit, len(cells) == 1)
		}
		if writeVerdicts(out, cell, base, ts, store == nil, note) {
			regressed = true
		}
	}
	if out.err != nil {
		return ExitFailure, fmt.Errorf("gate: %w", out.err)
	}
	if regressed {
		return ExitFailure, nil
	}
	return ExitOK, nil
}

// thresholds are the defaults with the -p gate.FIGURE=PERCENT given.
func thresholds(ps []string) ([]gate.Threshold, error) {
	ts := slices.Clone(gate.Defaults)
	for _, p := range ps {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return nil, fmt.Errorf("-p %q: want gate.FIGURE=PERCENT", p)
		}
		t, err := gate.ParseThreshold(k, v)
		if err != nil {
			return nil, err
		}
		fig := strings.TrimPrefix(k, "gate.")
		ts = slices.DeleteFunc(ts, func(x gate.Threshold) bool { return x.Figure == fig })
		if t != nil {
			ts = append(ts, *t)
		}
	}
	return ts, nil
}

// readEntries reads the results at spec (a file, files joined by commas,
// a directory) as history entries.
func readEntries(ctx context.Context, spec string) ([]history.Entry, error) {
	var files []string
	for _, p := range strings.Split(spec, ",") {
		found, err := resultFiles(p)
		if err != nil {
			return nil, err
		}
		files = append(files, found...)
	}
	es := make([]history.Entry, 0, len(files))
	for _, f := range files {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		d, err := result.ReadFile(f)
		if err != nil {
			return nil, err
		}
		abs, _ := filepath.Abs(f)
		sum, err := history.Checksum(f)
		if err != nil {
			return nil, err
		}
		e := history.EntryOf(d, abs, sum)
		e.Props = d.Properties
		es = append(es, e)
	}
	return es, nil
}

// completed reports whether a run measured what it was asked (its
// operations, or until its time limit): only those are a baseline.
func completed(e history.Entry) bool { return result.Stop(e.Stop).Finished() }

// givenBaseline is the baseline of a cell's new entries among those given
// (--baseline): the runs of their cell; else of their config at another
// rate; else, when the new results are one cell, all given (two files
// compared as the user chose). Runs that did not complete are left out.
func givenBaseline(cell, given []history.Entry, one bool) (base []history.Entry, note string) {
	given = slices.DeleteFunc(slices.Clone(given), func(e history.Entry) bool { return !completed(e) })
	same := func(rate bool) []history.Entry {
		var out []history.Entry
		for _, e := range given {
			if e.Config == cell[0].Config && (!rate || e.Rate == cell[0].Rate) {
				out = append(out, e)
			}
		}
		return out
	}
	if base = same(true); len(base) > 0 {
		return base, ""
	}
	if base = same(false); len(base) > 0 {
		return base, fmt.Sprintf("no baseline run of this config at rate %s: its runs at other rates", rateText(cell[0].Rate))
	}
	if one && len(given) > 0 {
		return given, "the baseline measured another config: compared as given"
	}
	return nil, ""
}

// historyBaseline is the baseline of a cell's new entries: the history's
// last completed runs of their config at their rate, or, when it has none
// at that rate, at any (said in note: a changed rate is the user's
// experiment).
func historyBaseline(ctx context.Context, s *history.Store, cell []history.Entry, last int) (base []history.Entry, note string, err error) {
	var not []string
	for _, e := range cell {
		not = append(not, e.ResultID, e.SHA256)
	}
	f := history.Filter{Config: cell[0].Config, Rate: &cell[0].Rate, Last: last, Not: not, Completed: true}
	if base, err = s.List(ctx, f); err != nil || len(base) > 0 {
		return base, "", err
	}
	f.Rate = nil
	if base, err = s.List(ctx, f); err != nil || len(base) == 0 {
		return base, "", err
	}
	var rates []string
	for _, e := range base {
		if r := rateText(e.Rate); !slices.Contains(rates, r) {
			rates = append(rates, r)
		}
	}
	return base, fmt.Sprintf("no run of this config at rate %s in the history: its runs at rate %s", rateText(cell[0].Rate), strings.Join(rates, ", ")), nil
}

func rateText(r float64) string {
	if r == 0 {
		return "0 (as fast as it goes)"
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// cellsOf groups entries by cell (config and rate), in the order they
// first appear.
func cellsOf(es []history.Entry) [][]history.Entry {
	var cells [][]history.Entry
	at := map[string]int{}
	for _, e := range es {
		k := e.Config + " " + strconv.FormatFloat(e.Rate, 'g', -1, 64)
		i, ok := at[k]
		if !ok {
			i = len(cells)
			at[k] = i
			cells = append(cells, nil)
		}
		cells[i] = append(cells[i], e)
	}
	return cells
}

// writeVerdicts writes one cell's verdicts and reports whether a figure
// regressed; explicit baselines have their differing properties said.
func writeVerdicts(w io.Writer, news, base []history.Entry, ts []gate.Threshold, explicit bool, note string) bool {
	e := news[0]
	fmt.Fprintf(w, "%s %s %s, %s, %d records, %d threads, %d clients, rate %s (config %s): %d new, %d baseline\n",
		e.Command, format.Printable(e.Binding), format.Printable(orDash(e.Label)), format.Printable(orDash(e.Workload)), e.Records,
		e.Threads, e.Clients, rateText(e.Rate), e.Config, len(news), len(base))
	if note != "" {
		fmt.Fprintf(w, "  %s\n", note)
	}
	incomplete := false
	for _, n := range news {
		if !completed(n) {
			fmt.Fprintf(w, "  REGRESSION: %s did not complete (stop %s)\n", format.Printable(orDash(n.Path)), format.Printable(n.Stop))
			incomplete = true
		}
	}
	if explicit && len(base) > 0 {
		for _, d := range differing(news, base) {
			fmt.Fprintf(w, "  differs: %s\n", format.Printable(d))
		}
	}
	if len(base) == 0 {
		fmt.Fprintln(w, "  no baseline: nothing judged")
		return incomplete
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  FIGURE\tNEW\tBASELINE (MEAN ± SD)\tCHANGE\tNOISE\tTHRESHOLD\tVERDICT\tHOW")
	regressed := false
	for _, v := range gate.JudgeIntervals(news, base, ts, resultIntervals(w)) {
		verdict := "pass"
		switch {
		case v.Missing:
			verdict = "missing"
		case v.Regressed:
			verdict, regressed = "REGRESSION", true
		}
		fmt.Fprintf(tw, "  %s\t%.4g\t%.4g ± %.2g\t%+.1f%%\t±%.1f%%\t%.0f%%\t%s\t%s\n", format.Printable(v.Figure), v.New.Mean, v.Base.Mean,
			v.Base.SD, v.Change*100, v.Noise*100, v.Threshold*100, verdict, v.Note)
	}
	tw.Flush()
	return regressed || incomplete
}

// differing are the properties, the volatile ones included, whose values
// differ between the new results and the baseline's ("target: 2000 (new)
// vs 1000").
func differing(news, base []history.Entry) []string {
	vals := func(es []history.Entry) map[string][]string {
		m := map[string][]string{}
		add := func(k, v string) {
			if !slices.Contains(m[k], v) {
				m[k] = append(m[k], v)
			}
		}
		for _, e := range es {
			add("(command)", e.Command)
			add("(binding)", e.Binding)
			add("(workload)", e.Workload)
			for k, v := range e.Props {
				if !slices.Contains(m[k], v) {
					m[k] = append(m[k], v)
				}
			}
		}
		return m
	}
	a, b := vals(news), vals(base)
	keys := slices.Sorted(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	var out []string
	for _, k := range keys {
		switch k {
		case "result.file", "exportfile", "label", "seed":
			continue
		}
		x, y := a[k], b[k]
		slices.Sort(x)
		slices.Sort(y)
		if !slices.Equal(x, y) {
			out = append(out, fmt.Sprintf("%s: %s (new) vs %s", k, orDash(strings.Join(x, ", ")), orDash(strings.Join(y, ", "))))
		}
	}
	return out
}

// resultIntervals gives an entry's figure interval by interval from its
// result file's time series (each file read once), when the file is still
// the one recorded (its SHA-256; one that is not is said on w, once): one
// run's noise for the gate.
func resultIntervals(w io.Writer) gate.Intervals {
	cache := map[string]result.TimeSeries{}
	return func(e history.Entry, fig string) []float64 {
		if e.Path == "" {
			return nil
		}
		series, seen := cache[e.Path]
		if !seen {
			switch sum, err := history.Checksum(e.Path); {
			case err == nil && (e.SHA256 == "" || sum == e.SHA256):
				if d, err := result.ReadFile(e.Path); err == nil {
					series = d.Series
				}
			case err == nil:
				fmt.Fprintf(w, "  note: %s changed since it was recorded (its SHA-256 differs): its intervals are not used\n", format.Printable(e.Path))
			}
			cache[e.Path] = series
		}
		op, get := pointFigure(fig)
		var xs []float64
		for _, p := range series {
			switch {
			case p.Partial:
			case fig == "throughput":
				xs = append(xs, p.Throughput)
			case get != nil:
				for _, o := range p.Ops {
					if o.Name == op && o.Count > 0 {
						xs = append(xs, get(o.PointOp))
					}
				}
			}
		}
		return xs
	}
}

// pointFigure is the operation and the reading of an interval's figures
// that an entry's figure fig is ("READ p99": READ's P99Us), nil when an
// interval has none of it.
func pointFigure(fig string) (op string, get func(result.PointOp) float64) {
	for _, st := range []struct {
		name string
		get  func(result.PointOp) float64
	}{{"p50", func(o result.PointOp) float64 { return o.P50Us }}, {"p99", func(o result.PointOp) float64 { return o.P99Us }},
		{"p99.9", func(o result.PointOp) float64 { return o.P999Us }}} {
		if op, ok := history.OpFigure(fig, st.name); ok {
			return op, st.get
		}
	}
	return "", nil
}
