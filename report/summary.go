package report

import (
	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency summarises one histogram of nanoseconds in microseconds, the
// unit of YCSB's reports.
type Latency struct {
	Count       int64              `json:"count"`
	MeanUs      float64            `json:"mean_us"`
	MinUs       float64            `json:"min_us"`
	MaxUs       float64            `json:"max_us"`
	StdDevUs    float64            `json:"stddev_us"`
	Percentiles map[string]float64 `json:"percentiles_us"` // "50", "99.9" -> µs
}

func us(ns int64) float64 { return float64(ns) / 1000 }

// usInt rounds nanoseconds to whole microseconds, as YCSB's integer µs.
func usInt(ns int64) int64 { return (ns + 500) / 1000 }

// summarize returns the summary of h at the given percentiles (nil if h is
// nil or empty).
func summarize(h *hdr.Histogram, pcts []float64) *Latency {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	l := &Latency{
		Count:       h.TotalCount(),
		MeanUs:      h.Mean() / 1000,
		MinUs:       us(h.Min()),
		MaxUs:       us(h.Max()),
		StdDevUs:    h.StdDev() / 1000,
		Percentiles: map[string]float64{},
	}
	for _, p := range pcts {
		l.Percentiles[pctKey(p)] = us(h.ValueAtPercentile(p))
	}
	return l
}

func pctKey(p float64) string {
	s := javaDouble(p)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		s = s[:len(s)-2]
	}
	return s
}
