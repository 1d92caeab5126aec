package report

import (
	"errors"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/servbench/servbench/internal/atomicfile"
)

// style is the page's whole styling: the page loads nothing else.
const style = `body{font-family:sans-serif;margin:24px auto;padding:0 16px;max-width:1180px;color:#222;line-height:1.4}
h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;padding-bottom:4px;margin-top:36px}
nav a{margin-right:14px}table{border-collapse:collapse;margin:12px 0;font-size:12px}
th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;vertical-align:top}th{background:#f4f4f4}
td:first-child,th:first-child{text-align:left}caption{text-align:left;font-weight:bold;padding:4px 0}
.figs{display:flex;flex-wrap:wrap;gap:10px}.figs svg{border:1px solid #eee;width:580px;max-width:100%;height:auto}figure{margin:0}
pre{background:#f7f7f7;padding:10px;overflow:auto;font-size:12px}details{margin:6px 0}summary{cursor:pointer}
.note{color:#555;font-size:12px}.wide{max-width:100%;overflow-x:auto}
.findings li{margin:4px 0}
@media print{body{margin:0;max-width:none;font-size:10pt}nav{display:none}h2{break-after:avoid}
figure,table{break-inside:avoid}.figs svg{width:48%;border:none}.wide{overflow:visible}table{font-size:8pt}}`

// HTML writes the report as one self-contained page: inline styles and
// SVG, no script, font or external resource of any kind.
func (s *Set) HTML(w io.Writer, secs []Section) error {
	var b strings.Builder
	e := html.EscapeString
	title := "servbench report: " + s.Name
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>%s</title><style>%s</style></head><body>\n", e(title), style)
	fmt.Fprintf(&b, "<h1>%s</h1>\n<p class=\"note\">%d runs from %s, page written %s.</p>\n<nav>", e(title), len(s.Runs), e(s.Dir), time.Now().UTC().Format(time.RFC3339))
	for _, sec := range secs {
		fmt.Fprintf(&b, `<a href="#%s">%s</a>`, sec.ID, e(sec.Title))
	}
	b.WriteString("</nav>\n")
	for _, sec := range secs {
		fmt.Fprintf(&b, "<section id=\"%s\"><h2>%s</h2>\n", sec.ID, e(sec.Title))
		if sec.Intro != "" {
			fmt.Fprintf(&b, "<p>%s</p>\n", e(sec.Intro))
		}
		if len(sec.Points) > 0 {
			b.WriteString("<ul class=\"findings\">")
			for _, p := range sec.Points {
				fmt.Fprintf(&b, "<li>%s</li>", e(p))
			}
			b.WriteString("</ul>\n")
		}
		if len(sec.Figures) > 0 {
			b.WriteString(`<div class="figs">`)
			for _, f := range sec.Figures {
				fmt.Fprintf(&b, "<figure id=\"fig-%s\">%s</figure>", f.Name, f.SVG)
			}
			b.WriteString("</div>\n")
		}
		for _, t := range sec.Tables {
			writeTable(&b, t)
		}
		for _, r := range sec.Runs {
			fmt.Fprintf(&b, "<details><summary>%s</summary><div class=\"figs\">", e(r.Summary))
			for _, f := range r.Figures {
				fmt.Fprintf(&b, "<figure id=\"fig-%s\">%s</figure>", f.Name, f.SVG)
			}
			b.WriteString("</div></details>\n")
		}
		if sec.Pre != "" {
			fmt.Fprintf(&b, "<p>The plan as run:</p><pre>%s</pre>\n", e(sec.Pre))
		}
		b.WriteString("</section>\n")
	}
	b.WriteString("</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func writeTable(b *strings.Builder, t *Table) {
	e := func(s string) string { return html.EscapeString(cellText(s)) }
	// A wide table scrolls in its own box: the page never runs off the
	// screen's right edge.
	fmt.Fprintf(b, "<div class=\"wide\"><table id=\"tab-%s\"><caption>%s</caption><thead><tr>", t.Name, e(t.Title))
	for _, h := range t.Header {
		fmt.Fprintf(b, "<th>%s</th>", e(h))
	}
	b.WriteString("</tr></thead><tbody>")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(b, "<td>%s</td>", e(c))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table></div>\n")
	if t.Note != "" {
		fmt.Fprintf(b, "<p class=\"note\">%s</p>\n", e(t.Note))
	}
}

// Export writes every chart as an SVG file and every table as CSV and
// Markdown into dir (the files ExportFiles names); it returns how many
// files it wrote. A file that cannot be written is named in the error,
// and every other is written.
func Export(dir string, secs []Section) (int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, f := range exports(secs) {
		path := filepath.Join(dir, f.name)
		if err := atomicfile.WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, f.text()); return err }); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", path, err))
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// ExportFiles are the files Export writes into dir: a report's outputs,
// checked against each other and against its inputs before any is
// written.
func ExportFiles(dir string, secs []Section) []string {
	var paths []string
	for _, f := range exports(secs) {
		paths = append(paths, filepath.Join(dir, f.name))
	}
	return paths
}

type export struct {
	name string
	text func() string
}

func exports(secs []Section) []export {
	var out []export
	for _, sec := range secs {
		figs := sec.Figures
		for _, r := range sec.Runs {
			figs = append(figs, r.Figures...)
		}
		for _, f := range figs {
			out = append(out, export{f.Name + ".svg", func() string { return `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + f.SVG + "\n" }})
		}
		for _, t := range sec.Tables {
			out = append(out, export{t.Name + ".csv", t.CSV}, export{t.Name + ".md", t.Markdown})
		}
	}
	return out
}
