package result

import (
	"strconv"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency summarises one histogram of nanoseconds in microseconds, the
// unit of YCSB's reports.
type Latency struct {
	Count       int64            `json:"count"`
	MeanUs      float64          `json:"mean_us"`
	MinUs       float64          `json:"min_us"`
	MaxUs       float64          `json:"max_us"`
	StdDevUs    float64          `json:"stddev_us"`
	Percentiles Bounded[float64] `json:"percentiles_us"` // "50", "99.9" -> µs
}

// DefaultPercentiles are those the JSON result and time series carry.
var DefaultPercentiles = []float64{50, 90, 95, 99, 99.9, 99.99}

func us(ns int64) float64 { return float64(ns) / 1000 }

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Summarize returns the summary of h at the given percentiles (nil if h is
// nil or empty).
func Summarize(h *hdr.Histogram, pcts []float64) *Latency {
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

// pctKey names percentile p as the JSON does: 50, 99.9.
func pctKey(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
