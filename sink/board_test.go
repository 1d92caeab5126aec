package sink

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/servbench/servbench/result"
)

// A long run's page is sent at most maxBoardPoints points, its first and
// last among them; the page's JSON never closes its script.
func TestBoardThinsPointsAndEscapes(t *testing.T) {
	var b Board
	b.Update(func(d *BoardData) {
		d.Label = "</script><script>alert(1)</script>"
		for i := range 86400 {
			d.Points = append(d.Points, result.Point{StartS: float64(i), EndS: float64(i + 1)})
		}
	})
	j := b.JSON()
	var d BoardData
	if err := json.Unmarshal(j, &d); err != nil {
		t.Fatal(err)
	}
	if n := len(d.Points); n > maxBoardPoints || n < maxBoardPoints/2 || d.Points[0].StartS != 0 || d.Points[n-1].EndS != 86400 {
		t.Errorf("%d points, from %v to %v", n, d.Points[0].StartS, d.Points[n-1].EndS)
	}
	var page strings.Builder
	b.Page(&page, true)
	if strings.Contains(page.String(), "</script><script>") || !strings.Contains(page.String(), "const FROZEN = {") {
		t.Error("the label closed the page's script, or the data is not in the page")
	}
}

// The server side is sent at most maxBoardSeries series of at most
// maxBoardSeriesPoints points each (and each one's last), the series left
// out counted as dropped; the board's own data is not changed.
func TestBoardThinsServerSide(t *testing.T) {
	var b Board
	ss := &result.ServerSide{IntervalS: 1}
	for s := range 2 {
		src := result.Source{Name: "src", Kind: result.SourcePrometheus}
		for i := range 150 {
			x := result.Series{Name: "q", Node: string(rune('a' + s)), Unit: "ops/s"}
			for k := range 10000 {
				x.Points = append(x.Points, [2]float64{float64(k), float64(i)})
			}
			src.Series = append(src.Series, x)
		}
		ss.Sources = append(ss.Sources, src)
	}
	b.Update(func(d *BoardData) { d.ServerSide = ss })
	var d BoardData
	if err := json.Unmarshal(b.JSON(), &d); err != nil {
		t.Fatal(err)
	}
	n, dropped := 0, 0
	for _, src := range d.ServerSide.Sources {
		n += len(src.Series)
		dropped += src.Dropped
		for _, x := range src.Series {
			if len(x.Points) > maxBoardSeriesPoints+1 || x.Points[len(x.Points)-1][0] != 9999 {
				t.Fatalf("%d points, the last at %v", len(x.Points), x.Points[len(x.Points)-1])
			}
		}
	}
	if n != maxBoardSeries || dropped != 300-maxBoardSeries {
		t.Errorf("%d series sent, %d dropped: want %d and %d", n, dropped, maxBoardSeries, 300-maxBoardSeries)
	}
	if len(ss.Sources[1].Series) != 150 || len(ss.Sources[0].Series[0].Points) != 10000 {
		t.Error("the board's own server side was changed")
	}
}

// The page is sent the points without their operations' encoded
// histograms (it draws none of them); the board keeps them.
func TestBoardSendsNoHistograms(t *testing.T) {
	var b Board
	b.Update(func(d *BoardData) {
		d.Points = []result.Point{{EndS: 1, Ops: result.PointOps{{Name: "READ", PointOp: result.PointOp{Count: 1, P99Us: 5, Histogram: "HISTFAKE"}}}}}
	})
	if j := string(b.JSON()); strings.Contains(j, "HISTFAKE") || !strings.Contains(j, `"p99_us":5`) {
		t.Errorf("sent: %s", j)
	}
	b.Update(func(d *BoardData) {
		if d.Points[0].Ops[0].Histogram != "HISTFAKE" {
			t.Error("the board's own point lost its histogram")
		}
	})
}
