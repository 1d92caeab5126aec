package report

import (
	"encoding/csv"
	"github.com/servbench/servbench/internal/format"
	"strconv"
	"strings"
)

// Table is one of the report's tables; its cells are already formatted.
type Table struct {
	Name   string // file name stem of its exports
	Title  string
	Header []string
	Rows   [][]string
	Note   string
}

// CSV renders the table as comma-separated values. A cell that a
// spreadsheet would take for a formula (=, +, -, @, a tab or a carriage
// return first, and not a number) starts with ' instead: names, labels and
// files come from plans and results, which anybody may write.
func (t *Table) CSV() string {
	var b strings.Builder
	w := csv.NewWriter(&b)
	w.Write(inert(t.Header))
	for _, r := range t.Rows {
		w.Write(inert(r))
	}
	w.Flush()
	return b.String()
}

// inert returns the cells with every formula made text.
func inert(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		c = csvText(c)
		out[i] = c
		if len(c) > 1 && strings.IndexByte("=+-@\t\r", c[0]) >= 0 && !number(c) {
			out[i] = "'" + c
		}
	}
	return out
}

// number reports whether a cell is a number as the report writes them:
// -1,234.5, 12%, 1.5×.
func number(c string) bool {
	c = strings.TrimSuffix(strings.TrimSuffix(strings.ReplaceAll(c, ",", ""), "%"), "×")
	_, err := strconv.ParseFloat(c, 64)
	return err == nil
}

// Markdown renders the table as a GitHub-flavoured Markdown table.
func (t *Table) Markdown() string {
	var b strings.Builder
	if t.Title != "" {
		b.WriteString("**" + mdText(t.Title) + "**\n\n")
	}
	row := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + strings.ReplaceAll(mdText(c), "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	row(t.Header)
	sep := make([]string, len(t.Header))
	for i := range sep {
		sep[i] = "---"
	}
	row(sep)
	for _, r := range t.Rows {
		row(r)
	}
	if t.Note != "" {
		b.WriteString("\n" + mdText(t.Note) + "\n")
	}
	return b.String()
}

// mdText is text from results and plans (names, labels, errors) made
// inert in Markdown: no HTML of its own, no line that breaks the table,
// no control or direction character (cellText).
func mdText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(cellText(s))
}

// csvText is cellText for a CSV cell, which keeps its line breaks and
// tabs (quoted).
func csvText(s string) string {
	var b strings.Builder
	for {
		i := strings.IndexAny(s, "\t\r\n")
		if i < 0 {
			b.WriteString(format.Printable(s))
			return b.String()
		}
		b.WriteString(format.Printable(s[:i]))
		b.WriteByte(s[i])
		s = s[i+1:]
	}
}

// cellText is a table's text from results and plans as every export
// shows it: a line break or tab a space, any other control character, or
// one that turns the text's direction (U+202E), escaped (\x1b): a terminal
// showing an export runs no escape sequence, a page's table reads in order.
func cellText(s string) string {
	return format.Printable(strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ", "\t", " ").Replace(s))
}

// Figure is one of the report's charts.
type Figure struct {
	Name    string // file name stem of its export
	SVG     string
	Caption string
}

// Section is one part of the report.
type Section struct {
	ID, Title string
	Intro     string
	Tables    []*Table
	Figures   []*Figure
	Pre       string   // preformatted text (the plan)
	Points    []string // findings, one sentence each
	// Runs holds the per-run details (collapsed in the page).
	Runs []RunDetail
}

// RunDetail is one run's own charts.
type RunDetail struct {
	ID      string
	Summary string
	Figures []*Figure
}
