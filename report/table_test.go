package report

import (
	"strings"
	"testing"
)

// Names from plans and results carry no HTML into a Markdown export and
// cannot break its table.
func TestMarkdownIsInert(t *testing.T) {
	tb := &Table{Title: "<b>plan</b>", Header: []string{"deployment", "ops/s"},
		Rows: [][]string{{"<script>alert(1)</script>", "1 | 2\nthree & four"}}, Note: "<img src=x>"}
	md := tb.Markdown()
	for _, bad := range []string{"<b>", "<script>", "<img", "\nthree"} {
		if strings.Contains(md, bad) {
			t.Errorf("the Markdown holds %q:\n%s", bad, md)
		}
	}
	if !strings.Contains(md, "&lt;script&gt;") || !strings.Contains(md, `1 \| 2 three &amp; four`) {
		t.Errorf("the Markdown lost the text:\n%s", md)
	}
}
