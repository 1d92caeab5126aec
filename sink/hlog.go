package sink

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/runner"
)

// HdrHistogram interval logs: YCSB's hdrhistogram.fileoutput (files
// PATH<SECTION>.hdr, PATH from hdrhistogram.output.path) and servbench's
// hdrhistogram.log (--hlog: PREFIX<SECTION>.hlog). Files of one process:
// a phase spread over clients refuses them.
var hdrDef = Def{Name: "hdr", What: "the HdrHistogram logs", Properties: []string{"hdrhistogram.fileoutput", "hdrhistogram.output.path"}, Read: func(p *props.Props) (Output, error) {
	on, err := p.Bool("hdrhistogram.fileoutput", false)
	path := p.String("hdrhistogram.output.path", "")
	if err != nil || !on {
		return nil, err
	}
	return &hlogOutput{name: "hdr", prefix: path, ext: ".hdr", what: "hdrhistogram.output.path"}, nil
}}

// servbench's hdrhistogram.log (--hlog: PREFIX<SECTION>.hlog).
var hlogDef = Def{Name: "hlog", What: "the HdrHistogram logs", Properties: []string{"hdrhistogram.log"}, Read: func(p *props.Props) (Output, error) {
	if prefix := p.String("hdrhistogram.log", ""); prefix != "" {
		return &hlogOutput{name: "hlog", prefix: prefix, ext: ".hlog", what: "--hlog (hdrhistogram.log)"}, nil
	}
	return nil, nil
}}

type hlogOutput struct{ name, prefix, ext, what string }

func (o *hlogOutput) Name() string { return o.name }
func (o *hlogOutput) Where() Where { return OneProcess }

// Files is the prefix of the files created as sections appear.
func (o *hlogOutput) Files() []File {
	return []File{{What: o.what, Path: o.prefix, Ext: o.ext}}
}

// Open checks, before anything is measured, that the logs can be created
// where the prefix puts them: its directory is there and takes a new
// file (the logs are created as sections appear, during the run: a
// prefix in no directory lost them after the whole run).
func (o *hlogOutput) Open(env *Env) (Sink, error) {
	dir := filepath.Dir(o.prefix + "x")
	probe, err := os.CreateTemp(dir, ".servbench-hlog-*")
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, fmt.Errorf("%s %s: the logs' directory %s: %v", o.what, o.prefix, dir, err)
	}
	probe.Close()
	os.Remove(probe.Name())
	return &Hlog{Prefix: o.prefix, Ext: o.ext, Options: env.Measurements}, nil
}

// Hlog writes every interval's histograms in HdrHistogram's interval log
// format, one file per report section (<Prefix><NAME><Ext>: READ,
// READ-FAILED, Intended-READ, ...), so HdrHistogram's own tools
// (HistogramLogProcessor, HistogramLogAnalyzer, hdrhistogram-go's
// HistogramLogReader) can read a run. It is YCSB's
// hdrhistogram.fileoutput, with values in nanoseconds. It is a
// runner.Observer and a Sink; Close reports the first write error.
type Hlog struct {
	Prefix, Ext string
	Options     *Options

	files map[string]*hlogFile
	err   error
}

type hlogFile struct {
	f  *os.File
	bw *bufio.Writer
	lw *hdr.HistogramLogWriter
}

// Interval implements runner.Observer: it appends the interval's
// histograms, timed from the start of measurement.
func (h *Hlog) Interval(p runner.Progress) {
	if p.Warmup || h.err != nil {
		return
	}
	ms := p.Interval
	for _, m := range h.Options.measurements(ms) {
		hist := m.histogram(ms)
		if hist.TotalCount() == 0 {
			continue
		}
		lf, err := h.file(m.name, p)
		if err != nil {
			h.err = err
			return
		}
		base := lf.lw.BaseTime()
		hist.SetStartTimeMs(base + p.Start.Milliseconds())
		hist.SetEndTimeMs(base + p.End.Milliseconds())
		if err := lf.lw.OutputIntervalHistogram(hist); err != nil {
			h.err = fmt.Errorf("hdr log %s: %w", lf.f.Name(), err)
			return
		}
	}
}

func (h *Hlog) file(name string, p runner.Progress) (*hlogFile, error) {
	if lf, ok := h.files[name]; ok {
		return lf, nil
	}
	if h.files == nil {
		h.files = map[string]*hlogFile{}
	}
	path := h.Prefix + name + h.Ext
	f, err := createStream(path)
	if err != nil {
		return nil, fmt.Errorf("hdr log: %w", err)
	}
	bw := bufio.NewWriter(f)
	lw := hdr.NewHistogramLogWriter(bw)
	// Interval timestamps are relative to the start of measurement,
	// whose wall-clock time is the log's StartTime and BaseTime.
	startMs := p.Now.Add(-p.End).UnixMilli()
	lw.SetBaseTime(startMs)
	for _, err := range []error{
		lw.OutputLogFormatVersion(), lw.OutputComment("servbench " + name + ": latency in nanoseconds"),
		lw.OutputStartTime(startMs), lw.OutputBaseTime(startMs), lw.OutputLegend(),
	} {
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("hdr log %s: %w", path, err)
		}
	}
	lf := &hlogFile{f: f, bw: bw, lw: lw}
	h.files[name] = lf
	return lf, nil
}

// End implements Sink: the logs are written as the run goes.
func (h *Hlog) End(Ended) error { return nil }

// Close implements Sink: it flushes and closes every file (what was
// written stays, keep or not) and reports the first write error.
func (h *Hlog) Close(bool) error {
	for _, lf := range h.files {
		if err := lf.bw.Flush(); err != nil && h.err == nil {
			h.err = fmt.Errorf("hdr log %s: %w", lf.f.Name(), err)
		}
		if err := lf.f.Close(); err != nil && h.err == nil {
			h.err = fmt.Errorf("hdr log %s: %w", lf.f.Name(), err)
		}
	}
	h.files = nil
	return h.err
}

// createStream opens path for a log written as the run goes
// (atomicfile.OpenOwn): a file is created or emptied, a character device
// or a named pipe written in place (a pipe nobody reads is refused rather
// than waited for), never a link to a file elsewhere (a user's file
// linked at PREFIXREAD.hlog was emptied and written over).
func createStream(path string) (*os.File, error) {
	return atomicfile.OpenOwn(path, atomicfile.Own{What: "a log this run writes", Pipes: true})
}
