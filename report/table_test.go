package report

import (
	"encoding/csv"
	"fmt"
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

// A cell a spreadsheet would run as a formula is exported as text; numbers,
// negative ones too, stay numbers.
func TestCSVIsInert(t *testing.T) {
	tb := &Table{Header: []string{"=HYPERLINK(\"http://127.0.0.1/\")", "ops/s"},
		Rows: [][]string{{"+cmd|' /C calc'!A0", "-1,234.5"}, {"@SUM(A1)", "-12%"}, {"-2+3", "1.5×"}, {"\tx", "-"}, {"\r=1", "=="}}}
	r := csv.NewReader(strings.NewReader(tb.CSV()))
	rows, err := r.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{{"'=HYPERLINK(\"http://127.0.0.1/\")", "ops/s"}, {"'+cmd|' /C calc'!A0", "-1,234.5"}, {"'@SUM(A1)", "-12%"}, {"'-2+3", "1.5×"}, {"'\tx", "-"}, {"'\r=1", "'=="}}
	if fmt.Sprint(rows) != fmt.Sprint(want) {
		t.Errorf("exported %q\nwant %q", rows, want)
	}
}

// A control or direction character from a result (a server's version
// string) reaches no export raw: the Markdown, CSV and HTML of a table
// show it escaped.
func TestTableTextIsPrintable(t *testing.T) {
	tb := &Table{Name: "t", Title: "deployments", Header: []string{"server"}, Rows: [][]string{{"v1\x1b[31m\u202ered\x07"}}}
	var page strings.Builder
	writeTable(&page, tb)
	for name, out := range map[string]string{"markdown": tb.Markdown(), "csv": tb.CSV(), "html": page.String()} {
		if strings.ContainsAny(out, "\x1b\u202e\x07") || !strings.Contains(out, `v1\x1b[31m\u202ered\x07`) {
			t.Errorf("%s: %q", name, out)
		}
	}
}
