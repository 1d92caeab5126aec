package experiment

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/report"
)

// secretForms are the forms in which a plan's step may carry a secret,
// each found by a rule: {S} stands for the secret.
var secretForms = []string{
	`redis-cli -h 127.0.0.1 -a {S} PING`,
	`redis-cli --user bench --pass {S} PING`,
	`mysql -uroot -p{S} ycsb`,
	`cqlsh 127.0.0.1 -u cassandra -p {S}`,
	`curl -s -u admin:{S} http://127.0.0.1:8091/pools`,
	`curl -H "Authorization: Bearer {S}" http://127.0.0.1:8000/`,
	`PGPASSWORD={S} psql -h 127.0.0.1`,
	`psql -c "ALTER ROLE bench WITH PASSWORD '{S}'"`,
	`mysql -e "CREATE USER bench IDENTIFIED BY '{S}'"`,
	`redis-cli CONFIG SET requirepass {S}`,
	`redis-cli ACL SETUSER bench on >{S}`,
	`redis-cli AUTH default {S}`,
	`mongosh --eval 'db.auth("bench", "{S}")'`,
	`psql postgres://bench:{S}@127.0.0.1:5432/ycsb`,
	`tool --token={S}`,
	`couchbase-cli server-list -c 127.0.0.1 -u Administrator -p {S}`,
	`nodetool -u cassandra -pw {S} status`,
	`sshpass -p{S} ssh 127.0.0.1`,
	`echo '{"password": "{S}"}'`,
	`kubectl create secret generic db --from-literal=password={S}`,
	`docker run --env=POSTGRES_PASSWORD={S} postgres`,
	`helm install db bitnami/mysql --set=auth.rootPassword={S}`,
	`mongosh --eval 'db.createUser({user:"bench",pwd:"{S}",roles:[]})'`,
	`aws configure set aws_secret_access_key {S}`,
	`docker login -u bench -p {S} 127.0.0.1:5000`,
	`openssl rsa -in k.pem -passin pass:{S}`,
	`mongosh "mongodb://127.0.0.1/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:{S}"`,
	`keytool -list -keystore k.jks -storepass {S}`,
	`redis-cli HELLO 3 AUTH default {S} SETNAME bench`,
	`redis-cli MIGRATE 127.0.0.1 6380 k 0 1000 AUTH2 bench {S}`,
	`mysql -e "SET PASSWORD FOR 'bench'@'%' = '{S}'"`,
	`mysql -e "ALTER USER bench IDENTIFIED WITH mysql_native_password BY '{S}'"`,
	`curl -H 'X-Api-Key: {S}' http://127.0.0.1:8000/`,
	`mongosh --eval "db.changeUserPassword('bench', '{S}')"`,
	`sh -c 'redis-cli -a {S} PING'`,
	`redis-cli --tls -u rediss://bench:{S}@127.0.0.1:6380`,
	`mysql --password={S}`,
	`psql "host=127.0.0.1 user=bench password={S} sslmode=disable"`,
	`PGPASSWORD='{S}' pgbench -i`,
	`echo mongosh --eval "db.createUser({user:\"u\", pwd:\"{S}\", roles:[]})" >/dev/null; echo {S}`,
	`echo redis-cli ACL SETUSER u on '>{S}' >/dev/null; echo {S}`,
	`echo Authorization: Bearer {S}; echo {S}`,
	`echo mongodb://u@h/?authMechanismProperties=AWS_SESSION_TOKEN:{S}; echo {S}`,
	`echo passwd={S}| cat; echo {S}`,
	`echo psql "host=127.0.0.1 password=\{S}"; echo {S}`,
	"redis-cli -h 127.0.0.1 \\\n  -a {S} ping",
	"cqlsh 127.0.0.1 -u cassandra \\\n -p {S} -e 'x'",
	`curl -d "{\"token\": \"{S}\"}" http://127.0.0.1:1/; echo {S}`,
	`echo "{\"password\":\"{S}\"}" > /dev/null; echo {S}`,
	`P={S}; echo redis-cli -a "$P" ping`,
	`export RPW={S} && echo redis-cli --pass "$RPW"; echo {S}`,
	`echo "Endpoint=sb://x/;SharedAccessKey={S};" > /dev/null; echo {S}`,
	`mongostat -u u -p {S}`,
	`htpasswd -b f user {S}`,
	`echo 'u:{S}@tcp(127.0.0.1:3306)/d'; echo {S}`,
}

// Every value a rule finds secret anywhere in a plan (a step's command
// line, here in every form the rules know) is hidden wherever the plan
// repeats it where no rule sees one: a comment, a departure, a property
// and a server setting under names that say nothing, another step's
// output. No file of the directory, nor the report and its exports, holds
// one; the departures' control characters are escaped.
func TestPlanSecretsByValue(t *testing.T) {
	var steps, repeats, departures strings.Builder
	var secrets []string
	for i, f := range secretForms {
		s := fmt.Sprintf("hunter%02dx", i)
		secrets = append(secrets, s)
		fmt.Fprintf(&steps, "      - shell: %q   # step %d\n", "true || "+strings.ReplaceAll(f, "{S}", s), i)
		fmt.Fprintf(&repeats, "  server.setting.note%d: %s   # %s again\n", i, s, s)
		fmt.Fprintf(&departures, "  - {what: \"step %d\", why: \"it says %s\\e[31m\\r\"}\n", i, s)
	}
	last := secrets[len(secrets)-1]
	text := "name: forms\ndeployments:\n  - label: one\n    binding: basic\n    properties:\n      server.setting.maxclients: " + last + "\n    setup:\n" +
		steps.String() + "      - shell: 'echo " + strings.Join(secrets, " ") + "'\n" +
		"workloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\nproperties:\n  fieldnameprefix: " + secrets[0] + "\n" + repeats.String() +
		"departures:\n" + departures.String()
	pl := loadPlan(t, text)
	dir := filepath.Join(t.TempDir(), "out")
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	set, err := report.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	secs := set.Sections()
	var page bytes.Buffer
	if err := set.HTML(&page, secs); err != nil {
		t.Fatal(err)
	}
	exports := filepath.Join(t.TempDir(), "exports")
	if _, err := report.Export(exports, secs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(exports, "report.html"), page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, d := range []string{dir, exports} {
		err := filepath.WalkDir(d, func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			files[filepath.Base(path)] = true
			for i, s := range secrets {
				if j := bytes.Index(b, []byte(s)); j >= 0 {
					t.Errorf("%s holds the secret of %q: %q", path, secretForms[i], b[max(0, j-60):min(len(b), j+20)])
				}
			}
			if strings.HasPrefix(path, exports) && bytes.ContainsAny(b, "\x1b") {
				t.Errorf("%s holds a departure's control character", path)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"plan.yaml", "index.json", "setup.log", "setup.json", "departures.csv", "departures.md", "properties.csv", "deployments.csv", "report.html"} {
		if !files[f] {
			t.Errorf("%s not written: the test reads %v", f, files)
		}
	}
}

// A directory whose plan copy an earlier version wrote, hiding less (a
// secret a rule found in a step left in clear where the plan repeats it),
// still holds the same plan: the plan goes on there.
func TestPlanCopyHidingLessIsTheSamePlan(t *testing.T) {
	text := "name: again\ndeployments:\n  - label: one\n    binding: basic\n    setup:\n      - shell: 'true || redis-cli -a hunter1x PING'   # hunter1x\n" +
		"workloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\n"
	pl := loadPlan(t, text)
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	older := strings.Replace(plan.Redact(text), "# REDACTED", "# hunter1x", 1) // as an earlier version wrote it
	if older == plan.Redact(text) {
		t.Fatalf("the copy:\n%s", older)
	}
	if err := os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte(older), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "plan.yaml")); bytes.Contains(b, []byte("hunter")) {
		t.Errorf("plan.yaml:\n%s", b)
	}
}

// A plan's check says what is wrong without the plan's secrets: a value
// a step's command line carries as a password, repeated where a number
// was wanted.
func TestPlanCheckHidesSecrets(t *testing.T) {
	pl := loadPlan(t, "name: check\ndeployments:\n  - label: one\n    binding: basic\n    setup:\n      - shell: 'true || redis-cli -a hunter1x PING'\n"+
		"workloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\nproperties:\n  fieldcount: hunter1x\n")
	err := New(pl, "", io.Discard).Check()
	if err == nil || !strings.Contains(err.Error(), "fieldcount") || strings.Contains(err.Error(), "hunter") {
		t.Errorf("check: %v", err)
	}
}

// A secret the rules find only in a step's output (a password printed
// from a variable, a printf argument) is known from then on: the step's
// command, written in setup.log and setup.json after it ran, hides it, as
// does what the run says. (The plan's copy, written before any step
// runs, is the plan's text as the rules find it.)
func TestStepOutputTeachesItsSecret(t *testing.T) {
	text := `name: learned
deployments:
  - label: one
    binding: basic
    setup:
      - shell: "P=hunterVarQ7; echo password=$P"
      - shell: "printf 'password=%s\\n' hunterPfQ8"
      - shell: "echo hunterLateQ9 >/dev/null"
      - shell: "X=hunterLateQ9; echo password=$X"
      - shell: "P=$(printf 'hunter%sQ1' Gen); echo password=$P"
      - {before: c, shell: "printf 'again hunter%sQ1\\n' Gen"}
workloads: [c]
records: [10]
threads: [1]
operations: 10
departures:
  - what: "the step's value hunterLateQ9"
    why: "said"
`
	pl := loadPlan(t, text)
	dir := filepath.Join(t.TempDir(), "out")
	check := func(said string) {
		t.Helper()
		for _, f := range []string{"setup.log", "setup.json", "plan.yaml", "index.json"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{"hunterVarQ7", "hunterPfQ8", "hunterLateQ9", "hunterGenQ1"} {
				if bytes.Contains(b, []byte(s)) {
					t.Errorf("%s holds %s: %s", f, s, b)
				}
			}
		}
		if strings.Contains(said, "hunterVarQ7") || strings.Contains(said, "hunterPfQ8") || strings.Contains(said, "hunterLateQ9") || strings.Contains(said, "hunterGenQ1") {
			t.Errorf("said: %s", said)
		}
	}
	var said bytes.Buffer
	if err := New(pl, dir, &said).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	check(said.String())
	// Run again in the same directory: the copy that hides more is the same
	// plan, and it stays hidden.
	said.Reset()
	if err := New(loadPlan(t, text), dir, &said).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	check(said.String())
}

// hiddenIn finds what a copy of the plan hides, and refuses a copy that
// is not the plan.
func TestHiddenIn(t *testing.T) {
	raw := "a: x\nshell: echo pw1234 >/dev/null\nb: pw1234\n"
	kept := "a: x\nshell: echo REDACTED >/dev/null\nb: REDACTED\n"
	got, ok := hiddenIn(kept, raw)
	if !ok || len(got) != 2 || got[0] != "pw1234" || got[1] != "pw1234" {
		t.Fatalf("hiddenIn = %q %v", got, ok)
	}
	for _, other := range []string{
		"a: x\nshell: echo pw1234 >/dev/null\nb: pw1234\nREDACTEDx", // past the plan's end
		"a: y\nshell: echo REDACTED >/dev/null\nb: REDACTED\n",      // another value in clear
		"a: x\nshell: echo REDACTED >/dev/null\n",                   // shorter
		"a: REDACTED\n", // a hidden piece across lines
		"a: x\nshell: echo pw1234 >/dev/null\nb: pw1234\n", // nothing hidden
	} {
		if got, ok := hiddenIn(other, raw); ok {
			t.Errorf("hiddenIn(%q) = %q, true", other, got)
		}
	}
}

// A secret a step's output shows late is hidden in what was written
// before it too: the results, text reports and logs of the loads and runs
// that ran first.
func TestLateSecretHiddenInEarlierResults(t *testing.T) {
	text := `name: late
deployments:
  - label: one
    binding: basic
    properties: {table: hunterTabQ2}
    setup:
      - {before: a, shell: "P=hunterTab; echo password=${P}Q2"}
workloads: [c, a]
records: [10]
threads: [1]
operations: 10
`
	dir := filepath.Join(t.TempDir(), "out")
	if err := New(loadPlan(t, text), dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	n := 0
	filepath.WalkDir(dir, func(path string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		n++
		if b, _ := os.ReadFile(path); bytes.Contains(b, []byte("hunterTabQ2")) {
			t.Errorf("%s holds the secret", path)
		}
		return nil
	})
	if n < 6 {
		t.Errorf("%d files written", n)
	}
}

// A plan's name and a deployment's system are free text, read as
// sentences: a password said in them ("the password is PW", "root/PW")
// is in no file of the plan's directory nor in its closing line (it was in
// index.json, the report and its exports), and a plan resumed there is
// the same plan.
func TestPlanNameAndSystemSecrets(t *testing.T) {
	text := "name: \"sn the password is hunter1x\"\ndeployments:\n  - label: b\n    binding: basic\n    system: \"Redis 7; root/hunter2x\"\n" +
		"workloads: [c]\nrecords: [10]\nthreads: [1]\noperations: 10\n"
	dir := filepath.Join(t.TempDir(), "out")
	for i := range 2 {
		var stderr bytes.Buffer
		if err := New(loadPlan(t, text), dir, &stderr).Run(context.Background()); err != nil {
			t.Fatalf("run %d: %v: %s", i, err, stderr.String())
		}
		if strings.Contains(stderr.String(), "hunter") || i == 1 && !strings.Contains(stderr.String(), "1 found done") {
			t.Errorf("run %d: %s", i, stderr.String())
		}
	}
	noFileHolds(t, dir, "hunter")
}
