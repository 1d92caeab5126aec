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
