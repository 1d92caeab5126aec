package chart

import (
	"encoding/xml"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

type node struct {
	XMLName xml.Name
	Attrs   []xml.Attr `xml:",any,attr"`
	Nodes   []node     `xml:",any"`
	Text    string     `xml:",chardata"`
}

func (n *node) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// marks parses an SVG text and returns its mark elements, checking that
// it is well-formed and that data-points counts them.
func marks(t *testing.T, svg string) []node {
	t.Helper()
	var root node
	if err := xml.Unmarshal([]byte(svg), &root); err != nil {
		t.Fatalf("not well-formed: %v", err)
	}
	var out []node
	var walk func(n *node)
	walk = func(n *node) {
		if n.attr("class") == "mark" {
			out = append(out, *n)
		}
		for i := range n.Nodes {
			walk(&n.Nodes[i])
		}
	}
	walk(&root)
	if n, _ := strconv.Atoi(root.attr("data-points")); n != len(out) {
		t.Errorf("data-points %d, %d marks", n, len(out))
	}
	return out
}

func num(t *testing.T, s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestBarsHeightsAreProportional(t *testing.T) {
	b := &Bars{Title: "A <&> B", YLabel: "ops/s", Categories: []string{"3 nodes", "6 nodes"},
		Series: []Series{{Name: "x", Values: []float64{100, 200}, Err: []float64{10, 0}}, {Name: "y", Values: []float64{50, math.NaN()}}}}
	ms := marks(t, b.SVG())
	if len(ms) != 3 {
		t.Fatalf("%d marks, want 3 (NaN draws nothing)", len(ms))
	}
	h := func(i int) float64 { return num(t, ms[i].attr("height")) }
	// x@3 = 100, y@3 = 50, x@6 = 200: heights 2:1 and 1:2 on a linear axis from 0.
	if math.Abs(h(0)/h(1)-2) > 0.02 || math.Abs(h(2)/h(0)-2) > 0.02 {
		t.Errorf("heights %v %v %v", h(0), h(1), h(2))
	}
	if !strings.Contains(ms[0].Nodes[0].Text, "3 nodes, x: 100 ± 10") {
		t.Errorf("tooltip %q", ms[0].Nodes[0].Text)
	}
}

func TestLogBars(t *testing.T) {
	b := &Bars{Categories: []string{"a", "b", "c"}, Series: []Series{{Name: "s", Values: []float64{10, 100, 1000}}}, Log: true}
	ms := marks(t, b.SVG())
	// Decades are equal steps: 10 → 100 → 1000 add the same height.
	h0, h1, h2 := num(t, ms[0].attr("height")), num(t, ms[1].attr("height")), num(t, ms[2].attr("height"))
	if math.Abs((h1-h0)-(h2-h1)) > 0.2 || h0 <= 0 {
		t.Errorf("log heights %v %v %v", h0, h1, h2)
	}
}

func TestStackedBars(t *testing.T) {
	b := &Bars{Categories: []string{"a"}, Stacked: true, Series: []Series{{Name: "TIMEOUT", Values: []float64{3}}, {Name: "ERROR", Values: []float64{1}}}}
	ms := marks(t, b.SVG())
	y0, h0 := num(t, ms[0].attr("y")), num(t, ms[0].attr("height"))
	y1, h1 := num(t, ms[1].attr("y")), num(t, ms[1].attr("height"))
	if math.Abs(y1+h1-y0) > 0.1 || math.Abs(h0/h1-3) > 0.05 {
		t.Errorf("the second bar does not sit on the first: %v+%v, %v+%v", y0, h0, y1, h1)
	}
}

func TestLines(t *testing.T) {
	l := &Lines{Title: "t", XLabel: "threads", YLabel: "µs", Bounds: []Bound{{1000, "p99 ≤ 1 ms"}},
		Lines: []Line{{Name: "a", Points: []Point{{X: 1, Y: 100}, {X: 2, Y: 400, Mark: true}, {X: 4, Y: 2000}}}, {Name: "b", Points: []Point{{X: 1, Y: 50}}}}}
	svg := l.SVG()
	ms := marks(t, svg)
	if len(ms) != 4 {
		t.Fatalf("%d marks", len(ms))
	}
	// y grows downwards: 2000 above 400 above 100.
	y := func(i int) float64 { return num(t, ms[i].attr("cy")) }
	x := func(i int) float64 { return num(t, ms[i].attr("cx")) }
	if !(y(2) < y(1) && y(1) < y(0)) || math.Abs((x(2)-x(1))-2*(x(1)-x(0))) > 0.2 {
		t.Errorf("positions %v,%v %v,%v %v,%v", x(0), y(0), x(1), y(1), x(2), y(2))
	}
	if !strings.Contains(svg, "stroke-dasharray") || !strings.Contains(svg, `r="8"`) {
		t.Error("no bound line or no marked point")
	}
	ll := &Lines{LogX: true, Lines: []Line{{Name: "a", Points: []Point{{X: 0, Y: 1}, {X: 10, Y: 2}, {X: 100, Y: 3}}}}}
	if ms := marks(t, ll.SVG()); len(ms) != 2 {
		t.Errorf("a zero on a log axis must not be drawn: %d marks", len(ms))
	}
}

func TestNum(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 950: "950", 12500: "12.5k", 3.4e6: "3.4M", 0.25: "0.25", 1234: "1234"} {
		if got := Num(v); got != want {
			t.Errorf("Num(%v) = %q, want %q", v, got, want)
		}
	}
}

// What a reader needs from a chart: each bar's value written on it; a log
// axis, said on the axis, when values span two decades (a small system's
// bars would vanish on a linear one); thread steps evenly spaced; a bound
// drawn in a colour no series has; labels kept inside the chart.
func TestReadableCharts(t *testing.T) {
	b := (&Bars{Title: "t", YLabel: "ops/s", Categories: []string{"1 node", "3 nodes"},
		Series: []Series{{Name: "Cassandra", Values: []float64{52000, 140000}}, {Name: "FerretDB", Values: []float64{310, 450}}}}).AutoLog()
	svg := b.SVG()
	marks(t, svg)
	if !b.Log || !strings.Contains(svg, "ops/s (log scale)") {
		t.Errorf("values over 2.6 decades: log %v", b.Log)
	}
	for _, v := range []string{">52k<", ">140k<", ">310<", ">450<"} {
		if !strings.Contains(svg, v) {
			t.Errorf("no value label %s", v)
		}
	}
	if lin := (&Bars{Series: []Series{{Values: []float64{100, 900}}}}).AutoLog(); lin.Log {
		t.Error("values within a decade drawn on a log axis")
	}
	// Long category names are turned, not overlapped.
	long := (&Bars{Categories: []string{"redis-cluster-3 t16", "redis-cluster-6 t16", "couchbase-3 t16", "mongodb-3 t16", "a", "b", "c", "d"},
		Series: []Series{{Name: "s", Values: []float64{1, 2, 3, 4, 5, 6, 7, 8}}}}).SVG()
	if strings.Count(long, `class="xlabel"`) != 8 || !strings.Contains(long, "rotate(-30)") {
		t.Error("crowded category labels are not turned")
	}
	l := &Lines{Title: "t", XLabel: "threads", YLabel: "ops/s", Ordinal: true, Bounds: []Bound{{5, "SLO"}},
		Lines: []Line{{Name: "a", Points: []Point{{X: 1, Y: 1}, {X: 2, Y: 2}, {X: 4, Y: 3}, {X: 64, Y: 4}}}}}
	ms := marks(t, l.SVG())
	var xs []float64
	for _, m := range ms {
		xs = append(xs, num(t, m.attr("cx")))
	}
	if len(xs) != 4 || math.Abs((xs[1]-xs[0])-(xs[3]-xs[2])) > 0.2 {
		t.Errorf("threads 1, 2, 4, 64 at x %v: not evenly spaced", xs)
	}
	svg = l.SVG()
	if !strings.Contains(svg, "threads (evenly spaced)") || !strings.Contains(svg, `class="bound"`) || !strings.Contains(svg, `stroke="`+BoundColour+`"`) {
		t.Error("ordinal axis or bound not said")
	}
	for _, c := range Palette {
		if strings.EqualFold(c, BoundColour) {
			t.Errorf("a series has the bound's colour %s", c)
		}
	}
	edge := (&Lines{XLabel: "percentile", LogX: true, XTicks: []float64{1, 1e6}, XTickLabels: []string{"0%", "99.9999%"},
		Lines: []Line{{Name: "a", Points: []Point{{X: 1, Y: 1}, {X: 1e6, Y: 2}}}}}).SVG()
	if !strings.Contains(edge, `text-anchor="end">99.9999%`) {
		t.Error("the last tick label is not kept inside the chart")
	}
}

// A published figure is a diamond on its series' bar, at its value on the
// bar's scale, labelled published; the legend says what diamonds are.
func TestBarsPublished(t *testing.T) {
	b := &Bars{Title: "t", YLabel: "ops/s", Categories: []string{"3 nodes", "6 nodes"},
		Series: []Series{{Name: "x", Values: []float64{100, 200}, Published: []float64{50, math.NaN()}}}}
	svg := b.SVG()
	ms := marks(t, svg)
	if len(ms) != 3 {
		t.Fatalf("%d marks, want 2 bars and 1 diamond", len(ms))
	}
	var bar, diamond *node
	for i := range ms {
		switch {
		case strings.Contains(ms[i].Nodes[0].Text, "3 nodes, x: 50 published"):
			diamond = &ms[i]
		case strings.Contains(ms[i].Nodes[0].Text, "3 nodes, x: 100"):
			bar = &ms[i]
		}
	}
	if bar == nil || diamond == nil || !strings.Contains(svg, "published (the study's figure)") {
		t.Fatalf("marks %+v", ms)
	}
	// The diamond's centre is halfway down the bar of twice its value.
	var x, y float64
	fmt.Sscanf(diamond.attr("d"), "M%f %f", &x, &y)
	barTop, barH := num(t, bar.attr("y")), num(t, bar.attr("height"))
	if centre := y + 5; math.Abs(centre-(barTop+barH/2)) > 1 {
		t.Errorf("diamond at y %v, the bar from %v down %v", centre, barTop, barH)
	}
}

// A line's published figures are diamonds at their x and y, the x axis
// placing them among the line's steps (ordinal) even where none ran.
func TestLinesPublished(t *testing.T) {
	l := &Lines{Title: "t", XLabel: "threads", YLabel: "ops/s", Ordinal: true,
		Lines: []Line{{Name: "x", Points: []Point{{X: 1, Y: 100}, {X: 4, Y: 300}}, Published: []Point{{X: 2, Y: 250, Label: "published at 2 threads"}}}}}
	svg := l.SVG()
	ms := marks(t, svg)
	if len(ms) != 3 || !strings.Contains(svg, "published at 2 threads — x, published: threads 2, ops/s 250") || !strings.Contains(svg, ">2</text>") {
		t.Errorf("%d marks: %s", len(ms), svg)
	}
}
