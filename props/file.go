package props

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/servbench/servbench/internal/inputfile"
)

// MaxFileBytes is the largest property file read (YCSB's are a few KiB).
const MaxFileBytes = 16 << 20

// LoadFile reads a Java-style properties file into p (see Parse).
func (p *Props) LoadFile(path string) error { return p.LoadFileContext(context.Background(), path) }

// LoadFileContext is LoadFile that gives way when ctx ends (a named pipe
// with no writer, a file that never ends): a property file is read whole,
// at most MaxFileBytes, before any of it is applied.
func (p *Props) LoadFileContext(ctx context.Context, path string) error {
	raw, err := inputfile.Read(ctx, path, MaxFileBytes)
	if err != nil {
		return fmt.Errorf("property file %s: %w", path, err)
	}
	p.files = append(p.files, path)
	return p.Parse(bytes.NewReader(raw), path)
}

// Parse reads properties in the java.util.Properties text format that YCSB's
// workload files use: "key=value", "key: value" or "key value"; lines
// starting with # or ! are comments; a line ending in an odd number of
// backslashes continues on the next; \t \n \r \f \uXXXX and \<char> escapes.
// name is used as the source in error messages ("name:line").
func (p *Props) Parse(r io.Reader, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	lineNo := 0
	for sc.Scan() {
		lineNo++
		start := lineNo
		text := sc.Text()
		if lineNo == 1 {
			text = strings.TrimPrefix(text, "\uFEFF") // a byte order mark some editors write
		}
		line := strings.TrimLeft(text, " \t\f")
		if line == "" || line[0] == '#' || line[0] == '!' {
			continue
		}
		for continues(line) {
			line = line[:len(line)-1]
			if !sc.Scan() {
				break
			}
			lineNo++
			line += strings.TrimLeft(sc.Text(), " \t\f")
		}
		key, value, err := splitLine(line)
		if err != nil {
			return fmt.Errorf("%s:%d: %v", name, start, err)
		}
		if key == "" {
			return fmt.Errorf("%s:%d: line has a value but no property name", name, start)
		}
		p.Set(key, value, fmt.Sprintf("%s:%d", name, start))
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s:%d: a line of more than 16 MB", name, lineNo+1)
		}
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// continues reports whether line ends in an odd number of backslashes.
func continues(line string) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '\\'; i-- {
		n++
	}
	return n%2 == 1
}

// splitLine separates key and value at the first unescaped '=', ':' or
// white space, then unescapes both.
func splitLine(line string) (string, string, error) {
	i := 0
	for i < len(line) {
		c := line[i]
		if c == '\\' {
			i += 2
			continue
		}
		if c == '=' || c == ':' || c == ' ' || c == '\t' || c == '\f' {
			break
		}
		i++
	}
	if i > len(line) {
		i = len(line)
	}
	rawKey := line[:i]
	rest := strings.TrimLeft(line[i:], " \t\f")
	if rest != "" && (rest[0] == '=' || rest[0] == ':') {
		rest = strings.TrimLeft(rest[1:], " \t\f")
	}
	key, err := unescape(rawKey)
	if err != nil {
		return "", "", fmt.Errorf("a malformed \\u escape in its key (%v; the key not quoted: it may hold a value)", err)
	}
	value, err := unescape(rest)
	if err != nil {
		// Said by its key and place, never quoted: a value may be a
		// secret by its key, a rule's or as another property's value.
		return "", "", fmt.Errorf("property %s: a malformed \\u escape in its value (%v)", key, err)
	}
	return key, value, nil
}

func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch s[i] {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+4 >= len(s) {
				return "", fmt.Errorf("at byte %d of %d", i, len(s))
			}
			r, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("at byte %d of %d", i, len(s))
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), nil
}

// ParseAssignment splits a command-line "-p key=value" argument.
func ParseAssignment(arg string) (string, string, error) {
	k, v, ok := strings.Cut(arg, "=")
	k = strings.TrimSpace(k)
	if !ok || k == "" {
		return "", "", fmt.Errorf("-p %q is not key=value", redactAssignment(arg))
	}
	return k, v, nil
}

// redactAssignment hides the secret of a "-p" argument that is not
// key=value: the value after a secret key's name and a space or a colon
// (redis.password pw), and what RedactText finds.
func redactAssignment(arg string) string {
	t := strings.TrimLeftFunc(arg, unicode.IsSpace)
	if i := strings.IndexFunc(t, func(r rune) bool { return unicode.IsSpace(r) || r == ':' }); i > 0 && IsSecretKey(t[:i]) && strings.TrimSpace(t[i:]) != "" {
		sep := " " // a space of any kind, \r, said as a space
		if t[i] == ':' {
			sep = ":"
		}
		return arg[:len(arg)-len(t)+i] + sep + Redacted
	}
	return RedactText(arg)
}

// Write writes p in the format Parse reads, one key=value line per
// property in key order, escaped so that Parse gives back the same keys
// and values. Credentials are written as they are: write to a file only
// its owner can read.
func (p *Props) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	for _, k := range p.Keys() {
		v, _ := p.Get(k)
		bw.WriteString(escape(k, true))
		bw.WriteByte('=')
		bw.WriteString(escape(v, false))
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// escape writes s so that unescape, after Parse has cut the line, gives it
// back: backslashes and control characters escaped, and in a key the
// separators, in a value a leading blank.
func escape(s string, key bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ { // bytes: what is not UTF-8 stays as it is
		c := s[i]
		switch {
		case c == '\\':
			b.WriteString(`\\`)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c == '\f':
			b.WriteString(`\f`)
		case key && (c == '=' || c == ':' || c == ' ' || c == '#' || c == '!'):
			b.WriteByte('\\')
			b.WriteByte(c)
		case !key && i == 0 && c == ' ':
			b.WriteString(`\ `)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
