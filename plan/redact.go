package plan

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/servbench/servbench/props"
)

// unreadable stands for a plan whose text cannot be parsed, so its
// credentials cannot be found: it is not shown.
const unreadable = "# (this plan could not be parsed, so it is not shown: its credentials could not be hidden)\n"

// Redact hides credentials in a plan's text, as props' redaction finds
// them: the whole value of every key that names a credential, however the
// key is quoted and whatever the value's style (quoted, block |, folded
// >-, a list or mapping under it, an alias), and in every other value and
// comment what props.RedactText finds (a URL's password, a setup step's
// PASSWORD 'x', AUTH user pw, redis-cli -a pw). The rest of the text is
// kept as written when the changes can be made in place; otherwise the
// plan is written out again from its parsed form (comments kept). The
// result is checked by parsing it again: no credential can survive a
// style this function does not know. A secret value repeated elsewhere in
// the plan (a setup step's command, a comment) is hidden there too. Text
// that is not YAML is not shown.
func Redact(text string) string {
	var doc, more yaml.Node
	dec := yaml.NewDecoder(strings.NewReader(text))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return props.RedactText(text)
		}
		return unreadable
	}
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) { // a plan is one document
		return unreadable
	}
	w := walk{secretAnchors: map[*yaml.Node]bool{}}
	w.node(&doc, false, false, false)
	edits, known := w.edits, &w.known
	slices.SortFunc(edits, func(a, b edit) int { return cmp.Or(cmp.Compare(a.line, b.line), cmp.Compare(a.col, b.col)) })
	edits = slices.CompactFunc(edits, func(a, b edit) bool { return a.line == b.line && a.col == b.col })
	out := applyEdits(text, edits)
	if verified(&doc, out) {
		return known.HideKnown(out)
	}
	redactTree(&doc, false, false, map[*yaml.Node]bool{})
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return unreadable
	}
	return known.HideKnown(b.String())
}

// An edit replaces the source text from (line, col) to its end with repl.
type edit struct {
	line, col int // 1-based, col in characters, as yaml.v3 counts them
	style     yaml.Style
	flow      bool
	repl      string
	block     bool // a block scalar's content lines, each redacted
	prose     bool // a departure's text: read as sentences too (props.RedactProse)
}

// walk collects the edits of a plan's nodes and the secret values they
// hold. secretAnchors holds the anchors already made secret: each is
// walked once, however many aliases name it (nested aliases would
// otherwise walk an exponential tree: a 566-byte plan never ended).
type walk struct {
	edits         []edit
	known         props.Redactor // the secret values, hidden wherever else the plan repeats them
	secretAnchors map[*yaml.Node]bool
}

// node walks n and its children: secret is true under a key that names a
// credential, flow inside { } or [ ], prose under departures (its text
// read as sentences too).
func (w *walk) node(n *yaml.Node, secret, flow, prose bool) {
	w.comments(n)
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			w.node(c, secret, flow || n.Style&yaml.FlowStyle != 0, prose)
		}
	case yaml.MappingNode:
		f := flow || n.Style&yaml.FlowStyle != 0
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			w.comments(k)
			w.hidden(k.Value)
			if v.Kind == yaml.ScalarNode { // a property as a binding reads it: its declared secrets
				w.known.KnownDeclared(k.Value, v.Value)
			}
			if v.Kind == yaml.ScalarNode && k.Value == "statement" { // its comments are sentences, as a shell step's are
				for _, c := range statementComments.FindAllString(v.Value, -1) {
					w.known.HiddenProse(c)
				}
			}
			w.node(v, secret || props.IsSecretKey(k.Value), f, prose || isProse(k.Value))
		}
	case yaml.AliasNode:
		// The anchor's node is redacted where it stands; a secret alias
		// makes its anchor's value secret there too.
		if secret && n.Alias != nil && !w.secretAnchors[n.Alias] {
			w.secretAnchors[n.Alias] = true
			w.node(n.Alias, true, flow, prose)
		}
	case yaml.ScalarNode:
		// What a rule finds here is hidden wherever the plan repeats it;
		// a value the rules leave as it is too (echo PW | docker login
		// --password-stdin: PW is found as the shell reads the step).
		if !secret && prose {
			w.known.HiddenProse(n.Value)
		} else if !secret {
			w.hidden(n.Value)
		}
		e := edit{line: n.Line, col: n.Column, style: n.Style, flow: flow, prose: prose}
		switch {
		case secret && n.Value != "" && n.Value != props.Redacted:
			w.known.Add(n.Value)
			e.repl = props.Redacted
		case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
			if redactScalar(n.Value, prose) == n.Value {
				return
			}
			e.block = true
		default:
			r := redactScalar(n.Value, prose)
			if r == n.Value {
				return
			}
			e.repl = strconv.Quote(r)
		}
		w.edits = append(w.edits, e)
	}
}

// statementComments are the comments of a setup statement: SQL's, CQL's
// and SQL++'s -- and /* */, CQL's //.
var statementComments = regexp.MustCompile(`--[^\n]*|//[^\n]*|/\*(?s:.*?)\*/`)

// isProse reports whether the values under key are sentences: every
// field of free text a plan has, written in results, the index and the
// report: its name, a deployment's label, system and server settings, a
// departure's what, why and seed.
func isProse(key string) bool { return proseKeys[key] }

var proseKeys = map[string]bool{"name": true, "label": true, "system": true, "server": true, "departures": true}

// redactScalar is a value with what the rules find hidden: read as
// sentences too where prose (props.RedactProse).
func redactScalar(v string, prose bool) string {
	if prose {
		return props.RedactProse(v)
	}
	return props.RedactText(v)
}

// comments makes known the secrets that rules find in n's comments.
func (w *walk) comments(n *yaml.Node) {
	for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
		w.hidden(c)
	}
}

// hidden makes known what rules find in text, read whole and line by
// line as the copy's lines are (a name: value at a line's start).
func (w *walk) hidden(text string) {
	if text == "" {
		return
	}
	w.known.Hidden(text)
	if strings.IndexByte(text, '\n') >= 0 {
		for ln := range strings.SplitSeq(text, "\n") {
			w.known.Hidden(ln)
		}
	}
}

// Secrets returns the secret values of a plan's text: every value under
// a key that names a credential, and every value that a rule finds in any
// other value or comment (redis-cli -a x in a step, a URL's password), so
// that each writer hides them wherever they are repeated (in a step's
// output, a departure, a property that names no credential). Text that is
// not YAML gives what the rules find in it.
func Secrets(text string) *props.Redactor {
	var doc yaml.Node
	w := walk{secretAnchors: map[*yaml.Node]bool{}}
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		w.hidden(text)
		return &w.known
	}
	w.node(&doc, false, false, false)
	return &w.known
}

// applyEdits makes the edits in the text, the last first; then hides what
// comments hold.
func applyEdits(text string, edits []edit) string {
	starts := []int{0} // each line's offset
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if e.line < 1 || e.line > len(starts) {
			continue
		}
		// The line's start is as it was (every edit made so far is at or
		// after this one's place); its end is read from the text as it is
		// now: an edit later on the line may have changed its length.
		lineEnd := len(text)
		if nl := strings.IndexByte(text[starts[e.line-1]:], '\n'); nl >= 0 {
			lineEnd = starts[e.line-1] + nl + 1
		}
		start := starts[e.line-1] + byteCol(text[starts[e.line-1]:lineEnd], e.col)
		if e.style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			end := blockEnd(text, starts, e.line)
			if e.block { // the header kept, the content redacted
				text = text[:lineEnd] + redactBlock(text[lineEnd:end], e.prose) + text[end:]
			} else {
				text = text[:start] + e.repl + "\n" + text[end:]
			}
			continue
		}
		if end := scalarEnd(text, start, lineEnd, e.style, e.flow); end >= 0 {
			text = text[:start] + e.repl + text[end:]
		}
	}
	return redactLines(text) // comments, and what the edits left
}

// redactBlock applies props.RedactText (props.RedactProse where prose)
// to a block scalar's content lines read together, as a shell reads them
// (a line a backslash ends goes on in the next), if that keeps its lines;
// else to each line.
func redactBlock(text string, prose bool) string {
	if r := redactScalar(text, prose); strings.Count(r, "\n") == strings.Count(text, "\n") {
		return r
	}
	return redactLines(text)
}

// redactLines applies props.RedactText to each line of text, the lines of
// a comment that goes on over several read together (# password: on one,
// the value on the next), as the parsed comment is.
func redactLines(text string) string {
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); i++ {
		k := i + 1
		if strings.HasPrefix(strings.TrimLeft(lines[i], " \t"), "#") {
			for k < len(lines) && strings.HasPrefix(strings.TrimLeft(lines[k], " \t"), "#") {
				k++
			}
		}
		if r := props.RedactText(strings.Join(lines[i:k], "")); k == i+1 {
			lines[i] = r
		} else if rs := strings.SplitAfter(r, "\n"); len(rs) >= k-i && strings.Count(r, "\n") == strings.Count(strings.Join(lines[i:k], ""), "\n") {
			copy(lines[i:k], rs)
		} else {
			for j := i; j < k; j++ {
				lines[j] = props.RedactText(lines[j])
			}
		}
		i = k - 1
	}
	return strings.Join(lines, "")
}

// byteCol returns the byte offset of 1-based character column col.
func byteCol(ln string, col int) int {
	off := 0
	for c := 1; c < col && off < len(ln); c++ {
		_, w := utf8.DecodeRuneInString(ln[off:])
		off += w
	}
	return off
}

// blockEnd returns the offset where the content of a block scalar whose
// indicator is on line (1-based) ends: its content is the lines that are
// blank or indented at least as its first content line, and more than
// nothing.
func blockEnd(text string, starts []int, line int) int {
	indent := -1
	end := len(text)
	if line < len(starts) {
		end = starts[line]
	}
	for k := line; k < len(starts); k++ {
		ln := text[starts[k]:]
		if i := strings.IndexByte(ln, '\n'); i >= 0 {
			ln = ln[:i+1]
		}
		t := strings.TrimRight(ln, "\r\n")
		if strings.TrimSpace(t) == "" {
			continue
		}
		ind := len(t) - len(strings.TrimLeft(t, " "))
		if indent < 0 {
			indent = ind
		}
		if ind < indent || ind == 0 {
			break
		}
		end = starts[k] + len(ln)
	}
	return end
}

// scalarEnd returns the offset where a scalar starting at start ends: a
// quoted one at its closing quote, on whichever line; a plain one before
// a comment, a flow collection's punctuation or its line's end (lineEnd);
// -1 when a quote is never closed.
func scalarEnd(text string, start, lineEnd int, style yaml.Style, flow bool) int {
	switch {
	case style&yaml.DoubleQuotedStyle != 0:
		for i := start + 1; i < len(text); i++ {
			switch text[i] {
			case '\\':
				i++
			case '"':
				return i + 1
			}
		}
		return -1
	case style&yaml.SingleQuotedStyle != 0:
		for i := start + 1; i < len(text); i++ {
			if text[i] == '\'' {
				if i+1 < len(text) && text[i+1] == '\'' {
					i++
					continue
				}
				return i + 1
			}
		}
		return -1
	}
	ln := strings.TrimRight(text[start:lineEnd], "\r\n")
	if i := strings.Index(ln, " #"); i >= 0 {
		ln = ln[:i]
	}
	if flow {
		if i := strings.IndexAny(ln, ",]}"); i >= 0 {
			ln = ln[:i]
		}
	}
	return start + len(strings.TrimRight(ln, " \t"))
}

// redactTree hides in the parsed plan what walk finds, and what its
// comments hold; each anchor made secret once (secretAnchors).
func redactTree(n *yaml.Node, secret, prose bool, secretAnchors map[*yaml.Node]bool) {
	n.HeadComment, n.LineComment, n.FootComment = props.RedactText(n.HeadComment), props.RedactText(n.LineComment), props.RedactText(n.FootComment)
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			redactTree(n.Content[i], false, false, secretAnchors)
			redactTree(n.Content[i+1], secret || props.IsSecretKey(n.Content[i].Value), prose || isProse(n.Content[i].Value), secretAnchors)
		}
	case yaml.AliasNode:
		if secret && n.Alias != nil && !secretAnchors[n.Alias] {
			secretAnchors[n.Alias] = true
			redactTree(n.Alias, true, prose, secretAnchors)
		}
	case yaml.ScalarNode:
		if secret && n.Value != "" {
			n.Value, n.Style, n.Tag = props.Redacted, 0, "!!str"
		} else if r := redactScalar(n.Value, prose); r != n.Value {
			n.Value, n.Style = r, yaml.DoubleQuotedStyle
		}
	default:
		for _, c := range n.Content {
			redactTree(c, secret, prose, secretAnchors)
		}
	}
}

// verified reports whether out, the redacted text of the plan parsed as
// orig, parses into the same shape with every secret value hidden, every
// other value and comment as props.RedactText leaves it.
func verified(orig *yaml.Node, out string) bool {
	var got yaml.Node
	if err := yaml.Unmarshal([]byte(out), &got); err != nil {
		return false
	}
	return (&comparison{seen: map[aliasPair]bool{}}).same(orig, &got, false, false)
}

// A comparison of two parsed plans compares each pair of anchors once
// (in one context), however many aliases name them.
type comparison struct{ seen map[aliasPair]bool }

type aliasPair struct {
	a, b          *yaml.Node
	secret, prose bool
}

func (c *comparison) same(a, b *yaml.Node, secret, prose bool) bool {
	for _, c := range []string{b.HeadComment, b.LineComment, b.FootComment} {
		if props.RedactText(c) != c {
			return false
		}
	}
	if a.Kind != b.Kind || len(a.Content) != len(b.Content) {
		return false
	}
	switch a.Kind {
	case yaml.ScalarNode:
		if secret && a.Value != "" {
			return b.Value == props.Redacted
		}
		return b.Value == redactScalar(a.Value, prose) && redactScalar(b.Value, prose) == b.Value
	case yaml.AliasNode:
		if a.Alias == nil || b.Alias == nil {
			return false
		}
		k := aliasPair{a.Alias, b.Alias, secret, prose}
		if c.seen[k] { // compared, or being compared: its answer decides
			return true
		}
		c.seen[k] = true
		return c.same(a.Alias, b.Alias, secret, prose)
	case yaml.MappingNode:
		for i := 0; i+1 < len(a.Content); i += 2 {
			if !c.same(a.Content[i], b.Content[i], false, false) || !c.same(a.Content[i+1], b.Content[i+1], secret || props.IsSecretKey(a.Content[i].Value), prose || isProse(a.Content[i].Value)) {
				return false
			}
		}
		return true
	}
	for i := range a.Content {
		if !c.same(a.Content[i], b.Content[i], secret, prose) {
			return false
		}
	}
	return true
}
