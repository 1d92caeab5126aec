package engine

import (
	"strings"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/sink"
)

// MeasurementOptions reads YCSB's measurement properties: what is measured
// and how the text report shows it.
func MeasurementOptions(p *props.Props) (sink.Options, error) {
	var o sink.Options
	mt := p.String("measurementtype", "hdrhistogram")
	var known bool
	if o.Kinds, known = sink.MeasurementTypes(mt); !known {
		return o, p.Errorf("measurementtype", "%q is not one of %s", mt, strings.Join(sink.MeasurementTypeNames(), ", "))
	}
	if v, ok := p.Get("exporter"); ok && !strings.HasSuffix(v, "TextMeasurementsExporter") {
		return o, p.Errorf("exporter", "%q is not supported: the text report is YCSB's; use -o FILE.json for JSON", v)
	}
	if _, set := p.Get("measurement.interval"); set {
		iv, err := p.OneOf("measurement.interval", "", "op", "intended", "both")
		if err != nil {
			return o, err
		}
		o.Interval = sink.Interval(iv)
	}
	buckets, err := p.Int64Min("histogram.buckets", 1000, 1)
	if err != nil {
		return o, err
	}
	if buckets > 10_000_000 {
		return o, p.Errorf("histogram.buckets", "%d is more than 10000000", buckets)
	}
	o.Buckets = int(buckets)
	if o.BucketLines, err = p.Bool("measurement.histogram.verbose", false); err != nil {
		return o, err
	}
	gran, err := p.FloatRange("timeseries.granularity", 1000, 10, 3600e3)
	if err != nil {
		return o, err
	}
	o.Granularity = time.Duration(gran * float64(time.Millisecond))
	if o.RawNoSummary, err = p.Bool("measurement.raw.no_summary", false); err != nil {
		return o, err
	}
	o.RawApart = p.String("measurement.raw.output_file", "") != "" // the raw output writes them (package sink)
	if o.Percentiles, err = p.Floats("hdrhistogram.percentiles", "50,95,99"); err != nil {
		return o, err
	}
	for _, pc := range o.Percentiles {
		if pc <= 0 || pc > 100 {
			return o, p.Errorf("hdrhistogram.percentiles", "%v is not a percentile in (0, 100]", pc)
		}
	}
	if o.EachError, err = p.Bool("reportlatencyforeacherror", false); err != nil {
		return o, err
	}
	for _, name := range strings.Split(p.String("latencytrackederrors", ""), ",") {
		if name = strings.TrimSpace(name); name == "" {
			continue
		}
		s, ok := db.ParseStatus(name)
		if !ok {
			return o, p.Errorf("latencytrackederrors", "%q is not a status name", name)
		}
		o.Tracked[s] = true
	}
	late, err := p.FloatRange("schedule.latethreshold", 1, 0, 3600e3)
	if err != nil {
		return o, err
	}
	o.LateThreshold = time.Duration(late * float64(time.Millisecond))
	return o, nil
}
