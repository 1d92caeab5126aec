package chart

import (
	"fmt"
	"math"
)

// Series is one named set of values, one per category (NaN: no value).
type Series struct {
	Name   string
	Values []float64
	Err    []float64 // ± half-width drawn as an error bar (optional)
	// Published are figures a study published for the same bars (NaN or
	// missing: none), each drawn as a black diamond on its bar, labelled
	// "published" (optional).
	Published []float64
}

// Bars is a bar chart: categories along x, one bar per series in each
// (side by side, or stacked).
type Bars struct {
	Title, YLabel string
	Categories    []string
	Series        []Series
	Log           bool // logarithmic value axis (for values spanning decades; said on the axis)
	Stacked       bool
}

// AutoLog sets a logarithmic axis when the bars' values span two decades
// or more (see SpansDecades); it returns b.
func (b *Bars) AutoLog() *Bars {
	var all []float64
	for _, s := range b.Series {
		all = append(all, s.Values...)
	}
	b.Log = !b.Stacked && SpansDecades(all...)
	return b
}

// SVG draws the chart.
func (b *Bars) SVG() string {
	var c canvas
	lo, hi := b.extent()
	published := false
	sc := newScale(lo, hi, b.Log, plotH)
	c.yAxis(sc, b.YLabel)
	n := len(b.Categories)
	if n == 0 {
		return c.finish(b.Title)
	}
	slot := float64(plotW) / float64(n)
	per := len(b.Series)
	if b.Stacked {
		per = 1
	}
	bw := math.Min(48, slot*0.8/float64(max(per, 1)))
	// Category labels wider than their slot are turned, and cut (the
	// whole name stays in a tooltip), so that neighbours never overlap.
	longest := 0
	for _, cat := range b.Categories {
		longest = max(longest, len([]rune(cat)))
	}
	turn := charW(longest) > slot-4
	for ci, cat := range b.Categories {
		x0 := left + slot*float64(ci) + (slot-bw*float64(per))/2
		cx := left + slot*(float64(ci)+0.5)
		if turn {
			label := []rune(cat)
			if len(label) > 22 {
				label = append(label[:21], '…')
			}
			c.f(`<text class="xlabel" transform="translate(%.1f %d) rotate(-30)" text-anchor="end"><title>%s</title>%s</text>`, cx+3, top+plotH+12, esc(cat), esc(string(label)))
		} else {
			c.xLabel(cx, top+plotH+16, cat)
		}
		if b.category(&c, sc, ci, x0, bw) {
			published = true
		}
	}
	c.f(`<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#444"/>`, left, left+plotW, top+plotH, top+plotH)
	names := make([]string, len(b.Series))
	for i, s := range b.Series {
		names[i] = s.Name
	}
	c.legend(names)
	if published {
		c.publishedKey("#000", "#000")
	}
	return c.finish(b.Title)
}

// extent returns the lowest and highest value the value axis shows: the
// bars (stacked, when they are) with their error bars, and the published
// figures.
func (b *Bars) extent() (lo, hi float64) {
	lo, hi = math.Inf(1), 0.0
	for ci := range b.Categories {
		stack := 0.0
		for _, s := range b.Series {
			v := value(s.Values, ci)
			if math.IsNaN(v) {
				continue
			}
			if b.Stacked {
				stack += v
				v = stack
			}
			v += value0(s.Err, ci)
			hi = math.Max(hi, v)
			if v > 0 {
				lo = math.Min(lo, v-value0(s.Err, ci))
			}
		}
		for _, s := range b.Series {
			if p := value(s.Published, ci); !math.IsNaN(p) && p > 0 && !b.Stacked {
				hi, lo = math.Max(hi, p), math.Min(lo, p)
			}
		}
	}
	return lo, hi
}

// category draws category ci's bars, from x0, each bw wide: a series'
// published figure as a diamond, its bar, its error bar and its value.
// It reports whether it drew a published figure.
func (b *Bars) category(c *canvas, sc scale, ci int, x0, bw float64) (published bool) {
	cat := b.Categories[ci]
	base := 0.0
	for si, s := range b.Series {
		if p := value(s.Published, ci); !math.IsNaN(p) && p > 0 && !b.Stacked {
			// The study's figure: a diamond where its bar would end.
			px, py := x0+bw*float64(si)+bw/2, top+plotH-sc.at(p)
			c.diamond(px, py, 5, "#000", "#fff", fmt.Sprintf("%s, %s: %s published", cat, s.Name, Num(p)))
			published = true
		}
		v := value(s.Values, ci)
		if math.IsNaN(v) || (b.Log && v <= 0) {
			continue
		}
		x := x0 + bw*float64(si)
		from := base
		if b.Stacked {
			x = x0
			base += v
		}
		y1, y0 := top+plotH-sc.at(from+v), top+plotH-sc.at(from)
		if b.Log && from == 0 {
			y0 = top + plotH
		}
		col := colour(si)
		title := fmt.Sprintf("%s, %s: %s", cat, s.Name, Num(v))
		if e := value0(s.Err, ci); e > 0 {
			title += " ± " + Num(e)
		}
		c.mark(fmt.Sprintf(`<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"`, x, y1, bw, math.Max(y0-y1, 0.5), col), title)
		if e := value0(s.Err, ci); e > 0 && !b.Stacked {
			ya, yb := top+plotH-sc.at(v+e), top+plotH-sc.at(math.Max(v-e, sc.lo))
			mx := x + bw/2
			c.f(`<path d="M%.1f %.1fV%.1fM%.1f %.1fh8M%.1f %.1fh8" stroke="#333" fill="none"/>`, mx, ya, yb, mx-4, ya, mx-4, yb)
		}
		if !b.Stacked { // the value, above the bar (and its whisker), turned when the bar is narrow
			ly := y1 - 3
			if e := value0(s.Err, ci); e > 0 {
				ly = top + plotH - sc.at(v+e) - 3
			}
			if bw >= charW(len(Num(v)))*0.85 {
				c.f(`<text class="value" x="%.1f" y="%.1f" text-anchor="middle" font-size="9.5">%s</text>`, x+bw/2, ly, Num(v))
			} else {
				c.f(`<text class="value" transform="translate(%.1f %.1f) rotate(-90)" font-size="9.5">%s</text>`, x+bw/2+3, ly, Num(v))
			}
		}
	}
	return published
}

func value(vs []float64, i int) float64 {
	if i < len(vs) {
		return vs[i]
	}
	return math.NaN()
}

func value0(vs []float64, i int) float64 {
	if i < len(vs) && !math.IsNaN(vs[i]) {
		return vs[i]
	}
	return 0
}
