package plan

import (
	"regexp"
	"strings"

	"github.com/servbench/servbench/props"
)

// secretEntry matches a YAML key that names a credential and its value,
// in block style (on a line of its own) or flow style ({k: v, ...}).
var secretEntry = regexp.MustCompile(`(?i)((?:^|[\s{,])[A-Za-z0-9_.-]*(?:password|passwd|secret|token|credential|apikey|api_key|accesskey|access_key)[A-Za-z0-9_.-]*\s*:\s+)("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^,}\s#][^,}#]*)`)

// Redact hides credentials in a plan's text: the value of every key that
// names one, the password of every URL (the user name may hold '#'), and
// every keyword=value credential (a PostgreSQL connection string), and a
// setup statement's or command's credential (RedactStep). The rest of the
// text is kept as written.
func Redact(text string) string {
	lines := strings.Split(text, "\n")
	for i, ln := range lines {
		ln = secretEntry.ReplaceAllString(ln, "${1}"+props.Redacted)
		lines[i] = RedactStep(ln) // a setup step's PASSWORD 'x', AUTH x too
	}
	return strings.Join(lines, "\n")
}

// secretWord matches a credential given after a keyword in a statement
// or command: PASSWORD 'x' (SQL, CQL), AUTH x (Redis' command, in capitals:
// "auth" in prose is left alone) and CONFIG SET requirepass x, IDENTIFIED
// BY 'x'.
var secretWord = regexp.MustCompile(`\b((?i:password|passwd|requirepass|masterauth|identified\s+by)|AUTH)(\s+)('(?:[^']|'')*'|"(?:[^"\\]|\\.)*"|[^\s;,)]+)`)

// RedactStep hides credentials in a setup step's text or answer: those
// RedactText finds, and any word after PASSWORD, AUTH, requirepass,
// masterauth or IDENTIFIED BY.
func RedactStep(text string) string {
	return secretWord.ReplaceAllString(props.RedactText(text), "${1}${2}"+props.Redacted)
}
