package plan

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestRedact(t *testing.T) {
	in := `deployments:
  - label: atlas
    binding: mongodb
    properties:
      mongodb.url: mongodb://bench:s3cret@127.0.0.1:27017/?authSource=admin
      couchbase.password: hunter2
      dynamodb.secretkey: "abc"
      redis.url: redis://127.0.0.1:6379
  - {label: x, binding: postgres, properties: {postgres.url: "postgres://u:pw@127.0.0.1/db"}}
  - {label: y, binding: postgres, properties: {postgres.password: hunter3, postgres.user: bob}}
  - label: z
    binding: postgres
    properties:
      postgres.url: "host=127.0.0.1 user=postgres password=hunter4 dbname=ycsb"
      redis.url: redis://bo#b:hunter5@127.0.0.1:6379
      couchbase.password: 'it''s hunter6'
    setup:
      - {statement: "CREATE USER bench WITH PASSWORD 'hunter7'"}
      - {statement: 'CONFIG SET requirepass hunter8'}
      - {shell: 'redis-cli -a hunter9 AUTH hunter10'}   # no auth needed here
`
	out := Redact(in)
	for _, secret := range []string{"s3cret", "hunter2", "abc", ":pw@", "hunter3", "hunter4", "hunter5", "hunter6", "hunter7", "hunter8", "hunter10"} {
		if strings.Contains(out, secret) {
			t.Errorf("%q left in:\n%s", secret, out)
		}
	}
	for _, kept := range []string{"mongodb://bench:REDACTED@127.0.0.1:27017", "couchbase.password: REDACTED", "redis://127.0.0.1:6379", "label: atlas", "postgres.user: bob}}", "user=postgres password=REDACTED dbname=ycsb", "redis://bo#b:REDACTED@127.0.0.1:6379", "WITH PASSWORD REDACTED", "requirepass REDACTED", "# no auth needed here"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q missing:\n%s", kept, out)
		}
	}
}

// Every style YAML has for a value under a key that names a credential is
// hidden, and every other value's credentials; the rest of the text is
// kept as written. Each secret is "hunter" and a number.
func TestRedactEveryStyle(t *testing.T) {
	in := `name: styles   # a plan
deployments:
  - label: a
    binding: redis
    properties:
      "redis.password": hunter1
      'jdbc.passwd': 'hunter2'
      jdbc.password: |
        hunter3
        hunter4
      couchbase.password: >-
        hunter5
      dynamodb.secretkey: "hunter6 \" still hunter6"
      x.token:
        - hunter7
        - {a: hunter8}
      redis.url: redis://bob:hunter9@127.0.0.1:6379   # the host is kept
    setup:
      - shell: |
          redis-cli -a hunter11 PING
          echo ok
      - {statement: "AUTH default hunter12"}
      - statement: HELLO 3 AUTH default hunter13
      - shell: "mysql -phunter14
          -e 'select 1'"
  - {label: b, binding: redis, properties: {"redis.password": hunter15, redis.host: 127.0.0.1}}
# password: hunter16
`
	out := Redact(in)
	if strings.Contains(out, "hunter") {
		t.Errorf("a secret is left:\n%s", out)
	}
	for _, kept := range []string{"name: styles   # a plan\n", "      \"redis.password\": REDACTED\n", "      'jdbc.passwd': REDACTED\n",
		"redis.host: 127.0.0.1}}", "          echo ok\n", "      - statement: \"HELLO 3 AUTH default REDACTED\"\n"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q missing:\n%s", kept, out)
		}
	}
	if Redact(out) != out {
		t.Errorf("redacting twice changes the text:\n%s\n%s", out, Redact(out))
	}
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(out), &n); err != nil {
		t.Errorf("the redacted plan is not YAML: %v", err)
	}
}

// An alias makes its anchor's value a credential's; a second document and
// text that is not YAML are not shown.
func TestRedactAliasesAndUnreadable(t *testing.T) {
	out := Redact("x: &pw hunter1\nredis.password: *pw\n")
	if strings.Contains(out, "hunter1") {
		t.Errorf("an alias's anchor is left:\n%s", out)
	}
	for _, in := range []string{"a: 1\n---\npassword: |\n  hunter2\n", "a: [hunter3\n"} {
		if out := Redact(in); strings.Contains(out, "hunter") {
			t.Errorf("Redact(%q) = %q", in, out)
		}
	}
}

// Aliases of aliases are walked once per anchor: ten of ten of ... nine
// levels deep (a 600-byte text naming 10⁹ values) is redacted at once,
// under a credential's key and beside it, the secret anchors hidden.
func TestRedactNestedAliases(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [hunter1, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i <= 9; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 10), ", "))
	}
	b.WriteString("redis.password: *a9\nplain: *a9   # redis.password=hunter2\n")
	out := Redact(b.String())
	if strings.Contains(out, "hunter") || !strings.Contains(out, "plain: *a9") {
		t.Errorf("Redact:\n%s", out)
	}
}

// A secret value repeated where no rule sees it (a step's command, a
// comment, another key) is hidden there too.
func TestRedactRepeatedSecret(t *testing.T) {
	in := "deployments:\n  - label: a\n    properties: {redis.password: hunter1x}\n    setup:\n      - shell: echo hunter1x > pw.txt   # hunter1x\nnote: &n hunter2x\nx.token: *n\n"
	out := Redact(in)
	if strings.Contains(out, "hunter") {
		t.Errorf("a repeated secret is left:\n%s", out)
	}
	if !strings.Contains(out, "echo REDACTED > pw.txt") {
		t.Errorf("the step lost more than its secret:\n%s", out)
	}
}

// A plan's name and a deployment's label, system and server settings are
// free text, read as sentences as a departure's are: "the password is PW", "pw PW", "bearer PW", "creds
// admin/PW", "root/PW" are hidden in the plan's copy and known wherever
// else it repeats them (they were kept in clear in the copy, every result,
// the report and its exports).
func TestRedactServerSettingsAsSentences(t *testing.T) {
	in := `name: "sn the password is Nam1S3cr3tx"
deployments:
  - label: "b pw Lab1S3cr3tx"
    binding: basic
    system: "Redis 7; root/Sys2S3cr3tx"
    server: {n1: "password: Srv1S3cr3tx", n2: "the password is Srv2S3cr3tx", n3: "pw Srv3S3cr3tx", n5: "bearer Srv5S3cr3tx", n6: "creds admin/Srv6S3cr3tx", n7: "root/Srv7S3cr3tx", storage: "Magma, 2 GiB"}
`
	out := Redact(in)
	if strings.Contains(out, "S3cr3t") || !strings.Contains(out, `storage: "Magma, 2 GiB"`) {
		t.Errorf("the server settings:\n%s", out)
	}
	known := Secrets(in)
	if got := known.HideKnown("Srv2S3cr3tx Srv7S3cr3tx Nam1S3cr3tx Sys2S3cr3tx Lab1S3cr3tx"); got != "REDACTED REDACTED REDACTED REDACTED REDACTED" {
		t.Errorf("known elsewhere: %q", got)
	}
}

// A value a rule finds secret in one place (a step's redis-cli -a, a
// URL's password, a comment's AUTH) is known, and hidden wherever the
// plan repeats it where no rule sees it.
func TestRedactRepeatsWhatRulesFind(t *testing.T) {
	in := `deployments:
  - label: a
    binding: redis
    properties: {redis.url: "redis://u:hunter1x@127.0.0.1:6379"}
    setup:
      - shell: redis-cli -a hunter2x PING   # AUTH default hunter3x
      - shell: |
          openssl rsa -in k.pem -passin pass:hunter4x
      - {shell: 'echo mongosh --eval "db.createUser({user:\"u\", pwd:\"hunter5x\", roles:[]})" >/dev/null; echo hunter5x'}
      - {shell: "echo redis-cli ACL SETUSER u on '>hunter6x' >/dev/null; echo hunter6x"}
      - {shell: 'echo Authorization: Bearer hunter7x; echo hunter7x'}
      - {shell: 'echo mongodb://u@h/?authMechanismProperties=AWS_SESSION_TOKEN:hunter8x; echo hunter8x'}
      - {shell: 'echo passwd=hunter9x| cat; echo hunter9x'}
      - {shell: 'echo host=127.0.0.1 password=hunter\10x; echo hunter10x'}
departures:
  - {what: hunter1x, why: "hunter2x hunter3x hunter4x"}
# hunter1x hunter2x
`
	out := Redact(in)
	if strings.Contains(out, "hunter") {
		t.Errorf("a repeat is left:\n%s", out)
	}
	for _, kept := range []string{"Bearer REDACTED; echo REDACTED\"}", "| cat; echo REDACTED\"}", "' >/dev/null; echo REDACTED\"}", "REDACTED; echo REDACTED\"}"} { // the rest of each line kept
		if !strings.Contains(out, kept) {
			t.Errorf("%q not kept:\n%s", kept, out)
		}
	}
	red := Secrets(in)
	all := "hunter1x hunter2x hunter3x hunter4x hunter5x hunter6x hunter7x hunter8x hunter9x hunter10x"
	if got := red.HideKnown(all); got != strings.TrimSpace(strings.Repeat("REDACTED ", 10)) {
		t.Errorf("Secrets knows: %q", got)
	}
}

// A plan's errors quote none of its secrets: a value a rule finds secret
// in one place (a step's redis-cli -a), repeated where it is refused.
func TestParseErrorsHideSecrets(t *testing.T) {
	text := "name: x\ndeployments:\n  - label: one\n    binding: redis\n    setup:\n      - shell: redis-cli -a hunter1x PING\nworkloads: [a]\nrecords: [10]\nthreads: [hunter1x]\n"
	_, err := Parse([]byte(text), "plan.yaml", func(string) bool { return true })
	if err == nil || strings.Contains(err.Error(), "hunter") || !strings.Contains(err.Error(), "thread count") {
		t.Errorf("error: %v", err)
	}
}

// A block whose line a backslash ends is one command, as the shell reads
// it: its password on the next line is hidden, and the copy keeps the
// block as it was written, line breaks and all.
func TestRedactContinuedBlock(t *testing.T) {
	in := "setup:\n  - shell: |\n      redis-cli -h 127.0.0.1 \\\n        -a hunter1x ping; echo c1\n  - x: 1   # kept\n"
	want := "setup:\n  - shell: |\n      redis-cli -h 127.0.0.1 \\\n        -a REDACTED ping; echo c1\n  - x: 1   # kept\n"
	if out := Redact(in); out != want {
		t.Errorf("Redact:\n%s\nwant\n%s", out, want)
	}
}

// A credential a sentence gives, in the plan's comments, a step's
// comments or a departure's text, is hidden in the copy and known to
// every writer; the copy is kept as written.
func TestRedactProse(t *testing.T) {
	in := `# Password for redis -> hunter1x
deployments:
  - label: a
    binding: redis
    setup:
      - shell: |
          # the redis password is hunter2x
          redis-cli ping
      # password:
      # hunter3x
      - shell: echo ok   # token hunter4x
departures:
  - {what: login, why: "password hunter5x"}
  - what: auth
    why: the token is Zq8hunter6x
  - {what: "creds admin/hunter7x", why: "the password authentication failed"}
`
	out := Redact(in)
	if strings.Contains(out, "hunter") {
		t.Errorf("a secret is left:\n%s", out)
	}
	for _, kept := range []string{"# Password for redis -> REDACTED\n", "  - {what: login, why: \"password REDACTED\"}\n", "    why: \"the token is REDACTED\"\n", "the password authentication failed"} {
		if !strings.Contains(out, kept) {
			t.Errorf("%q missing:\n%s", kept, out)
		}
	}
	all := "hunter1x hunter2x hunter3x hunter4x hunter5x Zq8hunter6x hunter7x"
	if got := Secrets(in).HideKnown(all); strings.Contains(got, "hunter") {
		t.Errorf("Secrets knows: %q", got)
	}
}

// Two values of one line hidden, the later made shorter first, on the
// plan's last line: the earlier is hidden where it stands (the line's end
// was taken from the text before the later edit, past the text's end).
func TestRedactTwoEditsOnTheLastLine(t *testing.T) {
	for in, want := range map[string]string{
		"departures:\n  - {what: \"password hunter1xyz\", why: \"password hunter2xyzab\"}\n": "departures:\n  - {what: \"password REDACTED\", why: \"password REDACTED\"}\n",
		"x: {a: \"redis-cli -a hunter3xyz\", b: \"redis-cli -a hunter4xyzab\"}\n":            "x: {a: \"redis-cli -a REDACTED\", b: \"redis-cli -a REDACTED\"}\n",
	} {
		if out := Redact(in); out != want {
			t.Errorf("Redact(%q)\n got %q\nwant %q", in, out, want)
		}
	}
}

// A password a step gives a program on its input, where no rule on the
// text sees it (echo PW | docker login --password-stdin), is known from
// the shell's reading of the step, and hidden in the copy and by every
// writer: a value the rules leave as it is is read so too.
func TestRedactStdinPasswords(t *testing.T) {
	in := `deployments:
  - label: a
    binding: redis
    setup:
      - shell: echo hunter1x | docker login -u u --password-stdin r
      - shell: echo hvs.hunter2x | vault login -
      - {shell: "echo 'hunter3x' | passwd --stdin bench"}
      - shell: |
          chpasswd <<EOF
          bench:hunter4x
          EOF
`
	if out := Redact(in); strings.Contains(out, "hunter") || !strings.Contains(out, "echo REDACTED | docker login") {
		t.Errorf("a secret is left:\n%s", out)
	}
	if got := Secrets(in).HideKnown("hunter1x hvs.hunter2x hunter3x hunter4x"); got != "REDACTED REDACTED REDACTED REDACTED" {
		t.Errorf("Secrets knows: %q", got)
	}
}

// A setup statement's comments are sentences, as a shell step's are: a
// password said in them ("the admin password is PW", "root/PW", "creds:
// admin/PW", "pw PW") is known and hidden wherever the plan is written
// (it was in the plan's copy, setup.json, setup.log, index.json and the
// report).
func TestRedactStatementComments(t *testing.T) {
	in := `deployments:
  - label: p
    binding: postgres
    setup:
      - statement: |
          -- the admin password is Sq1S3cr3tx; root/Sq2S3cr3tx
          /* creds: admin/Sq3S3cr3tx, pw Sq4S3cr3tx */
          SELECT 1; -- fine
`
	out := Redact(in)
	if strings.Contains(out, "S3cr3t") || !strings.Contains(out, "SELECT 1;") {
		t.Errorf("the statement:\n%s", out)
	}
	if got := Secrets(in).HideKnown("Sq1S3cr3tx Sq2S3cr3tx Sq3S3cr3tx Sq4S3cr3tx"); got != "REDACTED REDACTED REDACTED REDACTED" {
		t.Errorf("known elsewhere: %q", got)
	}
}
