package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	stdhtml "html"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/servbench/servbench/history"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/report/chart"
	"github.com/servbench/servbench/result"
)

const historyUsage = `usage: servbench history [FILTERS] [--trend FIGURE]
       servbench history import PATH...

Every run, load and plan cell the command line finishes is recorded in a
local history, a SQLite database any SQLite tool reads (tables entries
and figures): when, label, binding, server and version, workload, the
config (its properties but rate, length and outputs, as a digest), records,
threads, clients, rate, ops/s, each operation's percentiles, failures by
cause, the client's machine, the result file's path and checksum. It is
kept at $XDG_DATA_HOME/servbench/history.db (~/.local/share/servbench/
history.db); -p history.file=PATH records elsewhere, history.file=off
nowhere. A history that cannot be written is said in one line: the
result's own files are written first and stay the truth.

  --db PATH          the history to read (default: the place above)
  --label L, --binding B, --workload W, --command load|run, --config DIGEST
                     only the entries of these
  --since T          only those that started at or after T (RFC 3339,
                     2026-11-01, or an age: 36h, 7d)
  --last N           the most recent N (default 50, at most 100000)
  --trend FIGURE     the figure over time as a chart (throughput,
                     "READ p99", "UPDATE response p99.9", ...)
  --html FILE        with --trend: also as an HTML page (an SVG chart, a line
                     a config, no external assets)

import PATH... records result files and directories of them (a plan's
directory: its runs and loads), each once; a spread phase's client files
(NAME.client-N.json) are left to their merged result.
`

// historyFile is where a phase's result is recorded: given (property
// history.file), nothing for off, else the default place.
func historyFile(given string) (string, error) {
	if given == history.Off {
		return "", nil
	}
	return history.PathOr(given, os.Getenv)
}

// recordResult adds a phase's result d, written at path ("" for not
// written), to the history given (property history.file). Whatever
// fails is said in one line, after the result's own files were written:
// it changes neither them nor the exit code.
func recordResult(ctx context.Context, given string, d *result.Doc, path string, stderr io.Writer) {
	if d == nil {
		return
	}
	file, err := historyFile(given)
	if err == nil && file != "" {
		_, err = history.Record(context.WithoutCancel(ctx), file, d, path)
	}
	if err != nil {
		fmt.Fprintf(stderr, "servbench: history: %s: the result was not recorded (its own files are as written)\n", oneLine(err))
	}
}

// historyCmd lists the history, charts a figure of it, or imports results.
func historyCmd(ctx context.Context, args []string, stdout, stderr io.Writer) (int, error) {
	if len(args) > 0 && args[0] == "import" {
		return historyImport(ctx, args[1:], stdout)
	}
	fs := flag.NewFlagSet("servbench history", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	db := fs.String("db", "", "")
	var f history.Filter
	fs.StringVar(&f.Label, "label", "", "")
	fs.StringVar(&f.Binding, "binding", "", "")
	fs.StringVar(&f.Workload, "workload", "", "")
	fs.StringVar(&f.Command, "command", "", "")
	fs.StringVar(&f.Config, "config", "", "")
	since := fs.String("since", "", "")
	fs.IntVar(&f.Last, "last", 50, "")
	trend := fs.String("trend", "", "")
	html := fs.String("html", "", "")
	pos, err := flagsAnywhere(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, historyUsage)
		return ExitOK, nil
	}
	if err != nil {
		return ExitUsage, badf("history: %v", err)
	}
	if len(pos) > 0 {
		return ExitUsage, badf("history: unexpected %q (usage: servbench history [FILTERS], servbench history import PATH...)", pos[0])
	}
	if f.Last < 1 || f.Last > history.MaxList {
		return ExitUsage, badf("history: --last %d: want 1 to %d", f.Last, history.MaxList)
	}
	if *html != "" && *trend == "" {
		return ExitUsage, badf("history: --html writes a trend: give --trend FIGURE")
	}
	if *since != "" {
		if f.Since, err = parseSince(*since, time.Now()); err != nil {
			return ExitUsage, badf("history: --since: %v", err)
		}
	}
	s, err := openHistory(ctx, *db)
	if err != nil {
		return ExitFailure, err
	}
	defer s.Close()
	es, err := s.List(ctx, f)
	if err != nil {
		return ExitFailure, err
	}
	out := &stickyWriter{w: stdout}
	if *html != "" {
		if err := writeTrendHTML(*html, es, *trend); err != nil {
			return ExitFailure, fmt.Errorf("history: --html: %w", err)
		}
	}
	if *trend != "" {
		writeTrend(out, es, *trend)
	} else {
		writeHistory(out, es)
	}
	if out.err != nil {
		return ExitFailure, fmt.Errorf("history: %w", out.err)
	}
	return ExitOK, nil
}

// openHistory opens the history at path, or at the default place; one
// that is not there is not made.
func openHistory(ctx context.Context, path string) (*history.Store, error) {
	path, err := history.PathOr(path, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("history: %w (nothing recorded there yet)", err)
	}
	return history.OpenRead(ctx, path)
}

// parseSince reads a time (RFC 3339, a date) or an age before now (36h,
// 7d).
func parseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, time.Local); err == nil {
		return t, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(d); err == nil && n >= 0 && n <= 100000 {
			return now.Add(-time.Duration(n) * 24 * time.Hour), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q: want RFC 3339, YYYY-MM-DD or an age (36h, 7d)", s)
}

func writeHistory(w io.Writer, es []history.Entry) {
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTART\tCOMMAND\tLABEL\tBINDING\tWORKLOAD\tRECORDS\tTHREADS\tCLIENTS\tRATE\tOPS/S\tWORST P99 (µs)\tFAILED\tCONFIG")
	for _, e := range es {
		rate := "-"
		if e.Rate > 0 {
			rate = strconv.FormatFloat(e.Rate, 'f', -1, 64)
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\t%.1f\t%s\t%d\t%s\n", e.ID, e.Start.Local().Format("2006-01-02 15:04:05"),
			e.Command, format.Printable(orDash(e.Label)), format.Printable(e.Binding), format.Printable(orDash(e.Workload)), e.Records,
			e.Threads, e.Clients, rate, e.Throughput, worstP99(e), e.Operations-e.OK, e.Config)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d entries\n", len(es))
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// worstP99 is the largest p99 of the entry's operations, in µs.
func worstP99(e history.Entry) string {
	worst := -1.0
	for name, v := range e.Figures {
		if _, ok := history.OpFigure(name, "p99"); ok {
			worst = max(worst, v)
		}
	}
	if worst < 0 {
		return "-"
	}
	return strconv.FormatFloat(worst, 'f', 1, 64)
}

// writeTrend charts one figure over the entries, one line an entry, its
// bar as long as its value against the largest.
func writeTrend(w io.Writer, es []history.Entry, fig string) {
	top := 0.0
	for i := range es {
		if v, ok := es[i].Figure(fig); ok && !math.IsNaN(v) {
			top = max(top, v)
		}
	}
	fmt.Fprintf(w, "%s over %d entries\n", format.Printable(fig), len(es))
	const width = 50
	for i := range es {
		v, ok := es[i].Figure(fig)
		if !ok || math.IsNaN(v) {
			fmt.Fprintf(w, "%s  %6d  %14s\n", es[i].Start.Local().Format("2006-01-02 15:04"), es[i].ID, "-")
			continue
		}
		n := 0
		if top > 0 {
			n = int(math.Round(v / top * width))
		}
		fmt.Fprintf(w, "%s  %6d  %14.2f  %s\n", es[i].Start.Local().Format("2006-01-02 15:04"), es[i].ID, v, strings.Repeat("█", n))
	}
}

// writeTrendHTML writes the trend of figure fig over the entries as a
// page: one line a config, x the days since the first entry.
func writeTrendHTML(path string, es []history.Entry, fig string) error {
	var first time.Time
	if len(es) > 0 {
		first = es[0].Start
	}
	var lines []chart.Line
	at := map[string]int{}
	for i := range es {
		e := &es[i]
		v, ok := e.Figure(fig)
		if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		k, seen := at[e.Config]
		if !seen {
			k = len(lines)
			at[e.Config] = k
			lines = append(lines, chart.Line{Name: fmt.Sprintf("%s %s %s, %d threads, rate %s", e.Binding, orDash(e.Label), orDash(e.Workload), e.Threads, rateText(e.Rate))})
		}
		lines[k].Points = append(lines[k].Points, chart.Point{X: e.Start.Sub(first).Hours() / 24, Y: v, Label: e.Start.UTC().Format(time.RFC3339)})
	}
	c := &chart.Lines{Title: fig + " over time", XLabel: "days since " + first.UTC().Format("2006-01-02 15:04 UTC"), YLabel: fig, Lines: lines}
	page := "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>servbench: " + stdhtml.EscapeString(fig) +
		"</title></head><body>" + c.SVG() + "</body></html>\n"
	return atomicfile.WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, page); return err })
}

// historyImport records result files and directories of them.
func historyImport(ctx context.Context, args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("servbench history import", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	db := fs.String("db", "", "")
	pos, err := flagsAnywhere(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, historyUsage)
		return ExitOK, nil
	}
	if err != nil {
		return ExitUsage, badf("history import: %v", err)
	}
	if len(pos) == 0 {
		return ExitUsage, badf("history import: give result files or directories of them")
	}
	var files []string
	for _, p := range pos {
		found, err := resultFiles(p)
		if err != nil {
			return ExitUsage, badf("history import: %v", err)
		}
		files = append(files, found...)
	}
	file, err := history.PathOr(*db, os.Getenv)
	if err != nil {
		return ExitUsage, badf("history import: %v", err)
	}
	s, err := history.Open(ctx, file)
	if err != nil {
		return ExitFailure, err
	}
	defer s.Close()
	added := 0
	for _, f := range files { // one at a time: a result read, recorded, let go
		if ctx.Err() != nil {
			return ExitInterrupted, fmt.Errorf("history import: interrupted; %d of %d recorded", added, len(files))
		}
		d, err := result.ReadFile(f)
		if err != nil {
			return ExitUsage, badf("history import: %v (%d of %d recorded before it)", err, added, len(files))
		}
		abs, err := filepath.Abs(f)
		if err != nil {
			return ExitFailure, err
		}
		sum, err := history.Checksum(abs)
		if err != nil {
			return ExitFailure, fmt.Errorf("history import: %w", err)
		}
		ok, err := s.Add(context.WithoutCancel(ctx), history.EntryOf(d, abs, sum))
		if err != nil {
			return ExitFailure, fmt.Errorf("history import: %d of %d recorded: %w", added, len(files), err)
		}
		if ok {
			added++
		}
	}
	fmt.Fprintf(stdout, "recorded %d results in %s (%d there already)\n", added, s.Path(), len(files)-added)
	return ExitOK, nil
}

// maxImportFiles bounds the result files one import reads.
const maxImportFiles = 100000

// resultFiles are the results at p: a file, or the *.json files under a
// directory but a spread phase's client files and a plan's own (index,
// setup).
func resultFiles(p string) ([]string, error) {
	if p == "" {
		return nil, errors.New("an empty file name")
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		if !st.Mode().IsRegular() { // a named pipe's open would wait for a writer
			return nil, fmt.Errorf("%s: not a regular file or a directory", p)
		}
		return []string{p}, nil
	}
	var out []string
	err = filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() || !d.Type().IsRegular() || !strings.HasSuffix(name, ".json") || strings.Contains(name, ".client-") ||
			slices.Contains([]string{"index.json", "setup.json"}, name) {
			return nil
		}
		if len(out) == maxImportFiles {
			return fmt.Errorf("%s holds more than %d result files", p, maxImportFiles)
		}
		out = append(out, path)
		return nil
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("%s holds no result file", p)
	}
	return out, err
}
