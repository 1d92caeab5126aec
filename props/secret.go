package props

import (
	"regexp"
	"strings"
)

// secretWords mark a property whose value is a credential.
var secretWords = []string{"password", "passwd", "secret", "token", "credential", "apikey", "api_key", "accesskey", "access_key"}

// Redacted is the text that stands in for a secret.
const Redacted = "REDACTED"

// IsSecretKey reports whether a property named key holds a credential.
func IsSecretKey(key string) bool {
	k := strings.ToLower(key)
	for _, w := range secretWords {
		if strings.Contains(k, w) {
			return true
		}
	}
	return false
}

// RedactValue hides credentials in a value: the whole value for secret
// keys; otherwise the password of any URL and every keyword=value
// credential (a PostgreSQL keyword/value connection string), as RedactText.
func RedactValue(key, value string) string {
	if IsSecretKey(key) && value != "" {
		return Redacted
	}
	return RedactText(value)
}

// RedactURL hides the credentials of a URL or of any text holding URLs;
// it is RedactText.
func RedactURL(s string) string { return RedactText(s) }

// Redacted returns every property as a map with credentials hidden,
// suitable for printing or writing into results.
func (p *Props) Redacted() map[string]string {
	out := make(map[string]string, len(p.m))
	for k, e := range p.m {
		out[k] = RedactValue(k, e.value)
	}
	return out
}

// secretPair matches a keyword/value credential in free text, as in a
// PostgreSQL connection string (password=x, password='x y').
var secretPair = regexp.MustCompile(`(?i)\b(\w*(?:password|passwd|secret|token|apikey|api_key|accesskey|access_key)\w*)(\s*=\s*)('(?:[^'\\]|\\.)*'|"[^"]*"|[^\s&;,]+)`)

// RedactText hides credentials anywhere in a text such as an error
// message: the password of every URL (scheme://user:password@host, the
// password running to the last @ of the word, so it may hold / or #; a
// comma followed by another URL ends the word) and
// every keyword=value pair whose keyword names a credential.
func RedactText(s string) string {
	if strings.Contains(s, "://") {
		var b strings.Builder
		rest := s
		for {
			i := strings.Index(rest, "://")
			if i < 0 {
				break
			}
			b.WriteString(rest[:i+3])
			rest = rest[i+3:]
			end := strings.IndexAny(rest, " \t\r\n\"'")
			if end < 0 {
				end = len(rest)
			}
			word := rest[:end]
			if j := strings.Index(word, "://"); j >= 0 { // a list of URLs: "a://…,b://…"
				if k := strings.LastIndex(word[:j], ","); k >= 0 {
					word = word[:k]
				}
			}
			if at := strings.LastIndex(word, "@"); at >= 0 {
				if c := strings.Index(word[:at], ":"); c >= 0 {
					b.WriteString(word[:c+1] + Redacted + "@")
					rest = rest[at+1:]
					continue
				}
			}
		}
		b.WriteString(rest)
		s = b.String()
	}
	return secretPair.ReplaceAllString(s, "${1}${2}"+Redacted)
}
