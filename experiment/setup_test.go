package experiment

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/props"
)

// stepsPlan: shell steps before each load, before each workload, before
// workload c only, and a workload's own; each writes what it saw to
// steps.txt in the plan's directory.
const stepsPlan = `name: steps
deployments:
  - label: one
    binding: basic
    setup:
      - {shell: 'echo "load $SERVBENCH_DEPLOYMENT $SERVBENCH_RECORDS $SERVBENCH_TABLE" >> steps.txt'}
      - {shell: 'echo "each $SERVBENCH_WORKLOAD" >> steps.txt; echo "password=hunter2 done"', before: each workload}
      - {shell: 'echo "only-c $SERVBENCH_WORKLOAD" >> steps.txt', before: c}
  - label: two
    binding: basic
workloads:
  - a
  - name: c
    setup:
      - {shell: 'echo "c-entry $SERVBENCH_DEPLOYMENT $SERVBENCH_BINDING" >> steps.txt'}
records: [100, 200]
threads: [1]
operations: 100
`

func TestSetupSteps(t *testing.T) {
	pl := loadPlan(t, stepsPlan)
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	r := New(pl, dir, io.Discard)
	n := 0
	r.OnRun = func(plan.IndexRun) {
		if n++; n == 3 {
			cancel()
		}
	}
	if err := r.Run(ctx); err != ErrInterrupted {
		t.Fatalf("interrupted plan: %v", err)
	}
	cancel()
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatalf("resumed: %v", err)
	}
	got, err := os.ReadFile(filepath.Join(pl.Dir, "steps.txt"))
	if err != nil {
		t.Fatal(err)
	}
	// Each step once, in plan order, though the plan was stopped and
	// resumed in the middle.
	want := `load one 100 usertable_r100
each a
each c
only-c c
c-entry one basic
load one 200 usertable_r200
each a
each c
only-c c
c-entry one basic
c-entry two basic
c-entry two basic
`
	if string(got) != want {
		t.Errorf("steps ran:\n%s\nwant:\n%s", got, want)
	}
	log, err := plan.ReadSetup(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(log.Steps) != 12 {
		t.Fatalf("%d steps logged, want 12", len(log.Steps))
	}
	e := log.Steps[1]
	if e.ID != "workload/one/r100/a/1" || e.Kind != "shell" || e.Line != 7 || e.Answer != "password=REDACTED done" || e.Error != "" || e.Workload != "a" {
		t.Errorf("logged %+v", e)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "setup.log"))
	if strings.Contains(string(text), "hunter2") || strings.Count(string(text), "\n") < 12 {
		t.Errorf("setup.log:\n%s", text)
	}
}

// A failing step stops its deployment, named with its line; the other
// deployment runs; the failed step is run again when the plan is.
func TestSetupStepFails(t *testing.T) {
	text := strings.Replace(stepsPlan, `'echo "only-c $SERVBENCH_WORKLOAD" >> steps.txt'`, `'echo nope >&2; exit 3'`, 1)
	pl := loadPlan(t, text)
	dir := filepath.Join(t.TempDir(), "out")
	err := New(pl, dir, io.Discard).Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "runs failed") {
		t.Fatalf("plan with a failing step: %v", err)
	}
	ix, n := statuses(t, dir)
	// one: a at 100 records ran before c's step failed; the rest of one
	// failed; two ran all four.
	if n["done"] != 5 || n["failed"] != 3 {
		t.Fatalf("by status %v", n)
	}
	for _, c := range ix.Runs {
		if c.Status == "failed" && !strings.Contains(c.Error, "setup step of line 8 (shell echo nope >&2; exit 3) failed: exit status 3") {
			t.Errorf("%s: %s", c.ID, c.Error)
		}
	}
	log, _ := plan.ReadSetup(dir)
	failed := 0
	for _, e := range log.Steps {
		if e.Error != "" {
			failed++
			if e.Error != "exit status 3" || e.Answer != "nope" || e.ID != "workload/one/r100/c/2" {
				t.Errorf("failed step logged %+v", e)
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d failed steps logged, want 1", failed)
	}
	// Run again, the failed step is tried again (and fails again).
	if err := New(pl, dir, io.Discard).Run(context.Background()); err == nil {
		t.Error("the failing step passed the second time")
	}
	if again, _ := plan.ReadSetup(dir); len(again.Steps) != len(log.Steps)+1 || again.Steps[len(log.Steps)].ID != "workload/one/r100/c/2" {
		t.Errorf("run again: %d steps logged after %d", len(again.Steps), len(log.Steps))
	}
}

// A step's output is kept to its last 64 KB in setup.log, however much
// it writes.
func TestSetupStepOutputBounded(t *testing.T) {
	text := strings.Replace(stepsPlan, `'echo "only-c $SERVBENCH_WORKLOAD" >> steps.txt'`, `'yes 0123456789 | head -c 1000000; echo; echo last'`, 1)
	pl := loadPlan(t, text)
	dir := filepath.Join(t.TempDir(), "out")
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(filepath.Join(dir, "setup.log"))
	if err != nil || st.Size() > 3*tailMax {
		t.Fatalf("setup.log: %v, %d bytes", err, st.Size())
	}
	log, _ := plan.ReadSetup(dir)
	for _, e := range log.Steps {
		if e.ID == "workload/one/r100/c/2" && e.Answer != "last" {
			t.Errorf("answer %q", e.Answer)
		}
	}
}

// Statements need a binding that runs them: refused before anything
// runs, on the step's line.
func TestSetupStatementRefused(t *testing.T) {
	text := strings.Replace(stepsPlan, `{shell: 'echo "only-c $SERVBENCH_WORKLOAD" >> steps.txt', before: c}`, `{statement: "CREATE INDEX", before: c}`, 1)
	pl := loadPlan(t, text)
	err := New(pl, t.TempDir(), io.Discard).Check()
	if err == nil || !strings.Contains(err.Error(), "plan.yaml:8: setup statement of deployment one: binding basic runs no statements; give a shell step") {
		t.Errorf("statement for basic: %v", err)
	}
}

// No file a plan's run writes holds a credential a setup step carries or
// answers: AUTH user password, redis-cli -a, a JSON body, ACL SETUSER,
// mysql -p, in flow and block style (a property's every form is
// TestRedactEveryStyle's, on the function that makes plan.yaml). Each
// secret is "hunter" and a number.
func TestNoFileHoldsACredential(t *testing.T) {
	pl := loadPlan(t, `name: secrets
deployments:
  - label: one
    binding: basic
    setup:
      - {shell: 'echo "HELLO 3 AUTH default hunter4"; echo "AUTH default hunter5"'}
      - {shell: 'PGPASSWORD=hunter10x sh -c "echo \$PGPASSWORD"'}
      - shell: |
          echo 'redis-cli -a hunter6 PING' '{"password": "hunter7"}'
          echo "ACL SETUSER bench on >hunter8" "mysql -phunter9"
workloads: [c]
records: [10]
threads: [1]
operations: 10
`)
	dir := filepath.Join(t.TempDir(), "out")
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	noFileHolds(t, dir, "hunter")
	log, err := plan.ReadSetup(dir)
	if err != nil || len(log.Steps) != 3 || !strings.Contains(log.Steps[0].Text, `echo "HELLO 3 AUTH default REDACTED"; echo "AUTH default REDACTED"`) {
		t.Errorf("setup log: %+v, %v", log, err)
	}
}

// A secret of the environment that a step inherits and prints bare
// (echo $PGPASSWORD: no rule sees a name beside it) is in no file of the
// plan's: the environment's secrets are known to every writer.
func TestStepPrintsTheEnvironmentsSecret(t *testing.T) {
	t.Setenv("PGPASSWORD", "hunter7env")
	t.Setenv("AWS_SESSION_TOKEN", "hunter8token")
	text := strings.Replace(stepsPlan, `'echo "only-c $SERVBENCH_WORKLOAD" >> steps.txt'`, `'echo "$PGPASSWORD"; echo "$AWS_SESSION_TOKEN"'`, 1)
	dir := filepath.Join(t.TempDir(), "out")
	if err := New(loadPlan(t, text), dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	noFileHolds(t, dir, "hunter")
}

// A step that leaves a process running in the background (a server it
// starts), holding its output, is taken at its word when its shell ends
// well: done, its answer what it printed (it failed: "WaitDelay expired").
func TestSetupStepLeavesABackgroundProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the step's WaitDelay (5 s)")
	}
	text := strings.Replace(stepsPlan, `'echo "only-c $SERVBENCH_WORKLOAD" >> steps.txt'`, `'sleep 8 & echo started'`, 1)
	pl := loadPlan(t, text)
	dir := filepath.Join(t.TempDir(), "out")
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	log, _ := plan.ReadSetup(dir)
	found := false
	for _, e := range log.Steps {
		if e.ID == "workload/one/r100/c/2" {
			found = true
			if e.Error != "" || e.Answer != "started" {
				t.Errorf("the step: %+v", e)
			}
		}
	}
	if !found {
		t.Error("the step not logged")
	}
}

// A secret is known however a step shows it: in output that is not kept
// (a step's first line, 70 KB before its end, and one cut where the kept
// tail begins, right after its name), and as the shell gives it to its
// program when the step joins it from quoted pieces ('hun”ter', "hun"ter).
// A later step's output shows each one, and no file holds it.
func TestSecretsOutOfSight(t *testing.T) {
	pl := loadPlan(t, `name: sight
deployments:
  - label: one
    binding: basic
    setup:
      - {shell: 'printf "pass""word=hun%s\n" ter11x; head -c 70000 /dev/zero | tr "\0" a; echo; echo end'}
      - {shell: 'printf "pass""word=hun%s\n" ter12x; head -c 65525 /dev/zero | tr "\0" b; echo'}
      - {shell: "true || redis-cli -a 'hun''ter13x' ping"}
      - {shell: "true || redis-cli -a \"hun\"ter14x ping"}
      - {shell: 'for s in 11 12 13 14; do echo "hun""ter${s}x"; done'}
workloads: [c]
records: [10]
threads: [1]
operations: 10
`)
	dir := runHiding(t, pl, "hunter")
	log, err := plan.ReadSetup(dir)
	if err != nil || len(log.Steps) != 5 || log.Steps[4].Answer != props.Redacted {
		t.Errorf("setup log: %+v, %v", log, err)
	}
}

// noFileHolds fails t for each file under dir that holds secret, and when
// fewer than four files are there to read.
func noFileHolds(t *testing.T, dir, secret string) {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if i := strings.Index(string(b), secret); i >= 0 {
			t.Errorf("%s holds a secret: %q", path, b[max(0, i-40):min(len(b), i+20)])
		}
		return nil
	})
	if err != nil || n < 4 {
		t.Errorf("%d files read: %v", n, err)
	}
}

// cancelOn cancels a plan when its progress says text.
type cancelOn struct {
	text   string
	cancel context.CancelFunc
	buf    bytes.Buffer
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.buf.Write(p)
	if strings.Contains(c.buf.String(), c.text) {
		c.cancel()
	}
	return len(p), nil
}

// A plan stopped while a setup step runs starts nothing after it: its
// load does not begin (it began after Ctrl-C, the step having ended well).
func TestStoppedDuringAStepLoadsNothing(t *testing.T) {
	pl := loadPlan(t, "name: s\ndeployments: [{label: b, binding: basic, setup: [{shell: 'echo hi'}]}]\nworkloads: [c]\nrecords: [100]\nthreads: [1]\noperations: 100\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &cancelOn{text: "setup load/", cancel: cancel}
	err := New(pl, filepath.Join(t.TempDir(), "out"), w).Run(ctx)
	if err == nil || strings.Contains(w.buf.String(), "loading") {
		t.Errorf("stopped during its step: %v\n%s", err, w.buf.String())
	}
}

// A password the shell assembles is known as the shell makes it: from
// variables the step assigns (-a "${P}x", -p$P$Q), and with an escaped
// space inside it (--pass=a\ b). A later step's output shows each one.
func TestShellAssembledSecrets(t *testing.T) {
	pl := loadPlan(t, `name: shell
deployments:
  - label: one
    binding: basic
    setup:
      - {shell: 'true || { P=hun; redis-cli -a "${P}ter15x" ping; }'}
      - {shell: 'true || { P=hunt; Q=er16x; mysql -u u -p$P$Q; }'}
      - {shell: 'true || redis-cli --pass=sec\ ter17x ping'}
      - {shell: 'echo "it is hun""ter15x, hun""ter16x and sec ter17x"'}
workloads: [c]
records: [10]
threads: [1]
operations: 10
`)
	runHiding(t, pl, "hunter15x", "hunter16x", "ter17x")
}

// runHiding runs pl into a directory of its own, which it returns, and
// fails t for each of secrets its terminal output or a file shows.
func runHiding(t *testing.T, pl *plan.Plan, secrets ...string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "out")
	var stderr bytes.Buffer
	if err := New(pl, dir, &stderr).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets {
		if i := strings.Index(stderr.String(), s); i >= 0 {
			t.Errorf("the terminal shows a secret: %q", stderr.String()[max(0, i-40):min(stderr.Len(), i+20)])
		}
		noFileHolds(t, dir, s)
	}
	return dir
}

// A named pipe where a load's or a run's result goes holds no finished
// run: the phase fails naming it, and the plan goes on (it waited for a
// writer without end).
func TestPipeAtAResult(t *testing.T) {
	for _, at := range []string{"loads/b-r100-fields.json", "runs/b/c/r100-t1-qmax-1.json"} {
		dir := filepath.Join(t.TempDir(), "out")
		os.MkdirAll(filepath.Dir(filepath.Join(dir, at)), 0o755)
		if err := syscall.Mkfifo(filepath.Join(dir, at), 0o644); err != nil {
			t.Fatal(err)
		}
		pl := loadPlan(t, "name: f\ndeployments: [{label: b, binding: basic}]\nworkloads: [c]\nrecords: [100]\nthreads: [1]\noperations: 100\n")
		err := New(pl, dir, io.Discard).Run(context.Background())
		ix, _ := plan.ReadIndex(dir)
		if err == nil || ix == nil || len(ix.Runs) != 1 || !strings.Contains(ix.Runs[0].Error, "named pipe") {
			t.Errorf("a pipe at %s: %v, %+v", at, err, ix)
		}
	}
}

// A step reads the deployment's properties from its environment
// ($SERVBENCH_PROPERTY_REDIS_PASSWORD): the password is given to the
// program it runs, and the step's text, written in the plan's directory,
// holds the reference, never the value; what the step prints of it is
// hidden.
func TestStepReadsPropertiesFromItsEnvironment(t *testing.T) {
	pl := loadPlan(t, `name: env
deployments:
  - label: one
    binding: basic
    properties: {redis.password: hunter130x}
    setup:
      - {shell: 'printf %s "$SERVBENCH_PROPERTY_REDIS_PASSWORD" > pw.txt; echo "got $SERVBENCH_PROPERTY_REDIS_PASSWORD"'}
workloads: [a]
records: [100]
threads: [1]
operations: 10
`)
	dir := filepath.Join(t.TempDir(), "out")
	if err := New(pl, dir, io.Discard).Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(pl.Dir, "pw.txt"))
	if err != nil || string(got) != "hunter130x" {
		t.Fatalf("the step read %q (%v), want the deployment's redis.password", got, err)
	}
	for _, f := range []string{"plan.yaml", "setup.json", "setup.log"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), "hunter130x") {
			t.Errorf("%s holds the password", f)
		}
		if f != "plan.yaml" && !strings.Contains(string(b), "$SERVBENCH_PROPERTY_REDIS_PASSWORD") {
			t.Errorf("%s does not hold the step's reference", f)
		}
	}
	if got := PropertyEnv("mongodb.url"); got != "SERVBENCH_PROPERTY_MONGODB_URL" {
		t.Errorf("PropertyEnv(mongodb.url) = %s", got)
	}
}
