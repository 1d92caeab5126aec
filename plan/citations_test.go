package plan

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// seedsDir finds the studies' texts (shared/spec/seeds beside the
// repository or above it), "" when this checkout has none.
func seedsDir() string {
	dir, err := filepath.Abs("..")
	if err != nil {
		return ""
	}
	for ; dir != filepath.Dir(dir); dir = filepath.Dir(dir) {
		d := filepath.Join(dir, "shared", "spec", "seeds")
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return ""
}

// readLines reads a file's lines (index 0 is line 1).
func readLines(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

var (
	seedRef   = regexp.MustCompile(`\b(00[0-9]):([0-9]+)(?:[-–]([0-9]+))?`)
	csvSource = regexp.MustCompile(`"(\d{3})_[0-9a-f]+\.txt:(\d+)`)
	quoted    = regexp.MustCompile(`(?:^|[\s(:;,])"([^"]{8,}?)"(?:[\s),.;:]|$)`)
	backquote = regexp.MustCompile("`[^`]*`")
	// pageLine is a page's running head or foot in a text made from a
	// PDF (S3's), which a quote that spans pages leaves out.
	pageLine  = regexp.MustCompile(`^Algorithms \d{4}, \d+, \d+ \d+ of \d+$|^\s*$`)
	departure = regexp.MustCompile(`(?:([a-z0-9-]+\.yaml)|plan's) departures:? \(?"([^"]+)"`)
	csvLines  = regexp.MustCompile("([a-z0-9-]+\\.csv)`?,? lines? ((?:\\d+(?:[–-]\\d+)?(?:, | and )?)+)")
	codeRef   = regexp.MustCompile("`?((?:[a-z]+/)*[a-z_]+\\.go)`?(?: `?([a-zA-Z][a-zA-Z0-9]+)`?)?")
)

// norm is text as compared: lower case, markdown's marks and quotes
// dropped, every run of spaces one space.
func norm(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("*", "", "`", "", "\\", "", "’", "'", "‘", "'", "“", "", "”", "", "\"", "", "—", "-", "–", "-", "®", " ").Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// The audits' citations point at what their rows say: every seed line
// (NNN:LINE or a range) is in its text and, where the study-says cell
// quotes the text, the quoted words are on the lines the row cites; every
// reference-file row an audit quotes is a line of the plans' reference
// files, and the line of the study that row cites is one the audit row
// cites too; every plan departure an audit names (by its what) is in
// that plan; every code file it names exists, with the symbol named
// beside it. Several rows cited the wrong line.
func TestAuditCitations(t *testing.T) {
	audits, err := filepath.Glob("../docs/studies/*.md")
	if err != nil || len(audits) < 3 {
		t.Fatalf("audits %v (%v)", audits, err)
	}
	// The reference files' rows.
	var csvRows []string
	csvs, _ := filepath.Glob("../plans/*-reference.csv")
	for _, f := range csvs {
		for _, l := range readLines(t, f) {
			if !strings.HasPrefix(l, "#") {
				csvRows = append(csvRows, l)
			}
		}
	}
	// The repository's Go files by path and base name.
	goFiles := map[string][]string{}
	filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") {
			rel, _ := filepath.Rel("..", path)
			goFiles[filepath.Base(rel)] = append(goFiles[filepath.Base(rel)], rel)
			goFiles[rel] = append(goFiles[rel], rel)
		}
		return nil
	})
	seeds := map[string][]string{}
	if dir := seedsDir(); dir != "" {
		for _, n := range []string{"000", "001", "002", "003", "004"} {
			m, _ := filepath.Glob(filepath.Join(dir, n+"_*.txt"))
			if len(m) == 1 {
				seeds[n] = readLines(t, m[0])
			}
		}
	} else {
		t.Log("no shared/spec/seeds above the repository: the seed lines are not checked")
	}
	plans := map[string]*Plan{}
	cited, quotes, rowsQuoted, csvCited, deps, code := 0, 0, 0, 0, 0, 0
	for _, f := range audits {
		base := strings.TrimSuffix(filepath.Base(f), ".md") // s1, s2, s3
		for n, line := range readLines(t, f) {
			if !strings.HasPrefix(line, "|") {
				continue
			}
			where := fmt.Sprintf("%s:%d", filepath.Base(f), n+1)
			cells := splitRow(line)
			if len(cells) < 6 || cells[0] == "#" || strings.Trim(cells[0], "-: ") == "" {
				continue
			}
			seedCell, says := cells[2], cells[3]
			// The seed lines the row cites.
			type span struct {
				file   string
				lo, hi int
			}
			var spans []span
			for _, m := range seedRef.FindAllStringSubmatch(seedCell, -1) {
				lo, _ := strconv.Atoi(m[2])
				hi := lo
				if m[3] != "" {
					hi, _ = strconv.Atoi(m[3])
				}
				spans = append(spans, span{m[1], lo, hi})
			}
			// A quote may be attributed inline to lines the study-says
			// cell names itself ("000:330: ...").
			for _, m := range seedRef.FindAllStringSubmatch(says, -1) {
				lo, _ := strconv.Atoi(m[2])
				hi := lo
				if m[3] != "" {
					hi, _ = strconv.Atoi(m[3])
				}
				spans = append(spans, span{m[1], lo, hi})
			}
			for _, sp := range spans {
				lines, ok := seeds[sp.file]
				if !ok {
					continue
				}
				cited++
				if sp.lo < 1 || sp.hi < sp.lo || sp.hi > len(lines) {
					t.Errorf("%s: seed %s:%d-%d: the text has %d lines", where, sp.file, sp.lo, sp.hi, len(lines))
				}
			}
			// Words the row quotes from the text are on the lines it cites.
			if len(seeds) > 0 && len(spans) > 0 {
				var text strings.Builder
				for _, sp := range spans {
					for i := max(sp.lo, 1); i <= min(sp.hi, len(seeds[sp.file])); i++ {
						if l := seeds[sp.file][i-1]; !pageLine.MatchString(l) {
							text.WriteString(l + " ")
						}
					}
				}
				hay := norm(text.String())
				for _, m := range quoted.FindAllStringSubmatch(backquote.ReplaceAllString(says, "``"), -1) {
					for _, part := range regexp.MustCompile(`\.\.\.|…|\[[^\]]*\]`).Split(m[1], -1) {
						if p := norm(part); len(p) >= 8 {
							quotes++
							if !strings.Contains(hay, p) {
								t.Errorf("%s: quotes %q, not on the lines it cites (%s)", where, part, seedCell)
							}
						}
					}
				}
			}
			// Reference-file rows the row quotes are in the files, citing
			// a line the row cites.
			for _, m := range regexp.MustCompile("`([A-Z][A-Za-z]+,[a-z0-9-]+,[^`]*)`(?:[^`|]{0,60}?\\(cites (\\d{3}):(\\d+)\\))?").FindAllStringSubmatch(line, -1) {
				frag := m[1]
				parts := strings.Split(frag, "...")
				var match string
				for _, r := range csvRows {
					rest, ok := r, true
					for i, p := range parts {
						if i == 0 {
							ok = strings.HasPrefix(rest, p)
						} else {
							var found bool
							_, rest, found = strings.Cut(rest, p)
							ok = ok && found
						}
						if !ok {
							break
						}
						if i == 0 {
							rest = rest[len(p):]
						}
					}
					if ok {
						match = r
						break
					}
				}
				rowsQuoted++
				if match == "" {
					t.Errorf("%s: `%s` is no row of the plans' reference files", where, frag)
					continue
				}
				src := csvSource.FindStringSubmatch(match)
				if m[2] != "" && (src == nil || src[1] != m[2] || src[2] != m[3]) {
					t.Errorf("%s: `%s` is said to cite %s:%s; the reference row %q cites otherwise", where, frag, m[2], m[3], match)
				}
				if src != nil && len(spans) > 0 {
					l, _ := strconv.Atoi(src[2])
					in := false
					for _, sp := range spans {
						in = in || (sp.file == src[1] && l >= sp.lo && l <= sp.hi)
					}
					if !in {
						t.Errorf("%s: `%s` is the reference row %q, which cites %s:%d, a line the audit row does not cite (%s)", where, frag, match, src[1], l, seedCell)
					}
				}
			}
			// Lines of a reference file cited by number: each a figure of
			// the row's system, citing a line of the study the row cites.
			for _, m := range csvLines.FindAllStringSubmatch(line, -1) {
				lines := readLines(t, filepath.Join("..", "plans", m[1]))
				for _, r := range regexp.MustCompile(`(\d+)(?:[–-](\d+))?`).FindAllStringSubmatch(m[2], -1) {
					lo, _ := strconv.Atoi(r[1])
					hi := lo
					if r[2] != "" {
						hi, _ = strconv.Atoi(r[2])
					}
					for i := lo; i <= hi; i++ {
						csvCited++
						if i < 1 || i > len(lines) {
							t.Errorf("%s: %s line %d: the file has %d lines", where, m[1], i, len(lines))
							break
						}
						row := lines[i-1]
						system, _, _ := strings.Cut(row, ",")
						src := csvSource.FindStringSubmatch(row)
						in := false
						for _, sp := range spans {
							l := 0
							if src != nil {
								l, _ = strconv.Atoi(src[2])
							}
							in = in || (src != nil && sp.file == src[1] && l >= sp.lo && l <= sp.hi)
						}
						if src == nil || !strings.Contains(cells[1], system) || !in {
							t.Errorf("%s: %s line %d is %q: not a figure of %q from the lines the row cites (%s)", where, m[1], i, row, cells[1], seedCell)
						}
					}
				}
			}
			// Departures named by their what.
			for _, m := range departure.FindAllStringSubmatch(line, -1) {
				planName := m[1]
				if planName == "" {
					planName = base + ".yaml"
				}
				p, ok := plans[planName]
				if !ok {
					if p, err = shippedPlan(planName); err != nil {
						t.Errorf("%s: %v", where, err)
						continue
					}
					plans[planName] = p
				}
				deps++
				found := false
				for _, d := range p.Departures {
					found = found || strings.HasPrefix(norm(d.What), norm(m[2]))
				}
				if !found {
					t.Errorf("%s: %s has no departure %q", where, planName, m[2])
				}
			}
			// Code files, and the symbol beside one.
			for _, m := range codeRef.FindAllStringSubmatch(line, -1) {
				if strings.HasSuffix(m[1], "_test.go") && !strings.Contains(m[1], "/") {
					continue
				}
				paths := goFiles[m[1]]
				code++
				if len(paths) == 0 {
					t.Errorf("%s: %s: no such file in the repository", where, m[1])
					continue
				}
				if sym := m[2]; sym != "" && len(paths) == 1 && regexp.MustCompile(`^[a-z]+[A-Z]|^[a-z]{3,}$`).MatchString(sym) && !strings.Contains(" draws runs sets the and lists holds says ", " "+sym+" ") {
					src, err := os.ReadFile(filepath.Join("..", paths[0]))
					if err != nil {
						t.Fatal(err)
					}
					if !regexp.MustCompile(`func (\([^)]*\) )?` + sym + `\(`).Match(src) {
						t.Errorf("%s: %s has no function %s", where, paths[0], sym)
					}
				}
			}
		}
	}
	t.Logf("%d seed citations, %d quotes, %d reference rows, %d reference lines, %d departures, %d code files checked", cited, quotes, rowsQuoted, csvCited, deps, code)
	if rowsQuoted < 25 || csvCited < 60 || deps < 10 || code < 10 || (len(seeds) > 0 && (cited < 100 || quotes < 50)) {
		t.Errorf("too few citations read: the audits' forms changed?")
	}
}
