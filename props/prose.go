package props

import (
	"slices"
	"strings"
	"unicode"
)

// Prose: a credential written in a sentence, where no NAME: VALUE or
// NAME=VALUE says it: a comment (# the redis password is PW, in a plan,
// a step's script or a command's output) or a departure's text (why:
// "password PW"). A secret word (password, passwd, passphrase, pwd, pw,
// token, secret, creds, credential, credentials; key after a word that
// says which, as keyWords do, or secret: api key, secret key) is
// followed by its value:
//
//   - the first word after it, where that word ends its line or looks
//     like no word of a sentence (a digit, a symbol, mixed case: S3cret,
//     p@ss, hunTer): # password PW, # token PW, # secret key PW;
//   - after a connector (is, was, are, became, :, =, -, ->, =>, to after
//     set or changed), the first word that is not a common one, where it
//     ends its line or looks like no word of a sentence: # the redis
//     password is PW, # password was set to PW, # Password for redis -> PW,
//     # the secret became PW (the words between the secret word and the
//     connector are its name);
//   - after creds, credentials or login, the part of user/PW after its
//     slash or colon, or the word after a lone slash: # creds: admin/PW,
//     # login admin / PW;
//   - after a word that says it was given a value (set, changed, rotated,
//     reset, updated, moved) and to: # the auth token was rotated to PW
//     yesterday, # the redis password moved to PW; and the old value
//     after its from, where it is no common word: # the password was
//     changed from OLD to NEW hides both;
//   - an administrator's account and its password without a secret word,
//     root/PW or root:PW (root, admin, administrator, postgres, sa,
//     cassandra, elastic, neo4j, ubuntu), wherever it stands, PW no word
//     of a sentence, a file's name, a path, an image's tag or a Vagrant
//     box: # root/PW, # admin:PW.
//
// A secret word is also bearer (# bearer PW; bearer token: its name goes
// on) and a secret's name as a program writes it, in capitals or joined
// by _ or . (# PGPASSWORD PW, # REDIS_PASSWORD is PW, # db_password PW);
// => joins as -> does (# password=>PW is NAME=VALUE's form too).
//
// A comment's lines read together: # password: on one line, # PW on the
// next. A word in lower case that goes on into a sentence is prose
// (password authentication failed for user bench), and so is a common
// word that says what a password is (the password is required, the
// token is expired: a word ending in -ed or -ing too); a number, a path,
// a URL, a placeholder ($P, <pw>, {{pw}}) and REDACTED are no value.
// Error messages are not prose: the rules read only comments there.

// proseSecret are the words that say a credential follows.
var proseSecret = map[string]bool{"password": true, "passwd": true, "passphrase": true, "pwd": true, "pw": true,
	"token": true, "secret": true, "creds": true, "credential": true, "credentials": true, "bearer": true}

// secretName reports whether w, a word of prose, is a secret's name as a
// program or a file writes it (PGPASSWORD, REDIS_PASSWORD, db_password,
// redis.password): IsSecretKey's, in capitals or of words joined by _ or
// ., so that it says a credential follows as password does. A word of a
// sentence (passport, authentication) is none.
func secretName(w string) bool {
	letters, upper, joined := 0, true, false
	for i := 0; i < len(w); i++ {
		switch c := w[i]; {
		case c >= 'a' && c <= 'z':
			letters++
			upper = false
		case c >= 'A' && c <= 'Z':
			letters++
		case c == '_' || c == '.':
			joined = joined || i > 0 && i < len(w)-1
		case c >= '0' && c <= '9' || c == '-':
		default:
			return false
		}
	}
	return letters > 1 && (upper || joined) && IsSecretKey(w)
}

// proseChange are the words that say a credential was given a value: to
// after them joins it (# the token was rotated to PW), and a value only
// after to (# the token was rotated yesterday).
var proseChange = map[string]bool{"set": true, "changed": true, "rotated": true, "reset": true, "updated": true,
	"switched": true, "regenerated": true, "renewed": true, "moved": true}

// proseAccount are the administrators' accounts a sentence may give with
// their password alone, user/PW without a secret word (# root/PW, # sa/PW).
var proseAccount = map[string]bool{"root": true, "admin": true, "administrator": true, "postgres": true, "sa": true,
	"cassandra": true, "elastic": true, "neo4j": true, "ubuntu": true}

// prosePair are the words after which user/PW is a user's name and its
// password.
var prosePair = map[string]bool{"creds": true, "credential": true, "credentials": true, "login": true}

// proseConnector are the words that join a secret's name to its value.
var proseConnector = map[string]bool{"is": true, "was": true, "are": true, "were": true, ":": true, "=": true,
	"-": true, "--": true, "->": true, "=>": true, "→": true, "/": true, "became": true, "becomes": true}

// proseCommon are words that say what a credential is, not which: never
// a value, skipped when looking for one.
var proseCommon = map[string]bool{}

func init() {
	for w := range strings.FieldsSeq(`a an the this that these its it our my your their his her
		for of in on at by with from into and or but if as be been being to so then now also still
		not no none too very just only here there below above same new old default plain clear text
		set unset empty blank required optional needed missing invalid wrong incorrect correct valid
		random given known unknown hidden secret redacted user users admin name names
		auth authentication hash hashing reset change policy prompt file files length
		protected protection encryption less login based rotation expiry validation check
		strength field option options setting settings flag env environment variable variables
		mode type key keys value values stdin prompt configured config same
		property properties error errors operation request response vault console readme docs`) {
		proseCommon[w] = true
	}
}

// proseWord is a word of a text: where it is, and on which line.
type proseWord struct{ start, end, line int }

// proseWords splits s at blanks.
func proseWords(s string) []proseWord {
	var words []proseWord
	line := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c == '\n' {
			line++
		}
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
			j++
		}
		words = append(words, proseWord{i, j, line})
		i = j
	}
	return words
}

// proseCore returns where the word w's value is: without the quotes
// around it and the punctuation that ends a sentence's word.
func proseCore(w string) (int, int) {
	start, end := 0, len(w)
	for start < end && strings.IndexByte(`"'(`+"`", w[start]) >= 0 {
		start++
	}
	for end > start && strings.IndexByte(`"').,;:!?`+"`", w[end-1]) >= 0 {
		end--
	}
	return start, end
}

// mayHoldProse reports whether s holds a word proseSecret or prosePair
// could be, or an account's user/PW or user:PW: a cheap test before the
// words are read.
func mayHoldProse(s string) bool {
	l := strings.ToLower(s)
	for _, w := range []string{"pass", "pw", "token", "secret", "cred", "key", "login", "bearer", "/"} {
		if strings.Contains(l, w) {
			return true
		}
	}
	for a := range proseAccount { // admin:PW
		if strings.Contains(l, a+":") {
			return true
		}
	}
	return false
}

// RedactProse hides what RedactText hides in s, a text of sentences (a
// departure's what and why), and the credentials its sentences give
// (see Prose above).
func RedactProse(s string) string {
	return redactProse(RedactText(s))
}

// RedactProse hides in s what RedactProse finds and every known secret.
func (r *Redactor) RedactProse(s string) string { return RedactProse(r.HideKnown(s)) }

// HiddenProse adds what RedactProse hides in text, a text of sentences,
// as Hidden adds what RedactText hides.
func (r *Redactor) HiddenProse(text string) {
	r.Hidden(text)
	for _, v := range hiddenPieces(text, RedactProse(text)) {
		r.learn(v)
	}
}

// redactProse hides the values prose gives its secret words in s.
func redactProse(s string) string {
	if !mayHoldProse(s) {
		return s
	}
	words := proseWords(s)
	core := func(k int) string {
		w := s[words[k].start:words[k].end]
		a, b := proseCore(w)
		return strings.ToLower(w[a:b])
	}
	var hide [][2]int // the values' offsets in s
	for i := 0; i < len(words); i++ {
		w := core(i)
		if w == "key" && i > 0 && (keyWordSet[core(i-1)] || core(i-1) == "secret") {
			w = "secret"
		}
		if v := accountPassword(s, words, i); v[1] > 0 {
			hide = append(hide, v)
			continue
		}
		raw := s[words[i].start:words[i].end]
		if a, b := proseCore(raw); secretName(raw[a:b]) {
			w = "password"
		}
		pair, loginOnly := prosePair[w], w == "login"
		if !proseSecret[w] && !pair {
			continue
		}
		connected := strings.HasSuffix(raw, ":") || strings.HasSuffix(raw, "=")
		first := true
		changed, from, afterFrom := false, false, false // a word saying it was given a value seen; the word after its from is the old value; to after that joins the new
		for j := i + 1; j < len(words) && j <= i+8; j++ {
			raw := s[words[j].start:words[j].end]
			a, b := proseCore(raw)
			c := raw[a:b]
			lc := strings.ToLower(c)
			last := j+1 == len(words) || words[j+1].line != words[j].line || b < len(raw) && strings.IndexByte(",;.", raw[b]) >= 0 // the line's or the clause's last word
			switch {
			case strings.Contains(raw, Redacted):
				j = len(words)
			case raw == "#" || raw == "##" || raw == "//":
			case from: // changed from OLD to NEW: OLD, where it is no common word
				from, connected, afterFrom = false, false, true
				if c != "" && !proseCommon[lc] && !noProseValue(c) && (last || !sentenceWord(c) || j+1 < len(words) && core(j+1) == "to") {
					hide = append(hide, [2]int{words[j].start + a, words[j].start + b})
				}
			case proseChange[lc]:
				connected, first, changed = false, false, true // a value only after to
			case lc == "from" && changed && !afterFrom:
				from, first = true, false
			case proseConnector[raw] || lc == "to" && j > 0 && (proseChange[core(j-1)] || afterFrom):
				connected, first = true, false
				if raw == "/" && !pair {
					j = len(words) // a/b in a sentence: no user and password
				}
			case proseSecret[lc] || prosePair[lc] || secretName(c):
				j = len(words) // another secret word (bearer token, secret token): read on its own
			case c == "" || noProseValue(c):
				j = len(words)
			case pair && userPass(c) > 0:
				hide = append(hide, [2]int{words[j].start + a + userPass(c), words[j].start + b})
				j = len(words)
			case loginOnly && !(connected && j > 0 && s[words[j-1].start:words[j-1].end] == "/"):
				// login: only user / PW
			case proseCommon[lc] || strings.HasSuffix(raw, ":") || strings.HasSuffix(raw, "="):
				if strings.HasSuffix(raw, ":") || strings.HasSuffix(raw, "=") {
					connected = true
				}
				if lc != "key" && lc != "keys" { // secret key PW: the name goes on
					first = false
				}
			case (connected || first) && (last || !sentenceWord(c)):
				hide = append(hide, [2]int{words[j].start + a, words[j].start + b})
				j = len(words)
			case connected:
				j = len(words) // a word of a sentence after the connector: prose
			default:
				first = false // the secret's name (password for redis -> PW)
			}
		}
	}
	if len(hide) == 0 {
		return s
	}
	slices.SortFunc(hide, func(x, y [2]int) int { return x[0] - y[0] })
	var b strings.Builder
	last := 0
	for _, h := range hide {
		if h[0] < last {
			continue
		}
		b.WriteString(s[last:h[0]])
		b.WriteString(Redacted)
		last = h[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

// accountPassword returns where the password of words[i] is when it is
// an administrator's account and its password, user/PW or user:PW
// (proseAccount), anywhere in a sentence, PW no word of a sentence,
// number, path or file's name (root/.ssh, admin/config.yaml), nor a
// Vagrant box (ubuntu/focal64), nor after a colon an image's tag
// (postgres:16-alpine: one that begins with a digit) or a line of
// /etc/passwd (root:x:0:0:...); else 0, 0.
func accountPassword(s string, words []proseWord, i int) [2]int {
	raw := s[words[i].start:words[i].end]
	a, b := proseCore(raw)
	k := strings.IndexAny(raw[a:b], "/:")
	if k < 0 {
		return [2]int{}
	}
	user, pw := raw[a:a+k], raw[a+k+1:b]
	if !proseAccount[strings.ToLower(user)] || len(pw) < minKnown || strings.ContainsAny(pw, "/:") ||
		noProseValue(pw) || sentenceWord(pw) || fileName(pw) || strings.EqualFold(pw, user) ||
		raw[a+k] == ':' && isDigit(pw[0]) || vagrantBox(pw) {
		return [2]int{}
	}
	start := words[i].start + a + len(user) + 1
	return [2]int{start, start + len(pw)}
}

// vagrantBox reports whether w, after an account's slash, reads as a
// Vagrant box's name: small letters and 32 or 64 (ubuntu/focal64).
func vagrantBox(w string) bool {
	n := strings.TrimSuffix(strings.TrimSuffix(w, "64"), "32")
	return len(n) < len(w) && n != "" && strings.Trim(n, "abcdefghijklmnopqrstuvwxyz") == ""
}

// fileName reports whether w reads as a file's name: a name, a dot, and
// an extension of 1 to 4 small letters (config.yaml, .ssh).
func fileName(w string) bool {
	d := strings.LastIndexByte(w, '.')
	if d < 0 || len(w)-d-1 < 1 || len(w)-d-1 > 4 {
		return d == 0
	}
	for _, r := range w[d+1:] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return true
}

// keyWordSet is keyWords as a set.
var keyWordSet = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range keyWords {
		m[w] = true
	}
	return m
}()

// userPass returns where the password of user/PW or user:PW begins in
// w, or 0.
func userPass(w string) int {
	k := strings.IndexAny(w, "/:")
	if k <= 0 || k == len(w)-1 || strings.Contains(w, "//") {
		return 0
	}
	return k + 1
}

// sentenceWord reports whether w reads as a word of a sentence: letters
// only (and - '), in lower case, with a capital first, or in capitals.
func sentenceWord(w string) bool {
	upper, lower := 0, 0
	for i, r := range w {
		switch {
		case unicode.IsLower(r):
			lower++
		case unicode.IsUpper(r):
			if i > 0 && lower > 0 {
				return false // mixed case: hunTer
			}
			upper++
		case r == '-' || r == '\'':
		default:
			return false
		}
	}
	return lower+upper > 0
}

// noProseValue reports whether w can be no credential in prose: a
// number, a path, a URL, a placeholder, a word of a sentence ending in
// -ed or -ing (expired, missing).
func noProseValue(w string) bool {
	if strings.Contains(w, "://") || strings.HasPrefix(w, "/") || strings.HasPrefix(w, "~/") || strings.HasPrefix(w, "./") ||
		strings.HasPrefix(w, "$") || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "{{") || strings.HasPrefix(w, "%") {
		return true
	}
	if participle(w) || codeName(w) {
		return true
	}
	return strings.IndexFunc(w, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.' || r == ',') }) < 0
}

// codeName reports whether w reads as the name of a property or of an
// environment variable, listed beside a secret's (redis.password,
// redis.username; SERVBENCH_TOKEN, SERVBENCH_COORDINATOR_CERT): small
// letters joined by dots, or capitals joined by underscores.
func codeName(w string) bool {
	w = strings.Trim(w, "`'\",;:()")
	dotted := func(sep byte, lo, hi byte) bool {
		parts := strings.Split(w, string(sep))
		if len(parts) < 2 {
			return false
		}
		for _, p := range parts {
			if p == "" || strings.IndexFunc(p, func(r rune) bool { return r < rune(lo) || r > rune(hi) }) >= 0 {
				return false
			}
		}
		return true
	}
	return dotted('.', 'a', 'z') || dotted('_', 'A', 'Z')
}

// participle reports whether w is a word of a sentence ending in -ed or
// -ing (expired, failed, missing).
func participle(w string) bool {
	l := strings.ToLower(w)
	return (strings.HasSuffix(l, "ed") || strings.HasSuffix(l, "ing")) && sentenceWord(w)
}

// commonWord reports whether w, a value NAME: VALUE gives after other
// words, is a sentence's word rather than a credential: a common word or
// a participle (property my.token: unknown property; get credentials:
// failed to refresh).
func commonWord(w string) bool {
	w = strings.Trim(w, `"'`)
	return proseCommon[strings.ToLower(w)] || participle(w)
}

// redactComments hides what prose gives in the comments of s: from a #
// that begins a line or follows a blank to the line's end, a comment's
// lines that follow it read with it.
func redactComments(s string) string {
	if strings.IndexByte(s, '#') < 0 || !mayHoldProse(s) {
		return s
	}
	var b strings.Builder
	rest := s
	for {
		i := commentStart(rest)
		if i < 0 {
			break
		}
		end := i
		for {
			nl := strings.IndexByte(rest[end:], '\n')
			if nl < 0 {
				end = len(rest)
				break
			}
			end += nl
			next := strings.TrimLeft(rest[end+1:], " \t")
			if !strings.HasPrefix(next, "#") {
				break
			}
			end++
		}
		b.WriteString(rest[:i])
		b.WriteString(redactProse(rest[i:end]))
		rest = rest[end:]
	}
	if b.Len() == 0 {
		return s
	}
	b.WriteString(rest)
	return b.String()
}

// commentStart returns where the first comment of s begins: a # at a
// line's start or after a blank; or -1.
func commentStart(s string) int {
	for from := 0; ; {
		k := strings.IndexByte(s[from:], '#')
		if k < 0 {
			return -1
		}
		k += from
		if k == 0 || s[k-1] == ' ' || s[k-1] == '\t' || s[k-1] == '\n' {
			return k
		}
		from = k + 1
	}
}
