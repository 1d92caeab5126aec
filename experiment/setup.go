package experiment

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/plan"
	"github.com/servbench/servbench/props"
)

// checkSteps refuses, before anything runs, a statement for a binding that
// runs none and a workload's statement for a binding nobody has.
func (r *Runner) checkSteps() error {
	bad := func(st plan.Step, format string, args ...any) error {
		return &plan.Error{File: r.pl.File, Line: st.Line, Msg: fmt.Sprintf(format, args...)}
	}
	for _, t := range r.pl.Deployments {
		for _, st := range t.Setup {
			if st.Statement != "" && db.AdminLanguage(t.Binding) == "" {
				return bad(st, "setup statement of deployment %s: binding %s runs no statements; give a shell step", t.Label, t.Binding)
			}
		}
	}
	for _, w := range r.pl.Workloads {
		for _, st := range w.Setup {
			if st.Binding == "" {
				continue
			}
			if _, err := db.Lookup(st.Binding); err != nil {
				return bad(st, "setup step of workload %s: %v", w.Name, err)
			}
			if st.Statement != "" && db.AdminLanguage(st.Binding) == "" {
				return bad(st, "setup statement of workload %s: binding %s runs no statements; give a shell step", w.Name, st.Binding)
			}
		}
	}
	return nil
}

// steps runs setup steps of deployment t for workload w's data set of
// records, those of scope ("load/<key>" or "workload/..."), in order,
// skipping the ones DIR/setup.json logs done. Consecutive statements
// share one connection. The first failure ends it: its error names the
// step and its line.
func (r *Runner) steps(ctx context.Context, scope string, t *plan.Deployment, w *plan.Workload, records int64, steps []plan.Step, forWorkload bool) error {
	if len(steps) == 0 {
		return nil
	}
	log, err := plan.ReadSetup(r.dir)
	if err != nil {
		return err
	}
	s := &setupRun{r: r, scope: scope, t: t, w: w, records: records, steps: steps, forWorkload: forWorkload, log: log, done: map[string]bool{}}
	for _, e := range log.Steps {
		if e.Error == "" {
			s.done[e.ID+"\x00"+e.Text] = true
		}
	}
	s.load = r.loads[r.loadKey(t, w, records)]
	// What steps print and answer is hidden with the secrets the
	// deployment's properties and the steps' own text carry: a command's
	// output may repeat them where no rule can see one (echo $PGPASSWORD).
	s.red.Merge(r.secrets) // the plan's, wherever it holds them
	if s.load != nil {
		s.red.Known(s.load.Props)
	}
	for _, st := range steps {
		s.red.Hidden(st.Shell + "\n" + st.Statement)
	}
	for i := 0; i < len(steps); {
		if err := ctx.Err(); err != nil { // stopped: nothing more runs, nothing is logged
			return err
		}
		switch {
		case s.isDone(i):
			i++
		case steps[i].Shell != "":
			if err := s.shell(ctx, i); err != nil {
				return err
			}
			i++
		default:
			if i, err = s.statements(ctx, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// setupRun is one run of a scope's setup steps: where they run, the setup
// log as read and as it grows, the steps it holds as done (by ID and
// text), the load phase the statements run with, and the redactor every
// text, output and answer passes through.
type setupRun struct {
	r           *Runner
	scope       string
	t           *plan.Deployment
	w           *plan.Workload
	records     int64
	steps       []plan.Step
	forWorkload bool
	log         *plan.SetupLog
	done        map[string]bool
	load        *engine.Setup
	red         props.Redactor
}

// entry is step i's setup log entry before it runs: its ID, kind and
// text, secrets hidden.
func (s *setupRun) entry(i int) plan.SetupStep {
	st := s.steps[i]
	e := plan.SetupStep{ID: s.scope + "/" + strconv.Itoa(i+1), Deployment: s.t.Label, Records: s.records, Line: st.Line, Kind: "statement", Text: s.red.Redact(st.Statement)}
	if st.Shell != "" {
		e.Kind, e.Text = "shell", s.red.Redact(st.Shell)
	} else {
		e.Language = db.AdminLanguage(s.t.Binding)
	}
	if s.forWorkload {
		e.Workload = s.w.Name
	}
	return e
}

// isDone reports whether the setup log holds step i as done.
func (s *setupRun) isDone(i int) bool {
	return s.done[s.entry(i).ID+"\x00"+s.entry(i).Text]
}

// record adds e to the setup log, and its line and output to setup.log,
// and says it on stderr.
func (s *setupRun) record(e plan.SetupStep, output string) error {
	s.log.Steps = append(s.log.Steps, e)
	outcome := "done"
	if e.Error != "" {
		outcome = "failed: " + e.Error
	} else if e.Answer != "" {
		outcome = "done: " + e.Answer
	}
	// Opened for each step: a secret learned late writes it anew. A
	// named pipe or socket there is refused (a pipe held the plan), and so
	// is a link or a file of another name too (openOwn: it was appended to
	// through them).
	logPath := filepath.Join(s.r.dir, "setup.log")
	if st, err := os.Stat(logPath); err == nil && st.Mode()&(os.ModeNamedPipe|os.ModeSocket) != 0 {
		return fmt.Errorf("%s: a named pipe or socket (%s), not a file: bench writes it as one", logPath, st.Mode().Type())
	}
	text, err := openOwn(logPath, os.O_APPEND)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(text, "%s %s (line %d) %s: %s (%.3f s)\n%s", e.Started.Format(time.RFC3339), e.ID, e.Line, e.Text, outcome, e.Seconds, output)
	if cerr := text.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(s.r.stderr, "servbench: setup %s %s: %s %s (%.1f s)\n", e.ID, e.Kind, short(e.Text), short(outcome), e.Seconds)
	return plan.WriteSetup(s.r.dir, s.log)
}

// failed is the error of the failed step e.
func failed(e plan.SetupStep) error {
	return fmt.Errorf("setup step of line %d (%s %s) failed: %s", e.Line, e.Kind, short(e.Text), e.Error)
}

// shell runs shell step i and records it.
func (s *setupRun) shell(ctx context.Context, i int) error {
	st := s.steps[i]
	e := s.entry(i)
	e.Started = time.Now().UTC()
	var output strings.Builder
	answer, err := s.r.shell(ctx, st.Shell, s.t, s.w, s.records, s.load, &s.red, &output)
	e.Seconds, e.Answer = time.Since(e.Started).Seconds(), answer
	e.Text = s.red.Redact(st.Shell) // with what its output showed secret
	if err != nil {
		e.Error = s.red.Redact(oneLine(err))
	}
	if werr := s.record(e, output.String()); werr != nil {
		return werr
	}
	if werr := s.r.learned(ctx, &s.red, s.log); werr != nil {
		return werr
	}
	if err != nil {
		return failed(e)
	}
	return nil
}

// statements runs the statements from step first to the next shell step
// or done step in one batch, recording each, and returns the step to go
// on from.
func (s *setupRun) statements(ctx context.Context, first int) (int, error) {
	var batch []string
	i := first
	for ; i < len(s.steps) && s.steps[i].Shell == "" && !s.isDone(i); i++ {
		batch = append(batch, s.steps[i].Statement)
	}
	setup, err := engine.Check(s.load.Spec)
	if err != nil {
		return i, err
	}
	started := time.Now().UTC()
	var fail *plan.SetupStep
	ran := 0
	err = setup.Admin(ctx, batch, func(j int, answer string, took time.Duration, serr error) {
		// A secret a rule finds in the answer (CONFIG GET masterauth)
		// is known from here on, as a shell step's output's is: the
		// answer's other mentions of it are hidden too.
		s.red.Hidden(answer)
		if serr != nil {
			s.red.Hidden(serr.Error())
		}
		e := s.entry(first + j)
		e.Started, e.Seconds, e.Answer = started, took.Seconds(), s.red.Redact(answer)
		started = started.Add(took)
		if serr != nil {
			e.Error = s.red.Redact(oneLine(serr))
			if s.r.pl.Rehearsal != nil && errors.Is(serr, db.ErrNotImplemented) {
				e.Error = notRehearsable + e.Error
			}
			fail = &e
		}
		ran++
		s.record(e, "")
	})
	if werr := s.r.learned(ctx, &s.red, s.log); werr != nil {
		return i, werr
	}
	switch {
	case fail != nil && s.r.pl.Rehearsal != nil && errors.Is(err, db.ErrNotImplemented):
		return first + ran, nil // a rehearsal's endpoint cannot run it: logged, and the next step runs
	case fail != nil:
		return i, failed(*fail)
	case err != nil: // before the first statement: opening the binding
		e := s.entry(first + ran)
		e.Started, e.Error = started, s.red.Redact(oneLine(err))
		s.record(e, "")
		return i, failed(e)
	}
	return i, nil
}

// shell runs a shell step in the plan's directory, its output (the last
// 64 KB, credentials hidden by red) appended to w, and returns its last line of
// output. The step's environment
// names the deployment, binding, workload, records and table; Ctrl-C
// stops its whole process group.
func (r *Runner) shell(ctx context.Context, command string, t *plan.Deployment, wl *plan.Workload, records int64, load *engine.Setup, red *props.Redactor, w io.Writer) (string, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", command)
	cmd.Dir = r.pl.Dir
	cmd.Env = append(os.Environ(),
		"SERVBENCH_DEPLOYMENT="+t.Label, "SERVBENCH_BINDING="+t.Binding, "SERVBENCH_WORKLOAD="+filepath.Base(wl.Name),
		"SERVBENCH_RECORDS="+strconv.FormatInt(records, 10), "SERVBENCH_TABLE="+load.Workload.Table)
	// Every property of the deployment's phase, by name: a step that
	// needs a password says "$SERVBENCH_PROPERTY_REDIS_PASSWORD", and the
	// step's text, copied into the plan's directory and report, holds the
	// reference, never the value.
	load.Props.Each(func(k, v, _ string) { // not read: an unknown property is still said
		cmd.Env = append(cmd.Env, PropertyEnv(k)+"="+v)
	})
	out := &tail{red: red}
	cmd.Stdout = out
	cmd.Stderr = out
	ownGroup(cmd)
	cmd.WaitDelay = 5 * time.Second
	err := cmd.Run()
	if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		// The shell ended well; what it left running (nohup server &)
		// still holds its output: the step is taken at its word, and the
		// output is what came within WaitDelay after it.
		err = nil
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) && ctx.Err() == nil {
		err = fmt.Errorf("exit status %d", ee.ExitCode())
	}
	// A secret a rule finds anywhere in the output (password=pw, printed
	// from a variable, a printf argument, a decoding), not only in what is
	// kept of it, is known from here on: the step's own command, written
	// after it ran, hides it too.
	out.finish()
	text := strings.TrimRight(red.Redact(string(out.kept())), "\n")
	if out.cut > 0 {
		fmt.Fprintf(w, "  (%d bytes of output before these left out)\n", out.cut)
	}
	for _, ln := range strings.Split(text, "\n") {
		if ln != "" {
			fmt.Fprintf(w, "  | %s\n", ln)
		}
	}
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.TrimSpace(lines[i]) != "" {
			return db.Answer(lines[i]), err
		}
	}
	return "", err
}

// tail keeps the last tailMax bytes written to it and counts the rest;
// every byte written passes red's rules on its way (look), whole lines at
// a time, so that a secret in what is not kept is known too.
type tail struct {
	b    []byte
	cut  int64
	red  *props.Redactor
	scan []byte // what is not yet looked at: at most scanMax bytes, from a line's start
}

const (
	tailMax = 64 << 10
	scanMax = 64 << 10
	// scanOver is what a line longer than scanMax is looked at again of,
	// with the next piece: a secret and its name cut between two pieces.
	scanOver = 4 << 10
)

func (t *tail) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), scanMax)
		t.look(p[:k])
		t.b = append(t.b, p[:k]...)
		if over := len(t.b) - tailMax; over > 0 {
			t.cut += int64(over)
			t.b = append(t.b[:0], t.b[over:]...)
		}
		p = p[k:]
	}
	return n, nil
}

// look passes p to the rules once the lines it ends are whole, or a line
// has grown to scanMax.
func (t *tail) look(p []byte) {
	if t.red == nil {
		return
	}
	t.scan = append(t.scan, p...)
	for len(t.scan) >= scanMax {
		if i := bytes.LastIndexByte(t.scan[:scanMax], '\n'); i >= 0 {
			t.red.Hidden(string(t.scan[:i+1]))
			t.scan = append(t.scan[:0], t.scan[i+1:]...)
			continue
		}
		t.red.Hidden(string(t.scan[:scanMax]))
		t.scan = append(t.scan[:0], t.scan[scanMax-scanOver:]...)
	}
}

// finish passes what is left to the rules.
func (t *tail) finish() {
	if t.red != nil && len(t.scan) > 0 {
		t.red.Hidden(string(t.scan))
		t.scan = t.scan[:0]
	}
}

// kept is what is shown of the output: the tail, from its first whole
// line when the rest was cut (a line cut in two could show a piece of a
// secret that no longer matches it whole).
func (t *tail) kept() []byte {
	if t.cut == 0 {
		return t.b
	}
	i := bytes.IndexByte(t.b, '\n')
	if i < 0 {
		t.cut += int64(len(t.b))
		return nil
	}
	t.cut += int64(i + 1)
	return t.b[i+1:]
}

// short cuts a text for a progress line.
func short(s string) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) > 120 {
		return string(r[:117]) + "..."
	}
	return string(r)
}

// PropertyEnv is the environment variable a shell step reads property
// key from: SERVBENCH_PROPERTY_ and the key in capitals, each byte that
// is not a letter or digit an underscore (redis.password:
// SERVBENCH_PROPERTY_REDIS_PASSWORD).
func PropertyEnv(key string) string {
	b := []byte("SERVBENCH_PROPERTY_" + strings.ToUpper(key))
	for i := len("SERVBENCH_PROPERTY_"); i < len(b); i++ {
		if c := b[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			b[i] = '_'
		}
	}
	return string(b)
}
