package chart

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Point is one point of a line; Mark draws it larger, ringed (the SLO's
// best point, say).
type Point struct {
	X, Y  float64
	Mark  bool
	Label string // tooltip prefix
}

// Line is one named line; Published are the figures a study published
// for it, drawn as diamonds in its colour (optional).
type Line struct {
	Name      string
	Points    []Point
	Published []Point
}

// Bound is a horizontal line at Y (above 0), labelled.
type Bound struct {
	Y     float64
	Label string
}

// Lines is a line chart with numeric axes.
type Lines struct {
	Title, XLabel, YLabel string
	Lines                 []Line
	LogX, LogY            bool
	// Bounds are drawn as dashed horizontal lines (an SLO's bounds).
	Bounds []Bound
	// XTicks, when given, replace the x axis's ticks (value → label).
	XTicks      []float64
	XTickLabels []string
	// Ordinal places the distinct x values evenly, in order, each a tick
	// (thread counts 1, 2, 4, 8, 64 as the studies draw them), the axis
	// label saying so.
	Ordinal bool
}

// SVG draws the chart.
func (l *Lines) SVG() string {
	var c canvas
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), 0.0
	for _, ln := range l.Lines {
		for _, p := range append(slices.Clip(ln.Points), ln.Published...) {
			if bad(p.X, l.LogX) || bad(p.Y, l.LogY) {
				continue
			}
			xlo, xhi = math.Min(xlo, p.X), math.Max(xhi, p.X)
			ylo, yhi = math.Min(ylo, p.Y), math.Max(yhi, p.Y)
		}
	}
	for _, b := range l.Bounds {
		yhi = math.Max(yhi, b.Y)
		ylo = math.Min(ylo, b.Y)
	}
	if math.IsInf(xlo, 1) {
		xlo, xhi = 0, 1
	}
	ys := newScale(ylo, yhi, l.LogY, plotH)
	if l.Ordinal {
		return l.ordinal(ys)
	}
	xs := newScale(xlo, xhi, l.LogX, plotW)
	if !l.LogX && xlo > 0 && xlo > xhi/3 {
		// Keep the x axis from 0 unless the values sit far from it.
		step := niceStep((xhi - xlo) / 5)
		xs = scale{math.Floor(xlo/step) * step, math.Ceil(xhi/step) * step, false, plotW}
		if xs.hi == xs.lo {
			xs.hi = xs.lo + step
		}
	}
	c.yAxis(ys, l.YLabel)
	ticks := xs.ticks()
	labels := make([]string, len(ticks))
	for i, t := range ticks {
		labels[i] = Num(t)
	}
	if !xs.log && xs.lo != 0 {
		ticks, labels = nil, nil
		step := niceStep((xs.hi - xs.lo) / 5)
		for v := xs.lo; v <= xs.hi*1.0001; v += step {
			ticks, labels = append(ticks, v), append(labels, Num(v))
		}
	}
	if len(l.XTicks) > 0 {
		ticks, labels = l.XTicks, l.XTickLabels
	}
	for i, t := range ticks {
		x := left + xs.at(t)
		if x < left-0.5 || x > left+plotW+0.5 {
			continue
		}
		c.f(`<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#f0f0f0"/>`, x, x, top, top+plotH)
		c.xLabel(x, top+plotH+16, labels[i])
	}
	xLabel := l.XLabel
	if xs.log {
		xLabel += " (log scale)"
	}
	return l.draw(&c, func(x float64) float64 { return left + xs.at(x) }, ys, xLabel)
}

// ordinal draws the chart with the distinct x values evenly spaced.
func (l *Lines) ordinal(ys scale) string {
	var c canvas
	c.yAxis(ys, l.YLabel)
	var xs []float64
	for _, ln := range l.Lines {
		for _, p := range append(slices.Clip(ln.Points), ln.Published...) {
			if !bad(p.X, false) && !slices.Contains(xs, p.X) {
				xs = append(xs, p.X)
			}
		}
	}
	slices.Sort(xs)
	step := float64(plotW) / float64(max(len(xs), 1))
	at := func(x float64) float64 {
		i, _ := slices.BinarySearch(xs, x)
		return left + step*(float64(i)+0.5)
	}
	for _, x := range xs {
		c.f(`<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#f0f0f0"/>`, at(x), at(x), top, top+plotH)
		c.xLabel(at(x), top+plotH+16, Num(x))
	}
	return l.draw(&c, at, ys, l.XLabel+" (evenly spaced)")
}

// draw draws the x axis's line and label, the bound and the lines, with
// x placing an x value.
func (l *Lines) draw(c *canvas, x func(float64) float64, ys scale, xLabel string) string {
	c.f(`<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="#444"/>`, left, left+plotW, top+plotH, top+plotH)
	c.f(`<text x="%d" y="%d" text-anchor="middle">%s</text>`, left+plotW/2, top+plotH+32, esc(xLabel))
	for _, b := range l.Bounds {
		if b.Y <= 0 {
			continue
		}
		y := top + plotH - ys.at(b.Y)
		c.f(`<line class="bound" x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="%s" stroke-width="1.5" stroke-dasharray="2 3"/>`, left, left+plotW, y, y, BoundColour)
		c.f(`<text x="%d" y="%.1f" text-anchor="end" fill="%s">%s</text>`, left+plotW-4, y-4, BoundColour, esc(b.Label))
	}
	names := make([]string, len(l.Lines))
	published := false
	for i, ln := range l.Lines {
		names[i] = ln.Name
		col := colour(i)
		var path strings.Builder
		for _, p := range ln.Points {
			if bad(p.X, l.LogX) || bad(p.Y, l.LogY) {
				continue
			}
			cmd := "L"
			if path.Len() == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&path, "%s%.1f %.1f", cmd, x(p.X), top+plotH-ys.at(p.Y))
		}
		if path.Len() > 0 {
			dash := ""
			if d := Dashes[i%len(Dashes)]; d != "" {
				dash = ` stroke-dasharray="` + d + `"`
			}
			c.f(`<path d="%s" stroke="%s" stroke-width="2" fill="none"%s/>`, path.String(), col, dash)
		}
		for _, p := range ln.Points {
			if bad(p.X, l.LogX) || bad(p.Y, l.LogY) {
				continue
			}
			x, y := x(p.X), top+plotH-ys.at(p.Y)
			title := fmt.Sprintf("%s: %s %s, %s %s", ln.Name, l.XLabel, Num(p.X), l.YLabel, Num(p.Y))
			if p.Label != "" {
				title = p.Label + " — " + title
			}
			if p.Mark {
				c.f(`<circle cx="%.1f" cy="%.1f" r="8" fill="none" stroke="%s" stroke-width="2"/>`, x, y, col)
			}
			c.mark(fmt.Sprintf(`<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"`, x, y, col), title)
		}
		for _, p := range ln.Published {
			if bad(p.X, l.LogX) || bad(p.Y, l.LogY) {
				continue
			}
			x, y := x(p.X), top+plotH-ys.at(p.Y)
			title := fmt.Sprintf("%s, published: %s %s, %s %s", ln.Name, l.XLabel, Num(p.X), l.YLabel, Num(p.Y))
			if p.Label != "" {
				title = p.Label + " — " + title
			}
			c.diamond(x, y, 6, col, "#000", title)
			published = true
		}
	}
	c.legend(names, Dashes...)
	if published {
		c.publishedKey("#fff", "#000")
	}
	return c.finish(l.Title)
}

func bad(v float64, log bool) bool {
	return math.IsNaN(v) || math.IsInf(v, 0) || (log && v <= 0)
}
