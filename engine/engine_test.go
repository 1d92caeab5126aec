package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	_ "github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/workloads"
)

func specOf(t *testing.T, kv ...string) Spec {
	t.Helper()
	p := props.New()
	if err := workloads.Load(p, "a"); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(kv); i += 2 {
		p.Set(kv[i], kv[i+1], "test")
	}
	return Spec{Binding: "basic", Properties: p}
}

// The typed fields win over the properties they stand for, and the
// caller's properties are left as they were.
func TestCheckTypedFields(t *testing.T) {
	spec := specOf(t, "threadcount", "3", "target", "100")
	spec.Threads, spec.Rate, spec.Duration, spec.Warmup = 7, Give(2500.0), Give(90*time.Second), Give(1500*time.Millisecond)
	s, err := Check(spec)
	if err != nil {
		t.Fatal(err)
	}
	if s.Runner.Threads != 7 || s.Runner.Rate != 2500 || s.Runner.MaxExecution != 90*time.Second {
		t.Errorf("runner config %+v", s.Runner)
	}
	if v, _ := spec.Properties.Get("threadcount"); v != "3" {
		t.Errorf("the spec's properties changed: threadcount %q", v)
	}
}

// Zero is a value a Spec can give: operations 0 (no limit) and a rate of
// 0 (none) win over the properties' operationcount and target, and are
// what the result's properties say; not given, the properties' stand.
func TestCheckGivesZero(t *testing.T) {
	spec := specOf(t, "operationcount", "1000", "target", "100", "maxexecutiontime", "5")
	spec.Operations, spec.Rate, spec.Duration = Give(int64(0)), Give(0.0), Give(time.Duration(0))
	s, err := Check(spec)
	if err != nil {
		t.Fatal(err)
	}
	if s.Runner.OpCount != 0 || s.Runner.Rate != 0 || s.Runner.MaxExecution != 0 {
		t.Errorf("given zeros: runner config %+v", s.Runner)
	}
	all := s.Properties()
	for k, want := range map[string]string{"operationcount": "0", "target": "0", "maxexecutiontime": "0"} {
		if v, _ := all.Get(k); v != want {
			t.Errorf("the result's %s=%q, want %q", k, v, want)
		}
	}
	s, err = Check(specOf(t, "operationcount", "1000", "target", "100"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Runner.OpCount != 1000 || s.Runner.Rate != 100 {
		t.Errorf("not given: runner config %+v", s.Runner)
	}
}

// Bad input is a *SpecError naming what is wrong.
func TestCheckBadInput(t *testing.T) {
	for _, c := range []struct {
		spec Spec
		want string
	}{
		{Spec{Binding: "nosuch", Properties: specOf(t).Properties}, `unknown binding "nosuch"`},
		{specOf(t, "requestdistribution", "zipfan"), "requestdistribution"},
		{specOf(t, "recordcunt", "5"), "did you mean recordcount?"},
		{specOf(t, "measurementtype", "nope"), "measurementtype"},
		{Spec{Binding: "basic", Threads: -1}, "negative"},
		// The binding's own keys are known by its reading them: no list.
		{specOf(t, "basicdb.simulatedelai", "5"), "property basicdb.simulatedelai: unknown property (did you mean basicdb.simulatedelay?)"},
		{specOf(t, "basicdb.anything", "5"), "property basicdb.anything: unknown property"},
		{specOf(t, "status.intervl", "5"), "did you mean status.interval?"},
		{specOf(t, "target", "NaN"), `property target: "NaN" is not a finite number`},
		{specOf(t, "server.metrics", "ftp://bob:s3cret@db1/metrics"), "property server.metrics: ftp://bob:REDACTED@db1/metrics: want http://HOST:PORT/PATH"},
		{specOf(t, "server.metrics.series", "ok_total,1bad"), `property server.metrics.series: "1bad" is not a Prometheus metric name`},
		{specOf(t, "server.sample", "maybe"), "server.sample"},
		{specOf(t, "server.interval", "0.01"), "property server.interval: 0.01 is outside 0.1..3600"},
		{specOf(t, strings.Repeat("x", 10<<20), "1"), "… (10485760 bytes): unknown property"},
	} {
		_, err := Check(c.spec)
		var se *SpecError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check: %v, want a SpecError saying %q", err, c.want)
		}
	}
}

// Another binding's property is a warning, not an error: YCSB files often
// carry several bindings' settings.
func TestCheckOtherBindingsProperties(t *testing.T) {
	s, err := Check(specOf(t, "redis.timeout", "5", "measurement.trackjvm", "true"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "measurement.trackjvm, redis.timeout") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

// Check validates without building the key generators: a zipfian over
// 10^15 keys would spend days computing ζ. A plan's --dry-run relies on it.
func TestCheckBuildsNoGenerators(t *testing.T) {
	s, err := Check(specOf(t, "recordcount", "1000000000000000", "operationcount", "1000000000000000"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload.RecordCount != 1e15 || s.Workload.RequestDist != "zipfian" {
		t.Errorf("workload %+v", s.Workload)
	}
}

// The binding gets the run's facts as typed options, and a check connects
// to nothing.
func TestCheckOpensTheBindingOffline(t *testing.T) {
	var got []db.Options
	registerRecorder.Do(func() { db.Register("engine-test-recorder", recorder{&recorded}) })
	recorded = nil
	defer func() { recorded = nil }()
	spec := specOf(t, "recorder.url", "x")
	spec.Binding, spec.Threads, spec.Phase = "engine-test-recorder", 7, LoadPhase
	if _, err := Check(spec); err != nil {
		t.Fatal(err)
	}
	got = recorded
	wantFields := []string{"field0", "field1", "field2", "field3", "field4", "field5", "field6", "field7", "field8", "field9"}
	if len(got) != 1 || !reflect.DeepEqual(got[0], db.Options{Threads: 7, Load: true, CheckOnly: true, Schema: db.Schema{Fields: wantFields},
		AnswerBytes: 10*(6*100+64) + 1024, AnswerElements: 2*10 + 4, Memory: got[0].Memory}) || got[0].Memory < 0 {
		t.Errorf("the binding was opened with %+v, want once, offline, 7 threads, load, the workload's fields, one record's answer, the memory available", got)
	}
	spec.Properties.Set("recorder.urll", "x", "test")
	if _, err := Check(spec); err == nil || !strings.Contains(err.Error(), "did you mean recorder.url?") {
		t.Errorf("a typo of the binding's key: %v", err)
	}
}

// recorded holds how the recorder binding, registered once per test
// binary, was opened.
var (
	recorded         []db.Options
	registerRecorder sync.Once
)

type recorder struct{ got *[]db.Options }

func (r recorder) Open(_ context.Context, p *props.Props, o db.Options) (db.DB, error) {
	p.String("recorder.url", "")
	*r.got = append(*r.got, o)
	if o.CheckOnly {
		return nil, nil
	}
	return nil, errors.New("recorder: not a database")
}

func (recorder) Summary() string { return "records how it is opened" }

// Long start-up work says what it does and stops on a signal: workload D
// over 10^12 records would sum ζ for hours; the test stops it as soon as
// it is announced (announced at once here).
func TestSlowStartSaysSoAndStops(t *testing.T) {
	slowStart = 0
	defer func() { slowStart = time.Second }()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := specOf(t, "recordcount", "1000000000000", "requestdistribution", "latest")
	log := &cancelOn{word: "preparing the workload's key choice over 1000000000000 records (latest distribution)", cancel: cancel}
	spec.Log = log
	_, err := Run(ctx, spec)
	if !errors.Is(err, ErrInterruptedBeforeMeasuring) {
		t.Fatalf("Run: %v, want ErrInterruptedBeforeMeasuring", err)
	}
	if !log.seen.Load() {
		t.Error("the start-up work was not announced")
	}
}

type cancelOn struct {
	word   string
	cancel func()
	seen   atomic.Bool
}

func (c *cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.word) {
		c.seen.Store(true)
		c.cancel()
	}
	return len(p), nil
}

// A thread count whose histograms cannot fit in the memory available is
// refused before anything starts, saying what it needs; past half of it,
// a warning.
func TestCheckMemory(t *testing.T) {
	p := props.New()
	const gib = 1 << 30
	if w, err := checkMemory(p, 4000, 0, 24*gib); err != nil || w != "" {
		t.Errorf("4,000 threads in 24 GiB: %q %v", w, err)
	}
	if _, err := checkMemory(p, 1_000_000, 0, 24*gib); err == nil || !strings.Contains(err.Error(), "1000000 threads need about 61.0 GiB of memory (about 64 KiB a thread") {
		t.Errorf("a million threads: %v", err)
	}
	if w, err := checkMemory(p, 200_000, 0, 24*gib); err != nil || !strings.Contains(w, "200000 threads need about 12.2 GiB") {
		t.Errorf("200,000 threads in 24 GiB: %q %v", w, err)
	}
	if w, err := checkMemory(p, 1_000_000, 0, 0); err != nil || w != "" {
		t.Errorf("memory unknown: %q %v", w, err)
	}
	// Records of 16 MiB, two a thread: 1,000 threads need 32 GiB.
	if _, err := checkMemory(p, 1000, 32<<20, 24*gib); err == nil || !strings.Contains(err.Error(), "32 MiB of it records") {
		t.Errorf("1,000 threads of 16 MiB records: %v", err)
	}
}

// The typed face: Workload (a built-in name or a property file, under the
// Properties), Records and Operations.
func TestSpecTypedFields(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "mine.properties")
	os.WriteFile(file, []byte("workload=site.ycsb.workloads.CoreWorkload\nreadproportion=1\nupdateproportion=0\nrecordcount=7\n"), 0o644)
	for _, c := range []struct {
		spec    Spec
		records string
		read    string
	}{
		{Spec{Binding: "basic", Workload: "b", Records: 42, Operations: Give[int64](9)}, "42", "0.95"},
		{Spec{Binding: "basic", Workload: file}, "7", "1"},
		{Spec{Binding: "basic", Workload: "A", Properties: props.Of("readproportion", "0.1", "updateproportion", "0.9", "recordcount", "3")}, "3", "0.1"},
	} {
		s, err := Check(c.spec)
		if err != nil {
			t.Fatalf("%+v: %v", c.spec, err)
		}
		if r, _ := s.Properties().Get("recordcount"); r != c.records || strconv.FormatInt(s.Workload.RecordCount, 10) != r {
			t.Errorf("%s: recordcount %q (read %d), want %s", c.spec.Workload, r, s.Workload.RecordCount, c.records)
		}
		if c.spec.Records > 0 && s.Props.Source("recordcount") == "spec" {
			t.Errorf("%s: the spec's records were written into its properties", c.spec.Workload)
		}
		if r, _ := s.Props.Get("readproportion"); r != c.read {
			t.Errorf("%s: readproportion %q, want %s", c.spec.Workload, r, c.read)
		}
	}
	if _, err := Check(Spec{Binding: "basic", Workload: filepath.Join(dir, "none")}); err == nil || !strings.Contains(err.Error(), "none") {
		t.Errorf("a workload file that is not there: %v", err)
	}
	if _, err := Check(Spec{Binding: "basic", Workload: "a", Records: -1}); err == nil {
		t.Error("negative records accepted")
	}
}

// A binding whose error quotes its credentials (a driver's message about
// a URL or a failed login) has them hidden before any writer sees the
// error; errors.As still finds what the binding returned.
func TestRunHidesCredentialsInErrors(t *testing.T) {
	registerLeaky.Do(func() { db.Register("engine-test-leaky", leaky{}) })
	spec := specOf(t, "leaky.url", "tcp://admin:s3cret-pass@127.0.0.1:1", "leaky.password", "hunter2hunter2")
	spec.Binding = "engine-test-leaky"
	_, err := Run(context.Background(), spec)
	if err == nil {
		t.Fatal("the leaky binding opened")
	}
	for _, secret := range []string{"s3cret-pass", "hunter2hunter2"} {
		if strings.Contains(err.Error(), secret) {
			t.Errorf("the error shows a credential: %q", err)
		}
	}
	var le leakyError
	if !strings.Contains(err.Error(), "cannot log in") || !errors.As(err, &le) {
		t.Errorf("error %q (%T): want the binding's words and its error kept", err, err)
	}
}

var registerLeaky sync.Once

type leaky struct{}

type leakyError string

func (e leakyError) Error() string { return string(e) }

func (leaky) Open(_ context.Context, p *props.Props, o db.Options) (db.DB, error) {
	u, pw := p.String("leaky.url", ""), p.String("leaky.password", "")
	if o.CheckOnly {
		return nil, nil
	}
	return nil, leakyError(fmt.Sprintf("leaky: cannot log in to %s with password %s", u, pw))
}

func (leaky) Summary() string { return "quotes its credentials in its errors" }

// CheckContext gives the binding's offline open the caller's context: a
// binding reading a file that never ends (a named pipe nobody writes)
// gives way when the context ends, and the check says why.
func TestCheckContextStops(t *testing.T) {
	registerWaiting.Do(func() { db.Register("engine-test-waiting", waiting{}) })
	spec := specOf(t)
	spec.Binding = "engine-test-waiting"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := CheckContext(ctx, spec); done <- err }()
	cancel()
	err := <-done
	var se *SpecError
	if !errors.Is(err, context.Canceled) || !errors.As(err, &se) {
		t.Errorf("a check stopped while the binding read: %v (%T), want a SpecError of context.Canceled", err, err)
	}
}

var registerWaiting sync.Once

// waiting reads, offline, a file that never ends: it waits for its
// context.
type waiting struct{}

func (waiting) Open(ctx context.Context, _ *props.Props, _ db.Options) (db.DB, error) {
	<-ctx.Done()
	return nil, fmt.Errorf("waiting: reading its CA file: %w", ctx.Err())
}

func (waiting) Summary() string { return "waits for its context as it opens" }

// Secrets known from elsewhere (a plan's steps) are hidden wherever the
// run writes them: its properties, its server settings, and a spread
// phase's merged result, whose clients did not know them.
func TestRunHidesKnownSecrets(t *testing.T) {
	var plan props.Redactor
	plan.Hidden("redis-cli -a hunter1x PING")
	spec := specOf(t, "fieldnameprefix", "hunter1x", "server.setting.note", "it is hunter1x", "operationcount", "10", "recordcount", "10")
	spec.Secrets = &plan
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Doc()
	if v := d.Properties["fieldnameprefix"] + d.ServerSettings["note"]; strings.Contains(v, "hunter") {
		t.Errorf("written in clear: %q", v)
	}
	bad := spec
	bad.Properties = spec.Properties.Clone()
	bad.Properties.Set("operationcount", "hunter1x", "test")
	if _, err := Check(bad); err == nil || strings.Contains(err.Error(), "hunter") || !errors.As(err, new(*SpecError)) {
		t.Errorf("check: %v (%T)", err, err)
	}
	s, err := Check(spec)
	if err != nil {
		t.Fatal(err)
	}
	m := &result.Doc{Properties: map[string]string{"fieldnameprefix": "hunter1x"}, ServerSettings: map[string]string{"note": "hunter1x"},
		Error: "AUTH failed for hunter1x", Ops: []result.OpResult{{Name: "READ", Errors: map[string]string{"ERROR": "bad hunter1x"}}}}
	s.Merged(m)
	if b, _ := json.Marshal(m); strings.Contains(string(b), "hunter") {
		t.Errorf("merged result in clear: %s", b)
	}
}

// What a server's sampling says of its failure is written with the run's
// secrets hidden: a password a rule finds in it, one a plan knows.
func TestServerSideErrorsHidden(t *testing.T) {
	registerSampler.Do(func() { db.Register("engine-test-sampler", leakySampling{}) })
	var plan props.Redactor
	plan.Add("hunter6x")
	spec := specOf(t, "operationcount", "10", "recordcount", "10", "server.interval", "0.1")
	spec.Binding, spec.Secrets, spec.Duration = "engine-test-sampler", &plan, Give(300*time.Millisecond)
	res, err := Run(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Doc())
	if !strings.Contains(string(b), "INFO refused") || strings.Contains(string(b), "hunter") {
		t.Errorf("the sources: %+v", res.Doc().ServerSide)
	}
}

var registerSampler sync.Once

type leakySampling struct{}

func (leakySampling) Open(ctx context.Context, p *props.Props, o db.Options) (db.DB, error) {
	b, _ := db.Lookup("basic")
	d, err := b.Open(ctx, p, o)
	if err != nil || d == nil {
		return d, err
	}
	return leakySampler{d}, nil
}

func (leakySampling) Summary() string { return "quotes credentials when sampled" }

type leakySampler struct{ db.DB }

func (leakySampler) Sample(context.Context) (db.Sample, error) {
	return db.Sample{}, errors.New("INFO refused after AUTH default hunter5x (the plan's hunter6x)")
}
