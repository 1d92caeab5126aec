package props

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Secrets in a shell's commands, read as the shell reads them. The rules
// of RedactText see text; a shell joins words from quotes, variables,
// positional parameters (set --, a function's, sh -c's), command
// substitutions, here-strings (read P <<< x) and indirection (${!N}), so
// the words a program is given are not the text. shellSecrets parses a
// script (bash's grammar, mvdan.cc/sh) and evaluates what it can of it
// without running anything: each variable's value as assigned, each
// command's words as expanded. Then the rules' own tests run on each
// command's words (an option that takes a password, name=value of a
// secret name, a statement's PASSWORD 'x'), and what they find is a
// secret, known by its exact value to every writer. A word the shell
// would make from what cannot be known here (a file's contents, a
// variable from the environment) is unknown, and nothing is learned from
// it; the rules on the text still hide what they can.

// maxShellText bounds the text read as a script: a command, a step, a
// comment; not a command's output.
const maxShellText = 64 << 10

// maxShellDepth bounds the scripts read inside others (sh -c, eval, a
// function's body at its call).
const maxShellDepth = 4

// maxShellSteps bounds the nodes and calls one evaluation visits: a
// function that calls itself many times over (f() { f;f;f; }) would
// otherwise take exponential time; past it, what was found stands.
const maxShellSteps = 100_000

// maxShellFound bounds the secrets one evaluation finds.
const maxShellFound = 1024

// unknownWord stands for a word this evaluation cannot know.
const unknownWord = "\x00"

// shells are the programs whose -c argument is a script.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ash": true, "ksh": true, "busybox": true}

// shellSecrets returns the secrets a shell script gives where a password
// is read, or none when text is not a script.
func shellSecrets(text string) []string {
	if len(text) > maxShellText || !strings.ContainsAny(text, " \t") {
		return nil
	}
	s := &shellState{vars: map[string]string{}, funcs: map[string]*syntax.Stmt{}, steps: maxShellSteps, called: map[string]bool{},
		arrays: map[string][]string{}, aliases: map[string]string{}}
	s.script(text, nil, 0)
	return s.found
}

// shellState is what the evaluation knows: the variables, the positional
// parameters, the functions declared, and the secrets found.
type shellState struct {
	vars    map[string]string
	pos     []string
	funcs   map[string]*syntax.Stmt
	found   []string
	src     string   // the script being read
	stdin   string   // a here-string's, here-document's or process substitution's text, for read
	pipe    []string // what the commands before each pipe print (unknownWord when not known)
	zero    string   // $0 of sh -c 'script' NAME
	arrays  map[string][]string
	aliases map[string]string
	steps   int // left of maxShellSteps
	// called are the function calls evaluated, by name and arguments:
	// each once.
	called map[string]bool
}

func (s *shellState) secret(v string) {
	if v != "" && !strings.Contains(v, unknownWord) && len(s.found) < maxShellFound {
		s.found = append(s.found, v)
	}
}

// step takes one step of the budget; false when it is spent.
func (s *shellState) step() bool {
	s.steps--
	return s.steps >= 0
}

// script parses text and evaluates its commands with pos as $1, $2, ...
func (s *shellState) script(text string, pos []string, depth int) {
	if depth > maxShellDepth || !s.step() {
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
	if err != nil {
		return
	}
	saved, savedSrc := s.pos, s.src
	if pos != nil || depth == 0 {
		s.pos = pos
	}
	s.src = text
	for _, st := range f.Stmts {
		s.walk(st, depth)
	}
	s.pos, s.src = saved, savedSrc
}

// walk evaluates the commands of node n in order.
func (s *shellState) walk(n syntax.Node, depth int) {
	syntax.Walk(n, func(n syntax.Node) bool {
		if !s.step() {
			return false
		}
		switch x := n.(type) {
		case *syntax.BinaryCmd:
			if x.Op == syntax.Pipe || x.Op == syntax.PipeAll {
				// what the left prints is the right's input (read P,
				// xargs, a program's password from stdin)
				s.walk(x.X, depth)
				s.pipe = append(s.pipe, s.output([]*syntax.Stmt{x.X}))
				s.walk(x.Y, depth)
				s.pipe = s.pipe[:len(s.pipe)-1]
				return false
			}
		case *syntax.Stmt:
			if len(x.Redirs) > 0 { // a loop's or a group's input is its commands' too
				s.stdin = ""
			}
			for _, r := range x.Redirs {
				s.redirect(r, depth)
			}
		case *syntax.FuncDecl:
			s.funcs[x.Name.Value] = x.Body
			return true // read now too, with no arguments known
		case *syntax.DeclClause:
			for _, a := range x.Args {
				s.assign(a)
			}
			return false
		case *syntax.CallExpr:
			for _, a := range x.Assigns {
				s.assign(a)
			}
			if len(x.Args) > 0 {
				s.call(x.Args, depth)
			}
			return true // command substitutions inside its words
		}
		return true
	})
}

// redirect reads what a redirection gives: a here-document's text (an
// ACL file's lines, a statement), a here-string's word for read.
func (s *shellState) redirect(r *syntax.Redirect, depth int) {
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			body, _ := s.word(r.Hdoc, true)
			s.text(body)
			s.stdin = body
		}
	case syntax.WordHdoc:
		s.stdin, _ = s.word(r.Word, false)
	case syntax.RdrIn:
		if len(r.Word.Parts) == 1 {
			if p, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok {
				s.stdin = s.output(p.Stmts)
			}
		}
	}
}

// text finds what the rules find in text given to a program (a
// here-document): each line too, and an ACL file's user lines' >password.
func (s *shellState) text(t string) {
	for ln := range strings.SplitSeq(t, "\n") {
		for _, v := range hiddenPieces(ln, RedactText(ln)) {
			s.secret(strings.Trim(v, `"'`))
		}
		if f := strings.Fields(ln); len(f) > 2 && f[0] == "user" {
			for _, w := range f[2:] {
				if len(w) > 1 && strings.IndexByte("><#!", w[0]) >= 0 {
					s.secret(w[1:])
				}
			}
		}
	}
}

func (s *shellState) assign(a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	v := ""
	switch {
	case a.Value != nil:
		v, _ = s.word(a.Value, false)
	case a.Array != nil:
		for i, e := range a.Array.Elems {
			if e.Value == nil {
				continue
			}
			w, _ := s.word(e.Value, false)
			if i == 0 {
				v = w
			}
			if IsSecretKey(a.Name.Value) {
				s.secret(w)
			}
			s.vars[a.Name.Value+"["+strconv.Itoa(i)+"]"] = w
			s.arrays[a.Name.Value] = append(s.arrays[a.Name.Value], w)
		}
	default:
		return
	}
	if a.Append {
		v = s.vars[a.Name.Value] + v
	}
	s.vars[a.Name.Value] = v
	if IsSecretKey(a.Name.Value) && !isDirVar(a.Name.Value, v) {
		s.secret(v)
	}
}

// call evaluates one command: its words expanded, then what it does to
// the state (set, read, printf -v, a function, sh -c, eval) or what it is
// given as a password.
func (s *shellState) call(words []*syntax.Word, depth int) {
	args, raw := s.expand(words)
	if len(args) == 0 {
		return
	}
	if a, ok := s.aliases[args[0]]; ok && depth < maxShellDepth { // alias r='redis-cli -a'; r pw
		s.script(a+" "+shellQuote(args[1:]), s.pos, depth+1)
		return
	}
	prog := path.Base(args[0])
	if prog == "xargs" && len(s.pipe) > 0 && s.pipe[len(s.pipe)-1] != unknownWord { // echo pw | xargs redis-cli -a
		s.xargs(args, s.pipe[len(s.pipe)-1])
		return
	}
	args, raw, prog = unwrap(args, raw, prog)
	in := s.input()
	if s.builtin(prog, args, in, depth) {
		return
	}
	s.reads(prog, args, in)
	s.writes(prog, args)
	s.function(prog, args, depth)
	n := len(s.found)
	s.given(prog, args)
	s.asWritten(args, raw, n)
}

// expand returns a command's words as the shell gives them to the
// program (args) and each as the script writes it (raw: "" when it is not
// one word of the script). The two are as long as each other.
func (s *shellState) expand(words []*syntax.Word) (args, raw []string) {
	for _, w := range words {
		if f, ok := s.fields(w); ok { // "${a[@]}": an array's elements, each a word
			args = append(args, f...)
			raw = append(raw, make([]string, len(f))...)
			continue
		}
		v, _ := s.word(w, false)
		args = append(args, v)
		r := ""
		if o, e := int(w.Pos().Offset()), int(w.End().Offset()); o < e && e <= len(s.src) {
			r = s.src[o:e]
		}
		raw = append(raw, r)
	}
	return args, raw
}

// xargs reads xargs's command (args, xargs first) as given its input in:
// each line where -I's string stands, or else in's fields after the
// command's words.
func (s *shellState) xargs(args []string, in string) {
	rest, replace := args[1:], ""
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") {
		if rest[0] == "-I" && len(rest) > 1 { // -I {}: each line stands where {} does
			replace, rest = rest[1], rest[1:]
		} else if r, ok := strings.CutPrefix(rest[0], "-I"); ok && r != "" {
			replace = r
		}
		rest = rest[1:]
	}
	if len(rest) > 0 {
		words := append([]string{}, rest...)
		if replace != "" {
			line, _, _ := strings.Cut(strings.TrimSpace(in), "\n")
			for i := range words {
				words[i] = strings.ReplaceAll(words[i], replace, line)
			}
		} else {
			words = append(words, strings.Fields(in)...)
		}
		s.given(path.Base(rest[0]), words)
	}
}

// unwrap returns the command a wrapper runs, its words and raw words cut
// to start at it, and its program's name; or the command as given when
// it wraps none.
func unwrap(args, raw []string, prog string) ([]string, []string, string) {
	// A wrapper runs the command after it: sudo, timeout 10, nice -n 5,
	// docker exec C, kubectl exec P --, ssh h; a shell's script or a
	// client with a password option is found wherever it stands.
	for k := 1; k < len(args) && !shells[prog] && passwordOptions(prog) == nil && !redisClient[prog]; k++ {
		b := path.Base(args[k])
		if shells[b] || passwordOptions(b) != nil || redisClient[b] {
			args, raw, prog = args[k:], raw[k:], b
			break
		}
	}
	for (launcher[prog] || prog == "builtin") && len(args) > 1 { // env X=1 cmd, command cmd
		args, raw = args[1:], raw[1:]
		prog = path.Base(args[0])
	}
	return args, raw, prog
}

// input returns what the command being read reads: a pipe's, a
// here-string's; "" when it is not known.
func (s *shellState) input() string {
	switch {
	case len(s.pipe) > 0 && s.pipe[len(s.pipe)-1] != unknownWord:
		return s.pipe[len(s.pipe)-1]
	case s.stdin != "":
		return s.stdin
	}
	return ""
}

// builtin evaluates a command that changes the state (set, read,
// printf -v, eval, sh -c, alias, mapfile) given its input in; true when
// it was one, and nothing more is to be read of it.
func (s *shellState) builtin(prog string, args []string, in string, depth int) bool {
	switch {
	case prog == "set":
		s.set(args)
		return true
	case prog == "read":
		s.read(args, in)
		return true
	case prog == "printf" && len(args) > 3 && args[1] == "-v":
		s.vars[args[2]] = printf(args[3:])
		if IsSecretKey(args[2]) {
			s.secret(s.vars[args[2]])
		}
		return true
	case prog == "eval":
		s.script(strings.Join(args[1:], " "), nil, depth+1)
		return true
	case shells[prog]:
		return s.dashC(args, depth)
	case prog == "alias":
		for _, a := range args[1:] {
			if n, v, ok := strings.Cut(a, "="); ok {
				s.aliases[n] = v
			}
		}
		return true
	case prog == "mapfile" || prog == "readarray":
		if n := args[len(args)-1]; len(args) > 1 && !strings.HasPrefix(n, "-") {
			lines := strings.Split(strings.TrimRight(in, "\n"), "\n")
			s.arrays[n] = lines
			s.vars[n] = lines[0]
			if IsSecretKey(n) {
				s.secret(lines[0])
			}
		}
		return true
	}
	return false
}

// set evaluates set's words (args, set first): the positional parameters
// after its options, when it gives any or --.
func (s *shellState) set(args []string) {
	rest := args[1:]
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && rest[0] != "--" {
		if rest[0] == "-o" && len(rest) > 1 {
			rest = rest[1:]
		}
		rest = rest[1:]
	}
	if len(rest) > 0 && rest[0] == "--" {
		rest = rest[1:]
	}
	if len(rest) > 0 || len(args) > 1 && args[1] == "--" {
		s.pos = rest
	}
}

// read evaluates read's words (args, read first): each variable it names
// is given in's first line.
func (s *shellState) read(args []string, in string) {
	var names []string
	for i := 1; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-p" || a == "-d" || a == "-u" || a == "-n" || a == "-N" || a == "-t" || a == "-i":
			i++
		case a == "-a" && i+1 < len(args):
			names = append(names, args[i+1])
			i++
		case strings.HasPrefix(a, "-"):
		default:
			names = append(names, a)
		}
	}
	line, _, _ := strings.Cut(in, "\n")
	for _, n := range names {
		s.vars[n] = line
		if IsSecretKey(n) { // read -r PGPASSWORD <<< pw
			s.secret(line)
		}
	}
}

// dashC evaluates a shell's -c script, with $0 and the positional
// parameters after it; false when the shell is given none.
func (s *shellState) dashC(args []string, depth int) bool {
	for i := 1; i < len(args); i++ {
		if isDashC(args[i]) && i+1 < len(args) {
			pos := []string{}
			if i+3 <= len(args) {
				pos = args[i+3:] // after the script, $0 and then $1 ...
			}
			saved := s.zero
			if i+2 < len(args) {
				s.zero = args[i+2]
			}
			s.script(args[i+1], pos, depth+1)
			s.zero = saved
			return true
		}
	}
	return false
}

// reads finds the secrets a program reads from its input in: a password
// from stdin, chpasswd's lines, redis-cli -x's last word, aws
// configure's answers, a secret made from /dev/stdin.
func (s *shellState) reads(prog string, args []string, in string) {
	if in == "" {
		return
	}
	if readsPasswordFromStdin(args) { // redis-cli --askpass, docker login --password-stdin, passwd --stdin
		line, _, _ := strings.Cut(in, "\n")
		s.secret(line)
	}
	if prog == "chpasswd" { // user:password a line
		for ln := range strings.SplitSeq(in, "\n") {
			if _, pw, ok := strings.Cut(ln, ":"); ok {
				s.secret(strings.TrimSpace(pw))
			}
		}
	}
	if redisClient[prog] && slices.Contains(args, "-x") { // redis-cli -x CONFIG SET requirepass: the input is the last word
		line, _, _ := strings.Cut(in, "\n")
		s.given(prog, append(slices.DeleteFunc(slices.Clone(args), func(a string) bool { return a == "-x" }), line))
	}
	if prog == "aws" && len(args) > 1 && args[1] == "configure" && (len(args) == 2 || strings.HasPrefix(args[2], "-")) { // aws configure's answers: the access key, then the secret
		if lines := strings.Split(in, "\n"); len(lines) > 1 {
			s.secret(strings.TrimSpace(lines[0]))
			s.secret(strings.TrimSpace(lines[1]))
		}
	}
	if stdinIsSecret(prog, args) { // --from-file=password=/dev/stdin, docker secret create NAME -
		s.secret(strings.TrimRight(in, "\n"))
	}
}

// writes finds what the rules find in the text a program writes: what
// printf prints, what a sed substitution puts in a file.
func (s *shellState) writes(prog string, args []string) {
	if prog == "printf" && len(args) > 1 { // printf "AUTH %s\n" "$P" | redis-cli: what it prints is read by the rules
		out := printf(args[1:])
		for _, v := range hiddenPieces(out, RedactText(out)) {
			s.secret(strings.TrimSpace(v))
		}
	}
	if prog == "sed" { // sed -i 's/^requirepass .*/requirepass PW/': what a substitution writes is read by the rules
		ere := slices.ContainsFunc(args[1:], func(a string) bool {
			return a == "--regexp-extended" || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a, "Er")
		})
		for _, a := range args[1:] {
			for _, sub := range sedReplacements(a) {
				rep := sedWrites(sub, ere)
				for _, v := range hiddenPieces(rep, RedactText(rep)) {
					s.secret(strings.TrimSpace(v))
				}
			}
		}
	}
}

// function evaluates the body of the function prog names, if the script
// declares one, with args[1:] as its positional parameters; each call
// (name and arguments) once.
func (s *shellState) function(prog string, args []string, depth int) {
	if body, ok := s.funcs[prog]; ok && depth < maxShellDepth && !s.called[strings.Join(args, "\x00")] {
		s.called[strings.Join(args, "\x00")] = true // the same call again finds nothing new
		saved := s.pos
		s.pos = append([]string{}, args[1:]...)
		s.walk(body, depth+1)
		s.pos = saved
	}
}

// asWritten finds each secret found since the nth as the script writes
// it (raw) too: a secret word written with escapes (pw\ x, a
// backslash-newline inside it) is known as written too.
func (s *shellState) asWritten(args, raw []string, n int) {
	for _, v := range s.found[n:] {
		for i, a := range args {
			if a == v && raw[i] != "" && raw[i] != a && !strings.ContainsAny(raw[i], "$`") {
				s.secret(strings.Trim(raw[i], `"'`))
			}
		}
	}
}

// given finds the passwords among a program's words: an option's that
// takes one (-a pw, --pass=pw, -ppw, -u user:pw), a name=value of a
// secret name (--set auth.password={pw}), a setting of a secret name
// after SET (CONFIG SET ... tls-key-file-pass pw), AUTH's, and what the
// rules find in each word (a statement's PASSWORD 'x').
func (s *shellState) given(prog string, args []string) {
	sub := ""
	set := false
	for i := 1; i < len(args); i++ {
		a, prev := args[i], args[i-1]
		switch form := takesPassword(prog, sub, prev); {
		case i == 1:
		case strings.HasSuffix(form, ":"):
			if _, pw, ok := strings.Cut(a, ":"); ok {
				s.secret(pw)
			}
		case form != "":
			s.secret(a)
		}
		if sub == "" && !strings.HasPrefix(a, "-") {
			sub = a // docker login
		}
		if red := redactOption(prog, sub, a); red != a {
			for _, v := range hiddenPieces(a, red) {
				s.secret(v)
			}
		}
		if k, v, ok := strings.Cut(strings.TrimLeft(a, "-"), "="); ok && !strings.ContainsAny(a, " \t\n") { // a word with spaces is text: the rules read it below
			if i := strings.LastIndexByte(k, '='); i >= 0 { // --set=auth.password=x
				k = k[i+1:]
			}
			if userPassName(k) && strings.IndexByte(v, ':') > 0 { // --credentials=user:pw
				_, v, _ = strings.Cut(v, ":")
			}
			if IsSecretKey(k) {
				for _, e := range strings.Split(strings.Trim(v, "{}[]"), ",") {
					s.secret(e)
				}
			}
			if k2, v2, ok := strings.Cut(v, "="); ok && IsSecretKey(k2) { // --set=auth.password=x, --from-literal=password=x
				s.secret(v2)
			}
		}
		if prog == "curl" && i+1 < len(args) && (strings.HasPrefix(a, "-d") || strings.HasPrefix(a, "--data")) {
			for _, u := range args { // CouchDB's admin: PUT /_node/_local/_config/admins/NAME -d '"pw"'
				if strings.Contains(u, "/_config/admins/") && i+1 < len(args) {
					s.secret(strings.Trim(args[i+1], `"`))
				}
			}
		}
		if strings.EqualFold(a, "set") {
			set = true
		} else if set && i+1 < len(args) && IsSecretKey(a) {
			s.secret(args[i+1])
		}
		if (strings.EqualFold(a, "auth") || strings.EqualFold(a, "auth2")) && redisClient[prog] && i+1 < len(args) {
			s.secret(args[len(args)-1]) // AUTH [user] pw, the command's last word
		}
		if strings.ContainsAny(a, " \t") {
			for _, v := range hiddenPieces(a, RedactText(a)) {
				s.secret(strings.Trim(v, `"'`))
			}
		}
	}
}

// printf is what printf makes of its format and words, %s's and %b's at
// least; unknown when the format asks for what is not known.
func printf(args []string) string {
	f := cUnescape(args[0])
	rest := args[1:]
	var b strings.Builder
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			b.WriteByte(f[i])
			continue
		}
		i++
		switch f[i] {
		case '%':
			b.WriteByte('%')
		case 's', 'b', 'd', 'q':
			if len(rest) > 0 {
				b.WriteString(rest[0])
				rest = rest[1:]
			}
		default:
			return unknownWord
		}
	}
	return b.String()
}

// output is what a command substitution's commands print, when they are
// echo or printf of words that are known; else unknownWord.
func (s *shellState) output(stmts []*syntax.Stmt) string {
	if len(stmts) != 1 {
		return unknownWord
	}
	c, ok := stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return unknownWord
	}
	args := make([]string, len(c.Args))
	for i, w := range c.Args {
		args[i], _ = s.word(w, false)
	}
	switch path.Base(args[0]) {
	case "echo":
		rest := args[1:]
		for len(rest) > 0 && (rest[0] == "-n" || rest[0] == "-e" || rest[0] == "-E") {
			rest = rest[1:]
		}
		return strings.Join(rest, " ")
	case "printf":
		if len(args) > 1 {
			return strings.TrimRight(printf(args[1:]), "\n")
		}
	}
	return unknownWord
}

// word expands w as the shell would, as far as it can be known; ok false
// (and unknownWord inside the value) where it cannot. A here-document's
// body (hdoc) keeps its backslashes but before $, ` and \.
func (s *shellState) word(w *syntax.Word, hdoc bool) (string, bool) {
	var b strings.Builder
	ok := s.parts(&b, w.Parts, false, hdoc)
	return b.String(), ok
}

func (s *shellState) parts(b *strings.Builder, parts []syntax.WordPart, quoted, hdoc bool) bool {
	ok := true
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescapeLit(x.Value, quoted || hdoc))
		case *syntax.SglQuoted:
			if x.Dollar {
				b.WriteString(cUnescape(x.Value))
			} else {
				b.WriteString(x.Value)
			}
		case *syntax.DblQuoted:
			ok = s.parts(b, x.Parts, true, false) && ok
		case *syntax.ParamExp:
			v, known := s.param(x)
			b.WriteString(v)
			ok = ok && known
		case *syntax.CmdSubst:
			v := s.output(x.Stmts)
			b.WriteString(v)
			ok = ok && v != unknownWord
		default:
			b.WriteString(unknownWord)
			ok = false
		}
	}
	return ok
}

// param is a parameter's value: a variable's, a positional one's, an
// indirect one's (${!N}), a default's (${P:-x}).
func (s *shellState) param(x *syntax.ParamExp) (string, bool) {
	if x.Param == nil {
		return unknownWord, false
	}
	name := x.Param.Value
	if x.Index != nil {
		if idx, ok := x.Index.(*syntax.Word); ok {
			if i, known := s.word(idx, false); known {
				name += "[" + i + "]"
			}
		}
	}
	v, ok := s.lookup(name)
	if x.Excl && ok { // ${!N}: the variable N names
		v, ok = s.lookup(v)
	}
	if !ok && x.Exp != nil && x.Exp.Word != nil {
		switch x.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			return s.word(x.Exp.Word, false)
		}
	}
	if !ok {
		return unknownWord, false
	}
	return v, true
}

func (s *shellState) lookup(name string) (string, bool) {
	if n, err := strconv.Atoi(name); err == nil {
		if n == 0 && s.zero != "" {
			return s.zero, true
		}
		if n >= 1 && n <= len(s.pos) {
			return s.pos[n-1], true
		}
		return "", false
	}
	if name == "@" || name == "*" {
		return strings.Join(s.pos, " "), s.pos != nil
	}
	v, ok := s.vars[name]
	if !ok && strings.HasSuffix(name, "[0]") {
		v, ok = s.vars[strings.TrimSuffix(name, "[0]")]
	}
	return v, ok
}

// unescapeLit undoes a literal's backslashes: every one outside quotes;
// inside double quotes (or a here-document) only before $ ` " \ and a
// newline.
func unescapeLit(v string, quoted bool) string {
	if strings.IndexByte(v, '\\') < 0 {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && (!quoted || strings.IndexByte("$`\"\\\n", v[i+1]) >= 0) {
			i++
			if v[i] == '\n' {
				continue
			}
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

// isDashC reports whether a shell's option word holds -c (-c, -ec, -xc).
func isDashC(a string) bool {
	return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a, 'c') > 0
}

// readsPasswordFromStdin reports whether a program given args reads a
// password from its input: redis-cli --askpass, docker login
// --password-stdin, passwd --stdin (redis-cli -x's input, its last word,
// is read by call).
func readsPasswordFromStdin(args []string) bool {
	for _, a := range args[1:] {
		switch strings.ToLower(a) {
		case "--askpass", "--password-stdin", "--pass-stdin", "--passwd-stdin":
			return true
		case "--stdin":
			if path.Base(args[0]) == "passwd" {
				return true
			}
		}
	}
	return false
}

// fields expands w when it is an array's elements ("${a[@]}", ${a[*]}):
// each a word.
func (s *shellState) fields(w *syntax.Word) ([]string, bool) {
	var p *syntax.ParamExp
	switch x := w.Parts[0].(type) {
	case *syntax.ParamExp:
		p = x
	case *syntax.DblQuoted:
		if len(x.Parts) == 1 {
			p, _ = x.Parts[0].(*syntax.ParamExp)
		}
	}
	if len(w.Parts) != 1 || p == nil || p.Param == nil || p.Index == nil {
		return nil, false
	}
	idx, ok := p.Index.(*syntax.Word)
	if !ok {
		return nil, false
	}
	if i, _ := s.word(idx, false); i != "@" && i != "*" {
		return nil, false
	}
	a, ok := s.arrays[p.Param.Value]
	return a, ok
}

// shellQuote writes words as one line a shell reads back as them.
func shellQuote(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(q, " ")
}

// stdinIsSecret reports whether program, given args, takes its input as a
// secret: kubectl create secret's --from-file=NAME=/dev/stdin of a
// secret NAME, docker secret create NAME -, vault login - (the token) and
// vault login's password=- (a secret NAME=-).
func stdinIsSecret(prog string, args []string) bool {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--from-file="); ok {
			if k, f, ok := strings.Cut(v, "="); ok && (f == "/dev/stdin" || f == "-") && IsSecretKey(k) {
				return true
			}
		}
		if prog == "docker" && a == "secret" && i+3 < len(args) && args[i+1] == "create" && args[len(args)-1] == "-" {
			return true
		}
		if k, v, _ := strings.Cut(a, "="); prog == "vault" && i > 1 && args[1] == "login" && (a == "-" || v == "-" && IsSecretKey(k)) {
			return true
		}
	}
	return false
}

// sedReplacements returns the s commands of a sed script
// (s/PATTERN/REPLACEMENT/, any delimiter), each pattern and replacement
// with its escaped delimiters undone.
func sedReplacements(script string) [][2]string {
	var reps [][2]string
	for i := 0; i+1 < len(script); i++ {
		if script[i] != 's' || i > 0 && strings.IndexByte("; \t\n{", script[i-1]) < 0 {
			continue
		}
		d := script[i+1]
		if d == '\\' || d == '\n' || d == ' ' || isWordByte(d) {
			continue
		}
		var parts [2]string
		j := i + 2
		for k := range parts {
			var b strings.Builder
			for ; j < len(script) && script[j] != d; j++ {
				if script[j] == '\\' && j+1 < len(script) {
					if j++; script[j] != d {
						b.WriteByte('\\')
					}
				}
				b.WriteByte(script[j])
			}
			parts[k] = b.String()
			j++
		}
		if j <= len(script) {
			reps = append(reps, parts)
		}
		i = j - 1
	}
	return reps
}

// sedWrites is the text a substitution writes into a file, as far as it
// can be known: its replacement with each back-reference (\1) to a group
// of the pattern that is a plain word (\(requirepass\), or (masterauth)
// when ere) written as that word; a pattern that finds redis.conf's
// sample password (foobared, of "# requirepass foobared") writes the
// password after requirepass.
func sedWrites(sub [2]string, ere bool) string {
	pat, rep := sub[0], sub[1]
	var groups []string
	opening, closing := `\(`, `\)`
	if ere {
		opening, closing = "(", ")"
	}
	for i := 0; i < len(pat); {
		k := strings.Index(pat[i:], opening)
		if k < 0 {
			break
		}
		start := i + k + len(opening)
		end := strings.Index(pat[start:], closing)
		if end < 0 {
			break
		}
		g := pat[start : start+end]
		if strings.IndexFunc(g, func(r rune) bool { return !(r == '-' || r == '_' || r < 128 && isWordByte(byte(r))) }) >= 0 {
			g = "" // not a plain word: what it matched is not known here
		}
		groups = append(groups, g)
		i = start + end + len(closing)
	}
	var b strings.Builder
	for i := 0; i < len(rep); i++ {
		if rep[i] == '\\' && i+1 < len(rep) && rep[i+1] >= '1' && rep[i+1] <= '9' {
			if n := int(rep[i+1] - '1'); n < len(groups) {
				b.WriteString(groups[n])
			}
			i++
			continue
		}
		b.WriteByte(rep[i])
	}
	out := b.String()
	if strings.Contains(pat, "foobared") && !strings.Contains(out, "requirepass") {
		out = "requirepass " + out
	}
	return out
}
