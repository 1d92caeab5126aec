package props

import (
	"encoding/base64"
	"net/url"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// Redaction: the one place that decides what is a credential. Every writer
// of text (results, reports, plan copies, setup logs, error lines, the
// Kubernetes Secret's choice) goes through IsSecretKey, RedactValue,
// RedactText or a Redactor. A credential is found by what it is, not by
// where it appears:
//
//   - the value of any property or key whose name says password, passwd,
//     pwd, pass, secret, token, auth or credential, or is pw, or ends in "key"
//     (accesskey, secretkey, tls.key) or "keyfile" (tlsPrivateKeyFile),
//     except the few names that say a record's key or a non-secret setting
//     (NotSecret); written name=value, name: value, "name": value or
//     name:value ({pwd:"x"}, pass:x), also inside another option's value
//     (--from-literal=password=x, --set=auth.rootPassword=x);
//   - the password of any URL (scheme://user:password@host), an http(s)
//     URL's user that is a token (https://TOKEN@github.com/...,
//     https://TOKEN:x-oauth-basic@github.com/...; tokenUser tells it from
//     a user's name), and the value
//     of each of its query options so named or named key, code or sig
//     (?key=KEY, an Azure Function's ?code=KEY, a SAS token's &sig=SIG),
//     each pair's value of a list
//     (authMechanismProperties=AWS_SESSION_TOKEN:x);
//   - any argument that follows an option or a command word that takes a
//     password: AUTH (one or two arguments), PASSWORD, IDENTIFIED BY,
//     requirepass, masterauth, ACL SETUSER's >pass and #hash, set KEY x
//     where KEY is so named, an option whose name says so (--password,
//     --pass=, --token, one dash too: -passin, -storepass), and the short
//     options of the clients (and subcommands) whose -a, -p or -u carries
//     one (redis-cli -a, mysql -pPW, cqlsh -p, docker login -p, curl -u
//     user:pw), the argument a subcommand takes as one (rabbitmqctl
//     change_password user pw, vault login TOKEN), user:pw@host without
//     a scheme;
//   - a configuration line NAME VALUE of a secret name (db_password x),
//     CouchDB's [admins] lines;
//   - every cookie's value a Cookie or Set-Cookie header gives (Cookie:
//     session=x; theme=y), and curl's -b and --cookie ('session=x');
//   - the value a sentence gives a secret word in a comment or a
//     departure's text (# the redis password is x; see prose.go).
//
// And by value: a Redactor knows every value the rules found secret
// anywhere (a plan's step, a property, a URL) and hides each wherever it
// is repeated, where no rule could see it.

// Redacted is the text that stands in for a secret.
const Redacted = "REDACTED"

// secretWords, anywhere in a name's last part, mark it as a
// credential's.
var secretWords = []string{"password", "passwd", "pwd", "pass", "secret", "token", "auth", "credential"}

// keyWords are what a key that is a credential is called: an API key, an
// access key; and tls.key, a dotted name's last part. A record's key
// (primarykey, ycsb_key, a shard's "key") is not.
var keyWords = []string{"api", "access", "private", "master", "account", "sas", "shared", "signing",
	"encryption", "client", "session", "license", "subscription", "service", "storage"}

// notSecret are names that hold a secret word but no secret: a database's
// name, a mechanism, a flag without a value.
var notSecret = map[string]bool{
	"authsource": true, "authmechanism": true, "authenticationdatabase": true,
	"authdb": true, "askpass": true, "no-auth-warning": true, "password-stdin": true, "pass-stdin": true, "passes": true, "compass": true, "bypass": true,
	"author": true, "authors": true, "passive": true, "passthrough": true,
	"tokens": true, "num_tokens": true, "initial_token": true, "tokenizer": true, // Cassandra's ring; a search index's
}

// keyFiles are the connection strings' options that name a client's
// private key file, secret as tls.key is: libpq's sslkey, MongoDB's
// sslPEMKeyFile; any name ending in keyfile (MongoDB's
// tlsCertificateKeyFile, tlsPrivateKeyFile, sslClientCertificateKeyFile)
// is one too.
var keyFiles = map[string]bool{"sslkey": true, "sslpemkeyfile": true}

// IsSecretKey reports whether a property, option or key named name holds
// a credential.
func IsSecretKey(name string) bool {
	last := strings.ToLower(strings.Trim(name, `"' -`))
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		if last = last[i+1:]; last == "key" {
			return true
		}
	}
	if notSecret[last] {
		return false
	}
	if keyFiles[last] || strings.HasSuffix(strings.NewReplacer("_", "", "-", "").Replace(last), "keyfile") {
		return true
	}
	for _, w := range secretWords {
		if strings.Contains(last, w) {
			return true
		}
	}
	if strings.HasSuffix(last, "pw") { // redis.pw, nodetool -pw, adminPw, ROOTPW, adminpw: no word ends so
		return true
	}
	if !strings.HasSuffix(last, "key") {
		return false
	}
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	last = strings.ToLower(camelWord.ReplaceAllString(strings.Trim(name, `"' -`), "${1}_${2}")) // SharedAccessKey: shared_access_key
	prefix := strings.TrimRight(strings.TrimSuffix(last, "key"), "_-")
	for _, w := range keyWords {
		if prefix == w || strings.HasSuffix(prefix, "_"+w) || strings.HasSuffix(prefix, "-"+w) {
			return true
		}
	}
	return false
}

// isDirVar reports whether name=value is the shell's working directory
// (PWD=/path, OLDPWD=/path, as env prints them), not a password (ODBC's
// PWD=secret).
func isDirVar(name, value string) bool {
	return (name == "PWD" || name == "OLDPWD") && strings.HasPrefix(value, "/")
}

// camelWord finds where a camelCase name's words meet.
var camelWord = regexp.MustCompile(`([a-z0-9])([A-Z])`)

// RedactValue hides credentials in a value: the whole value for secret
// keys; otherwise what RedactText finds.
func RedactValue(key, value string) string {
	if IsSecretKey(key) && value != "" {
		return Redacted
	}
	if pw, at, ok := urlPassword(value); ok {
		value = value[:at] + Redacted + value[at+len(pw):]
	}
	return RedactText(value)
}

// urlScheme begins a value that is a URL as a whole.
var urlScheme = regexp.MustCompile(`^\s*([A-Za-z][A-Za-z0-9+.-]*)://`)

// urlPassword returns the password of value when value is a URL as a
// whole (a property's, an --at's): its userinfo is up to the last @
// before the query, the password after its first colon (or the whole
// userinfo where the scheme reads one word as the password, redis://PW@,
// or where an http(s) URL's user is a token, https://TOKEN@: tokenUser),
// whatever it holds (| > ' ` and spaces, which end a URL in free text,
// the drivers take), and its offset in value.
func urlPassword(value string) (pw string, at int, ok bool) {
	m := urlScheme.FindStringSubmatchIndex(value)
	if m == nil {
		return "", 0, false
	}
	rest := value[m[1]:]
	end := len(rest)
	if q := strings.IndexByte(rest, '?'); q >= 0 {
		end = q
	}
	a := strings.LastIndexByte(rest[:end], '@')
	if a <= 0 {
		return "", 0, false
	}
	user := rest[:a]
	if u := tokenEnd(rest); rest[u] == '@' && tokenScheme(value[m[2]:m[3]]) && tokenUser(rest[:u]) { // https://TOKEN@host
		return rest[:u], m[1], true
	}
	if c := strings.IndexByte(user, ':'); c >= 0 {
		if c+1 == len(user) {
			return "", 0, false
		}
		return user[c+1:], m[1] + c + 1, true
	}
	if passwordOnly[strings.ToLower(value[m[2]:m[3]])] {
		return user, m[1], true
	}
	return "", 0, false
}

// redactValue is RedactValue that also hides every secret the other
// properties hold, for a message quoting a value (recordcount=PW with
// PW a password).
func (p *Props) redactValue(key, value string) string {
	var r Redactor
	r.Known(p)
	return RedactValue(key, r.HideKnown(value))
}

// RedactURL hides the credentials of a URL or of any text holding URLs;
// it is RedactText.
func RedactURL(s string) string { return RedactText(s) }

// Redacted returns every property as a map with credentials hidden,
// suitable for printing or writing into results: each value as
// RedactValue hides it, and every secret any property holds hidden
// wherever another value repeats it.
func (p *Props) Redacted() map[string]string { return (*Redactor)(nil).Props(p) }

// A value in free text: quoted (either quote, with escapes) or a word. A
// word holds quotes only as quoted parts of its own, without spaces
// (pw"x"): a quote that ends an argument ("token=x" -u ...) is not taken,
// so the rest of the line is still read as commands.
const valueRE = `((?:'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*")(?:'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*"|[^\s&;,)}\]'"|<>` + "`" + `])*|` +
	`\\"(?:[^"\\]|\\[^"])*\\"|\\'(?:[^'\\]|\\[^'])*\\'|` +
	`(?:\\[ \t]|[^\s&;,)}\]{\['"|<>` + "`" + `]|'[^'\s]*'|"[^"\s]*")(?:\\[ \t]|[^\s&;,)}\]'"|<>` + "`" + `]|'[^'\s]*'|"[^"\s]*")*)`

// pair matches name=value (jq's and yq's name |= value, Ruby's, Perl's
// and PHP's name => value too), and "name": value ('name' => value; \"name\": \"value\" too,
// inside a double-quoted shell string) or name: value where the name is
// quoted or begins a line, an object, a list item, a quoted argument
// (curl -H 'X-Api-Key: x') or a word (# the redis password: x; a word
// after a secret name's colon in prose is hidden too), and name:value without a space where the name
// begins a word, an object, a list item or a value (openssl's pass:x,
// {pwd:"x"}, MongoDB's AWS_SESSION_TOKEN:x). Which names are secret is
// IsSecretKey's to say; a value that is not secret is read again for
// pairs of its own (--from-literal=password=x, --set=auth.rootPassword=x,
// --env=POSTGRES_PASSWORD=x).
var pair = regexp.MustCompile(`([\w.-]+)(\s*\|?=>?\s*)` + valueRE +
	`|(["'])([\w.-]+)(\\?["']\s*(?::|=>)\s*)` + valueRE +
	`|((?:^|[{,#"'\s]|^\s*-)\s*)([\w.-]+)(\s*:[ \t]+)` + valueRE +
	`|((?:^|[\s{,(\[=&?;])\s*)([\w.-]+)(:)` + valueRE)

// dollarQuoted is PostgreSQL's dollar-quoted string, $$x$$ or $tag$x$tag$
// (one without a $ inside).
const dollarQuoted = `\$(?:[A-Za-z_]\w*)?\$[^$]*\$(?:[A-Za-z_]\w*)?\$`

// dollarString is a dollar-quoted string whole: its opening tag, its
// text, its closing tag.
var dollarString = regexp.MustCompile(`^\$(\w*)\$([^$]*)\$(\w*)\$$`)

// word matches a command word that takes a password and what follows:
// PASSWORD 'x' (or PostgreSQL's U&'x', E'x', $$x$$, $tag$x$tag$) in any case, PASSWORD x in capitals (prose's "password
// authentication failed" is left alone), PASSWORD = x, SET PASSWORD FOR
// user = x, IDENTIFIED BY x, IDENTIFIED WITH plugin BY (or AS) x,
// requirepass x, masterauth x (and redisPassKeys'); an Authorization header's credential
// (its scheme kept: Bearer, Basic); and the password argument of a call
// whose name says so: PASSWORD('x'), db.auth("user", "x"),
// db.changeUserPassword("user", "x").
var word = regexp.MustCompile(`\b((?i:set\s+password\s+for)\s+(?:'[^']*'@'[^']*'|"[^"]*"@"[^"]*"|\S+)\s*=\s*)` + valueRE +
	`|\b((?i:password)\s+(?:=\s*)?)((?:[Uu]&|[Ee])?'(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*"|` + dollarQuoted + `)` +
	`|\b((?:PASSWORD(?:\s*=)?|(?i:identified\s+by|identified\s+with\s+\w+\s+(?:by|as)|requirepass|masterauth|` + redisPassKeys + `))[ \t]+)` + valueRE +
	`|\b((?i:(?:proxy-)?authorization)\s*:\s*(?:[A-Za-z][\w-]*\s+)?)([^\s"';|&<>` + "`" + `](?:[^"'\r\n;|&<>` + "`" + `]*[^\s"';|&<>` + "`" + `])?)` +
	`|\b((?i:password|auth|changeUserPassword|updateUser)\s*\(\s*(?:(?:'[^']*'|"[^"]*")\s*,\s*)?)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*")`)

// mayHoldWord reports whether s may hold one of word's keywords: each
// holds pass, auth, identified or updateuser in any case. Text that is
// not ASCII is always read (case folding maps ſ to s and K to k).
func mayHoldWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return true
		}
	}
	l := strings.ToLower(s)
	return strings.Contains(l, "pass") || strings.Contains(l, "auth") || strings.Contains(l, "identified") || strings.Contains(l, "updateuser")
}

// redisPassKeys are the other keywords of Redis' and Sentinel's
// configuration whose value is a secret: tls-key-file-pass PW,
// tls-client-key-file-pass PW, sentinel auth-pass MASTER PW.
const redisPassKeys = `tls-key-file-pass|tls-client-key-file-pass|sentinel\s+auth-pass\s+[^\s'"]+`

// wordKey is where word's keywords that take a bare value begin.
var wordKey = regexp.MustCompile(`\b(?:PASSWORD|(?i:identified\s+by|identified\s+with|requirepass|masterauth|` + redisPassKeys + `))\b`)

// redactWords hides what word finds, each keyword's value. A value that
// holds such a keyword again (sed's s/^requirepass .*/requirepass PW/,
// whose first value is .*/requirepass) ends where that keyword begins,
// and the keyword is read again with its own value: the later secret is
// found too. Each value is searched once, so the pass stays linear.
func redactWords(s string) string {
	var b strings.Builder
	for {
		m := word.FindStringSubmatchIndex(s)
		if m == nil {
			b.WriteString(s)
			return b.String()
		}
		end := m[1]
		for i := 2; i+3 < len(m); i += 4 { // the words kept, then the secret
			if m[i] < 0 {
				continue
			}
			if i == 18 && !strings.Contains(s[m[i]:m[i+1]], ",") && strings.HasPrefix(strings.TrimLeft(s[m[1]:], " \t"), ",") {
				// db.auth("u", p): the string is the user, the password a
				// variable (jsPasswordVars finds its value).
				b.WriteString(s[:m[1]])
				break
			}
			if k := wordKey.FindStringIndex(s[m[i+2]:m[i+3]]); k != nil && k[0] > 0 {
				end = m[i+2] + k[0]
			}
			b.WriteString(s[:m[i+1]])
			b.WriteString(Redacted)
			break
		}
		s = s[end:]
	}
}

// jsAuthVar is where mongosh is given a JavaScript variable as a
// password: a call's password argument, db.auth("u", p),
// db.changeUserPassword("u", p); an object's pwd or password,
// db.createUser({user: "u", pwd: p}), db.auth({user: "u", password: p}).
var jsAuthVar = regexp.MustCompile(`\b(?:auth|changeUserPassword)\s*\(\s*(?:'[^']*'|"[^"]*"|\\"[^"\\]*\\"|[A-Za-z_$][\w$]*)\s*,\s*([A-Za-z_$][\w$]*)\s*[,)]` +
	`|\b(?:pwd|password)\\?["']?\s*:\s*([A-Za-z_$][\w$]*)\s*[,}]`)

// jsAssign is a JavaScript variable's declaration with a string value:
// var p = "x", let p = 'x', const p = \"x\" (inside a double-quoted
// shell string).
var jsAssign = regexp.MustCompile(`\b((?:var|let|const)\s+([A-Za-z_$][\w$]*)\s*=\s*)('(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|\\"(?:[^"\\]|\\[^"])*\\")`)

// jsPasswordVars are the JavaScript variables a script gives as
// passwords (jsAuthVar), read before other rules hide them (pwd: p).
func jsPasswordVars(s string) map[string]bool {
	if !strings.Contains(s, "uth") && !strings.Contains(s, "Password") && !strings.Contains(s, "pwd") && !strings.Contains(s, "password") ||
		!strings.Contains(s, "var") && !strings.Contains(s, "let") && !strings.Contains(s, "const") { // no declaration: no variable's value to find
		return nil
	}
	var names map[string]bool
	for _, m := range jsAuthVar.FindAllStringSubmatch(s, -1) {
		if n := m[1] + m[2]; n != "true" && n != "false" && n != "null" && n != "undefined" {
			if names == nil {
				names = map[string]bool{}
			}
			names[n] = true
		}
	}
	return names
}

// redactJSPasswordVars hides the string a script assigns to a JavaScript
// variable it then gives as a password (var p = "x"; db.auth("u", p);
// let p = "x"; db.createUser({user: "u", pwd: p})), names the variables
// jsPasswordVars found.
func redactJSPasswordVars(s string, names map[string]bool) string {
	if len(names) == 0 {
		return s
	}
	return jsAssign.ReplaceAllStringFunc(s, func(m string) string {
		sub := jsAssign.FindStringSubmatch(m)
		if !names[sub[2]] {
			return m
		}
		return sub[1] + Redacted
	})
}

// RedactText hides credentials anywhere in a text: a statement, a shell
// command, a server's answer, an error message. See the package's
// redaction rules above.
func RedactText(s string) string {
	if s == "" {
		return s
	}
	var refs []string // the variables whose values the shell gives as secrets
	red := redactRules(s, &refs)
	for _, v := range hiddenPieces(s, red) {
		refs = append(refs, varRefs(v)...)
	}
	return hideAssignments(red, refs)
}

// redactRules hides what the rules find in s, adding to refs the
// variables a password option's unquoted value names (-a $PW).
func redactRules(s string, refs *[]string) string {
	if strings.Contains(s, "printf") { // before the format's own value is hidden
		s = redactPrintfArgs(s)
	}
	s = redactQueries(redactURLs(s))
	if strings.Contains(s, "ookie") || strings.Contains(s, "OOKIE") {
		s = redactCookies(s)
	}
	jsVars := jsPasswordVars(s)
	s = envEntry.ReplaceAllStringFunc(s, func(m string) string {
		g := envEntry.FindStringSubmatch(m)
		name, value := g[2]+g[6], g[4]+g[7]
		if !IsSecretKey(name) || value == Redacted || value == "" {
			return m
		}
		return m[:len(m)-len(value)-len(g[8])] + Redacted + g[8]
	})
	s = execArg.ReplaceAllStringFunc(s, func(m string) string {
		g := execArg.FindStringSubmatch(m)
		if g[2] == "" { // the YAML block list's groups
			g = append(g[:1], g[7:]...)
		}
		if !IsSecretKey(g[2]) || g[5] == Redacted {
			return m
		}
		return g[1] + g[2] + g[3] + g[4] + Redacted + g[6]
	})
	if strings.Contains(s, ".pgpass") || strings.Contains(s, "PGPASSFILE") {
		s = pgpassLine.ReplaceAllString(s, "${1}${2}"+Redacted)
	}
	if strings.Contains(s, "@") && strings.Contains(s, "(") { // what goDSN needs
		s = goDSN.ReplaceAllString(s, "${1}:"+Redacted+"@${2}")
	}
	s = aclHash.ReplaceAllString(s, "${1}#"+Redacted)
	if strings.Contains(s, "sasl") {
		s = saslPayload.ReplaceAllString(s, "${1}${2}${3}"+Redacted)
	}
	s = redisSetting.ReplaceAllString(s, "${1}"+Redacted)
	s = redactConfigLines(s)
	if strings.Contains(s, "[admins]") {
		s = redactAdmins(s)
	}
	if strings.ContainsAny(s, "=:") { // what every pair needs
		s = pair.ReplaceAllStringFunc(s, redactPair)
	}
	if mayHoldWord(s) {
		s = redactWords(s)
	}
	s = redactJSPasswordVars(s, jsVars)
	s = redactComments(s)
	if strings.Contains(strings.ToLower(s), "identified") { // MySQL's ALTER USER ... IDENTIFIED BY 'new' REPLACE 'current'
		s = replaceClause.ReplaceAllString(s, "${1}"+Redacted)
	}
	return redactCommands(s, refs)
}

// envEntry is a container's environment entry written as a name and a
// value: Kubernetes' YAML (- name: POSTGRES_PASSWORD / value: x) and
// ECS's or Kubernetes' JSON ({"name": "X_PASSWORD", "value": "x"}).
var envEntry = regexp.MustCompile(`(\bname:[ \t]*["']?)([\w.-]+)["']?[ \t]*\r?\n[ \t]*-?[ \t]*value:[ \t]*(["']?)([^"'\r\n]*)` +
	`|("name"\s*:\s*")([\w.-]+)"\s*,\s*"value"\s*:\s*(?:")((?:[^"\\]|\\.)*)(")`)

// execArg is an option and its value as items of an exec-form list:
// JSON's ["redis-server", "--requirepass", "x"], YAML's block list
// (- --requirepass / - x).
var execArg = regexp.MustCompile(`(["'])(-{1,2}[\w.-]+)(["']\s*,\s*["'])()((?:[^"'\\]|\\.)*)(["'])` +
	`|(?m)(^[ \t]*-[ \t]+)(-{1,2}[\w.-]+)([ \t]*\r?\n[ \t]*-[ \t]+)()(\S+)()`)

// replaceClause is MySQL's REPLACE 'current password' of ALTER USER and
// SET PASSWORD.
var replaceClause = regexp.MustCompile(`(?i)(\breplace\s+)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.)*")`)

// hideSubstitution hides the command substitution assigned to variable n
// (P=$(echo pw), P=`cat f`): what it prints is the value.
func hideSubstitution(s, n string) string {
	for _, open := range []string{n + "=$(", n + "=`"} {
		from := 0
		for {
			i := strings.Index(s[from:], open)
			if i < 0 {
				break
			}
			i += from
			if i > 0 && (isWordByte(s[i-1])) {
				from = i + len(open)
				continue
			}
			start := i + len(n) + 1 // the value: $( or `
			end := -1
			if open[len(open)-1] == '`' {
				if k := strings.IndexByte(s[start+1:], '`'); k >= 0 {
					end = start + 1 + k + 1
				}
			} else {
				depth := 0
				for k := start + 1; k < len(s); k++ {
					if s[k] == '(' {
						depth++
					} else if s[k] == ')' {
						if depth--; depth == 0 {
							end = k + 1
							break
						}
					}
				}
			}
			if end < 0 {
				break
			}
			s = s[:start] + Redacted + s[end:]
			from = start + len(Redacted)
		}
	}
	return s
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// varRef returns the name of the shell variable v stands for ($PW, "$PW",
// ${PW}), or "".
func varRef(v string) string {
	v = strings.TrimSpace(v)
	if len(v) > 2 && v[0] == '"' && v[len(v)-1] == '"' {
		v = v[1 : len(v)-1]
	}
	if m := varRefRE.FindStringSubmatch(v); m != nil {
		return m[1] + m[2]
	}
	return ""
}

var identRE = regexp.MustCompile(`^[A-Za-z_]\w*$`)

var varRefRE = regexp.MustCompile(`^\$(?:([A-Za-z_]\w*)|\{([A-Za-z_]\w*)\})$`)

// varRefs are the names of the shell variables v uses anywhere in it
// ($P,x, "$P"-x, x/$P, ${P%x}, ${P:-y}): the shell makes the value from
// theirs, so their values are secret when v is.
func varRefs(v string) []string {
	var names []string
	for _, m := range varUseRE.FindAllStringSubmatch(v, -1) {
		names = append(names, m[1]+m[2])
	}
	return names
}

var varUseRE = regexp.MustCompile(`\$(?:\{([A-Za-z_]\w*|[1-9][0-9]*)|([A-Za-z_]\w*|[1-9]))`)

// maxHiddenNames bounds the variables whose assignments hideAssignments
// seeks one by one.
const maxHiddenNames = 64

// anyAssignment is every NAME=value of a shell's text.
var anyAssignment = regexp.MustCompile("(^|[\\s;&|(`\"'])([A-Za-z_]\\w*(?:\\[[^\\]]*\\])?\\+?=)(?:\\([^)]*\\)|" + valueRE + ")")

// givenName finds where a shell gives a variable a value: NAME=, NAME+=,
// NAME[i]=, ${NAME:-…} and ${NAME=…}, and the name after for, read,
// printf -v, mapfile, declare, local, export, readonly.
var givenName = regexp.MustCompile(`([A-Za-z_]\w*)(?:\[[^\]]*\])?\+?=|\$\{([A-Za-z_]\w*):?[-=]|\b(?:for|read|printf\s+-v|mapfile|readarray|declare|local|export|readonly|typeset)\s+(?:-\w+\s+)*([A-Za-z_]\w*)`)

// givenNames are the names s gives a value, in one pass.
func givenNames(s string) map[string]bool {
	m := map[string]bool{}
	for _, g := range givenName.FindAllStringSubmatch(s, -1) {
		m[g[1]+g[2]+g[3]] = true
	}
	return m
}

// hideAssignments hides in s the value assigned to each variable of names
// (P=pw, export P=pw, local P=pw): a value the shell gives where a
// password is read. A value that names another variable (P=$Q) makes
// that one's assignment secret too.
func hideAssignments(s string, names []string) string {
	seen := map[string]bool{}
	var given map[string]bool        // the names s gives a value, found once
	if len(names) > maxHiddenNames { // each name costs a pass over s: past the bound, every value assigned is hidden
		return anyAssignment.ReplaceAllString(s, "${1}${2}"+Redacted)
	}
	for len(names) > 0 {
		n := names[0]
		names = names[1:]
		if seen[n] {
			continue
		}
		seen[n] = true
		if len(seen) > maxHiddenNames {
			return anyAssignment.ReplaceAllString(s, "${1}${2}"+Redacted)
		}
		// Only a name the text gives a value (n=, n+=, n[…]=, ${n:-…}, set,
		// printf -v n, for n in, read): the regular expressions below, one
		// per name, would otherwise make a long step's redaction quadratic.
		if given == nil {
			given = givenNames(s)
		}
		if !given[n] && !(n[0] >= '0' && n[0] <= '9' && strings.Contains(s, "set")) {
			continue
		}
		s = hideSubstitution(s, n)
		// ${P:=pw}, ${P=pw}, ${P:-pw}: a value the shell gives P.
		def := regexp.MustCompile(`(\$\{` + n + `:?[-=])([^}]*)\}`)
		s = def.ReplaceAllStringFunc(s, func(m string) string {
			sub := def.FindStringSubmatch(m)
			if sub[2] == "" || sub[2] == Redacted {
				return m
			}
			return sub[1] + Redacted + "}"
		})
		// P=pw, P+=pw, eval "P=pw", P[0]=pw, P=(pw ...), P+=(pw), M=([k]=pw)
		re := regexp.MustCompile("(^|[\\s;&|(`\"'])(" + n + `(?:\[[^\]]*\])?\+?=)(\([^)]*\)|` + valueRE + ")")
		s = re.ReplaceAllStringFunc(s, func(m string) string {
			sub := re.FindStringSubmatch(m)
			v := m[len(sub[1])+len(sub[2]):]
			names = append(names, varRefs(v)...) // Q=x$P: P's value is in Q's
			if identRE.MatchString(v) {
				names = append(names, v) // declare -n R=P: R is P
			}
			if varRef(v) != "" || v == Redacted {
				return m
			}
			return sub[1] + sub[2] + Redacted
		})
		// set -- pw ...: the positional parameters ($1, ${2}) are its words.
		if n[0] >= '1' && n[0] <= '9' {
			set := regexp.MustCompile(`(\bset\s+(?:--\s+)?)([^;&|\n]+)`)
			s = set.ReplaceAllStringFunc(s, func(m string) string {
				sub := set.FindStringSubmatch(m)
				if strings.TrimSpace(sub[2]) == Redacted || strings.HasPrefix(strings.TrimSpace(sub[2]), "-") {
					return m // set -e, set -o pipefail: options, no words
				}
				return sub[1] + Redacted
			})
			continue
		}
		// printf -v P FORMAT pw: printf's words after the name make it.
		pv := regexp.MustCompile(`(\bprintf\s+-v\s+` + n + `\s+)([^;&|\n]+)`)
		s = pv.ReplaceAllStringFunc(s, func(m string) string {
			sub := pv.FindStringSubmatch(m)
			if strings.TrimSpace(sub[2]) == Redacted {
				return m
			}
			return sub[1] + Redacted
		})
		// for P in pw; do ...: the loop's words are the values it takes.
		loop := regexp.MustCompile(`(\bfor\s+` + n + `\s+in\s+)([^;\n]+)`)
		s = loop.ReplaceAllStringFunc(s, func(m string) string {
			sub := loop.FindStringSubmatch(m)
			if strings.TrimSpace(sub[2]) == Redacted {
				return m
			}
			return sub[1] + Redacted
		})
	}
	return s
}

// jsCall is a value that is a call, not a secret: pwd: passwordPrompt().
var jsCall = regexp.MustCompile(`^[A-Za-z_$][\w$.]*\($`)

func redactPair(m string) string { return redactPairAt(m, 0) }

// maxPairDepth bounds how deep a value is read again for pairs of its own
// (--set=a=b=password=x): a line of 16 KiB of P=P=P=... read again at each
// level took 19 s, a server's error holding one kept a run from ending.
const maxPairDepth = 8

func redactPairAt(m string, depth int) string {
	again := func(v string) string {
		if depth >= maxPairDepth {
			return v
		}
		return pair.ReplaceAllStringFunc(v, func(s string) string { return redactPairAt(s, depth+1) })
	}
	sub := pair.FindStringSubmatch(m)
	if v := sub[3] + sub[7] + sub[11] + sub[15]; jsCall.MatchString(v) { // each alternative's value
		return m
	}
	switch {
	case sub[1] != "":
		if v := m[len(sub[1])+len(sub[2]):]; IsSecretKey(sub[1]) && !isDirVar(sub[1], v) {
			if v == Redacted || strings.HasSuffix(strings.ToLower(sub[1]), "properties") && strings.Contains(v, Redacted) && redactList(v) == v { // hidden already, pair by pair
				return m
			}
			if userPassName(sub[1]) {
				return sub[1] + sub[2] + hideAfterColon(v)
			}
			return sub[1] + sub[2] + Redacted
		}
		if v := m[len(sub[1])+len(sub[2]):]; strings.ContainsAny(v, "=:") {
			return sub[1] + sub[2] + again(v)
		}
	case sub[5] != "":
		if IsSecretKey(sub[5]) {
			return sub[4] + sub[5] + sub[6] + Redacted
		}
		if v := m[len(sub[4])+len(sub[5])+len(sub[6]):]; strings.ContainsAny(v, "=:") {
			return sub[4] + sub[5] + sub[6] + again(v)
		}
	case sub[9] != "":
		if sub[8] != "" && strings.IndexByte(" \t#", sub[8][0]) >= 0 && commonWord(sub[11]) {
			return m // after other words: an error's own wording (my.token: unknown property), not a value
		}
		if IsSecretKey(sub[9]) && !header[strings.ToLower(sub[9])] {
			return sub[8] + sub[9] + sub[10] + Redacted
		}
		if v := m[len(sub[8])+len(sub[9])+len(sub[10]):]; strings.ContainsAny(v, "=:") {
			return sub[8] + sub[9] + sub[10] + again(v)
		}
	case sub[13] != "":
		if IsSecretKey(sub[13]) && !header[strings.ToLower(sub[13])] {
			return sub[12] + sub[13] + sub[14] + Redacted
		}
		if v := m[len(sub[12])+len(sub[13])+1:]; strings.ContainsAny(v, "=:") {
			return sub[12] + sub[13] + sub[14] + again(v)
		}
	}
	return m
}

// userPassName reports whether a secret option or key named name holds
// user:password, the user's name no secret (cbq's --credentials).
func userPassName(name string) bool {
	return strings.ToLower(strings.Trim(name, `-"' `)) == "credentials"
}

// hideAfterColon hides a user:password value's password (the quotes
// around it kept), or the whole value when it holds no colon.
func hideAfterColon(v string) string {
	q := ""
	if len(v) > 1 && (v[0] == '\'' || v[0] == '"') && v[len(v)-1] == v[0] {
		q, v = v[:1], v[1:len(v)-1]
	}
	c := strings.IndexByte(v, ':')
	if c <= 0 || c == len(v)-1 || strings.Contains(v, "://") {
		return q + Redacted + q
	}
	return q + v[:c+1] + Redacted + q
}

// pgpassLine matches a line of libpq's password file,
// host:port:database:user:password (a field's colon escaped \:), in a
// text that names the file (.pgpass, PGPASSFILE): the password is the
// rest of the line.
var pgpassLine = regexp.MustCompile(`(^|[\s'"])((?:[^\s:'"\\]|\\.)+:(?:\d+|\*):(?:[^\s:'"\\]|\\.)+:(?:[^\s:'"\\]|\\.)+:)(?:[^\s'"\\]|\\.)+`)

// goDSN matches the password of a Go MySQL driver's DSN
// (user:pw@tcp(host:port)/db): up to the last @ before its protocol.
var goDSN = regexp.MustCompile(`((?:^|[\s"'=,;(])[^\s:@"'/;(]*):[^\s"']+@((?:tcp[46]?|udp|unix)\()`)

// aclHash matches a password's hash as Redis' ACL LIST shows a user's
// rules (user bench on #<SHA-256 in hex> ~* +@all), wherever it stands.
var aclHash = regexp.MustCompile(`(^|[\s"'\[])#[0-9a-fA-F]{64}\b`)

// saslPayload is the payload of a MongoDB SASL conversation's message
// (saslStart, saslContinue), as Extended JSON writes it ({"$binary":
// {"base64": "x"}}), as a string, or as mongosh's BinData(0, "x"): PLAIN's
// holds the password.
var saslPayload = regexp.MustCompile(`("payload"\s*:\s*\{\s*"\$binary"\s*:\s*\{[^{}]*?"base64"\s*:\s*)"[^"]*"` +
	`|(\bpayload"?\s*:\s*BinData\(\s*\d+\s*,\s*)(?:"[^"]*"|'[^']*')` +
	`|("payload"\s*:\s*)"[^"]*"`)

// plainPassword returns the password of a SASL PLAIN message, v in
// base64: authzid NUL authcid NUL password.
func plainPassword(v string) (string, bool) {
	if len(v) < 8 || len(v)%4 != 0 || strings.Trim(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") != "" {
		return "", false
	}
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil || strings.Count(string(b), "\x00") != 2 {
		return "", false
	}
	pw := string(b[strings.LastIndexByte(string(b), 0)+1:])
	return pw, pw != ""
}

// redisSetting matches a Redis setting that holds a password as
// redis-cli prints CONFIG GET's answer to a pipe: its name on a line, its
// value on the next.
var redisSetting = regexp.MustCompile(`(?m)(^(?:requirepass|masterauth|tls-key-file-pass|tls-client-key-file-pass)\r?\n)[^\r\n]+`)

// redactConfigLines hides the value of each configuration file's line
// NAME VALUE (redis.conf's form) whose name, of more than one word,
// IsSecretKey (db_password PW, tls-key-file-pass PW, admin_token PW):
// at a line's start, after a quote or printf's \n, or as echo's words
// (echo db_password PW >> f); and that the line, the quoted string or the
// command ends: NAME VALUE alone, not the first words of a sentence. A
// scan, not a regular expression: it reads every step's output.
func redactConfigLines(s string) string {
	var found [][2]int
	hide := func(k int) {
		if vs, ve := configValue(s, k); ve > vs {
			found = append(found, [2]int{vs, ve})
		}
	}
	hide(0)
	for i := 0; i < len(s); {
		k := strings.IndexAny(s[i:], "\n\"'\\")
		if k < 0 {
			break
		}
		i += k + 1
		if s[i-1] != '\\' || i < len(s) && s[i] == 'n' {
			if s[i-1] == '\\' {
				i++
			}
			hide(i)
		}
	}
	for i := 0; ; {
		k := strings.Index(s[i:], "echo ")
		if k < 0 {
			break
		}
		i += k + len("echo ")
		if j := i - len("echo "); j == 0 || !isWordByte(s[j-1]) {
			k := i
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k+1 < len(s) && s[k] == '-' {
				e := k + 1
				for e < len(s) && strings.IndexByte("neE", s[e]) >= 0 {
					e++
				}
				if e < len(s) && (s[e] == ' ' || s[e] == '\t') {
					k = e
				}
			}
			hide(k)
		}
	}
	if len(found) == 0 {
		return s
	}
	slices.SortFunc(found, func(x, y [2]int) int { return x[0] - y[0] })
	var b strings.Builder
	last := 0
	for _, f := range found {
		if f[0] >= last {
			b.WriteString(s[last:f[0]])
			b.WriteString(Redacted)
			last = f[1]
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// redactPrintfArgs hides the arguments a printf's format gives a
// configuration line's secret value: printf 'redis_password = "%s"\n' PW
// (the format's line NAME = VALUE, its value a directive: the argument in
// that directive's place, and every one after it when the format is used
// again).
func redactPrintfArgs(s string) string {
	for from := 0; ; {
		i := strings.Index(s[from:], "printf ")
		if i < 0 {
			return s
		}
		from = i + from + len("printf ")
		if j := from - len("printf "); j > 0 && isWordByte(s[j-1]) {
			continue
		}
		k := from
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k >= len(s) || s[k] != '\'' && s[k] != '"' {
			continue
		}
		e := strings.IndexByte(s[k+1:], s[k])
		if e < 0 {
			continue
		}
		format := s[k+1 : k+1+e]
		// The directives' places, and which hold a secret line's value.
		var secret []int
		n := 0
		for d := 0; d < len(format); d++ {
			if format[d] != '%' {
				continue
			}
			if d+1 < len(format) && format[d+1] == '%' {
				d++
				continue
			}
			ls := strings.LastIndexByte(format[:d], '\n') + 1 // a line's start
			if l := strings.LastIndex(format[:d], `\n`); l >= 0 {
				ls = max(ls, l+2)
			}
			if vs, ve := configValue(format, ls); vs == d && ve > vs {
				secret = append(secret, n)
			}
			n++
		}
		if len(secret) == 0 || n == 0 {
			continue
		}
		// The arguments, word by word, to the command's end.
		a := k + 1 + e + 1
		var b strings.Builder
		b.WriteString(s[:a])
		for arg := 0; ; arg++ {
			ws := a
			for ws < len(s) && (s[ws] == ' ' || s[ws] == '\t') {
				ws++
			}
			we := ws
			for we < len(s) && strings.IndexByte(" \t\r\n;|&<>", s[we]) < 0 {
				if s[we] == '"' || s[we] == '\'' {
					if c := strings.IndexByte(s[we+1:], s[we]); c >= 0 {
						we += c + 1
					}
				}
				we++
			}
			if we == ws {
				break
			}
			b.WriteString(s[a:ws])
			if slices.Contains(secret, arg%n) {
				b.WriteString(Redacted)
			} else {
				b.WriteString(s[ws:we])
			}
			a = we
		}
		b.WriteString(s[a:])
		from += len(b.String()) - len(s)
		s = b.String()
	}
}

// configValue returns where the value of a configuration line NAME
// VALUE that begins at k (after blanks) is, when its name is secret and
// the line ends after it; else 0, 0.
func configValue(s string, k int) (int, int) {
	for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
		k++
	}
	if k >= len(s) || !(s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z') {
		return 0, 0
	}
	n := k
	sep := false
	for n < len(s) && (isWordByte(s[n]) || s[n] == '.' || s[n] == '-') {
		sep = sep || s[n] == '_' || s[n] == '-'
		n++
	}
	if !sep || n == len(s) || s[n] != ' ' && s[n] != '\t' {
		return 0, 0
	}
	blanks := func(i int) int {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
		return i
	}
	vs := blanks(n)
	// NAME = VALUE, NAME: VALUE, NAME := VALUE (TOML, INI, a tfvars file,
	// make): the sign is no value; the value may be quoted.
	if o := vs; o < len(s) && strings.IndexByte("=:?+", s[o]) >= 0 {
		for o < len(s) && strings.IndexByte("=:?+>", s[o]) >= 0 {
			o++
		}
		if o < len(s) && (s[o] == ' ' || s[o] == '\t') {
			vs = blanks(o)
		}
	}
	ve := vs
	if vs < len(s) && (s[vs] == '"' || s[vs] == '\'') {
		q := s[vs]
		vs++
		ve = vs
		for ve < len(s) && s[ve] != q && s[ve] != '\n' {
			ve++
		}
		if ve == len(s) || s[ve] != q || !lineEnds(s[ve+1:]) || !IsSecretKey(s[k:n]) || ve == vs || s[vs:ve] == Redacted {
			return 0, 0
		}
		return vs, ve
	}
	for ve < len(s) && strings.IndexByte(" \t\r\n\"'\\;|&<>`", s[ve]) < 0 {
		ve++
	}
	if ve == vs || s[vs:ve] == Redacted || !lineEnds(s[ve:]) || !IsSecretKey(s[k:n]) {
		return 0, 0
	}
	return vs, ve
}

// lineEnds reports whether rest, what follows a value, ends its line, its
// quoted string or its command: blanks, then the text's end, a newline,
// a quote, printf's \n, a redirection or a separator.
func lineEnds(rest string) bool {
	rest = strings.TrimLeft(rest, " \t")
	return rest == "" || strings.IndexByte("\r\n\"'>|;&", rest[0]) >= 0 || strings.HasPrefix(rest, `\n`) || strings.HasPrefix(rest, `\r`)
}

// redactAdmins hides the passwords of CouchDB's [admins] section
// (NAME = PW on each line after it, in a file's text or printf's, its
// lines ended by \n), up to the next section or a line that is not one.
func redactAdmins(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "[admins]")
		if i < 0 {
			break
		}
		i += len("[admins]")
		b.WriteString(s[:i])
		s = s[i:]
		for {
			n := 0
			switch {
			case strings.HasPrefix(s, "\r\n"):
				n = 2
			case strings.HasPrefix(s, "\n"):
				n = 1
			case strings.HasPrefix(s, `\n`):
				n = 2
			}
			if n == 0 {
				break
			}
			b.WriteString(s[:n])
			s = s[n:]
			end := strings.IndexAny(s, "\r\n\\'\"")
			if end < 0 {
				end = len(s)
			}
			ln, t := s[:end], strings.TrimSpace(s[:end])
			eq := strings.IndexByte(ln, '=')
			if t != "" && t[0] != ';' && (eq <= 0 || t[0] == '[') {
				break // another section, or no NAME = PW: the section's end
			}
			if eq > 0 {
				vs := eq + 1 + len(ln[eq+1:]) - len(strings.TrimLeft(ln[eq+1:], " \t"))
				ve := len(strings.TrimRight(ln, " \t"))
				if vs < ve && ln[vs:ve] != Redacted {
					ln = ln[:vs] + Redacted + ln[ve:]
				}
			}
			b.WriteString(ln)
			s = s[end:]
		}
	}
	b.WriteString(s)
	return b.String()
}

// cookieHeader is where a Cookie or Set-Cookie header's value begins: in
// a request or an answer (curl -H 'Cookie: sid=x'), in JSON ("Cookie":
// "sid=x", escaped inside a double-quoted shell string too).
var cookieHeader = regexp.MustCompile(`(?i)\b(set-)?cookie(?:\\?["'])?[ \t]*:[ \t]*(?:\\?["'])?`)

// cookieAttrs are Set-Cookie's attributes, shown: no cookie's value.
var cookieAttrs = map[string]bool{"path": true, "domain": true, "expires": true, "max-age": true, "samesite": true,
	"secure": true, "httponly": true, "partitioned": true, "priority": true}

// redactCookies hides the value of every cookie a Cookie or Set-Cookie
// header gives (Cookie: session=REDACTED; theme=REDACTED; Set-Cookie:
// sid=REDACTED; Path=/): a session's cookie is a credential, and which
// cookie is one no name tells. The header's NAME=VALUE pairs are read
// after it, joined by ;, up to what is not one (a shell's ; echo ok); a
// value ends at a blank, a quote, ; or what a shell ends a word with,
// or is quoted whole (sid="x", sid=\"x\"). One pass over s.
func redactCookies(s string) string {
	locs := cookieHeader.FindAllStringSubmatchIndex(s, -1)
	if locs == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range locs {
		if m[1] < last {
			continue
		}
		set := m[2] >= 0
		i := m[1]
		b.WriteString(s[last:i])
		for {
			j := i
			for j < len(s) && (isWordByte(s[j]) || s[j] == '-' || s[j] == '.') {
				j++
			}
			if j == i || j == len(s) || s[j] != '=' {
				break
			}
			name := s[i:j]
			j++
			k := cookieValueEnd(s, j)
			b.WriteString(s[i:j])
			if v := s[j:k]; v == "" || v == Redacted || set && cookieAttrs[strings.ToLower(name)] {
				b.WriteString(v)
			} else {
				b.WriteString(Redacted)
			}
			i = k
			if i == len(s) || s[i] != ';' {
				break
			}
			k = i + 1
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			b.WriteString(s[i:k])
			i = k
		}
		last = i
	}
	b.WriteString(s[last:])
	return b.String()
}

// curlCookies hides the values of curl's -b or --cookie argument w where
// it gives cookies, NAME=VALUE pairs joined by ; (quoted or not), as a
// Cookie header's are: -b 'sid=REDACTED'. A cookie file's name (-b
// cookies.txt) holds no = and stays.
func curlCookies(w string) string {
	if !strings.Contains(w, "=") {
		return w
	}
	const h = "Cookie: "
	return strings.TrimPrefix(redactCookies(h+w), h)
}

// cookieValueEnd returns where the cookie value that begins at j ends.
func cookieValueEnd(s string, j int) int {
	for _, q := range []string{`"`, `\"`} {
		if strings.HasPrefix(s[j:], q) {
			k := j + len(q)
			for k < len(s) && s[k] != '"' && s[k] != '\\' && strings.IndexByte(" \t\r\n;", s[k]) < 0 {
				k++
			}
			if strings.HasPrefix(s[k:], q) {
				return k + len(q)
			}
		}
	}
	k := j
	for k < len(s) && strings.IndexByte(" \t\r\n;,\"'\\|&<>()`", s[k]) < 0 {
		k++
	}
	return k
}

// header are the names whose value word hides keeping its first word, the
// scheme (Authorization: Bearer REDACTED).
var header = map[string]bool{"authorization": true, "proxy-authorization": true}

// urlEnd ends a URL in free text: a space, a quote, or what no URL holds
// unescaped and a shell reads as a separator or a redirection (| < > `).
const urlEnd = " \t\r\n\"'|<>`"

// redactURLs hides the password of every URL (scheme://user:password@host,
// the password running to the last @ of the word, so it may hold / or #;
// a comma followed by another URL ends the word).
// passwordOnly are the URL schemes whose userinfo without a colon is a
// password, not a user's name (redis://PW@host, as redis-py, rueidis and
// go-redis read it).
var passwordOnly = map[string]bool{"redis": true, "rediss": true, "valkey": true, "valkeys": true, "unix+redis": true}

func redactURLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			break
		}
		start := strings.LastIndexFunc(rest[:i], func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')
		}) + 1
		scheme := strings.ToLower(rest[start:i])
		var quote byte // a URL quoted whole ('redis://u:a|b@h') ends at its closing quote, whatever it holds
		if start > 0 && (rest[start-1] == '\'' || rest[start-1] == '"') {
			quote = rest[start-1]
		}
		b.WriteString(rest[:i+3])
		rest = rest[i+3:]
		if u := tokenEnd(rest); u < len(rest) && rest[u] == '@' && tokenScheme(scheme) && tokenUser(rest[:u]) { // https://TOKEN@github.com/...
			b.WriteString(Redacted + "@")
			rest = rest[u+1:]
			continue
		}
		end := strings.IndexAny(rest, urlEnd)
		if end < 0 {
			end = len(rest)
		}
		if quote != 0 {
			if e := strings.IndexByte(rest, quote); e >= 0 && strings.LastIndexByte(rest[:e], '@') >= 0 {
				end = e
			}
		}
		w := rest[:end]
		if j := strings.Index(w, "://"); j >= 0 { // a list of URLs: "a://…,b://…"
			if k := strings.LastIndex(w[:j], ","); k >= 0 {
				w = w[:k]
			}
		}
		if at := strings.LastIndex(w, "@"); at >= 0 {
			if c := strings.Index(w[:at], ":"); c >= 0 {
				user, pw := w[:c+1], Redacted
				if tokenScheme(scheme) && tokenUser(w[:c]) { // https://TOKEN:x-oauth-basic@github.com: the user is a token too
					user = Redacted + ":"
					if c+1 == at { // https://TOKEN:@github.com: no password to hide
						pw = ""
					}
				}
				b.WriteString(user + pw + "@")
				rest = rest[at+1:]
			} else if passwordOnly[scheme] && at > 0 { // redis://PW@host: Redis' clients take the one word as the password
				b.WriteString(Redacted + "@")
				rest = rest[at+1:]
			}
		}
	}
	b.WriteString(rest)
	return b.String()
}

// tokenScheme reports whether scheme is http's or https' (git+https too):
// a URL whose user may be a token (tokenUser).
func tokenScheme(scheme string) bool {
	scheme = strings.ToLower(scheme)
	if i := strings.LastIndexByte(scheme, '+'); i >= 0 {
		scheme = scheme[i+1:]
	}
	return scheme == "http" || scheme == "https"
}

// tokenPrefixes begin the tokens GitHub gives (a personal access token,
// a fine-grained one, OAuth's, a user's and an app's) and GitLab's
// (personal, OAuth, deploy, runner, trigger and CI/CD job tokens).
var tokenPrefixes = []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-", "gloas-", "gldt-", "glrt-", "glptt-", "glcbt-"}

// tokenUser reports whether u, the user of an http(s) URL without a
// password (https://u@host), is a token a forge takes as the user (git
// clone https://TOKEN@github.com/org/repo) rather than a user's name: it
// holds only letters, digits, _ and -, and begins with a token's prefix
// (tokenPrefixes) or holds a run of at least 20 letters and digits in
// which letters and digits take turns at least 4 times, as random text
// does (a hex or base62 token): bob, git, continuous-integration-bot and
// ContinuousIntegrationBot2024 are names. Other schemes' users
// (postgres://postgres@h, ssh://git@h, mongodb://user@h) are names.
func tokenUser(u string) bool {
	if u == "" || tokenEnd(u) < len(u) {
		return false
	}
	for _, p := range tokenPrefixes {
		if len(u) > len(p) && strings.HasPrefix(u, p) {
			return true
		}
	}
	run, turns := 0, 0
	for i := 0; i < len(u); i++ {
		if u[i] == '_' || u[i] == '-' {
			run, turns = 0, 0
			continue
		}
		if run > 0 && isDigit(u[i]) != isDigit(u[i-1]) {
			turns++
		}
		if run++; run >= 20 && turns >= 4 {
			return true
		}
	}
	return false
}

// tokenEnd returns where the letters, digits, _ and - that begin s end.
func tokenEnd(s string) int {
	i := 0
	for i < len(s) && (isWordByte(s[i]) || s[i] == '-') {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// redactQueries hides the value of every option of a URL's query whose
// name IsSecretKey or is queryKey's (an API key: https://h/v1/x?key=KEY; key=x
// outside a URL's query, a record's key, stays), up to the next & or ; (so a list such as MongoDB's
// authMechanismProperties=SERVICE_NAME:x,AWS_SESSION_TOKEN:y is hidden
// whole, each pair's value where the list is of pairs).
func redactQueries(s string) string {
	if !strings.Contains(s, "://") || !strings.Contains(s, "?") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "://")
		if i < 0 {
			break
		}
		b.WriteString(s[:i+3])
		s = s[i+3:]
		end := strings.IndexAny(s, urlEnd)
		if end < 0 {
			end = len(s)
		}
		w := s[:end]
		if j := strings.Index(w, "://"); j >= 0 { // a list of URLs: "a://…,b://…"
			if k := strings.LastIndex(w[:j], ","); k >= 0 {
				w = w[:k]
			}
		}
		b.WriteString(redactQuery(w))
		s = s[len(w):]
	}
	b.WriteString(s)
	return b.String()
}

// redactQuery hides the secret options of one URL's query.
func redactQuery(w string) string {
	q := strings.IndexByte(w, '?')
	if q < 0 {
		return w
	}
	opts := optSep.Split(w[q+1:], -1)
	seps := optSep.FindAllString(w[q+1:], -1)
	for i, o := range opts {
		name, v, ok := strings.Cut(o, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		switch {
		case !ok || v == "" || !IsSecretKey(name) && !queryKey[strings.ToLower(name)]: // a URL's key= is an API key (?key=KEY), not a record's
		case strings.HasSuffix(strings.ToLower(name), "properties"):
			opts[i] = o[:len(o)-len(v)] + redactList(v)
		default:
			opts[i] = o[:len(o)-len(v)] + Redacted
		}
	}
	var b strings.Builder
	b.WriteString(w[:q+1])
	for i, o := range opts {
		b.WriteString(o)
		if i < len(seps) {
			b.WriteString(seps[i])
		}
	}
	return b.String()
}

// queryKey are the names of a URL's query options that carry a key
// though IsSecretKey says no: an API key (?key=KEY), an Azure Function's
// key (?code=KEY), an Azure SAS token's signature (&sig=SIG). Outside a
// URL's query (code=200, a record's key=) they are no secret.
var queryKey = map[string]bool{"key": true, "code": true, "sig": true}

// optSep separates a query's options: & and, as MongoDB's connection
// strings allow and a shell reads a command's end, ;.
var optSep = regexp.MustCompile(`[&;]`)

// listSep and pairSep split a list of pairs (K:V,K:V) as written in a
// URL, escaped or not.
var (
	listSep = regexp.MustCompile(`,|%2[cC]`)
	pairSep = regexp.MustCompile(`:|%3[aA]`)
)

// redactList hides the values of a list of pairs, a secret option's
// (SERVICE_NAME:REDACTED,AWS_SESSION_TOKEN:REDACTED); a value that is
// not such a list is hidden whole.
func redactList(v string) string {
	if v == Redacted {
		return v
	}
	items := listSep.Split(v, -1)
	seps := listSep.FindAllString(v, -1)
	var b strings.Builder
	for i, it := range items {
		loc := pairSep.FindStringIndex(it)
		if loc == nil || loc[0] == 0 {
			return Redacted
		}
		b.WriteString(it[:loc[1]] + Redacted)
		if i < len(seps) {
			b.WriteString(seps[i])
		}
	}
	return b.String()
}

// shortPassword names, per client program, its short options whose
// argument is a password ("-p": the next word or attached, "-p=": attached
// only, as mysql's -p alone prompts) or "user:password" ("-u:").
var shortPassword = map[string][]string{
	"redis-cli": {"-a"}, "redis-benchmark": {"-a"}, "valkey-cli": {"-a"}, "keydb-cli": {"-a"},
	"mysql": {"-p="}, "mariadb": {"-p="}, "mysqldump": {"-p="}, "mysqladmin": {"-p="}, "mysqlslap": {"-p="},
	"sshpass": {"-p"}, "cqlsh": {"-p"}, "nodetool": {"-pw"}, "couchbase-cli": {"-p"}, "cbc": {"-P"},
	// Any other Couchbase tool (couchbaseTool) takes -p.
	"cbq": {"-p", "-c:", "--credentials:"}, "mongosh": {"-p"}, "mongo": {"-p"},
	"mongodump": {"-p"}, "mongostat": {"-p"}, "mongotop": {"-p"}, "mongofiles": {"-p"}, "mongorestore": {"-p"}, "mongoimport": {"-p"}, "mongoexport": {"-p"},
	"curl": {"-u:"}, "memtier_benchmark": {"-a"}, "http": {"-a:", "--auth:"}, "https": {"-a:", "--auth:"}, // HTTPie
	"etcdctl": {"--user:"}, "sqlcmd": {"-P"}, "cypher-shell": {"-p"}, "openssl enc": {"-k"},
	// Subcommands: docker login's -p, not docker run's (a port).
	"docker login": {"-p"}, "podman login": {"-p"}, "nerdctl login": {"-p"}, "buildah login": {"-p"},
	"skopeo login": {"-p"}, "oras login": {"-p"}, "helm registry": {"-p"},
	"az login": {"-p"}, // the Azure CLI's password (or a service principal's secret)
}

// passwordOptions returns the options of program, a client's name, that
// take a password (shortPassword's): libcouchbase's cbc-* tools
// (cbc-pillowfight, cbc-n1qlback) take cbc's, every other Couchbase tool
// named cb* (cbimport, cbdocloader, cbtransfer, cbrestore, cbstats,
// cbworkloadgen, cbbackupmgr, ...) takes -p.
func passwordOptions(program string) []string {
	if o, ok := shortPassword[program]; ok {
		return o
	}
	if strings.HasPrefix(program, "cbc-") {
		return shortPassword["cbc"]
	}
	if couchbaseTool(program) {
		return []string{"-p"}
	}
	return nil
}

// couchbaseTool reports whether program is one of Couchbase's tools:
// cb and at least three more letters (cb_ and - within).
func couchbaseTool(program string) bool {
	if len(program) < 5 || !strings.HasPrefix(program, "cb") {
		return false
	}
	for i := 2; i < len(program); i++ {
		if c := program[i]; !(c >= 'a' && c <= 'z' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// shortOptions returns the short options of program (and of its
// subcommand sub) that take a password.
func shortOptions(program, sub string) []string {
	if sub == "" {
		return passwordOptions(program)
	}
	return slices.Concat(shortPassword[program+" "+sub], passwordOptions(program))
}

// commandSep ends a command in a shell line or a Redis pipeline.
const commandSep = ";|&\n"

// redactCommands hides the arguments that options and command words
// carrying a password take: AUTH's password (its last argument: HELLO 3
// AUTH user pw SETNAME n keeps the user), ACL SETUSER's >pw, <pw, #hash and !hash, --password x and
// --password=x (any option whose name IsSecretKey), curl's --user u:pw,
// and each client's short options (shortPassword). A command ends at ;,
// |, & or a line's end.
//
// Long: one pass over the text's words, a word's rule chosen by what the
// words before it left (the program, its subcommand, the two words
// before, AUTH and ACL SETUSER seen); split, the state would be passed
// through every part.
func redactCommands(s string, refs *[]string) string {
	var b strings.Builder
	b.Grow(len(s))
	var program, sub, prev, prev2, flags string // the program, its first word after it that is not an option, the two words before, its one-dash options' letters
	n, acl, user, hide, args := 0, 0, 0, 0, 0   // words of the command so far; ACL SETUSER seen (2); AUTH's user name still to keep, its password to hide; the program's arguments that are not options
	pwArg := 0                                  // which of the program's arguments is a password its subcommand takes (argPassword), or 0
	for i := 0; i < len(s); {
		c := s[i]
		if k := continuation(s, i); k > 0 { // the shell joins the lines: one command
			b.WriteString(s[i : i+k])
			i += k
			continue
		}
		if strings.IndexByte(commandSep, c) >= 0 {
			program, sub, prev, prev2, flags, n, acl, user, hide, args, pwArg = "", "", "", "", "", 0, 0, 0, 0, 0, 0
			b.WriteByte(c)
			i++
			continue
		}
		if c == ' ' || c == '\t' || c == '\r' {
			b.WriteByte(c)
			i++
			continue
		}
		j := wordEnd(s, i)
		w := s[i:j]
		out := w
		switch {
		case user > 0 && !strings.EqualFold(w, "SETNAME"):
			user--
		case hide > 0 && !strings.EqualFold(w, "SETNAME"):
			out, hide = Redacted, hide-1
		case hide > 0 || user > 0:
			user, hide = 0, 0
		case acl == 2 && aclPassword(w) != "":
			out = aclPassword(w)
		case program == "curl" && (prev == "-b" || prev == "--cookie"):
			out = curlCookies(w)
		case program == "curl" && len(w) > 2 && strings.HasPrefix(w, "-b") && strings.Contains(w, "="): // -bsid=x
			out = "-b" + curlCookies(w[2:])
		case prev != "" && strings.HasSuffix(takesPassword(program, sub, prev), ":"):
			if k := strings.IndexByte(w, ':'); k >= 0 {
				out = w[:k+1] + Redacted
			}
		case program == "mysqladmin" && strings.EqualFold(prev, "password") && !strings.Contains(w, Redacted): // mysqladmin -u root password NEW
			out = Redacted
		case prev != "" && takesPassword(program, sub, prev) != "" && w != "-" && !strings.Contains(w, Redacted) && (!strings.HasPrefix(w, "$") || strings.HasPrefix(w, "$'")): // pass:REDACTED kept; $PW, $(cat f) name it, the shell gives it; $'...' is it
			out = Redacted
			*refs = append(*refs, varRefs(w)...) // "$P"-x: P's value is in it
		case prev != "" && takesPassword(program, sub, prev) != "" && len(varRefs(w)) > 0:
			*refs = append(*refs, varRefs(w)...) // where each is set, its value is hidden
			if varRef(w) == "" && !strings.Contains(w, Redacted) {
				out = Redacted // $P"x": the text beside the variable is the password's too
			}
		case !strings.HasPrefix(w, "-") && args+1 == batchPassword(program, flags) && !strings.HasPrefix(w, "$"): // htpasswd -b file user pw
			out = Redacted
		case !strings.HasPrefix(w, "-") && pwArg > 0 && args+1 == pwArg && !strings.Contains(w, Redacted) &&
			(goFlags[program] == nil || !strings.Contains(w, "=") && !flagValue(program, prev)): // rabbitmqctl change_password user pw; vault login TOKEN
			if len(varRefs(w)) > 0 {
				*refs = append(*refs, varRefs(w)...)
			}
			if varRef(w) == "" {
				out = Redacted
			}
		case strings.EqualFold(prev2, "set") && IsSecretKey(prev) && !strings.HasSuffix(prev, ",") && !codeName(w) &&
			!strings.Contains(w, Redacted) && !strings.HasPrefix(w, "=") && !strings.EqualFold(w, "for"): // aws configure set aws_secret_access_key x; not SQL's SET PASSWORD FOR u = x, nor a list of names (set redis.password, redis.username)
			out = Redacted
		default:
			if out = redactOption(program, sub, w); out == w {
				out = hostPassword(w)
			}
		}
		if out == w && strings.ContainsAny(w, `"'`) {
			out = redactQuoted(w, refs)
		}
		if w == "AUTH" || w == "AUTH2" || (out == w && (strings.EqualFold(w, "auth") || strings.EqualFold(w, "auth2")) &&
			(n == 0 || redisClient[program] || authCommand[strings.ToLower(program)])) {
			user, hide = 0, 1 // MIGRATE's AUTH has one argument, AUTH2 two
			if strings.EqualFold(w, "AUTH2") || (!strings.EqualFold(program, "migrate") && authArgs(s, j) == 2) {
				user = 1
			}
		}
		switch {
		case acl == 0 && strings.EqualFold(w, "ACL"):
			acl = 1
		case acl == 0 && n == 0 && w == "user": // an ACL file's line: user NAME on >pw ~* +@all
			acl = 2
		case acl == 1 && strings.EqualFold(w, "SETUSER"):
			acl = 2
		case acl == 1:
			acl = 0
		}
		if base := path.Base(programWord(w)); passwordOptions(base) != nil || (program == "" && !strings.Contains(w, "=") && !launcher[w]) {
			program, sub, flags, args, pwArg = base, "", "", 0, 0 // the first word, not VAR=value, sudo or env; or a client named later (ssh h redis-cli -a pw)
		} else if program != "" {
			if o, ok := strings.CutPrefix(w, "-"); ok {
				flags += o
			} else if !flagValue(program, prev) {
				args++
				if sub == "" {
					sub = w // docker login
				}
				if k := argPassword[program+" "+w] + argPassword[program+" "+prev+" "+w]; k > 0 {
					pwArg = args + k
				}
			}
		}
		b.WriteString(out)
		prev2, prev, n, i = prev, w, n+1, j
	}
	return b.String()
}

// argPassword names the subcommands (a program's words, the last one's
// position the count's start) that take a password as an argument, and
// which argument after the last word it is: rabbitmqctl change_password
// USER PW, mc alias set NAME URL ACCESSKEY SECRETKEY.
var argPassword = map[string]int{
	"rabbitmqctl change_password": 2, "rabbitmqctl add_user": 2, "rabbitmqctl authenticate_user": 2,
	"mc alias set": 4, "mc host add": 4, // mc config host add NAME URL ACCESSKEY SECRETKEY
	"vault login": 1, // vault login TOKEN (- reads it from stdin)
}

// goFlags are the programs that read their options as Go's flag package
// does, and the options of theirs that are flags: any other one-dash
// option without = takes the next word as its value (vault login -method
// userpass, -address URL), which is no argument argPassword counts; and
// their arguments NAME=VALUE are settings, not the password (vault login
// -method=userpass username=u gives no token: the first argument without
// = is the token).
var goFlags = map[string]map[string]bool{
	"vault": {"-no-print": true, "-no-store": true, "-token-only": true, "-non-interactive": true, "-tls-skip-verify": true},
}

// flagValue reports whether the word after prev is prev's value, prev
// being an option of program, one of goFlags' programs, that is no flag.
func flagValue(program, prev string) bool {
	flags, ok := goFlags[program]
	if !ok || len(prev) < 2 || prev[0] != '-' || prev == "--" || strings.Contains(prev, "=") {
		return false
	}
	return !flags["-"+strings.TrimLeft(prev, "-")]
}

// batchPassword returns which of program's arguments that are not options
// is a password given its one-dash options' letters (htpasswd -b file user
// pw, htpasswd -nb user pw), or 0.
func batchPassword(program, flags string) int {
	switch {
	case program != "htpasswd" || !strings.Contains(flags, "b"):
		return 0
	case strings.Contains(flags, "n"):
		return 2
	}
	return 3
}

// continuation returns the length of the backslash-newline at i (a
// backslash ending a line, which a shell joins to the next), or 0.
func continuation(s string, i int) int {
	switch {
	case s[i] != '\\':
		return 0
	case strings.HasPrefix(s[i+1:], "\n"):
		return 2
	case strings.HasPrefix(s[i+1:], "\r\n"):
		return 3
	}
	return 0
}

// programWord is the program a word names, out of the quotes and the
// command substitution it may start ("$(redis-cli, out=`redis-cli).
func programWord(w string) string {
	if k := strings.LastIndexAny(w, "`("); k >= 0 {
		w = w[k+1:]
	}
	return strings.Trim(w, `"'`)
}

// aclPassword returns w, an argument of ACL SETUSER, with the password
// or hash it sets or removes hidden (>pw, <pw, #hash, !hash; quoted as a
// shell must: '>pw'), or "" if it holds none. A shell's redirection
// (>/dev/null, >&2, >>log) is not one.
func aclPassword(w string) string {
	q := ""
	if len(w) > 3 && (w[0] == '\'' || w[0] == '"') && w[len(w)-1] == w[0] {
		q, w = w[:1], w[1:len(w)-1]
	}
	if len(w) < 2 || strings.IndexByte("><#!", w[0]) < 0 {
		return ""
	}
	if q == "" && (w[0] == '>' || w[0] == '<') && strings.IndexByte("/&><", w[1]) >= 0 {
		return ""
	}
	return q + w[:1] + Redacted + q
}

// authCommand are the Redis commands that take AUTH among their
// arguments, in any case.
var authCommand = map[string]bool{"hello": true, "migrate": true}

// authArgs returns how many arguments (at most 2) AUTH has from i on:
// the words before the command's end, SETNAME or KEYS.
func authArgs(s string, i int) int {
	n := 0
	for i < len(s) && n < 2 {
		c := s[i]
		switch {
		case strings.IndexByte(commandSep, c) >= 0:
			return n
		case c == ' ' || c == '\t' || c == '\r':
			i++
		default:
			j := wordEnd(s, i)
			if w := s[i:j]; strings.EqualFold(w, "SETNAME") || strings.EqualFold(w, "KEYS") {
				return n
			}
			n, i = n+1, j
		}
	}
	return n
}

// launcher are words that run the program named after them.
var launcher = map[string]bool{"sudo": true, "env": true, "exec": true, "nohup": true, "time": true, "command": true}

// redisClient are the programs whose words after their options are a
// Redis command (redis-cli ... auth pw).
var redisClient = map[string]bool{"redis-cli": true, "valkey-cli": true, "keydb-cli": true}

// redactQuoted hides what the quoted parts of a word hold, each read as a
// command of its own (sh -c '...', echo "AUTH user pw").
func redactQuoted(w string, refs *[]string) string {
	var b strings.Builder
	for i := 0; i < len(w); {
		c := w[i]
		if c != '\'' && c != '"' {
			b.WriteByte(c)
			i++
			continue
		}
		k := closingQuote(w, i)
		if k < 0 {
			b.WriteString(w[i:])
			break
		}
		inner := w[i+1 : k]
		b.WriteByte(c)
		if c == '"' && strings.IndexByte(inner, '\\') >= 0 { // sh -c "echo \"AUTH u pw\""
			if t := shUnquote.Replace(inner); redactCommands(t, refs) != t {
				inner = hideEscaped(inner, t, redactCommands(t, refs))
			}
		} else {
			inner = redactCommands(inner, refs)
		}
		b.WriteString(inner)
		b.WriteByte(c)
		i = k + 1
	}
	return b.String()
}

// hideEscaped hides in inner, the text of a double-quoted string, what
// red hides of t, the string as the shell reads it: each hidden piece
// where inner writes it (escaped or not), the rest of inner as written
// (a \$HOME stays \$HOME: the copy means the same command). When a piece
// cannot be found so, red, escaped again, stands for the whole.
func hideEscaped(inner, t, red string) string {
	pieces := hiddenPieces(t, red)
	out := inner
	for _, h := range pieces {
		switch e := shEscape.Replace(h); {
		case strings.Contains(out, e):
			out = strings.Replace(out, e, Redacted, 1)
		case strings.Contains(out, h):
			out = strings.Replace(out, h, Redacted, 1)
		default:
			pieces = nil
		}
	}
	if pieces == nil {
		return shQuote.Replace(red)
	}
	return out
}

// What a backslash escapes within double quotes, as sh reads it.
var (
	shUnquote = strings.NewReplacer(`\\`, `\`, `\"`, `"`, `\$`, `$`, "\\`", "`")
	shQuote   = strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	shEscape  = strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`, "`", "\\`")
)

// closingQuote returns the index of the quote that closes the one at i
// (within double quotes a backslash escapes the next byte), or -1.
func closingQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q == '"':
			j++
		case s[j] == q:
			return j
		}
	}
	return -1
}

// wordEnd returns the end of the word that starts at i: quoted parts
// belong to it.
func wordEnd(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\'' || c == '"':
			k := closingQuote(s, i)
			if k < 0 {
				return len(s)
			}
			i = k + 1
		case c == ' ' || c == '\t' || c == '\r' || strings.IndexByte(commandSep, c) >= 0:
			return i
		default:
			i++
		}
	}
	return i
}

// takesPassword returns the form in which the option opt of program takes
// a password as its next word ("-a", "-p", "-u:"), or "".
func takesPassword(program, sub, opt string) string {
	for _, o := range shortOptions(program, sub) { // cbq's --credentials user:pw before the rule of its name
		if strings.HasPrefix(o, "--") && opt == strings.TrimSuffix(o, ":") {
			return o
		}
	}
	if strings.HasPrefix(opt, "-") && (len(opt) > 3 || opt == "-pw") && !strings.Contains(opt, "=") && IsSecretKey(opt) {
		return opt // --password x, and one dash: openssl's -passin, keytool's -storepass, nodetool's and sstableloader's -pw
	}
	if strings.HasPrefix(opt, "--") && !strings.Contains(opt, "=") {
		if IsSecretKey(opt) {
			return opt
		}
		if program == "curl" && opt == "--user" {
			return "-u:"
		}
		return ""
	}
	for _, o := range shortOptions(program, sub) {
		if o == "-p=" {
			continue
		}
		if opt == strings.TrimSuffix(o, ":") {
			return o
		}
	}
	return ""
}

// redactOption hides the password that an option carries in itself:
// --password=x, --user=u:pw (curl), -pPW (mysql), -aPW (redis-cli).
func redactOption(program, sub, w string) string {
	if strings.HasPrefix(w, "--") {
		if k := strings.IndexByte(w, '='); k >= 0 {
			if slices.Contains(shortOptions(program, sub), w[:k]+":") { // cbq's --credentials=user:pw
				if c := strings.IndexByte(w[k:], ':'); c >= 0 {
					return w[:k+c+1] + Redacted
				}
				return w
			}
			if IsSecretKey(w[:k]) {
				return w[:k+1] + Redacted
			}
			if program == "curl" && w[:k] == "--user" {
				if c := strings.IndexByte(w[k:], ':'); c >= 0 {
					return w[:k+c+1] + Redacted
				}
			}
		}
		return w
	}
	for _, form := range shortOptions(program, sub) {
		o := strings.TrimSuffix(strings.TrimSuffix(form, "="), ":")
		if len(w) > len(o) && strings.HasPrefix(w, o) && strings.HasPrefix(o, "-") && !strings.HasPrefix(w, "--") {
			if program == "curl" || strings.HasSuffix(form, ":") { // user:pw
				if c := strings.IndexByte(w, ':'); c >= 0 {
					return w[:c+1] + Redacted
				}
				return w
			}
			if w[len(o)] == '=' && len(w) > len(o)+1 { // -P=PW: the password after the =
				return o + "=" + Redacted
			}
			return o + Redacted
		}
	}
	return w
}

// hostPassword hides the password of a word that is
// user:password@host[:port][/path] without a scheme, as mysqlsh takes a
// connection (mysqlsh root:PW@h:3306, --uri root:PW@h, --uri=root:PW@h);
// any other word is returned as it is. An image's digest
// (redis:7@sha256:…) is not one: what follows its @ is no host and port.
func hostPassword(w string) string {
	at := strings.LastIndexByte(w, '@')
	if at < 0 || strings.Contains(w, "://") {
		return w
	}
	start := 0
	if w[0] == '-' {
		k := strings.IndexByte(w, '=')
		if k < 0 || k > at {
			return w
		}
		start = k + 1
	}
	c := strings.IndexByte(w[start:at], ':')
	if c <= 0 {
		return w
	}
	c += start
	if user := w[start:c]; strings.ContainsAny(user, `/=@"'$`) || user == "mailto" || c+1 == at || w[c+1:at] == Redacted || !hostPart.MatchString(w[at+1:]) {
		return w
	}
	return w[:c+1] + Redacted + w[at:]
}

// hostPart is what follows a connection's user and password: a host, a
// port, a path or a query.
var hostPart = regexp.MustCompile(`^(?:[A-Za-z0-9][A-Za-z0-9.-]*|\[[0-9A-Fa-f:.]+\])(?::\d+)?(?:[/?]\S*)?$`)

// minKnown is the shortest known secret a Redactor hides wherever it
// stands: a shorter one ("pw", "1") would be found inside ordinary words.
const minKnown = 4

// notKnown are values a secret option may hold that are no secret
// (mongodb.auth=true, auth:none): hidden where they stand, they are not
// hidden wherever else they are written (tls: true).
var notKnown = map[string]bool{"true": true, "false": true, "null": true, "none": true, "disable": true, "disabled": true,
	"enable": true, "enabled": true, "required": true, "optional": true}

// A Redactor hides what RedactText finds and, in text that may repeat a
// secret where no rule can see it (a command's output: echo $PGPASSWORD,
// a server's error quoting a statement), the exact values it was given as
// secrets. The zero value hides what RedactText hides.
type Redactor struct{ known []string }

// Known adds the secrets in p: every secret property's value, each
// password RedactText finds in the others (a URL's) and what the declared
// finders find (DeclareSecrets: a binding's own).
func (r *Redactor) Known(p *Props) {
	for k, e := range p.m { // not Get: knowing them is not reading them
		r.KnownDeclared(k, e.value)
		if IsSecretKey(k) {
			r.Add(e.value)
			continue
		}
		r.Hidden(e.value)
	}
}

// Props returns every property of p as a map with credentials hidden: the
// secrets r knows and those p holds hidden in every value, and what
// RedactValue hides. A nil Redactor knows none of its own.
func (r *Redactor) Props(p *Props) map[string]string {
	m := make(map[string]string, len(p.m))
	for k, e := range p.m { // not Get: writing them is not reading them
		m[k] = e.value
	}
	return r.Map(m)
}

// Map returns m, a set of properties (an imported result's), with
// credentials hidden as Props hides them.
func (r *Redactor) Map(m map[string]string) map[string]string {
	var all Redactor
	all.Merge(r)
	all.KnownMap(m)
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = RedactValue(k, all.HideKnown(v))
	}
	return out
}

// KnownMap adds the secrets of m, a set of properties, as Known does.
func (r *Redactor) KnownMap(m map[string]string) {
	for k, v := range m {
		r.KnownDeclared(k, v)
		if IsSecretKey(k) {
			r.Add(v)
			continue
		}
		r.Hidden(v)
	}
}

// Count is how many secret values r knows (a nil r knows none).
func (r *Redactor) Count() int {
	if r == nil {
		return 0
	}
	return len(r.known)
}

// Merge adds every secret o knows (a nil o knows none).
func (r *Redactor) Merge(o *Redactor) {
	if o == nil {
		return
	}
	for _, v := range o.known {
		r.Add(v)
	}
}

// Hidden adds what RedactText hides in text: the words a statement or a
// command line carries as credentials.
func (r *Redactor) Hidden(text string) {
	if pw, _, ok := urlPassword(text); ok { // a URL as a whole: its password whatever it holds
		r.Add(pw)
	}
	for _, v := range shellSecrets(text) { // a script's words as the shell makes them
		r.Add(v)
		r.learn(v)
	}
	var vars map[string]string
	for _, v := range hiddenPieces(text, RedactText(text)) {
		r.learn(v)
		// A value the shell assembles from variables the text assigns
		// (P=pw1; -a "${P}x", -p$P$Q) is known as the shell makes it.
		if strings.Contains(v, "$") {
			if vars == nil {
				vars = assignments(text)
			}
			w, ok := shellWord(v)
			if !ok {
				w = v
			}
			if x, ok := expand(w, vars); ok {
				r.learn(x)
			}
		}
	}
}

// assignRE is a shell's assignment of a variable: NAME=value after a
// command's start (export, local, readonly too).
var assignRE = regexp.MustCompile("(?:^|[\\s;&|(`])(?:(?:export|local|readonly)\\s+)?([A-Za-z_]\\w*)=" + valueRE)

// assignments are the variables text assigns, each its last value as
// the shell gives it (quotes joined, escapes undone).
func assignments(text string) map[string]string {
	vars := map[string]string{}
	for _, m := range assignRE.FindAllStringSubmatch(text, -1) {
		v := m[2]
		if w, ok := shellWord(v); ok {
			v = w
		} else {
			v = Unbackslash(v)
		}
		vars[m[1]] = v
	}
	return vars
}

// expand replaces each $NAME and ${NAME} of v with its value in vars; ok
// when v names at least one and vars has each.
func expand(v string, vars map[string]string) (string, bool) {
	var b strings.Builder
	named := false
	for i := 0; i < len(v); i++ {
		if v[i] != '$' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		j, name := i+1, ""
		if v[j] == '{' {
			k := strings.IndexByte(v[j:], '}')
			if k < 0 {
				return "", false
			}
			name, j = v[j+1:j+k], j+k+1
		} else {
			for j < len(v) && (v[j] == '_' || v[j] >= 'a' && v[j] <= 'z' || v[j] >= 'A' && v[j] <= 'Z' || j > i+1 && v[j] >= '0' && v[j] <= '9') {
				j++
			}
			name = v[i+1 : j]
		}
		x, ok := vars[name]
		if name == "" || !ok {
			return "", false
		}
		b.WriteString(x)
		named = true
		i = j - 1
	}
	return b.String(), named
}

// hiddenPieces returns what red, text redacted, hides of text. The
// rules only replace pieces of text with REDACTED, so red is text's
// pieces around each REDACTED: the pieces are matched against text in
// order, each hidden word the shortest that lets every later piece match
// too (a piece that also stands inside a secret, P="a;b"; ..., does not
// cut it short). When no match is found within a bounded search, nothing
// is returned: a wrong piece learned would hide ordinary text elsewhere.
func hiddenPieces(text, red string) []string {
	if red == text {
		return nil
	}
	parts := strings.Split(red, Redacted)
	if !strings.HasPrefix(text, parts[0]) || !strings.HasSuffix(text, parts[len(parts)-1]) ||
		len(text) < len(parts[0])+len(parts[len(parts)-1]) {
		return nil
	}
	hidden := make([]string, len(parts)-1)
	budget := 4096 // the searches tried: a bound on the backtracking
	var match func(k, pos int) bool
	match = func(k, pos int) bool { // hidden[k-1] starts at pos
		if budget--; budget < 0 {
			return false
		}
		next := parts[k]
		if k == len(parts)-1 { // the last piece ends text
			end := len(text) - len(next)
			if end <= pos {
				return false
			}
			hidden[k-1] = text[pos:end]
			return true
		}
		for from := pos; from <= len(text); {
			i := strings.Index(text[from:], next)
			if i < 0 {
				return false
			}
			end := from + i
			if end > pos { // a hidden word is not empty
				hidden[k-1] = text[pos:end]
				if match(k+1, end+len(next)) {
					return true
				}
				if budget < 0 { // spent: no later try can match, and each frame's search would read the rest of text again
					return false
				}
			}
			from = end + 1
		}
		return false
	}
	if !match(1, len(parts[0])) {
		return nil
	}
	return hidden
}

// learn adds v, a value a rule found in text, as the program it is
// written for reads it: without the quotes around it, escaped or not
// (\"pw\" inside a double-quoted shell string, "pw" in JSON); and with
// its backslash escapes undone too (a shell's, JSON's, a keyword/value
// DSN's: password=a\\b is a\b to libpq and pgx), each form known. An
// unquoted value ends, as a shell reads it, at the first separator or
// redirection (pw>/dev/null is pw).
func (r *Redactor) learn(v string) {
	v = strings.TrimSpace(v)
	// An array's literal, (pw1 pw2) or ([k]=pw): each element is a value.
	if len(v) > 2 && v[0] == '(' && v[len(v)-1] == ')' {
		for _, e := range strings.Fields(v[1 : len(v)-1]) {
			if i := strings.Index(e, "]="); strings.HasPrefix(e, "[") && i > 0 {
				e = e[i+2:]
			}
			r.learn(e)
		}
	}
	if pw, ok := plainPassword(strings.Trim(v, `"'`)); ok { // a SASL PLAIN payload's password
		r.Add(pw)
	}
	if m := dollarString.FindStringSubmatch(v); m != nil && m[1] == m[3] { // PostgreSQL's $$pw$$, $tag$pw$tag$
		r.Add(m[2])
	}
	for _, p := range []string{"U&'", "u&'", "E'", "e'"} { // PostgreSQL's U&'pw', E'pw'
		if a, ok := strings.CutPrefix(v, p); ok && len(a) > 1 && strings.HasSuffix(a, "'") {
			r.learn("'" + a)
		}
	}
	if a, ok := strings.CutPrefix(v, "$'"); ok { // bash's $'...': C's escapes
		v = "'" + a
	}
	// A shell's default (${PW:-pw}) is the secret when the variable is
	// not set; quotes inside a word (Sec'ret', Sec"ret") are the shell's,
	// not the program's.
	if a, ok := strings.CutPrefix(v, "${"); ok {
		if _, def, ok := strings.Cut(a, ":-"); ok {
			r.Add(strings.Trim(strings.TrimSuffix(def, "}"), `"'`))
		}
	}
	if d, ok := strings.CutPrefix(v, "-"); ok { // ${PW:-pw} as a name:value rule cuts it: -pw
		r.Add(strings.Trim(strings.TrimSuffix(d, "}"), `"'`))
	}
	if i := strings.IndexAny(v, `"'`); i > 0 && i < len(v)-1 {
		r.Add(strings.NewReplacer(`'`, "", `"`, "").Replace(v))
	}
	if w, ok := shellWord(v); ok { // 'Sec''ret', "Sec"ret: the pieces a shell joins
		r.Add(w)
	}
	quoted := strings.ContainsAny(v, `"'`)
	for {
		w := v
		for _, q := range []string{`\"`, `\'`} {
			if len(w) >= 2*len(q) && strings.HasPrefix(w, q) && strings.HasSuffix(w, q) {
				w = w[len(q) : len(w)-len(q)]
			}
		}
		w = strings.TrimSpace(strings.Trim(w, `"'`))
		if w == v {
			break
		}
		v = w
	}
	r.Add(v)
	if strings.IndexByte(v, '\\') >= 0 {
		r.Add(Unbackslash(v))
	}
	if i := strings.IndexAny(v, shellEnd); i > 0 && !quoted {
		r.Add(v[:i])
	}
	// A line a program writes with C's escapes (printf 'requirepass
	// \x53ecret\n', echo 'S\0145cret', bash's $'...'): the value as the
	// escapes make it, ending at its first control byte.
	if strings.IndexByte(v, '\\') >= 0 {
		c := cUnescape(v)
		if i := strings.IndexFunc(c, func(r rune) bool { return r < ' ' || r == 0x7f }); i >= 0 {
			c = c[:i]
		}
		r.Add(c)
	}
}

// shellWord is the word a POSIX shell makes of v, its first word: quoted
// pieces joined with what stands beside them, '...' as written, "..." with
// \" \\ \$ \` undone, a backslash outside quotes taking the next byte as
// it is; ok when v holds a quote and its quotes close.
func shellWord(v string) (string, bool) {
	if !strings.ContainsAny(v, `"'`) {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '\'':
			j := strings.IndexByte(v[i+1:], '\'')
			if j < 0 {
				return "", false
			}
			b.WriteString(v[i+1 : i+1+j])
			i += j + 1
		case '"':
			for i++; ; i++ {
				if i >= len(v) {
					return "", false
				}
				if v[i] == '"' {
					break
				}
				if v[i] == '\\' && i+1 < len(v) && strings.IndexByte("\"\\$`", v[i+1]) >= 0 {
					i++
				}
				b.WriteByte(v[i])
			}
		case '\\':
			if i+1 < len(v) {
				i++
				b.WriteByte(v[i])
			}
		case ' ', '\t', '\n', ';', '&', '|', '<', '>', '(', ')':
			return b.String(), b.Len() > 0
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), b.Len() > 0
}

// cUnescape undoes C's escapes as printf, echo -e and a shell's $'...'
// read them: \a \b \e \f \n \r \t \v \\ \' \", \xHH (one or two hex
// digits), \0NNN and \NNN (octal, up to three digits after the 0 or in
// all); any other backslash stands for itself.
func cUnescape(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] != '\\' || i+1 == len(v) {
			b.WriteByte(v[i])
			continue
		}
		i++
		switch c := v[i]; c {
		case 'a', 'b', 'e', 'f', 'n', 'r', 't', 'v':
			b.WriteByte(map[byte]byte{'a': 7, 'b': 8, 'e': 27, 'f': 12, 'n': 10, 'r': 13, 't': 9, 'v': 11}[c])
		case '\\', '\'', '"':
			b.WriteByte(c)
		case 'x':
			n, k := 0, 0
			for ; k < 2 && i+1 < len(v) && isHex(v[i+1]); k++ {
				i++
				n = n*16 + hexVal(v[i])
			}
			if k == 0 {
				b.WriteString(`\x`)
				continue
			}
			b.WriteByte(byte(n))
		case '0', '1', '2', '3', '4', '5', '6', '7':
			most := 3
			n := 0
			if c == '0' {
				most = 3 // \0NNN: up to three after the 0
			} else {
				n, most = int(c-'0'), 2
			}
			for k := 0; k < most && i+1 < len(v) && v[i+1] >= '0' && v[i+1] <= '7'; k++ {
				i++
				n = n*8 + int(v[i]-'0')
			}
			b.WriteByte(byte(n))
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// shellEnd ends an unquoted word as a shell reads it.
const shellEnd = " \t\r\n;|&<>()`"

// Unbackslash undoes backslash escapes: each backslash stands for the
// byte after it (a shell's, JSON's, libpq's keyword/value settings).
func Unbackslash(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// Add makes v a known secret (unless it is shorter than minKnown), and
// what it stands for when it is written escaped as in a URL (%2F for /).
func (r *Redactor) Add(v string) {
	v = strings.TrimSpace(v)
	if len(v) < minKnown || v == Redacted || notKnown[strings.ToLower(v)] || slices.Contains(r.known, v) {
		return
	}
	// The longest first: a secret that holds another is hidden whole.
	i, _ := slices.BinarySearchFunc(r.known, v, func(a, b string) int { return len(b) - len(a) })
	r.known = slices.Insert(r.known, i, v)
	if strings.IndexByte(v, '%') >= 0 { // a query's escaping (+ for a space) and a path's or a URL's user's
		if u, err := url.QueryUnescape(v); err == nil && u != v {
			r.Add(u)
		}
		if u, err := url.PathUnescape(v); err == nil && u != v {
			r.Add(u)
		}
	}
}

// Redact hides in s what RedactText finds and every known secret.
func (r *Redactor) Redact(s string) string { return RedactText(r.HideKnown(s)) }

// HideKnown hides every known secret in s, and nothing else: r's and the
// process's (KnowEverywhere, the environment's). A nil Redactor knows the
// process's alone.
func (r *Redactor) HideKnown(s string) string {
	for _, v := range everywhere.values() {
		s = hideValue(s, v)
	}
	if r == nil {
		return s
	}
	for _, v := range r.known {
		s = hideValue(s, v)
	}
	return s
}

// KnowEverywhere makes v a secret every Redactor of the process hides: one
// a driver found where no property names it (a password ~/.pgpass gave,
// credentials from the AWS shared files).
func KnowEverywhere(v string) { everywhere.add(v) }

// everywhere is the process's known secrets: the values of its
// environment's variables whose names say they are secret (PGPASSWORD,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, REDISCLI_AUTH: a driver
// reads them, a setup step inherits them; read again when the
// environment changed), and those KnowEverywhere was given.
var everywhere = &processSecrets{}

type processSecrets struct {
	mu      sync.Mutex
	environ []string // the environment the secrets below were read from
	env     []string // its secrets
	given   []string // KnowEverywhere's
	all     []string // env and given, made anew when either changes: a reader's slice is never written
}

func (p *processSecrets) values() []string {
	environ := os.Environ()
	p.mu.Lock()
	defer p.mu.Unlock()
	if !slices.Equal(environ, p.environ) {
		p.environ, p.env = environ, nil
		for _, kv := range environ {
			k, v, _ := strings.Cut(kv, "=")
			if envSecret(k) && envKnown(v) {
				p.env = appendKnown(p.env, v)
			}
			if pw, _, ok := urlPassword(v); ok && envKnown(pw) { // DATABASE_URL=postgres://u:pw@host
				p.env = appendKnown(p.env, pw)
			}
		}
		p.all = append(slices.Clip(p.env), p.given...)
	}
	return p.all
}

func (p *processSecrets) add(v string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if given := appendKnown(p.given, v); len(given) > len(p.given) {
		p.given = given
		p.all = append(slices.Clip(p.env), p.given...)
	}
}

// appendKnown appends v to list unless it is too short to hide, no
// secret (notKnown) or there already.
func appendKnown(list []string, v string) []string {
	if len(v) < minKnown || notKnown[strings.ToLower(v)] || slices.Contains(list, v) {
		return list
	}
	return append(list, v)
}

// envSecret reports whether the environment variable named k holds a
// secret: its last word (split at _) is one a credential is named by
// (PASSWORD, PASSWD, PASS, PWD, SECRET, TOKEN, AUTH, KEY, APIKEY,
// CREDENTIALS, PASSPHRASE) or ends in PASSWORD, PASSWD, SECRET or TOKEN
// (PGPASSWORD, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, REDISCLI_AUTH,
// MYSQL_PWD, API_KEY). Not MAX_TOKENS, SSH_AUTH_SOCK, PGPASSFILE,
// AWS_WEB_IDENTITY_TOKEN_FILE, nor the shell's PWD and OLDPWD: an
// environment's variable is hidden wherever its value stands, and one
// that is no secret would hide ordinary text (MAX_TOKENS=1000 hid every
// 1000 of a plan's copy and results).
func envSecret(k string) bool {
	u := strings.ToUpper(k)
	if u == "PWD" || u == "OLDPWD" {
		return false
	}
	last := u[strings.LastIndexByte(u, '_')+1:]
	switch last {
	case "PASSWORD", "PASSWD", "PASS", "PWD", "SECRET", "TOKEN", "AUTH", "KEY", "APIKEY", "CREDENTIALS", "PASSPHRASE":
		return true
	}
	for _, end := range []string{"PASSWORD", "PASSWD", "SECRET", "TOKEN"} {
		if strings.HasSuffix(last, end) {
			return true
		}
	}
	return false
}

// envKnown reports whether v, an environment's secret, is hidden wherever
// it stands: not a number (a PIN in the environment would hide every
// count that holds its digits), and long enough to be found only where it
// is meant.
func envKnown(v string) bool {
	return len(v) >= 6 && strings.Trim(v, "0123456789.") != ""
}

// hideValue hides every v in s but where v ends a property's name
// (couchbase.password, a password that is the word "password"): a
// message naming the property stays readable, and the name is no secret.
func hideValue(s, v string) string {
	if !strings.Contains(s, v) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, v)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(v)
		if i >= 2 && s[i-1] == '.' && nameByte(s[i-2]) && (end == len(s) || !nameByte(s[end])) && nameByte(v[0]) {
			b.WriteString(s[:end])
		} else {
			b.WriteString(s[:i])
			b.WriteString(Redacted)
		}
		s = s[end:]
	}
}

func nameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// Len is how many secrets r knows.
func (r *Redactor) Len() int {
	if r == nil {
		return 0
	}
	return len(r.known)
}
