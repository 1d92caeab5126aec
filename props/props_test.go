package props

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseJavaFormat(t *testing.T) {
	src := "# comment\n! also a comment\n  recordcount = 1000\nfieldcount:20\nlabel  hello world\n" +
		"long=a\\\n   b\\\n   c\nesc=tab\\there\\u0041\nempty=\nodd\\=key=v\n"
	p := New()
	if err := p.Parse(strings.NewReader(src), "f"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"recordcount": "1000", "fieldcount": "20", "label": "hello world",
		"long": "abc", "esc": "tab\thereA", "empty": "", "odd=key": "v",
	}
	for k, v := range want {
		if got, ok := p.Get(k); !ok || got != v {
			t.Errorf("%s = %q (set %v), want %q", k, got, ok, v)
		}
	}
	if got := p.Source("fieldcount"); got != "f:4" {
		t.Errorf("source = %q, want f:4", got)
	}
	if got := p.Source("long"); got != "f:6" {
		t.Errorf("continued line source = %q, want f:6 (where it starts)", got)
	}
}

func TestTypedErrorsNameWhere(t *testing.T) {
	p := New()
	p.Parse(strings.NewReader("a=1\nrecordcount=12x\nflag=yes\nratio=1.5\n"), "wl")
	if _, err := p.Int64("recordcount", 0); err == nil || err.Error() != `wl:2: property recordcount: "12x" is not a whole number` {
		t.Errorf("err = %v", err)
	}
	if _, err := p.Bool("flag", false); err == nil || !strings.Contains(err.Error(), "wl:3") {
		t.Errorf("err = %v", err)
	}
	if _, err := p.FloatRange("ratio", 0, 0, 1); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("err = %v", err)
	}
	if v, err := p.Int64("missing", 42); err != nil || v != 42 {
		t.Errorf("default: %v %v", v, err)
	}
	if _, err := p.Int64Min("a", 0, 2); err == nil || !strings.Contains(err.Error(), "less than 2") {
		t.Errorf("err = %v", err)
	}
}

func TestLaterSetWins(t *testing.T) {
	p := New()
	p.Set("k", "file", "f:1")
	p.Set("k", "flag", "-p k")
	if v, _ := p.Get("k"); v != "flag" || p.Source("k") != "-p k" {
		t.Errorf("got %q from %q", v, p.Source("k"))
	}
}

func TestLoadFileErrors(t *testing.T) {
	p := New()
	err := p.LoadFile(filepath.Join(t.TempDir(), "nope"))
	if err == nil || !strings.Contains(err.Error(), "nope") || strings.Contains(err.Error(), "\n") {
		t.Errorf("err = %v", err)
	}
	path := filepath.Join(t.TempDir(), "w")
	os.WriteFile(path, []byte("=value\n"), 0o644)
	if err := p.LoadFile(path); err == nil || !strings.Contains(err.Error(), path+":1") {
		t.Errorf("err = %v", err)
	}
}

func TestRedaction(t *testing.T) {
	p := New()
	p.Set("mongodb.url", "mongodb://admin:hunter2@127.0.0.1:27017/ycsb?w=1", "-p")
	p.Set("redis.password", "hunter2", "-p")
	p.Set("dynamodb.url", "http://127.0.0.1:8000/?token=hunter2&x=1", "-p")
	p.Set("recordcount", "10", "-p")
	p.Set("postgres.url", "host=127.0.0.1 user=postgres password=hunter2 dbname=ycsb", "-p")
	p.Set("redis.url", "redis://bo#b:hunter2@127.0.0.1:6379", "-p")
	p.Set("cassandra.url", "cassandra://bob:hunter2@127.0.0.1", "-p")
	for k, v := range p.Redacted() {
		if strings.Contains(v, "hunter2") {
			t.Errorf("%s leaks the secret: %s", k, v)
		}
	}
	p.Set("redis.password", "hunter2", "-p redis.password")
	if _, err := p.Int64("redis.password", 0); err == nil || strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error shows the secret: %v", err)
	}
	r := p.Redacted()
	if !strings.Contains(r["mongodb.url"], "admin:") || !strings.Contains(r["mongodb.url"], "127.0.0.1:27017") {
		t.Errorf("url lost more than the password: %s", r["mongodb.url"])
	}
	if r["recordcount"] != "10" {
		t.Errorf("plain value changed: %s", r["recordcount"])
	}
}

func TestRedactText(t *testing.T) {
	cases := []struct{ in, want string }{
		{"dial redis://bob:s3cret@127.0.0.1:6379: refused", "dial redis://bob:REDACTED@127.0.0.1:6379: refused"},
		{`parse "cassandra://bo#b:p/a@ss@127.0.0.1": bad port`, `parse "cassandra://bo#b:REDACTED@127.0.0.1": bad port`},
		{"connect host=127.0.0.1 user=postgres password=hunter2 dbname=x", "connect host=127.0.0.1 user=postgres password=REDACTED dbname=x"},
		{"host=h password='a b c' sslmode=off", "host=h password=REDACTED sslmode=off"},
		{"http://127.0.0.1:8000/?token=abc&x=1 failed", "http://127.0.0.1:8000/?token=REDACTED&x=1 failed"},
		{"no credentials at http://127.0.0.1:8000/x", "no credentials at http://127.0.0.1:8000/x"},
		{"redis: read user123: EOF", "redis: read user123: EOF"},
		// Redis' clients read a URL's one word of userinfo as the password;
		// other schemes' one word is a user's name.
		{"dial redis://s3cret@127.0.0.1:6379 and rediss://hunter2@h:1", "dial redis://REDACTED@127.0.0.1:6379 and rediss://REDACTED@h:1"},
		{"postgres://bob@h/db", "postgres://bob@h/db"},
		// An http(s) URL's user without a password that is a token (a
		// GitHub or GitLab token's prefix, or 20 letters and digits mixed)
		// is hidden; a user's name is kept, in every scheme.
		{"git clone https://ghp_hunter2AbCdEfGhIjKlMnOpQrStUvWxYz0123@github.com/org/repo", "git clone https://REDACTED@github.com/org/repo"},
		{"git clone https://github_pat_11hunter2x@github.com/org/repo.git", "git clone https://REDACTED@github.com/org/repo.git"},
		{"git clone 'https://glpat-hunter2xYz@gitlab.com/org/repo'", "git clone 'https://REDACTED@gitlab.com/org/repo'"},
		{"pip install git+https://0f3a9c7hunter2b81d4e6f0a2c9b7d3e1f5a8c6b4@github.com/org/pkg", "pip install git+https://REDACTED@github.com/org/pkg"},
		{"git clone https://ghp_hunter2Xy@github.com:443/org/repo@v1", "git clone https://REDACTED@github.com:443/org/repo@v1"},
		{"postgres://postgres@127.0.0.1/db ssh://git@github.com/org/repo mongodb://user@host/db", "postgres://postgres@127.0.0.1/db ssh://git@github.com/org/repo mongodb://user@host/db"},
		{"https://bob@h/x https://continuous-integration-bot@h/x https://ContinuousIntegrationBot2024@h/x", "https://bob@h/x https://continuous-integration-bot@h/x https://ContinuousIntegrationBot2024@h/x"},
		// A list of URLs (server.metrics): each keeps its own host.
		{"http://127.0.0.1:9100/metrics,http://bob:s3cret@db2:9100/metrics", "http://127.0.0.1:9100/metrics,http://bob:REDACTED@db2:9100/metrics"},
		{"http://a:s3cret@db1:9100/m,https://db2/m", "http://a:REDACTED@db1:9100/m,https://db2/m"},
		// A connection string's key file is a secret as tls.key is.
		{"postgres://u@h/db?sslmode=verify-full&sslkey=/k/client.key&sslcert=/k/c.pem", "postgres://u@h/db?sslmode=verify-full&sslkey=REDACTED&sslcert=/k/c.pem"},
		{"host=h sslkey=/k/client.key sslmode=require", "host=h sslkey=REDACTED sslmode=require"},
		{"mongodb://h/?tls=true&tlsCertificateKeyFile=/k/client.pem&tlsCAFile=/k/ca.pem", "mongodb://h/?tls=true&tlsCertificateKeyFile=REDACTED&tlsCAFile=/k/ca.pem"},
	}
	for _, c := range cases {
		if got := RedactText(c.in); got != c.want {
			t.Errorf("RedactText(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if strings.Contains(RedactText(c.in), "hunter2") || strings.Contains(RedactText(c.in), "s3cret") {
			t.Errorf("%q keeps a secret", c.in)
		}
		var r Redactor // what is hidden is known, wherever it is repeated
		r.Hidden(c.in)
		if got := r.HideKnown("again: " + c.in); strings.Contains(got, "hunter2") || strings.Contains(got, "s3cret") {
			t.Errorf("Hidden(%q) does not know its secret: %q", c.in, got)
		}
	}
}

// A "-p" argument that is not key=value is quoted in its error with the
// value after a secret key's name hidden, as a key=value's would be.
func TestParseAssignmentHidesSecret(t *testing.T) {
	for arg, want := range map[string]string{
		"redis.password hunter1x":      `-p "redis.password REDACTED" is not key=value`,
		"mongodb.url:hunter2x":         `-p "mongodb.url:hunter2x" is not key=value`,
		"x.token:hunter3x":             `-p "x.token:REDACTED" is not key=value`,
		"novalue":                      `-p "novalue" is not key=value`,
		"recordcount 1000":             `-p "recordcount 1000" is not key=value`,
		"cmd redis-cli -a hunter4x":    `-p "cmd redis-cli -a REDACTED" is not key=value`,
		" redis.password hunter5x":     `-p " redis.password REDACTED" is not key=value`,
		"redis.password\u00a0hunter6x": `-p "redis.password REDACTED" is not key=value`,
		"redis.password\rhunter7x":     `-p "redis.password REDACTED" is not key=value`,
	} {
		if _, _, err := ParseAssignment(arg); err == nil || err.Error() != want {
			t.Errorf("ParseAssignment(%q): %v, want %s", arg, err, want)
		}
	}
}

// Every getter records the key it was asked for, set or not; Unread is
// what is set and nobody asked for; a clone starts with nothing asked.
func TestUnreadAndAsked(t *testing.T) {
	p := New()
	for _, k := range []string{"a", "b", "c", "d", "e"} {
		p.Set(k, "1", "test")
	}
	p.String("a", "")
	p.Int64("b", 0)
	p.Bool("nosuch", false)
	p.Float("c", 0)
	if got := strings.Join(p.Unread(), ","); got != "d,e" {
		t.Errorf("unread %s, want d,e", got)
	}
	if got := strings.Join(p.Asked(), ","); got != "a,b,c,nosuch" {
		t.Errorf("asked %s, want a,b,c,nosuch", got)
	}
	p.Keys()
	p.Source("d")
	p.Redacted()
	if got := len(p.Clone().Unread()); got != 5 || len(p.Unread()) != 2 {
		t.Errorf("listing, sources and clones count as reads: %d unread in the clone", got)
	}
}

// Numbers are finite; names and values in messages are short and
// printable; a line too long for the reader names its line.
func TestBadInputInMessages(t *testing.T) {
	p := New()
	p.Set("target", "NaN", "-p")
	p.Set("x", "+Inf", "-p")
	p.Set("rates", "1,inf", "-p")
	p.Set(strings.Repeat("k", 10<<20), "1", "-p")
	p.Set("bad\x01key", strings.Repeat("v", 1000), "-p")
	if _, err := p.Float("target", 0); err == nil || !strings.Contains(err.Error(), `"NaN" is not a finite number`) {
		t.Errorf("NaN: %v", err)
	}
	if _, err := p.FloatRange("x", 0, 0, 1e9); err == nil {
		t.Error("+Inf accepted")
	}
	if _, err := p.Floats("rates", ""); err == nil {
		t.Error("inf in a list accepted")
	}
	if err := p.Errorf(strings.Repeat("k", 10<<20), "unknown"); len(err.Error()) > 200 || !strings.Contains(err.Error(), "(10485760 bytes)") {
		t.Errorf("a 10 MB name gives a message of %d bytes", len(err.Error()))
	}
	if _, err := p.Int64("bad\x01key", 0); err == nil || !strings.Contains(err.Error(), `property "bad\x01key"`) || len(err.Error()) > 200 {
		t.Errorf("binary name or long value: %q", err)
	}
	long := "a=" + strings.Repeat("x", 17<<20) + "\n"
	if err := New().Parse(strings.NewReader("b=1\n"+long), "w"); err == nil || err.Error() != "w:2: a line of more than 16 MB" {
		t.Errorf("long line: %v", err)
	}
}

// What Write writes, Parse reads back the same.
func TestWriteParseRoundTrip(t *testing.T) {
	p := New()
	for k, v := range map[string]string{
		"recordcount": "1000", "mongodb.url": "mongodb://u:p@127.0.0.1:27017/?a=b&c=d", "path": `C:\dir\file`,
		"multi": "line one\nline two\ttab", "lead": "  spaced ", "empty": "", "unicode": "Zürich ✓", "hash": "#not a comment",
	} {
		p.Set(k, v, "test")
	}
	var b strings.Builder
	if err := p.Write(&b); err != nil {
		t.Fatal(err)
	}
	q := New()
	if err := q.Parse(strings.NewReader(b.String()), "written"); err != nil {
		t.Fatal(err)
	}
	for _, k := range p.Keys() {
		want, _ := p.Get(k)
		if got, ok := q.Get(k); !ok || got != want {
			t.Errorf("%s: read back %q, want %q\nfile:\n%s", k, got, want, b.String())
		}
	}
	if len(q.Keys()) != len(p.Keys()) {
		t.Errorf("%d keys read back, want %d", len(q.Keys()), len(p.Keys()))
	}
}

// Of builds properties from Go without a source for each.
func TestOf(t *testing.T) {
	p := Of("recordcount", "1000", "redis.url", "redis://127.0.0.1:6379", "odd")
	if v, _ := p.Get("recordcount"); v != "1000" || p.Source("recordcount") != "Go" {
		t.Errorf("recordcount %q from %q", v, p.Source("recordcount"))
	}
	if v, ok := p.Get("odd"); !ok || v != "" {
		t.Errorf("an odd last key: %q %v", v, ok)
	}
	if _, err := Of("recordcount", "x").Int64("recordcount", 0); err == nil || !strings.Contains(err.Error(), "Go") {
		t.Errorf("a bad value's message names its source: %v", err)
	}
}

// A credential is found by what it is: the value of any name that says
// password, passwd, pwd, pass, secret, token, auth, credential or a key
// that is one; any argument after an option or command word that takes a
// password. Every secret below is "hunter" and a number.
func TestRedactTextFindsCredentials(t *testing.T) {
	cases := []struct{ in, want string }{
		{"AUTH default hunter1", "AUTH default REDACTED"}, // the user name is kept
		{"AUTH hunter2", "AUTH REDACTED"},
		{"HELLO 3 AUTH default hunter3 SETNAME bench", "HELLO 3 AUTH default REDACTED SETNAME bench"},
		{"redis-cli -h 127.0.0.1 -a hunter4 PING", "redis-cli -h 127.0.0.1 -a REDACTED PING"},
		{"redis-cli --user bench --pass hunter5 auth bench hunter6", "redis-cli --user bench --pass REDACTED auth bench REDACTED"},
		{"mysql -u root -phunter7 ycsb", "mysql -u root -pREDACTED ycsb"},
		{"/usr/bin/mysql -p ycsb", "/usr/bin/mysql -p ycsb"}, // -p alone prompts; ycsb is the database
		{`curl -s -u admin:hunter8 http://127.0.0.1:8091/pools`, `curl -s -u admin:REDACTED http://127.0.0.1:8091/pools`},
		{`curl --user=admin:hunter9 http://127.0.0.1:8091/`, `curl --user=admin:REDACTED http://127.0.0.1:8091/`},
		{`cqlsh 127.0.0.1 -u cassandra -p hunter10 -e 'select 1'`, `cqlsh 127.0.0.1 -u cassandra -p REDACTED -e 'select 1'`},
		{`sudo env X=1 sshpass -phunter11 ssh 127.0.0.1`, `sudo env X=1 sshpass -pREDACTED ssh 127.0.0.1`},
		{`{"password": "hunter12", "user": "bob"}`, `{"password": REDACTED, "user": "bob"}`},
		{`{'pwd': 'hunter13'}`, `{'pwd': REDACTED}`},
		{`"apiKey":"hunter14"`, `"apiKey":REDACTED`},
		{"ACL SETUSER bench on >hunter15 ~* +@all", "ACL SETUSER bench on >REDACTED ~* +@all"},
		{"acl setuser bench on #hunter16 <hunter17", "acl setuser bench on #REDACTED <REDACTED"},
		{"CONFIG SET requirepass hunter18", "CONFIG SET requirepass REDACTED"},
		{"ALTER ROLE bench WITH PASSWORD 'hunter19'", "ALTER ROLE bench WITH PASSWORD REDACTED"},
		{"create user bench identified by 'hunter20'", "create user bench identified by REDACTED"},
		{"couchbase-cli bucket-create -c 127.0.0.1 -u Administrator -p hunter21; echo done", "couchbase-cli bucket-create -c 127.0.0.1 -u Administrator -p REDACTED; echo done"},
		{"x --token=hunter22 --api-key hunter23 --port 1", "x --token=REDACTED --api-key REDACTED --port 1"},
		{"PGPASSWORD=hunter24 psql -h 127.0.0.1 -p 5432", "PGPASSWORD=REDACTED psql -h 127.0.0.1 -p 5432"},
		{"MIGRATE 127.0.0.1 6380 k 0 1000 AUTH2 bench hunter25", "MIGRATE 127.0.0.1 6380 k 0 1000 AUTH2 bench REDACTED"},
		{"migrate 127.0.0.1 6380 k 0 1000 auth hunter27 keys a", "migrate 127.0.0.1 6380 k 0 1000 auth REDACTED keys a"},
		// A quote that ends an argument is not the password's: the commands
		// after it are still read.
		{`curl -d "token=hunter28" -u admin:hunter29 http://127.0.0.1/`, `curl -d "token=REDACTED" -u admin:REDACTED http://127.0.0.1/`},
		{`echo "requirepass hunter30" && redis-cli -a hunter31 PING`, `echo "requirepass REDACTED" && redis-cli -a REDACTED PING`},
		{`x password=ab"hunter32"cd y`, `x password=REDACTED y`},
		// Headers, shell calls, escaped quotes.
		{`curl -H "Authorization: Bearer hunter33" -H 'X-Api-Key: hunter34' http://127.0.0.1/`, `curl -H "Authorization: Bearer REDACTED" -H 'X-Api-Key: REDACTED' http://127.0.0.1/`},
		{`db.getSiblingDB("admin").auth("bench", "hunter35")`, `db.getSiblingDB("admin").auth("bench", REDACTED)`},
		{`db.changeUserPassword('bench', 'hunter36')`, `db.changeUserPassword('bench', REDACTED)`},
		{"ALTER USER bench IDENTIFIED WITH mysql_native_password BY 'hunter37'", "ALTER USER bench IDENTIFIED WITH mysql_native_password BY REDACTED"},
		{"SET PASSWORD FOR 'bench'@'%' = 'hunter38'", "SET PASSWORD FOR 'bench'@'%' = REDACTED"},
		{"SET PASSWORD = PASSWORD('hunter39')", "SET PASSWORD = REDACTED)"},
		{"CREATE ROLE bench WITH PASSWORD = 'hunter40' AND LOGIN = true", "CREATE ROLE bench WITH PASSWORD = REDACTED AND LOGIN = true"},
		{`bash -c "echo \"AUTH default hunter41\" | redis-cli"`, `bash -c "echo \"AUTH default REDACTED\" | redis-cli"`},
		{"redis.pw=hunter42", "redis.pw=REDACTED"},
		// Left alone: prose, a record's key, a database's name, a port.
		{"num_tokens: 256", "num_tokens: 256"},
		{"FATAL: password authentication failed for user bench", "FATAL: password authentication failed for user bench"},
		{"DELETE FROM usertable WHERE YCSB_KEY = 'user1'", "DELETE FROM usertable WHERE YCSB_KEY = 'user1'"},
		{"mongodb://127.0.0.1/?authSource=admin dynamodb.primarykey=k", "mongodb://127.0.0.1/?authSource=admin dynamodb.primarykey=k"},
		{"redis-cli -p 6379 --no-auth-warning PING", "redis-cli -p 6379 --no-auth-warning PING"},
		{`{"shardCollection": "ycsb.t", "key": {"_id": 1}}`, `{"shardCollection": "ycsb.t", "key": {"_id": 1}}`},
		{`{"credentials": {"user": "a", "password": "hunter26"}}`, `{"credentials": {"user": "a", "password": REDACTED}}`},
	}
	for _, c := range cases {
		got := RedactText(c.in)
		if got != c.want {
			t.Errorf("RedactText(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if strings.Contains(got, "hunter") {
			t.Errorf("%q keeps a secret: %q", c.in, got)
		}
	}
}

func TestIsSecretKey(t *testing.T) {
	for name, want := range map[string]bool{
		"redis.password": true, "jdbc.passwd": true, "x.pwd": true, "redis.pass": true, "couchbase.secret": true,
		"dynamodb.sessiontoken": true, "mongodb.auth": true, "dynamodb.accesskey": true, "dynamodb.secretkey": true,
		"redis.tls.key": true, "key": false, "api_key": true, "x.apiKey": true, "AWS_SECRET_ACCESS_KEY": true, "credentials": true,
		"recordcount": false, "dynamodb.primarykey": false, "redis.indexkey": false, "cassandra.keyspace": false,
		"keyprefix": false, "ycsb_key": false, "mongodb.authsource": false, "redis.user": false, "tls.cert": false,
		"redis.pw": true, "nodetool-pw": true, "num_tokens": false, "author": false, "pwrlevel": false,
		"dynamodb.credentialsfile": true, "dynamodb.profile": false, "dynamodb.role.arn": false, "dynamodb.role.externalid": false, // AWS: an external ID is not a secret
		"sslkey": true, "tlsCertificateKeyFile": true, "sslPEMKeyFile": true, "sslcert": false, "sslrootcert": false, "tlsCAFile": false, // a connection string's key file
		"SharedAccessKey": true, "AccountKey": true, "partitionKey": false, "sortKey": false, "SharedAccessKeyName": false,
		"tlsPrivateKeyFile": true, "sslClientCertificateKeyFile": true, "tlsCertificateFile": false, "authMechanismProperties": true, // MONGODB-AWS's AWS_SESSION_TOKEN
	} {
		if got := IsSecretKey(name); got != want {
			t.Errorf("IsSecretKey(%q) = %v, want %v", name, got, want)
		}
	}
}

// A Redactor hides the secrets it knows wherever they are repeated: a
// step's output echoing a password its command line set, a property's
// value in a server's error; short values are left to the rules.
func TestRedactorKnownValues(t *testing.T) {
	var r Redactor
	p := New()
	p.Set("redis.password", "hunter1x", "-p")
	p.Set("mongodb.url", "mongodb://u:hunter2x@127.0.0.1/", "-p")
	p.Set("recordcount", "1000", "-p")
	p.Set("x.pwd", "pw", "-p")
	r.Known(p)
	r.Hidden(`PGPASSWORD=hunter3x sh -c 'echo $PGPASSWORD'; redis-cli -a "hunter4x" PING`)
	out := r.Redact("hunter3x\nERROR: bad password hunter1x near 'hunter2x' (1000 rows); hunter4x; pw is short")
	want := "REDACTED\nERROR: bad password REDACTED near 'REDACTED' (1000 rows); REDACTED; pw is short"
	if out != want {
		t.Errorf("Redact:\n got %q\nwant %q", out, want)
	}
	if len(p.Unread()) != 4 {
		t.Errorf("knowing the secrets read properties: unread %v", p.Unread())
	}
	var flags Redactor // a secret option's flag is no secret elsewhere
	flags.Hidden("mongodb.auth=true redis.tls.auth: none")
	if got := flags.HideKnown("tls=true auth none"); got != "tls=true auth none" {
		t.Errorf("HideKnown hides a flag: %q", got)
	}
	var zero Redactor
	if got := zero.Redact("password=hunter5x"); got != "password=REDACTED" {
		t.Errorf("zero Redactor: %q", got)
	}
}

// The forms a list of commands missed, found by general rules: a pair
// inside an option's value, name:value without a space, set KEY VALUE,
// a subcommand's -p, a one-dash option that says pass; and the
// token-bearing options of the drivers' URLs.
func TestRedactTextMoreForms(t *testing.T) {
	cases := []struct {
		in, want string
		read     []string // the secret as the program reads it, known exactly
	}{
		{"kubectl create secret generic db --from-literal=password=hunter1", "kubectl create secret generic db --from-literal=password=REDACTED", nil},
		{"docker run --env=POSTGRES_PASSWORD=hunter2 postgres", "docker run --env=POSTGRES_PASSWORD=REDACTED postgres", nil},
		{"helm install db bitnami/mysql --set=auth.rootPassword=hunter3", "helm install db bitnami/mysql --set=auth.rootPassword=REDACTED", nil},
		{`mongosh --eval 'db.createUser({user:"bench",pwd:"hunter4",roles:[]})'`, `mongosh --eval 'db.createUser({user:"bench",pwd:REDACTED,roles:[]})'`, nil},
		{"aws configure set aws_secret_access_key hunter5", "aws configure set aws_secret_access_key REDACTED", nil},
		{"docker login -u bench -p hunter6 127.0.0.1:5000", "docker login -u bench -p REDACTED 127.0.0.1:5000", nil},
		{"openssl pkcs12 -in k.p12 -passin pass:hunter7 -passout pass:hunter8", "openssl pkcs12 -in k.p12 -passin pass:REDACTED -passout pass:REDACTED", nil},
		{"openssl rsa -in k.pem -passin env:KEYPASS", "openssl rsa -in k.pem -passin REDACTED", nil},
		{"keytool -list -keystore k.jks -storepass hunter9", "keytool -list -keystore k.jks -storepass REDACTED", nil},
		{"memtier_benchmark -s 127.0.0.1 -a hunter10", "memtier_benchmark -s 127.0.0.1 -a REDACTED", nil},
		{"mongodb://127.0.0.1/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:hunter11",
			"mongodb://127.0.0.1/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:REDACTED", nil},
		{"mongodb://127.0.0.1/?authMechanismProperties=SERVICE_NAME:x,AWS_SESSION_TOKEN:hunter12&tls=true",
			"mongodb://127.0.0.1/?authMechanismProperties=SERVICE_NAME:REDACTED,AWS_SESSION_TOKEN:REDACTED&tls=true", nil},
		{"mongodb://127.0.0.1/?authMechanismProperties=AWS_SESSION_TOKEN%3Ahunter13%2Bx", "mongodb://127.0.0.1/?authMechanismProperties=AWS_SESSION_TOKEN%3AREDACTED", nil},
		{"authMechanismProperties=AWS_SESSION_TOKEN:hunter14", "authMechanismProperties=REDACTED", nil},
		{"mongodb://h/?tlsPrivateKeyFile=/k/hunter15.pem&sslClientCertificateKeyFile=/k/hunter16.pem&tlsCertificateKeyFilePassword=hunter17&sslClientCertificateKeyPassword=hunter18&tlsCertificateFile=/k/c.pem",
			"mongodb://h/?tlsPrivateKeyFile=REDACTED&sslClientCertificateKeyFile=REDACTED&tlsCertificateKeyFilePassword=REDACTED&sslClientCertificateKeyPassword=REDACTED&tlsCertificateFile=/k/c.pem", nil},
		{"postgres://u@127.0.0.1/db?sslpassword=hunter19&sslmode=require", "postgres://u@127.0.0.1/db?sslpassword=REDACTED&sslmode=require", nil},
		{"http://127.0.0.1:9000/b?X-Amz-Security-Token=hunter20&X-Amz-Date=1", "http://127.0.0.1:9000/b?X-Amz-Security-Token=REDACTED&X-Amz-Date=1", nil},
		// An API key as a URL's query option named key (Google's, many
		// REST APIs'); key=x outside a URL's query is a record's key.
		{"curl 'https://api.example.com/v1/x?key=hunter58&q=1'", "curl 'https://api.example.com/v1/x?key=REDACTED&q=1'", []string{"hunter58"}},
		{"curl https://api.example.com/v1/x?q=1&KEY=hunter59", "curl https://api.example.com/v1/x?q=1&KEY=REDACTED", []string{"hunter59"}},
		// An Azure Function's key (?code=), a SAS signature (sig=): only in
		// a URL's query.
		{"curl 'https://fn.azurewebsites.net/api/f?code=hunter310&name=x'", "curl 'https://fn.azurewebsites.net/api/f?code=REDACTED&name=x'", []string{"hunter310"}},
		{"az storage blob download --blob-url 'https://a.blob.core.windows.net/c/b?sv=2021-08-06&se=2030&sr=b&sp=r&sig=hunter311%3D'",
			"az storage blob download --blob-url 'https://a.blob.core.windows.net/c/b?sv=2021-08-06&se=2030&sr=b&sp=r&sig=REDACTED'", []string{"hunter311%3D", "hunter311="}},
		{"grep code=200 log; sig=x", "grep code=200 log; sig=x", nil},
		{"connect: token:hunter21", "connect: token:REDACTED", nil},
		{`wget --header="X-Auth-Token: hunter22" http://127.0.0.1/`, `wget --header="X-Auth-Token: REDACTED" http://127.0.0.1/`, nil},
		// A Cookie header's values (a session's), a Set-Cookie's cookie (its
		// attributes shown), in a request, an answer, JSON.
		{`curl -H 'Cookie: session=hunter60; theme=Xhunter61' http://127.0.0.1/`, `curl -H 'Cookie: session=REDACTED; theme=REDACTED' http://127.0.0.1/`, []string{"hunter60", "Xhunter61"}},
		{`curl -H "cookie:sid=\"hunter62\"" http://h/`, `curl -H "cookie:sid=REDACTED" http://h/`, []string{"hunter62"}},
		{"HTTP/1.1 200 OK\r\nSet-Cookie: sid=hunter63; Path=/; Max-Age=3600; HttpOnly\r\n", "HTTP/1.1 200 OK\r\nSet-Cookie: sid=REDACTED; Path=/; Max-Age=3600; HttpOnly\r\n", []string{"hunter63"}},
		{`{"headers": {"Cookie": "sid=hunter64"}}`, `{"headers": {"Cookie": "sid=REDACTED"}}`, []string{"hunter64"}},
		{"echo Cookie: sid=hunter65; echo ok", "echo Cookie: sid=REDACTED; echo ok", []string{"hunter65"}},
		// curl's own cookie options: their NAME=VALUE pairs as a Cookie
		// header's; a cookie file's name stays.
		{"curl -b 'session=hunter300' https://h/", "curl -b 'session=REDACTED' https://h/", []string{"hunter300"}},
		{`curl --cookie "sessionid=hunter301; theme=Xhunter302" http://h/`, `curl --cookie "sessionid=REDACTED; theme=REDACTED" http://h/`, []string{"hunter301", "Xhunter302"}},
		{"curl -s -b sid=hunter303 -c jar.txt http://h/", "curl -s -b sid=REDACTED -c jar.txt http://h/", []string{"hunter303"}},
		{"curl -bsid=hunter304 http://h/", "curl -bsid=REDACTED http://h/", []string{"hunter304"}},
		{"curl -b cookies.txt -c cookies.txt http://h/", "curl -b cookies.txt -c cookies.txt http://h/", nil},
		{"git checkout -b feature=x", "git checkout -b feature=x", nil},
		// Escaped quotes in a double-quoted shell string; ACL SETUSER's >pw
		// quoted as a shell must, a redirection not hidden; a value ending at
		// a shell's separator, the rest of the line kept.
		{`echo mongosh --eval "db.createUser({user:\"u\", pwd:\"hunter23\", roles:[]})"; echo ok`, `echo mongosh --eval "db.createUser({user:\"u\", pwd:REDACTED, roles:[]})"; echo ok`, []string{"hunter23"}},
		{`mongosh --eval "db.createUser({pwd:\"hunter 24\"})"`, `mongosh --eval "db.createUser({pwd:REDACTED})"`, []string{"hunter 24"}},
		{`redis-cli ACL SETUSER u on '>hunter25' "#hunter26" >/dev/null`, `redis-cli ACL SETUSER u on '>REDACTED' "#REDACTED" >/dev/null`, []string{"hunter25", "hunter26"}},
		{"echo Authorization: Bearer hunter27; echo ok", "echo Authorization: Bearer REDACTED; echo ok", []string{"hunter27"}},
		{"echo Authorization: Bearer hunter28 >/dev/null", "echo Authorization: Bearer REDACTED >/dev/null", []string{"hunter28"}},
		{"echo mongodb://u@h/?authMechanismProperties=AWS_SESSION_TOKEN:hunter29; echo ok", "echo mongodb://u@h/?authMechanismProperties=AWS_SESSION_TOKEN:REDACTED; echo ok", []string{"hunter29"}},
		{"echo mongodb://h/?token=hunter30|cat", "echo mongodb://h/?token=REDACTED|cat", []string{"hunter30"}},
		{"echo passwd=hunter31| cat", "echo passwd=REDACTED| cat", []string{"hunter31"}},
		{"echo token=hunter32>/dev/null", "echo token=REDACTED>/dev/null", []string{"hunter32"}},
		{`host=127.0.0.1 password=hunter\33 sslmode=disable`, `host=127.0.0.1 password=REDACTED sslmode=disable`, []string{"hunter33", `hunter\33`}},
		{"psql postgres://u:hunter%4034@127.0.0.1/db", "psql postgres://u:REDACTED@127.0.0.1/db", []string{"hunter@34", "hunter%4034"}},
		// A client run inside a command substitution; a password the shell
		// reads from a variable or a command, shown whole.
		{`echo "$(redis-cli -a hunter37 PING)"`, `echo "$(redis-cli -a REDACTED PING)"`, []string{"hunter37"}},
		{"out=`redis-cli -a hunter38 PING`", "out=`redis-cli -a REDACTED PING`", []string{"hunter38"}},
		{`redis-cli -a $(cat /run/pw) PING`, `redis-cli -a $(cat /run/pw) PING`, nil},
		{`redis-cli -a "$REDIS_PW" PING`, `redis-cli -a REDACTED PING`, nil},
		// Quotes inside a word, a shell's default: the password the
		// program reads is known.
		{`redis-cli -a Sec'ret'QtG7 ping`, `redis-cli -a REDACTED ping`, []string{"SecretQtG7"}},
		{`redis-cli -a Sec"ret"DqS19 ping`, `redis-cli -a REDACTED ping`, []string{"SecretDqS19"}},
		{`redis-cli -a ${PW:-SecretDfX24} ping`, `redis-cli -a ${PW:REDACTED} ping`, []string{"SecretDfX24"}},
		// Escapes the program decodes: the password it reads is known.
		{`printf 'requirepass \x53ecretHexR1\n' > conf`, `printf 'requirepass REDACTED' > conf`, []string{"SecretHexR1"}},
		{`echo 'requirepass S\0145cretOctR2' > conf2`, `echo 'requirepass REDACTED' > conf2`, []string{"SecretOctR2"}},
		{`redis-cli -a $'\x53ecretAnsE5' PING`, `redis-cli -a REDACTED PING`, []string{"SecretAnsE5"}},
		// A line written with C's escapes: the value ends at the escape.
		{`printf 'requirepass hunter35\n' >> redis.conf`, `printf 'requirepass REDACTED' >> redis.conf`, []string{"hunter35"}},
		{`echo -e "masterauth hunter36\tx"`, `echo -e "masterauth REDACTED"`, []string{"hunter36"}},
		// A line ended by a backslash goes on in the next: one command.
		{"redis-cli -h 127.0.0.1 \\\n  -a hunter39 ping", "redis-cli -h 127.0.0.1 \\\n  -a REDACTED ping", []string{"hunter39"}},
		{"cqlsh 127.0.0.1 \\\r\n -p hunter40 -e 'x'", "cqlsh 127.0.0.1 \\\r\n -p REDACTED -e 'x'", []string{"hunter40"}},
		{"cqlsh 127.0.0.1\n -p 9042", "cqlsh 127.0.0.1\n -p 9042", nil},
		// JSON inside a double-quoted shell string: its quotes escaped.
		{`curl -d "{\"token\": \"hunter41\"}" http://127.0.0.1:1/`, `curl -d "{\"token\": REDACTED}" http://127.0.0.1:1/`, []string{"hunter41"}},
		{`echo "{\"password\":\"hunter42\"}" > /dev/null`, `echo "{\"password\":REDACTED}" > /dev/null`, []string{"hunter42"}},
		{`echo "{\"user\": \"bench\"}"`, `echo "{\"user\": \"bench\"}"`, nil},
		// A password the shell gives from a variable: where the variable is
		// set in the same text, its value is the secret.
		{`P=hunter43; redis-cli -a "$P" ping`, `P=REDACTED; redis-cli -a REDACTED ping`, []string{"hunter43"}},
		{`export RPW=hunter44 && redis-cli --pass "$RPW"`, `export RPW=REDACTED && redis-cli --pass REDACTED`, []string{"hunter44"}},
		{`X=hunter45; redis-cli -a ${X} ping`, `X=REDACTED; redis-cli -a ${X} ping`, []string{"hunter45"}},
		{`Q=hunter46; P=$Q; psql "password=$P"`, `Q=REDACTED; P=$Q; psql "password=REDACTED"`, []string{"hunter46"}},
		{`P=6379; redis-cli -p $P ping`, `P=6379; redis-cli -p $P ping`, nil},
		// An Azure connection string's keys, more clients' passwords, a Go
		// MySQL driver's DSN.
		{`Endpoint=sb://x/;SharedAccessKeyName=root;SharedAccessKey=hunter47;`, `Endpoint=sb://x/;SharedAccessKeyName=root;SharedAccessKey=REDACTED;`, []string{"hunter47"}},
		{`AccountName=a;AccountKey=hunter48;EndpointSuffix=x`, `AccountName=a;AccountKey=REDACTED;EndpointSuffix=x`, []string{"hunter48"}},
		{"mongostat -u u -p hunter49 --port 27017", "mongostat -u u -p REDACTED --port 27017", []string{"hunter49"}},
		{"htpasswd -b f user hunter50; htpasswd -nbB user hunter51", "htpasswd -b f user REDACTED; htpasswd -nbB user REDACTED", []string{"hunter50", "hunter51"}},
		{"htpasswd -c f user", "htpasswd -c f user", nil},
		{"dsn 'u:hunter52@tcp(127.0.0.1:3306)/d' and :hunter53@unix(/run/m.sock)/d", "dsn 'u:REDACTED@tcp(127.0.0.1:3306)/d' and :REDACTED@unix(/run/m.sock)/d", []string{"hunter52", "hunter53"}},
		// A password's hash as ACL LIST shows it.
		{"[user bench on #" + strings.Repeat("5e884898", 8) + " ~* +@all]", "[user bench on #REDACTED ~* +@all]", nil},
		{`1) "user default on #` + strings.Repeat("0a", 32) + ` ~*"; issue #12`, `1) "user default on #REDACTED ~*"; issue #12`, nil},
		// redis-cli's CONFIG GET answer, name and value on lines of their own.
		{"maxclients\n10000\nrequirepass\nhunter55\ntls-key-file-pass\r\nhunter 56\n", "maxclients\n10000\nrequirepass\nREDACTED\ntls-key-file-pass\r\nREDACTED\n", []string{"hunter55", "hunter 56"}},
		// Left alone: a port, a subcommand without a password, SQL's SET.
		{"docker run -p 6379:6379 redis", "docker run -p 6379:6379 redis", nil},
		{"redis-cli CONFIG SET maxmemory 1gb", "redis-cli CONFIG SET maxmemory 1gb", nil},
		{"time: 12:30 host: 127.0.0.1:5432", "time: 12:30 host: 127.0.0.1:5432", nil},
		{"# cookies: none; cookie jar at /tmp/c", "# cookies: none; cookie jar at /tmp/c", nil},
		{"servbench run -p keyprefix=user -p key=user1 http://h/read?keyspace=ycsb&keyprefix=user&id=key", "servbench run -p keyprefix=user -p key=user1 http://h/read?keyspace=ycsb&keyprefix=user&id=key", nil},
	}
	for _, c := range cases {
		got := RedactText(c.in)
		if got != c.want {
			t.Errorf("RedactText(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if strings.Contains(got, "hunter") {
			t.Errorf("%q keeps a secret: %q", c.in, got)
		}
		var r Redactor // what a rule hides is known by value, as written and as its program reads it
		r.Hidden(c.in)
		if h := r.HideKnown("said again: " + c.in); strings.Contains(h, "hunter") {
			t.Errorf("Hidden(%q) does not know its secret: %q", c.in, h)
		}
		for _, s := range c.read {
			if h := r.HideKnown("as read: " + s + "."); h != "as read: REDACTED." {
				t.Errorf("Hidden(%q) does not know %q as its program reads it: %q", c.in, s, h)
			}
		}
	}
}

// Properties are written with every secret any of them holds hidden
// wherever another repeats it: a token in mongodb.url's options, a
// password repeated under a name that says nothing.
func TestRedactedByValue(t *testing.T) {
	p := New()
	p.Set("mongodb.url", "mongodb://127.0.0.1/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:hunter1x", "-p")
	p.Set("note", "the token is hunter1x", "-p")
	p.Set("redis.password", "hunter2x", "-p")
	p.Set("server.setting.requirepass_copy", "hunter2x", "-p")
	p.Set("recordcount", "1000", "-p")
	for k, v := range p.Redacted() {
		if strings.Contains(v, "hunter") {
			t.Errorf("%s written in clear: %s", k, v)
		}
	}
	if got := p.Redacted()["recordcount"]; got != "1000" {
		t.Errorf("recordcount: %q", got)
	}
	p.Set("operationcount", "hunter2x", "-p") // a message quoting a value hides it too
	if _, err := p.Int64("operationcount", 0); err == nil || strings.Contains(err.Error(), "hunter") {
		t.Errorf("message: %v", err)
	}
	var plan Redactor
	plan.Add("hunter3x")
	m := plan.Map(map[string]string{"x": "a hunter3x b", "y.password": "hunter4x", "z": "hunter4x"})
	for k, v := range m {
		if strings.Contains(v, "hunter") {
			t.Errorf("Map: %s written in clear: %s", k, v)
		}
	}
}

// A known secret that is also the end of a property's name (the password
// "password") is hidden wherever it stands but in the name: a message
// naming couchbase.password stays readable.
func TestHideKnownKeepsPropertyNames(t *testing.T) {
	var r Redactor
	r.Add("password")
	got := r.HideKnown("over couchbase:// couchbase.password would cross in clear; password, :password@, x.passwordy")
	want := "over couchbase:// couchbase.password would cross in clear; REDACTED, :REDACTED@, x.REDACTEDy"
	if got != want {
		t.Errorf("HideKnown:\n got %s\nwant %s", got, want)
	}
}

// A malformed escape in a property file is said without the value of a
// secret key, nor a password a rule finds in another's.
func TestParseErrorHidesSecret(t *testing.T) {
	for src, want := range map[string]string{
		"recordcount=1\nredis.password=hunter9\\u00zz1\n": "f:2: property redis.password: a malformed \\u escape in its value (at byte 8 of 14)",
		"mongodb.url=mongodb://u:hunter8@h/\\u00zz\n":     "malformed \\u escape",
		"field\\u00zzname=1\n":                            "malformed \\u escape in its key",
		"redis.password\\ hunter6x\\u12=1\n":              "malformed \\u escape in its key",
		// another property's value, which is a secret's
		"redis.password=hunter7x\nnote=hunter7x \\uZZZZ\n": "f:2: property note: a malformed \\u escape in its value",
	} {
		err := New().Parse(strings.NewReader(src), "f")
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "hunter") {
			t.Errorf("%q: %v, want %q and no password", src, err, want)
		}
	}
}

// A password a command reads from a variable is hidden where the variable
// is set, however the command uses it: in a subshell, a command
// substitution, a loop, beside other text, through an expansion or
// another variable.
func TestVariablesUsedAsPasswords(t *testing.T) {
	for _, form := range []string{
		`(P=hunter1; redis-cli -a $P)`,
		`X=$(P=hunter2; redis-cli -a "$P")`,
		`for P in hunter3; do redis-cli -a "$P"; done`,
		`P=hunter4; redis-cli -a $P,x`,
		`P=hunter5; redis-cli -a $P.x`,
		`P=hunter6; redis-cli -a "$P"-x`,
		`P=hunter7; redis-cli -a x/$P`,
		`P=hunter8; redis-cli -a "$P@"`,
		`P=hunter9x; redis-cli -a "${P%x}"`,
		`P=hunter10; redis-cli -a "${P:-y}"`,
		`P=hunter11; Q=x$P; redis-cli -a "$Q"`,
		`P=hunter12; redis-cli --password=$P:x`,
		`P=hunter13; redis-cli -a "${P}x"`,
	} {
		if got := RedactText(form); strings.Contains(got, "hunter") {
			t.Errorf("%s: %s", form, got)
		}
	}
}

// A variable's value given by the shell in other ways than P=pw is hidden
// too: appended (P+=pw), defaulted (${P:=pw}), in an eval's string, or
// printed by a command substitution.
func TestVariablesSetOtherWays(t *testing.T) {
	for _, form := range []string{
		`P=Abcd9; P+=hunter21; redis-cli -a "$P"`,
		`: ${P:=hunter22}; redis-cli -a "$P"`,
		`eval "P=hunter23"; redis-cli -a "$P"`,
		`P=$(echo hunter24); redis-cli -a "$P"`,
		"P=`echo hunter25`; redis-cli -a \"$P\"",
	} {
		if got := RedactText(form); strings.Contains(got, "hunter") {
			t.Errorf("%s: %s", form, got)
		}
	}
}

// Bash's other ways of giving the variable a password option reads its
// value are hidden too: a name reference, an array's element or literal,
// an associative array, printf -v.
func TestBashVariablesAsPasswords(t *testing.T) {
	for _, form := range []string{
		`P=hunter31; declare -n R=P; redis-cli -a "$R"`,
		`P[0]=hunter32; redis-cli -a "${P[0]}"`,
		`printf -v P %s hunter33; redis-cli -a "$P"`,
		`declare -A M=([k]=hunter34); redis-cli -a "${M[k]}"`,
		`P=([0]=hunter35); redis-cli -a "${P[0]}"`,
		`P=(hunter36); redis-cli -a "$P"`,
		`P+=(hunter37); redis-cli -a "${P[1]}"`,
		`set -- hunter40; redis-cli -a "$1"`,
		`set -e; set -- x hunter41; redis-cli -a "${2}"`,
		`P="hunter42""gggg"; mysql -p"$P"`,
		`P=hunter43; redis-cli -a $P"hunter44"`,
	} {
		if got := RedactText(form); strings.Contains(got, "hunter") {
			t.Errorf("%s: %s", form, got)
		}
	}
	// A value holding what also follows it in the command (P="a;b";
	// redis-cli ...) is learned whole, and nothing else is: the command's
	// words stay as written.
	for _, form := range []string{
		`P="a;bhunter45"; redis-cli -a "$P" ping`,
		`P='hunt;er46 x'; redis-cli -a "$P"`,
		`redis-cli -a "x;hunter47 -a " ping; redis-cli -a hunter48 ping`,
	} {
		var r Redactor
		r.Hidden(form)
		got := r.Redact(form + "\necho " + form)
		if strings.Contains(got, "hunt") || strings.Count(got, "redis-cli -a ") != 2*strings.Count(form, "redis-cli -a ") {
			t.Errorf("%s: %s", form, got)
		}
	}
	// An array's literal is learned element by element: the step's output
	// of the value alone is hidden.
	var r Redactor
	r.Hidden(`P=(hunter38 hunter39); redis-cli -a "$P"`)
	if got := r.Redact("got -a hunter38 and hunter39"); strings.Contains(got, "hunter") {
		t.Errorf("an array's elements not learned: %s", got)
	}
}

// A property's value that is a URL as a whole has its password hidden
// whatever bytes it holds (| > ' ` and spaces end a URL in free text, but
// the drivers take them), there and wherever it is repeated.
func TestURLPasswordOfAnyBytes(t *testing.T) {
	for i, pw := range []string{"ab|hunter51", "a>hunter52", "a hunter53", "a`hunter54", "a'hunter55", "a/b@hunter56"} {
		for _, v := range []string{
			"mongodb://u:" + pw + "@127.0.0.1:1/ycsb",
			"mongodb://u:" + pw + "@h1:1,h2:2/ycsb?replicaSet=x&w=1",
			"redis://" + pw + "@127.0.0.1:6379",
			" postgres://u:" + pw + "@127.0.0.1/db",
		} {
			if got := RedactValue("x.url", v); strings.Contains(got, "hunter") || !strings.Contains(got, "@") {
				t.Errorf("%d: RedactValue(%q) = %q", i, v, got)
			}
			p := New()
			p.Set("x.url", v, "")
			var r Redactor
			r.Known(p)
			if got := r.Redact("echo " + pw + "; " + v); strings.Contains(got, "hunter") {
				t.Errorf("%d: known from %q: %q", i, v, got)
			}
		}
	}
	if got := RedactValue("x.url", "https://ghp_hunter57x@github.com/o/r"); got != "https://REDACTED@github.com/o/r" {
		t.Errorf("a token as an https URL's user: %q", got)
	}
	// A token as the user, a password after it: both hidden.
	for v, want := range map[string]string{
		"https://ghp_hunter320x:x-oauth-basic@github.com/o/r": "https://REDACTED:REDACTED@github.com/o/r",
		"https://ghp_hunter321x:@github.com/o/r":              "https://REDACTED:@github.com/o/r",
		"https://bob:hunter322@h/x":                           "https://bob:REDACTED@h/x",
	} {
		if got := RedactValue("x.url", v); got != want {
			t.Errorf("RedactValue(%q) = %q, want %q", v, got, want)
		}
		if got := RedactText("git clone " + v + " d"); got != "git clone "+want+" d" {
			t.Errorf("RedactText(%q) = %q, want %q", v, got, want)
		}
		var r Redactor
		r.Hidden("git clone " + v)
		if got := r.HideKnown("echo " + v[8:strings.IndexAny(v[8:], ":")+8]); strings.Contains(got, "hunter") && !strings.Contains(v, "bob") {
			t.Errorf("Hidden(%q) does not know the token: %q", v, got)
		}
	}
	for _, v := range []string{"mongodb://127.0.0.1/ycsb", "mongodb://u@h/db", "http://h/a@b?x=@y", "cassandra://127.0.0.1:9042", "https://bob@h/x"} {
		if got := RedactValue("x.url", v); got != v {
			t.Errorf("RedactValue(%q) = %q: nothing to hide", v, got)
		}
	}
}

// A password a script gives where no rule reads its text: through a
// function's or sh -c's positional parameters, a command substitution, an
// escape inside sh -c's double quotes, a here-string read into a
// variable, an indirection, a quoted AUTH, settings after CONFIG SET or
// SENTINEL SET, an ACL file's here-document, helm's --set lists. The
// shell's own reading finds each (shellSecrets), and the value is hidden
// in the script and wherever it is repeated.
func TestShellEvaluatedSecrets(t *testing.T) {
	for form, secret := range map[string]string{
		`f() { redis-cli -a "$1" ping; }; f hunter60`:                      "hunter60",
		`sh -c 'redis-cli -a "$1" ping' sh hunter61`:                       "hunter61",
		"redis-cli -a `echo hunter62` ping":                                "hunter62",
		`redis-cli -a $(echo hunter63) ping`:                               "hunter63",
		`redis-cli --pass=$(printf %s hunter64) ping`:                      "hunter64",
		`sh -c "redis-cli -a hunter65 ping > \$HOME/log"; echo done`:       "hunter65",
		`read -r P <<< hunter66; redis-cli -a "$P"`:                        "hunter66",
		`IFS= read -r P < <(echo hunter67); redis-cli -a "$P"`:             "hunter67",
		`N=P; P=hunter68; redis-cli -a "${!N}" ping`:                       "hunter68",
		`redis-cli -h h "AUTH" hunter69`:                                   "hunter69",
		`redis-cli -h h 'auth' hunter70`:                                   "hunter70",
		`redis-cli CONFIG SET maxmemory 1gb tls-key-file-pass hunter71`:    "hunter71",
		`redis-cli -p 26379 SENTINEL SET mymaster auth-pass hunter72`:      "hunter72",
		"cat > users.acl <<EOF\nuser default on >hunter73 ~* +@all\nEOF\n": "hunter73",
		`helm install r c --set auth.password={hunter74}`:                  "hunter74",
		`helm install r c --set 'auth.passwords={hunter75,x}'`:             "hunter75",
		`eval "redis-cli -a hunter76 ping"`:                                "hunter76",
		`P=hunter77; bash -c "redis-cli -a $P ping"`:                       "hunter77",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
}

// A password hidden inside sh -c's double quotes leaves the rest of the
// string as written: the copy of the step means the same command.
func TestQuotedScriptKeptAsWritten(t *testing.T) {
	for form, want := range map[string]string{
		`sh -c "redis-cli -a hunter80 ping > \$HOME/log"`:  `sh -c "redis-cli -a REDACTED ping > \$HOME/log"`,
		`sh -c "echo \"AUTH u hunter81\" | redis-cli -x"`:  `sh -c "echo \"AUTH u REDACTED\" | redis-cli -x"`,
		"bash -c \"redis-cli --pass hunter82 \\`date\\`\"": "bash -c \"redis-cli --pass REDACTED \\`date\\`\"",
	} {
		if got := RedactText(form); got != want {
			t.Errorf("%s:\n got %s\nwant %s", form, got, want)
		}
	}
}

// A script's evaluation is bounded: a function calling itself many times
// over (400 bytes of f;f;f...) or many times (15 KB) ends at once, and
// finds what it found.
func TestShellEvaluationBounded(t *testing.T) {
	for _, text := range []string{
		"f() { " + strings.Repeat("f;", 200) + " }; f",
		"f() { " + strings.Repeat("redis-cli -a "+strings.Repeat("A", 3000)+";", 5) + strings.Repeat("f;", 60) + " }; f",
		"redis-cli -a hunter90 ping; g() { g; g; g; g; g; g; g; g; g; g; g; }; g",
	} {
		done := make(chan []string, 1)
		go func() { done <- shellSecrets(text) }()
		found := <-done
		if len(found) > maxShellFound {
			t.Errorf("%d found", len(found))
		}
		if strings.HasPrefix(text, "redis-cli") && (len(found) == 0 || found[0] != "hunter90") {
			t.Errorf("found %q, want hunter90 first", found)
		}
	}
}

// More of the shell's ways to give a password: wrappers before sh -c or
// the client (timeout, nice, setsid, sudo -u, docker exec, kubectl exec),
// $0 and combined flags (sh -ec), a variable named as a password set by
// read or printf -v or a here-document, an array's elements, what a pipe
// gives read, xargs or a client's stdin, mapfile, an alias.
func TestShellEvaluatedSecretsMore(t *testing.T) {
	for form, secret := range map[string]string{
		`timeout 10 sh -c 'redis-cli -a "$1" ping' _ hunter91`:              "hunter91",
		`nice -n 5 bash -c 'redis-cli -a "$1" ping' _ hunter92`:             "hunter92",
		`sudo -u redis sh -c 'redis-cli -a "$1" ping' _ hunter93`:           "hunter93",
		`docker exec c sh -c 'redis-cli -a "$1" ping' _ hunter94`:           "hunter94",
		`kubectl exec p -- sh -c 'redis-cli -a "$1" ping' _ hunter95`:       "hunter95",
		`sh -c 'redis-cli -a "$0" ping' hunter96`:                           "hunter96",
		`sh -ec 'redis-cli -a "$1" ping' _ hunter97`:                        "hunter97",
		`read -r PGPASSWORD <<< hunter98; export PGPASSWORD; psql -c 'x'`:   "hunter98",
		`printf -v PGPASSWORD %s hunter99; export PGPASSWORD; psql`:         "hunter99",
		"read -r PGPASSWORD <<EOF\nhunter100\nEOF\nexport PGPASSWORD; psql": "hunter100",
		`args=(-a hunter101); redis-cli "${args[@]}" ping`:                  "hunter101",
		`echo hunter102 | xargs redis-cli -a`:                               "hunter102",
		`echo hunter103 | { read P; redis-cli -a "$P"; }`:                   "hunter103",
		`while read P; do redis-cli -a "$P" ping; done <<< hunter104`:       "hunter104",
		`mapfile -t P <<< hunter105; redis-cli -a "$P" ping`:                "hunter105",
		`alias r='redis-cli -a'; r hunter106 ping`:                          "hunter106",
		`redis-cli --askpass ping <<< hunter107`:                            "hunter107",
		`docker login -u u --password-stdin <<< hunter108`:                  "hunter108",
		`echo hunter109 | docker login -u u --password-stdin r`:             "hunter109",
		`echo hvs.hunter110x | vault login -`:                               "hvs.hunter110x",
		`vault login -no-print - <<< hunter111`:                             "hunter111",
		`echo hunter112 | vault login -method=ldap username=u password=-`:   "hunter112",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
}

// A password word written with escapes (a backslash before a space, a
// backslash-newline inside it) is hidden as written.
func TestEscapedPasswordWords(t *testing.T) {
	for _, form := range []string{"redis-cli -a hun\\ ter110 ping", "redis-cli -a hun\\\nter111 ping"} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form); strings.Contains(got, "ter11") {
			t.Errorf("%q: %q", form, got)
		}
	}
}

// The shell's PWD and OLDPWD are directories, not passwords; MySQL's
// REPLACE 'current' and CouchDB's admin password by curl are passwords.
func TestPWDAndMoreForms(t *testing.T) {
	if got := RedactText("PWD=/tmp/plan\nOLDPWD=/tmp"); got != "PWD=/tmp/plan\nOLDPWD=/tmp" {
		t.Errorf("PWD hidden: %q", got)
	}
	if got := RedactText(`isql -v -k "DRIVER={MySQL};SERVER=h;UID=root;PWD=hunter117;DATABASE=ycsb"`); strings.Contains(got, "hunter") {
		t.Errorf("ODBC's PWD: %q", got)
	}
	if got := RedactText(`db.createUser({user:"u",pwd:"hunter112"})`); strings.Contains(got, "hunter") {
		t.Errorf("pwd: %q", got)
	}
	for form, secret := range map[string]string{
		`mysql -e "ALTER USER u IDENTIFIED BY 'hunter113' REPLACE 'hunter114'"`:                  "hunter114",
		`curl -X PUT http://127.0.0.1:5984/_node/_local/_config/admins/bob -d '"hunter115"'`:     "hunter115",
		`curl -X PUT http://127.0.0.1:5984/_node/_local/_config/admins/bob --data '"hunter116"'`: "hunter116",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
}

// Redaction takes time in proportion to a text's length: 2,000 commands
// that give variables as passwords, assigned or not, are read in one pass
// each (they took minutes: a regular expression per variable over the
// whole text). Counted in passes, not timed: the variables sought one by
// one stay under maxHiddenNames, and past it every assigned value is
// hidden.
func TestLongStepRedactedInBoundedPasses(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "V%d=hunter%d; redis-cli -a $V%d;", i, 1000+i, i)
	}
	got := RedactText(b.String())
	if strings.Contains(got, "hunter") || !strings.Contains(got, "redis-cli -a $V1999;") {
		t.Errorf("%.300s", got)
	}
}

// Manifests and commands an operator's steps hold: a container's
// environment as name and value (Kubernetes YAML, ECS JSON), an option
// and its value as items of an exec-form list (JSON, a YAML block list),
// a quoted URL whose password holds | > or a space, mysqladmin's
// password NEW.
func TestManifestAndCommandForms(t *testing.T) {
	for form, secret := range map[string]string{
		"kubectl apply -f - <<EOF\n  env:\n  - name: POSTGRES_PASSWORD\n    value: hunter120\nEOF":                               "hunter120",
		"env:\n  - name: \"REDIS_PASSWORD\"\n    value: \"hunter121\"\n":                                                         "hunter121",
		`aws ecs register-task-definition --cli-input-json '{"environment":[{"name":"POSTGRES_PASSWORD","value":"hunter122"}]}'`: "hunter122",
		"cat > c.yaml <<EOF\n    command: [\"redis-server\", \"--requirepass\", \"hunter123\"]\nEOF":                             "hunter123",
		"cat > c.yaml <<EOF\n    args:\n    - --requirepass\n    - hunter124\nEOF":                                               "hunter124",
		`redis-cli -u 'redis://default:Sec|hunter125@h:6379' ping`:                                                               "hunter125",
		`psql 'postgresql://bench:Sec>hunter126@h/db' -c 'select 1'`:                                                             "hunter126",
		`psql "postgresql://bench:Sec hunter127@h/db" -c "select 1"`:                                                             "hunter127",
		`mysqladmin -u root -pOldPw123 password hunter128`:                                                                       "hunter128",
	} {
		if got := RedactText(form); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	if got := RedactText("    args:\n    - --requirepass\n    - x\n    - --port\n    - 6379\n"); !strings.Contains(got, "- --requirepass\n    - REDACTED") || !strings.Contains(got, "- 6379") {
		t.Errorf("the list garbled: %q", got)
	}
	if got := RedactText("env:\n  - name: LOG_LEVEL\n    value: debug\n"); strings.Contains(got, Redacted) {
		t.Errorf("a value not secret hidden: %q", got)
	}
}

// A password a client is given on its input, in the forms an operator's
// steps take: xargs -I{}, redis-cli -x, kubectl's --from-file=password=/dev/stdin,
// docker secret create NAME -, printf "AUTH %s" "$P" | redis-cli; a
// camelCase name ending in Pw.
func TestStdinPasswords(t *testing.T) {
	for form, secret := range map[string]string{
		`echo hunter131 | xargs -I{} redis-cli -a {} ping`:                                    "hunter131",
		`echo -n hunter132 | redis-cli -x config set requirepass`:                             "hunter132",
		`kubectl exec -i redis-0 -- redis-cli -x CONFIG SET requirepass <<< hunter133`:        "hunter133",
		`echo -n hunter134 | kubectl create secret generic x --from-file=password=/dev/stdin`: "hunter134",
		`printf hunter135 | docker secret create pg_password -`:                               "hunter135",
		`P=hunter136; printf "AUTH %s\n" "$P" | redis-cli -h h`:                               "hunter136",
		`kubectl create secret generic db --from-literal=adminPw=hunter137`:                   "hunter137",
		`echo 'hunter138' | passwd --stdin bench`:                                             "hunter138",
		`printf '%s\n' hunter139 | sudo passwd --stdin root`:                                  "hunter139",
		`echo 'bench:hunter140' | chpasswd`:                                                   "hunter140",
		"sudo chpasswd <<EOF\nroot:hunter141\nbench:hunter142\nEOF":                           "hunter142",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	for _, kept := range []string{"echo readme.md | git hash-object --stdin", "echo bench:users | cut -d: -f1"} {
		var r Redactor
		r.Hidden(kept)
		if got := r.Redact(kept); got != kept {
			t.Errorf("%q: %q", kept, got)
		}
	}
}

// Couchbase's clients: libcouchbase's cbc and cbc-* tools (-P PW,
// -PPW, -P=PW), cbq's -c and --credentials user:PW (the user shown),
// cbworkloadgen's and cbbackupmgr's -p.
func TestCouchbaseClientsPasswords(t *testing.T) {
	for form, secret := range map[string]string{
		`cbc-pillowfight -U couchbase://127.0.0.1/b -u Administrator -P hunter140`:                       "hunter140",
		`cbc-pillowfight -U couchbase://127.0.0.1/b -u Administrator -Phunter141`:                        "hunter141",
		`cbc-n1qlback -U couchbase://h/b -u A -P=hunter142 -q q.txt`:                                     "hunter142",
		`cbc-pillowfight -U couchbase://h/b --password=hunter143`:                                        "hunter143",
		`cbq -e http://127.0.0.1:8093 -u Administrator -p hunter144`:                                     "hunter144",
		`cbq -e http://127.0.0.1:8093 -c Administrator:hunter145 -s 'select 1'`:                          "hunter145",
		`cbq -e http://127.0.0.1:8093 --credentials=Administrator:hunter146`:                             "hunter146",
		`cbq -e http://127.0.0.1:8093 --credentials Administrator:hunter147`:                             "hunter147",
		`cbworkloadgen -n 127.0.0.1:8091 -u Administrator -p hunter148`:                                  "hunter148",
		`cbbackupmgr backup -a /tmp -r r -c couchbase://h -u Administrator -p hunter149`:                 "hunter149",
		`cbbackupmgr config -a /tmp/b -r r && cbbackupmgr restore -a /tmp/b -r r -c h -u A -p hunter150`: "hunter150",
	} {
		var r Redactor
		r.Hidden(form)
		got := r.Redact(form + "\necho " + secret)
		if strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
		if strings.Contains(form, "Administrator:") && !strings.Contains(got, "Administrator:") {
			t.Errorf("%q: the user hidden: %q", form, got)
		}
	}
}

// A keyword's value that holds the keyword again (sed's
// s/^requirepass .*/requirepass PW/, whose first value is
// .*/requirepass) does not hide the later one's secret: it is found too,
// in the text and as sed writes it.
func TestKeywordAgainInItsValue(t *testing.T) {
	for form, secret := range map[string]string{
		`sed -i 's/^requirepass .*/requirepass hunter151/' /etc/redis/redis.conf`:        "hunter151",
		`sed -i -e 's|^# masterauth .*|masterauth hunter152|' redis.conf`:                "hunter152",
		`sed -i "s/^requirepass.*/requirepass hunter153/; s/^port .*/port 7000/" r.conf`: "hunter153",
	} {
		if got := RedactText(form); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	if got := RedactText("sed -i 's/^port .*/port 7000/' r.conf"); got != "sed -i 's/^port .*/port 7000/' r.conf" {
		t.Errorf("a substitution without a secret changed: %q", got)
	}
}

// NAME: VALUE after ordinary words, in a comment or an echo's words,
// as at a line's start.
func TestNameColonValueAfterWords(t *testing.T) {
	for form, secret := range map[string]string{
		"# the redis password: hunter154":    "hunter154",
		"# redis password: hunter155":        "hunter155",
		"# The admin Password: hunter156":    "hunter156",
		"echo the redis password: hunter157": "hunter157",
		"echo 'admin token:  hunter158'":     "hunter158",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	if got := RedactText("# the redis port: 6379"); got != "# the redis port: 6379" {
		t.Errorf("a name not secret: %q", got)
	}
}

// PostgreSQL's dollar quoting after PASSWORD in any case, with a tag or
// without: the password as PostgreSQL reads it is known too.
func TestDollarQuotedPasswords(t *testing.T) {
	for form, secret := range map[string]string{
		`psql -c 'alter user u with password $$hunter159$$'`: "hunter159",
		`alter role u password $$hunter160$$`:                "hunter160",
		`ALTER ROLE u PASSWORD $tag$hunter161$tag$`:          "hunter161",
		`Alter Role u Password $pw$hunter162$pw$;`:           "hunter162",
		`ALTER ROLE u PASSWORD $$hunter163$$`:                "hunter163",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
}

// Lines of credential files a step writes: libpq's password file
// (host:port:db:user:PW, where the text names .pgpass or PGPASSFILE) and
// a Redis ACL file's user line (user NAME on >PW ~* +@all).
func TestCredentialFileLines(t *testing.T) {
	for form, secret := range map[string]string{
		`echo "h:5432:db:u:hunter164" > ~/.pgpass`:                                           "hunter164",
		`echo '127.0.0.1:5432:*:postgres:hunter165' >> ~/.pgpass`:                            "hunter165",
		`printf '%s\n' 'h:5432:db:u:hunter166' > "$PGPASSFILE"`:                              "hunter166",
		"cat > ~/.pgpass <<EOF\n*:*:*:bench:hunter167\nEOF\nchmod 600 ~/.pgpass":             "hunter167",
		`echo 'user bench on >hunter168 ~* +@all' >> users.acl`:                              "hunter168",
		"cat > users.acl <<EOF\nuser default off\nuser bench on >hunter169 ~* &* +@all\nEOF": "hunter169",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	if got := RedactText(`echo "h:5432:db:u:x" > other.txt`); strings.Contains(got, Redacted) {
		t.Errorf("a line of another file: %q", got)
	}
}

// A JavaScript variable given to db.auth as its password: the string
// the script assigns to it is the password.
func TestJSVariablePasswords(t *testing.T) {
	for form, secret := range map[string]string{
		`mongosh --eval 'var p="hunter170"; db.auth("u", p)'`:                     "hunter170",
		`mongosh --eval 'let p = "hunter171"; db.auth("u", p)'`:                   "hunter171",
		`mongosh --eval "const s = \"hunter172\"; db.auth('u', s)"`:               "hunter172",
		`mongosh --eval 'let x = "hunter173"; db.changeUserPassword("u", x, {})'`: "hunter173",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	if got := RedactText(`mongosh --eval 'let n = "bench"; db.auth("u", p)'`); strings.Contains(got, Redacted) {
		t.Errorf("a variable not given as a password: %q", got)
	}
}

// db.auth("user", p) keeps the user: the password is the variable, not
// the string before it; db.auth("pw") alone is still the password.
func TestAuthCallKeepsUser(t *testing.T) {
	if got := RedactText(`db.auth("bench", p)`); got != `db.auth("bench", p)` {
		t.Errorf("the user hidden: %q", got)
	}
	for form, want := range map[string]string{
		`db.auth("bench", "hunter174")`: `db.auth("bench", REDACTED)`,
		`SELECT PASSWORD('hunter175')`:  `SELECT PASSWORD(REDACTED)`,
	} {
		if got := RedactText(form); got != want {
			t.Errorf("%q: %q", form, got)
		}
	}
}

// Clients' password options the rules did not know: any Couchbase tool
// (cb*)'s -p, nodetool's and sstableloader's one-dash -pw, HTTPie's -a
// user:PW, etcdctl's --user user:PW, sqlcmd's -P, cypher-shell's -p,
// openssl enc's -k, a password given as an argument (rabbitmqctl
// change_password user PW, mc alias set NAME URL ACCESS SECRET), and
// user:PW@host without a scheme (mysqlsh).
func TestMoreClientsPasswords(t *testing.T) {
	for form, secret := range map[string]string{
		`cbdocloader -c 127.0.0.1 -u Administrator -p hunter176 -b travel -m 100 sample.zip`:                "hunter176",
		`cbtransfer http://127.0.0.1:8091 /tmp/backup -u Administrator -p hunter177`:                        "hunter177",
		`cbrestore /tmp/backup http://127.0.0.1:8091 -u Administrator -p hunter178`:                         "hunter178",
		`sstableloader -u cassandra -pw hunter179 -d 127.0.0.1 /tmp/ycsb/usertable`:                         "hunter179",
		`mysqlsh root:hunter180@127.0.0.1:3306 --sql -e 'select 1'`:                                         "hunter180",
		`mysqlsh --uri root:hunter181@127.0.0.1 --sql`:                                                      "hunter181",
		`mysqlsh --uri=bench:hunter182@h:33060/ycsb`:                                                        "hunter182",
		`http -a admin:hunter183 GET http://127.0.0.1:5984/`:                                                "hunter183",
		`http --auth admin:hunter184 PUT http://127.0.0.1:5984/ycsb`:                                        "hunter184",
		`etcdctl --user root:hunter185 put k v`:                                                             "hunter185",
		`etcdctl --user=root:hunter186 get k`:                                                               "hunter186",
		`sqlcmd -S 127.0.0.1 -U sa -P hunter187 -Q 'select 1'`:                                              "hunter187",
		`cypher-shell -a bolt://127.0.0.1:7687 -u neo4j -p hunter188 'RETURN 1'`:                            "hunter188",
		`openssl enc -aes-256-cbc -k hunter189 -in a -out b`:                                                "hunter189",
		`rabbitmqctl change_password guest hunter190`:                                                       "hunter190",
		`rabbitmqctl -n rabbit@h add_user bench hunter191 && rabbitmqctl set_user_tags bench administrator`: "hunter191",
		`mc alias set local http://127.0.0.1:9000 minioadmin hunter192`:                                     "hunter192",
		`mc config host add local http://127.0.0.1:9000 minioadmin hunter193`:                               "hunter193",
		`vault login hvs.hunter195Ab`:                                                                       "hvs.hunter195Ab",
		`vault login -no-print -address http://127.0.0.1:8200 hunter196 && vault status`:                    "hunter196",
		`VAULT_ADDR=http://h:8200 vault login -method=token hunter197`:                                      "hunter197",
		`az login -u bench@example.com -p hunter198`:                                                        "hunter198",
		`az login --service-principal -u 0000-app -p=hunter199 --tenant t`:                                  "hunter199",
		`az login -u bench@example.com --password hunter200 && az account show`:                             "hunter200",
	} {
		if got := RedactText(form); strings.Contains(got, secret) {
			t.Errorf("RedactText(%q) = %q", form, got)
		}
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	for _, kept := range []string{
		"docker pull redis:7.2@sha256:" + strings.Repeat("ab", 32),
		"ssh bench@127.0.0.1 ls; scp f bench@h:/tmp",
		"rabbitmqctl list_users",
		"mc alias list",
		"http GET http://127.0.0.1:5984/ a:1",
		"openssl enc -d -in a -out b",
		"mysqlsh root@127.0.0.1:3306",
		"vault login -method=userpass username=bench",
		"vault login -method userpass -path ldap2 username=bench",
		"vault login -",
		"vault status",
		"az login -u bench@example.com",
		"az vm list -p 1",
	} {
		if got := RedactText(kept); got != kept {
			t.Errorf("RedactText(%q) = %q", kept, got)
		}
	}
	if got := RedactText(`http -a admin:hunter194 GET http://h/`); !strings.Contains(got, "admin:REDACTED") {
		t.Errorf("the user hidden: %q", got)
	}
}

// Configuration lines a step writes: Redis' keywords that carry a
// secret (sentinel auth-pass MASTER PW, tls-key-file-pass PW, masterauth
// PW), a NAME VALUE line of a secret name, CouchDB's [admins] section,
// and sed's substitutions into redis.conf (a back-reference to the
// keyword, the sample password foobared replaced).
func TestConfigLinesWritten(t *testing.T) {
	for form, secret := range map[string]string{
		`echo "sentinel auth-pass mymaster hunter200" >> sentinel.conf`:                         "hunter200",
		`C="sentinel auth-pass mymaster hunter201"; echo "$C" >> sentinel.conf`:                 "hunter201",
		`echo "tls-key-file-pass hunter202" >> redis.conf`:                                      "hunter202",
		`echo "tls-client-key-file-pass hunter203" >> redis.conf`:                               "hunter203",
		`echo "masterauth hunter204" >> redis.conf`:                                             "hunter204",
		`printf 'port 6380\ntls-key-file-pass hunter205\n' >> redis.conf`:                       "hunter205",
		"cat >> app.conf <<EOF\ndb_password hunter206\nEOF":                                     "hunter206",
		`echo admin_token hunter207 > t.conf`:                                                   "hunter207",
		"printf 'db_password x\\n' > a.conf; echo admin_token hunter214 > t.conf":               "hunter214",
		`printf '[admins]\nadmin = hunter208\n' > local.ini`:                                    "hunter208",
		"cat > local.d/admins.ini <<EOF\n[couchdb]\nuuid = x\n[admins]\nbench = hunter209\nEOF": "hunter209",
		`sed -i 's/^# *\(requirepass\) .*/\1 hunter210/' redis.conf`:                            "hunter210",
		`sed -i -E 's/^#? *(masterauth) .*/\1 hunter211/' redis.conf`:                           "hunter211",
		`sed -i 's/foobared/hunter212/' redis.conf`:                                             "hunter212",
		`sed -i "s|# requirepass foobared|requirepass hunter213|" /etc/redis/redis.conf`:        "hunter213",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	for _, kept := range []string{
		"printf '[couchdb]\\nuuid = 1234\\n' > local.ini",
		"echo 'max_connections 100' >> app.conf",
		"sed -i 's/^port .*/port 7000/' r.conf",
		"token expired at 12:00 for user bench",
	} {
		var r Redactor
		r.Hidden(kept)
		if got := r.Redact(kept); got != kept {
			t.Errorf("%q: %q", kept, got)
		}
	}
}

// A JavaScript variable given as createUser's or updateUser's pwd (or an
// object's password) is a password too, as db.auth's is.
func TestJSVariableAsPwd(t *testing.T) {
	for form, secret := range map[string]string{
		`mongosh --eval 'let p = "hunter220"; db.createUser({user: "u", pwd: p, roles: []})'`:           "hunter220",
		`mongosh --eval "var pw = 'hunter221'; db.getSiblingDB('admin').createUser({user:'u',pwd:pw})"`: "hunter221",
		`mongosh --eval 'const s = "hunter222"; db.updateUser("u", {pwd: s})'`:                          "hunter222",
		`mongosh --eval 'const s = "hunter223"; db.auth({user: "u", password: s})'`:                     "hunter223",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	if got := RedactText(`mongosh --eval 'let n = "bench"; db.createUser({user: n, pwd: passwordPrompt()})'`); strings.Contains(got, Redacted) {
		t.Errorf("a variable not given as a password: %q", got)
	}
}

// A credential a sentence gives, in a comment (a plan's, a step's) or a
// departure's text (RedactProse): a secret word followed by its value,
// right after it or after is, to, -, ->, :, or user/PW after creds or
// login. Sentences that give none are kept.
func TestProseCredentials(t *testing.T) {
	for form, secret := range map[string]string{
		"# the redis password is hunter230":                   "hunter230",
		"# password hunter231":                                "hunter231",
		"# Password for redis -> hunter232":                   "hunter232",
		"# pw is hunter233":                                   "hunter233",
		"# creds: admin/hunter234":                            "hunter234",
		"# login admin / hunter235":                           "hunter235",
		"# user admin, password hunter236":                    "hunter236",
		"# token hunter237":                                   "hunter237",
		"# password was set to hunter238":                     "hunter238",
		"# Password - hunter239":                              "hunter239",
		"# password:\n# hunter240\nredis-cli ping":            "hunter240",
		"# secret key hunter241":                              "hunter241",
		"redis-cli ping   # the password is changeme":         "changeme",
		"# the api key is Zq8xHunter242.":                     "Zq8xHunter242",
		"echo ok\n  # the redis password is hunterxyz":        "hunterxyz",
		"# password is correcthorse, the user bench":          "correcthorse",
		"# bearer hunter280":                                  "hunter280",
		"# PGPASSWORD hunter281":                              "hunter281",
		"# REDIS_PASSWORD is hunter282":                       "hunter282",
		"# db_password: hunter283":                            "hunter283",
		"# the auth token was rotated to hunter284 yesterday": "hunter284",
		"# password reset to hunter285":                       "hunter285",
		"# root/hunter286":                                    "hunter286",
		"# default login admin/hunter287, see ops":            "hunter287",
		"# root/hunter290 for mysql":                          "hunter290",
		"# sa/Hunter291 (superuser) on the dashboard":         "Hunter291",
		"# password=>hunter288":                               "hunter288",
		"# 'password' => 'hunter289'":                         "hunter289",
		"# the password was changed from hunter300 to x":      "hunter300",
		"# the password was changed from x1 to hunter301":     "hunter301",
		"# token changed from abcd to hunter302 yesterday":    "hunter302",
		"# token changed from hunterabc to x2 yesterday":      "hunterabc",
		"# the redis password moved to hunter303":             "hunter303",
		"# the secret became hunter304":                       "hunter304",
		"# cassandra/hunter305 for cqlsh":                     "hunter305",
		"# elastic/hunter306":                                 "hunter306",
		"# neo4j/hunter307 on the browser":                    "hunter307",
		"# ubuntu/hunter308":                                  "hunter308",
		"# admin:hunter309":                                   "hunter309",
		"# log in as root:Hunter310 then":                     "Hunter310",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	for form, secret := range map[string]string{
		"password hunter243":                  "hunter243",
		"the login uses password hunter244":   "hunter244",
		"creds admin/hunter245 given by ops":  "hunter245",
		"the token is Secr3tHunter246; see x": "Secr3tHunter246",
		"bearer hunter290":                    "hunter290",
		"token rotated to hunter291 today":    "hunter291",
		"PGPASSWORD hunter292 was set":        "hunter292",
		"postgres/hunter293":                  "hunter293",
	} {
		if got := RedactProse(form); strings.Contains(got, secret) {
			t.Errorf("RedactProse(%q) = %q", form, got)
		}
	}
	for _, kept := range []string{
		"# FATAL: password authentication failed for user bench",
		"# the password is required for login",
		"# the token is expired",
		"# set the password below",
		"# generate a new token with the CLI",
		"# password file at /etc/redis/pw",
		"# token TTL 3600 seconds",
		"# the password is stored in $REDIS_PASSWORD",
		"# 1 million passwords per second against a modern box",
		"# login to the server as admin",
		"# password hashed with sha256",
		"# Server\nredis_version:7.2.4\n# Clients\nconnected_clients:1",
		"issue #12: the token is refreshed",
		"# creds are in vault",
		"# uses a bearer token",
		"# bearer tokens expire hourly",
		"# see PGPASSWORD in the docs",
		"# REDIS_PASSWORD must be set",
		"# AUTH_TOKEN is required",
		"# the token was rotated to a new value",
		"# the auth token was rotated yesterday",
		"# password changed to the default",
		"# copy root/.ssh/authorized_keys and admin/config.yaml",
		"# tcp/udp, read/write, admin/settings page",
		"# moved to the new cluster",
		"# the secret became clear",
		"# the password moved to vault",
		"# the password changed from plain to hashed",
		"# the token was changed from the old format",
		"# cassandra/conf/cassandra.yaml",
		"# elastic/kibana, neo4j/apoc",
		"# docker pull postgres:16-alpine ubuntu:22.04 neo4j:5.12-enterprise",
		"# vagrant box ubuntu/focal64",
		"# root:x:0:0:root:/root:/bin/bash",
		"# admin: the user",
		"# set `redis.password`, `redis.username`, `redis.db`",
		"# couchdb.password, couchdb.timeout (ms)",
		"# in its environment (SERVBENCH_TOKEN, SERVBENCH_COORDINATOR_CERT; never an argument)",
	} {
		if got := RedactText(kept); got != kept {
			t.Errorf("RedactText(%q) = %q", kept, got)
		}
		if got := RedactProse(strings.TrimPrefix(kept, "# ")); got != strings.TrimPrefix(kept, "# ") {
			t.Errorf("RedactProse(%q) = %q", kept, got)
		}
	}
	// An error's text is no comment: its sentences are not read as prose.
	if got := RedactText("ERR the password is wrongpass1"); got != "ERR the password is wrongpass1" {
		t.Errorf("%q", got)
	}
}

// A name ending in pw without a separator (ROOTPW, adminpw), jq's and
// yq's update-assignment |=, and PostgreSQL's Unicode-escaped and
// escape strings after PASSWORD.
func TestPwNamesAndQuotedForms(t *testing.T) {
	for form, secret := range map[string]string{
		`ROOTPW=hunter250; echo ok`:                                       "hunter250",
		`DBPW=hunter251 psql -h 127.0.0.1`:                                "hunter251",
		`psql --set=adminpw=hunter252 -f init.sql`:                        "hunter252",
		`kubectl create secret generic x --from-literal=rootpw=hunter253`: "hunter253",
		`yq -i '.auth.rootPassword |= "hunter254"' values.yaml`:           "hunter254",
		`psql -c "ALTER ROLE r PASSWORD U&'hunter255'"`:                   "hunter255",
		`ALTER ROLE r PASSWORD U&'hunter256'`:                             "hunter256",
		`alter role r with password E'hunter257'`:                         "hunter257",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	for name, want := range map[string]bool{"ROOTPW": true, "adminpw": true, "redis.dbpw": true, "pwrlevel": false, "PW": true} {
		if got := IsSecretKey(name); got != want {
			t.Errorf("IsSecretKey(%q) = %v", name, got)
		}
	}
}

// aws configure's answers given on its input (the access key, then the
// secret), and a MongoDB SASL conversation's payload (PLAIN's holds the
// password: it is known too).
func TestAWSConfigureInputAndSASLPayload(t *testing.T) {
	for form, secret := range map[string]string{
		`printf 'AKIAEXAMPLE0\nhunter260\nus-east-1\njson\n' | aws configure`:                                    "hunter260",
		"aws configure --profile bench <<EOF\nAKIAEXAMPLE0\nhunter261\nus-east-1\njson\nEOF":                     "hunter261",
		`{"saslStart":1,"mechanism":"PLAIN","payload":{"$binary":{"base64":"AHUAaHVudGVyMjYy","subType":"00"}}}`: "AHUAaHVudGVyMjYy",
		`{"saslStart": 1, "mechanism": "PLAIN", "payload": {"$binary": {"base64": "AHUAaHVudGVyMjYy"}}}`:         "hunter262",
		`db.runCommand({saslContinue: 1, conversationId: 1, payload: BinData(0, "aHVudGVyMjYz")})`:               "aHVudGVyMjYz",
	} {
		var r Redactor
		r.Hidden(form)
		if got := r.Redact(form + "\necho " + secret); strings.Contains(got, secret) {
			t.Errorf("%q: %q", form, got)
		}
	}
	if got := RedactText(`aws configure list; {"payload": "x"}`); strings.Contains(got, Redacted) {
		t.Errorf("%q", got)
	}
}

// NAME: VALUE after other words (prose's form) does not take an error's
// own wording for a value: a common word, a word ending in -ed or -ing.
func TestErrorWordingKept(t *testing.T) {
	for _, kept := range []string{
		"-p my.token: property my.token: unknown property",
		"get credentials: failed to refresh cached credentials",
		"dynamodb: get credentials: operation error STS: AssumeRole",
		"open token: missing file",
	} {
		if got := RedactText(kept); got != kept {
			t.Errorf("RedactText(%q) = %q", kept, got)
		}
	}
	for form, want := range map[string]string{
		"# the redis password: changeme":  "# the redis password: REDACTED",
		"echo the admin token: hunter270": "echo the admin token: REDACTED",
		"bad -p my.token: xyz12345 value": "bad -p my.token: REDACTED value",
		"password: failed\n":              "password: REDACTED\n",
	} {
		if got := RedactText(form); got != want {
			t.Errorf("RedactText(%q) = %q, want %q", form, got, want)
		}
	}
}

// A configuration line NAME = "VALUE" (a tfvars, TOML or INI file; :=,
// quotes) hides its value, not its sign, and a printf whose format writes
// such a line with a directive for the value hides the argument given for
// it: each was written in clear.
func TestConfigLinesWithASign(t *testing.T) {
	for _, c := range []struct{ in, secret string }{
		{`echo 'db_password = "Ye01wxyz"' > terraform.tfvars`, "Ye01wxyz"},
		{`echo "redis_password = 'Ye05wxyz'" >> app.ini`, "Ye05wxyz"},
		{"cat > f <<EOF\ndb_password = 'Ye03wxyz'\nEOF", "Ye03wxyz"},
		{`echo "ssl_passphrase_command = 'echo Ye04wxyz'" >> postgresql.conf`, "Ye04wxyz"},
		{`tee -a app.conf <<< 'admin_token = "Ye06wxyz"'`, "Ye06wxyz"},
		{`echo 'db_password := "Ye07wxyz"' >> Makefile`, "Ye07wxyz"},
		{`printf 'redis_password = "%s"\n' Ye02wxyz > app.ini`, "Ye02wxyz"},
		{`printf "db_password %s\nport %s\n" Ye08wxyz 5432`, "Ye08wxyz"},
	} {
		got := RedactText(c.in)
		if strings.Contains(got, c.secret) || !strings.Contains(got, Redacted) {
			t.Errorf("%s\n  -> %s", c.in, got)
		}
	}
	for _, keep := range []string{`echo 'max_connections = 100' >> postgresql.conf`, `printf "%s %s\n" a b`, `printf "port %s\n" 5432`} {
		if got := RedactText(keep); got != keep {
			t.Errorf("%s\n  -> %s", keep, got)
		}
	}
}

// A setup step's output passes the rules whole (experiment's tail): a
// command that prints megabytes of progress is read at this speed.
func BenchmarkHiddenOutput(b *testing.B) {
	for _, c := range []struct{ name, line string }{
		{"digits", "0123456789\n"},
		{"progress", "2026-11-28T01:02:03 INFO loaded=12345 docs rate: 4567/s elapsed 12s\n"},
	} {
		b.Run(c.name, func(b *testing.B) {
			text := strings.Repeat(c.line, 64<<10/len(c.line))
			var r Redactor
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				r.Hidden(text)
			}
		})
	}
}

// The environment's secrets (PGPASSWORD, a URL's password) and those a
// driver found (KnowEverywhere: ~/.pgpass's) are hidden by every
// Redactor, a nil one too; paths, sockets and the working directory are
// not secrets.
func TestSecretsOfTheProcess(t *testing.T) {
	t.Setenv("PGPASSWORD", "Qw7rT5env")
	t.Setenv("DATABASE_URL", "postgres://u:Zx9urlpw@127.0.0.1/db")
	t.Setenv("SSH_AUTH_SOCK", "/tmp/agent.sock")
	t.Setenv("PGPASSFILE", "/tmp/the.pgpass")
	t.Setenv("MAX_TOKENS", "recordcount") // no secret: its name is no credential's
	t.Setenv("APP_PASSWORD", "1000000")   // a number: hidden, it would hide counts
	KnowEverywhere("Pg9passfile")
	text := "the server said: Qw7rT5env, Zx9urlpw, Pg9passfile; agent /tmp/agent.sock, /tmp/the.pgpass, recordcount 1000000"
	for _, r := range []*Redactor{nil, {}} {
		got := r.Redact(text)
		for _, secret := range []string{"Qw7rT5env", "Zx9urlpw", "Pg9passfile"} {
			if strings.Contains(got, secret) {
				t.Errorf("%q shown: %s", secret, got)
			}
		}
		for _, kept := range []string{"/tmp/agent.sock", "/tmp/the.pgpass", "recordcount 1000000"} {
			if !strings.Contains(got, kept) {
				t.Errorf("%q hidden: %s", kept, got)
			}
		}
	}
}

// A value read again for pairs of its own is read so to maxPairDepth
// levels: a secret that deep is hidden; a line of P=P=P=... (a server's
// error of 16 KiB) is not read again at each of its thousands of levels
// (BenchmarkRedactNestedPairs: 19 s a line before, some ms now).
func TestNestedPairs(t *testing.T) {
	line := "--set=" + strings.Repeat("a=", maxPairDepth-1) + "password=hunter1"
	if got := RedactText(line); strings.Contains(got, "hunter1") {
		t.Errorf("%d levels deep: %s", maxPairDepth, got)
	}
	long := strings.Repeat("P=", 8<<10) + "password=hunter2"
	if got := RedactText(long); !strings.HasPrefix(got, "P=P=") || len(got) < len(long)-len("hunter2") {
		t.Errorf("a long line: %q...", got[:min(len(got), 40)])
	}
}

func BenchmarkRedactNestedPairs(b *testing.B) {
	line := strings.Repeat("P=", 8<<10)
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		RedactText(line)
	}
}
