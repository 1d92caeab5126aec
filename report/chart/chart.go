// Package chart draws the report's charts as SVG text: grouped, stacked
// and log-scale bars, and lines with marked points and a bound. The SVG
// carries its own styling (attributes only, no stylesheet), so the same
// text works inline in a page and as a file of its own. Every value drawn
// is an element of class "mark" with a <title> giving the value, and the
// root element's data-points attribute counts them, so a reader (or a
// test in a browser) can tell that a chart shows its data.
package chart

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Palette is the Okabe–Ito colour set, distinguishable with the common
// colour-vision deficiencies, in an order that alternates dark and light
// (so neighbours differ in grey too). Black is kept out: it is reserved
// for bounds (an SLO line), which no series may be mistaken for.
var Palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442"}

// Dashes are the lines' dash patterns, by series: in grey, or printed,
// lines of similar shades still differ.
var Dashes = []string{"", "6 3", "2 3", "8 3 2 3", "12 4", "4 2 4 6", "1 2"}

// BoundColour is the colour of bounds and reference lines only.
const BoundColour = "#000000"

// charW is the width of a label of n characters at the charts' font size,
// in SVG units (sans-serif at 11 units: about 6.2 a character).
func charW(n int) float64 { return 6.2 * float64(n) }

// xLabel writes an axis label centred at x, kept inside the chart: a label
// that would pass an edge is anchored at it instead of clipped.
func (c *canvas) xLabel(x float64, y int, text string) {
	half := charW(len([]rune(text))) / 2
	anchor := "middle"
	switch {
	case x+half > width-2:
		anchor, x = "end", math.Min(x+half, width-2)
	case x-half < 2:
		anchor, x = "start", math.Max(x-half, 2)
	}
	c.f(`<text x="%.1f" y="%d" text-anchor="%s">%s</text>`, x, y, anchor, esc(text))
}

// Geometry of every chart, in SVG user units.
const (
	width   = 720
	height  = 340
	left    = 72
	right   = 16
	top     = 34
	bottom  = 64
	plotW   = width - left - right
	plotH   = height - top - bottom
	fontCSS = `font-family="sans-serif" font-size="11"`
)

// canvas accumulates one SVG document.
type canvas struct {
	b     strings.Builder
	marks int
}

func (c *canvas) f(format string, args ...any) { fmt.Fprintf(&c.b, format, args...) }

// mark draws one value: el is an element without its closing, title its
// tooltip.
func (c *canvas) mark(el, title string) {
	c.marks++
	c.f(`%s class="mark"><title>%s</title></%s>`, el, esc(title), tagOf(el))
}

func tagOf(el string) string {
	el = strings.TrimPrefix(el, "<")
	if i := strings.IndexByte(el, ' '); i > 0 {
		return el[:i]
	}
	return el
}

func (c *canvas) finish(title string) string {
	var out strings.Builder
	fmt.Fprintf(&out, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-points="%d" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s" %s>`,
		c.marks, width, height, width, height, esc(title), fontCSS)
	out.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>`)
	fmt.Fprintf(&out, `<text x="%d" y="18" font-size="13" font-weight="bold">%s</text>`, left, esc(title))
	out.WriteString(c.b.String())
	out.WriteString(`</svg>`)
	return out.String()
}

func esc(s string) string { return html.EscapeString(s) }

// scale maps data values to plot pixels, linear or logarithmic.
type scale struct {
	lo, hi float64
	log    bool
	px     float64 // length of the axis in pixels
}

func (s scale) at(v float64) float64 {
	if s.log {
		if v <= 0 {
			return 0
		}
		return (math.Log10(v) - math.Log10(s.lo)) / (math.Log10(s.hi) - math.Log10(s.lo)) * s.px
	}
	return (v - s.lo) / (s.hi - s.lo) * s.px
}

// newScale covers [min, max]: from 0 (linear) or from the decade below
// min (log), to a round value at or above max.
func newScale(min, max float64, log bool, px float64) scale {
	if log {
		if min <= 0 || math.IsInf(min, 1) {
			min = 1
		}
		if max < min {
			max = min
		}
		lo := math.Pow(10, math.Ceil(math.Log10(min))-1) // a decade below a power of ten too
		hi := math.Pow(10, math.Ceil(math.Log10(max)))
		if hi <= lo {
			hi = lo * 10
		}
		return scale{lo, hi, true, px}
	}
	if max <= 0 {
		max = 1
	}
	step := niceStep(max / 5)
	return scale{0, math.Ceil(max/step) * step, false, px}
}

// niceStep rounds a raw tick step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			return m * p
		}
	}
	return 10 * p
}

// ticks are the labelled values of an axis.
func (s scale) ticks() []float64 {
	var t []float64
	if s.log {
		for v := s.lo; v <= s.hi*1.0001; v *= 10 {
			t = append(t, v)
		}
		return t
	}
	step := niceStep(s.hi / 5)
	for v := 0.0; v <= s.hi*1.0001; v += step {
		t = append(t, v)
	}
	return t
}

// Num formats a value for an axis or a tooltip: 950, 1.2k, 3.4M.
func Num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1e9:
		return trim(v/1e9) + "G"
	case a >= 1e6:
		return trim(v/1e6) + "M"
	case a >= 1e4:
		return trim(v/1e3) + "k"
	case a >= 100 || a == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	default:
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
}

func trim(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// yAxis draws the value axis, its grid and its label.
func (c *canvas) yAxis(s scale, label string) {
	for _, t := range s.ticks() {
		y := top + plotH - s.at(t)
		c.f(`<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e0e0e0"/>`, left, left+plotW, y, y)
		c.f(`<text x="%d" y="%.1f" text-anchor="end">%s</text>`, left-6, y+4, Num(t))
	}
	c.f(`<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#444"/>`, left, left, top, top+plotH)
	if s.log {
		label += " (log scale)"
	}
	c.f(`<text transform="translate(14 %d) rotate(-90)" text-anchor="middle">%s</text>`, top+plotH/2, esc(label))
}

// SpansDecades reports whether the positive values span two decades or
// more: on a linear axis the small ones would vanish next to the large.
func SpansDecades(vals ...float64) bool {
	lo, hi := math.Inf(1), 0.0
	for _, v := range vals {
		if v > 0 && !math.IsInf(v, 0) {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return hi > 0 && hi/lo >= 100
}

// legend draws the series names below the plot, each with a swatch: a
// square of its colour, or with dashes, a line drawn as the series' is.
func (c *canvas) legend(names []string, dashes ...string) {
	x, y := float64(left), float64(height-12)
	for i, n := range names {
		w := 22 + 6.5*float64(len([]rune(n)))
		if x+w > width-right && x > left {
			x, y = left, y-14 // wrap upwards: rare, many series
		}
		if len(dashes) > 0 {
			c.f(`<path d="M%.1f %.1fh12" stroke="%s" stroke-width="2" stroke-dasharray="%s"/>`, x-1, y-4, colour(i), dashes[i%len(dashes)])
		} else {
			c.f(`<rect x="%.1f" y="%.1f" width="10" height="10" fill="%s"/>`, x, y-9, colour(i))
		}
		c.f(`<text x="%.1f" y="%.1f">%s</text>`, x+14, y, esc(n))
		x += w
	}
}

// diamond marks a published figure centred at (x, y), half-width r, with
// its tooltip.
func (c *canvas) diamond(x, y, r float64, fill, stroke, title string) {
	c.mark(fmt.Sprintf(`<path d="M%.1f %.1fl%g %gl%g %gl%g %gz" fill="%s" stroke="%s" stroke-width="1.2"`, x, y-r, r, r, -r, r, -r, -r, fill, stroke), title)
}

// publishedKey says, above the plot, what a diamond is.
func (c *canvas) publishedKey(fill, stroke string) {
	c.f(`<path d="M%d %dl5 5l-5 5l-5 -5z" fill="%s" stroke="%s"/><text x="%d" y="%d" font-size="11">published (the study's figure)</text>`, left+plotW-190, top-14, fill, stroke, left+plotW-180, top-5)
}

// colour is series i's.
func colour(i int) string { return Palette[i%len(Palette)] }
