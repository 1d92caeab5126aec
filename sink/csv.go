package sink

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// The time series (--csv, timeseries.file), CSV.
var csvDef = Def{Name: "csv", What: "the time series", Properties: []string{"timeseries.file"}, Read: func(p *props.Props) (Output, error) {
	if path := p.String("timeseries.file", ""); path != "" {
		return &fileOutput{name: "csv", what: "--csv (timeseries.file)", path: path, write: func(w io.Writer, e Ended) error {
			return WriteCSV(w, e.Doc)
		}}, nil
	}
	return nil, nil
}}

// WriteCSV writes the time series, one row per interval and operation:
// end_s, operation, count, failed, ops_per_sec, mean_us, p50_us, p99_us,
// p999_us, max_us, response_p99_us.
func WriteCSV(w io.Writer, d *result.Doc) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"start_s", "end_s", "operation", "count", "failed", "ops_per_sec", "mean_us", "p50_us", "p99_us", "p999_us", "max_us", "response_p99_us"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }
	for _, p := range d.Series {
		for _, e := range p.Ops { // by name
			n, o := e.Name, e.PointOp
			var failed int64
			for _, c := range o.Failed {
				failed += c
			}
			rate := 0.0
			if dur := p.EndS - p.StartS; dur > 0 {
				rate = float64(o.Count) / dur
			}
			cw.Write([]string{f(p.StartS), f(p.EndS), n, strconv.FormatInt(o.Count, 10), strconv.FormatInt(failed, 10),
				f(rate), f(o.MeanUs), f(o.P50Us), f(o.P99Us), f(o.P999Us), f(o.MaxUs), f(o.RespP99Us)})
		}
	}
	cw.Flush()
	return cw.Error()
}
