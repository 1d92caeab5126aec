package dynamodb_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/testcert"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/workloads"
)

// standIn answers as DynamoDB on 127.0.0.1 would for a table that holds
// nothing, but for its first endless reads: a GetItem answered with an
// item that never ends. It notes the access key that signed the requests.
type standIn struct {
	URL   string
	reads atomic.Int64
	scans atomic.Int64
	mu    sync.Mutex
	keys  map[string]bool
}

func newStandIn(t *testing.T, endless int64) *standIn {
	s := &standIn{keys: map[string]bool{}}
	chunk := []byte(strings.Repeat("x", 64<<10))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, io.LimitReader(r.Body, 1<<20))
		s.mu.Lock()
		s.keys[signature(r).key] = true
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		switch strings.TrimPrefix(r.Header.Get("X-Amz-Target"), "DynamoDB_20120810.") {
		case "ListTables":
			io.WriteString(w, `{"TableNames":["usertable"]}`)
		case "DescribeTable":
			io.WriteString(w, `{"Table":{"TableName":"usertable","TableStatus":"ACTIVE","KeySchema":[{"AttributeName":"key","KeyType":"HASH"}]}}`)
		case "GetItem":
			if s.reads.Add(1) > endless {
				io.WriteString(w, `{}`)
				return
			}
			io.WriteString(w, `{"Item":{"field0":{"S":"`)
			for r.Context().Err() == nil {
				if _, err := w.Write(chunk); err != nil {
					return
				}
			}
		case "Scan":
			s.scans.Add(1) // empty pages without end
			io.WriteString(w, `{"Count":0,"Items":[],"LastEvaluatedKey":{"key":{"S":"user1"}}}`)
		default:
			io.WriteString(w, `{}`)
		}
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *standIn) signedBy(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.keys[key]
}

// An item that never ends fails its read at the bound, as a server
// error, and the run goes on to its end and its results (the SDK read it
// whole: the process died after 8.6 s with nothing written).
func TestEndlessItemFailsItsOperation(t *testing.T) {
	t.Run("the SDK's client", func(t *testing.T) { endlessItem(t) })
	// With AWS_CA_BUNDLE the SDK builds another HTTP client: the bound
	// is not the client's.
	t.Run("AWS_CA_BUNDLE", func(t *testing.T) {
		certs, err := testcert.Make(t.TempDir(), "servbench")
		if err != nil {
			t.Fatal(err)
		}
		t.Setenv("AWS_CA_BUNDLE", certs.CA)
		endlessItem(t)
	})
}

func endlessItem(t *testing.T) {
	srv := newStandIn(t, 2)
	p := props.New()
	workloads.Load(p, "c")
	for k, v := range map[string]string{"dynamodb.endpoint": srv.URL, "recordcount": "10", "operationcount": "20",
		"dynamodb.retries": "0", "dynamodb.timeout": "20000", "dynamodb.createtable": "false"} {
		p.Set(k, v, "test")
	}
	res, err := engine.Run(context.Background(), engine.Spec{Binding: "dynamodb", Properties: p, Phase: engine.RunPhase, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Doc()
	var read bool
	for _, op := range d.Ops {
		if op.Name == "READ" {
			read = true
			if op.Count != 20 || op.Outcomes["ERROR"] != 2 || op.Outcomes["NOT_FOUND"] != 18 {
				t.Errorf("READ: %d operations, outcomes %v: want 2 ERROR (the endless items) and 18 NOT_FOUND", op.Count, op.Outcomes)
			}
		}
	}
	if !read {
		t.Errorf("no READ in the result: %+v", d.Ops)
	}
}

// A scan answered with empty pages without end, each with a key to go on
// from, fails after some pages past the items it asked for (every page but
// the last holds one): it went on until Ctrl-C.
func TestEndlessEmptyPagesFailTheScan(t *testing.T) {
	srv := newStandIn(t, 0)
	p := props.New()
	workloads.Load(p, "e")
	for k, v := range map[string]string{"dynamodb.endpoint": srv.URL, "recordcount": "10", "operationcount": "5",
		"dynamodb.retries": "0", "dynamodb.createtable": "false", "scanproportion": "1", "insertproportion": "0",
		"minscanlength": "2", "maxscanlength": "10", "maxexecutiontime": "60"} { // the bound of a run whose scans would not end
		p.Set(k, v, "test")
	}
	res, err := engine.Run(context.Background(), engine.Spec{Binding: "dynamodb", Properties: p, Phase: engine.RunPhase, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	var scan bool
	for _, op := range res.Doc().Ops {
		if op.Name == "SCAN" {
			scan = true
			if op.Count != 5 || op.Outcomes["ERROR"] != 5 || !strings.Contains(op.Errors["ERROR"], "paging without end") {
				t.Errorf("SCAN: %d operations, outcomes %v, error %q: want 5, each an ERROR", op.Count, op.Outcomes, op.Errors["ERROR"])
			}
		}
	}
	if !scan {
		t.Error("no SCAN in the result")
	}
	if n := srv.scans.Load(); n > 5*(10+100+2) { // maxEmptyPages: 100
		t.Errorf("%d pages asked for 5 scans", n)
	}
}

// sparse is a file of n bytes that takes no disk.
func sparse(t *testing.T, path string, n int64) string {
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(n); err != nil {
		t.Fatal(err)
	}
	return path
}

// The AWS shared files and the files they and the environment name are
// checked before the SDK reads them whole: a file over 4 MiB (a 3 GB one
// ended in "out of memory") or a named pipe is refused at once, in one
// line naming where it was named.
func TestSharedFilesBounded(t *testing.T) {
	dir := t.TempDir()
	big := sparse(t, filepath.Join(dir, "big"), 5<<20)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	t.Cleanup(func() {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	})
	naming := filepath.Join(dir, "config-naming")
	os.WriteFile(naming, []byte("[default]\nregion = eu-west-1\nweb_identity_token_file = "+fifo+"\n"), 0o600)
	none := filepath.Join(dir, "none")
	for _, c := range []struct {
		name string
		env  []string
		kv   []string
		want string
	}{
		{"dynamodb.configfile", nil, []string{"dynamodb.configfile", big}, "property dynamodb.configfile: " + big + ": 5242880 bytes, more than 4 MiB"},
		{"dynamodb.configfile a pipe", nil, []string{"dynamodb.configfile", fifo}, "property dynamodb.configfile: " + fifo + ": a named pipe, not a regular file"},
		{"dynamodb.credentialsfile", nil, []string{"dynamodb.credentialsfile", big}, "property dynamodb.credentialsfile: 5242880 bytes"},
		{"AWS_CONFIG_FILE", []string{"AWS_CONFIG_FILE", big}, nil, "dynamodb: AWS_CONFIG_FILE (environment) " + big + ": 5242880 bytes"},
		{"AWS_SHARED_CREDENTIALS_FILE", []string{"AWS_SHARED_CREDENTIALS_FILE", fifo}, nil, "dynamodb: AWS_SHARED_CREDENTIALS_FILE (environment): the file it names: a named pipe"},
		{"a setting naming a pipe", []string{"AWS_CONFIG_FILE", naming}, nil, "web_identity_token_file in AWS_CONFIG_FILE (environment): the file it names: a named pipe"},
		{"AWS_CA_BUNDLE", []string{"AWS_CA_BUNDLE", big}, nil, "dynamodb: AWS_CA_BUNDLE (environment) " + big + ": 5242880 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			t.Setenv("AWS_CONFIG_FILE", none)
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", none)
			for i := 0; i < len(c.env); i += 2 {
				t.Setenv(c.env[i], c.env[i+1])
			}
			b, _ := db.Lookup("dynamodb")
			done := make(chan error, 1)
			go func() {
				_, err := b.Open(context.Background(), dbtest.Props(append([]string{"dynamodb.endpoint", "http://127.0.0.1:1", "dynamodb.retries", "0"}, c.kv...)...), db.Options{Threads: 1})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
					t.Errorf("%v\nwant it to say %q", err, c.want)
				}
				// Bad input, a property's or not (the environment's
				// exited 1, as a failed run).
				var pe *props.Error
				var ie *db.InputError
				if !errors.As(err, &pe) && !errors.As(err, &ie) {
					t.Errorf("%v: neither a property's error nor an input error", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no answer within 10 s")
			}
		})
	}
}

// credentialProfile writes a config file whose default profile's
// credential_process is command.
func credentialProfile(t *testing.T, command string) {
	dir := t.TempDir()
	cf := filepath.Join(dir, "config")
	if err := os.WriteFile(cf, []byte("[default]\nregion = eu-west-1\ncredential_process = "+command+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", dir)
	t.Setenv("AWS_CONFIG_FILE", cf)
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "none"))
	for _, k := range []string{"AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_WEB_IDENTITY_TOKEN_FILE"} {
		t.Setenv(k, "")
	}
}

// A profile's credential_process gives the keys that sign the requests;
// one that prints without end is stopped at 1 MiB (the SDK kept what it
// printed until it ran out of memory), in one line.
func TestCredentialProcessBounded(t *testing.T) {
	srv := newStandIn(t, 0)
	b, _ := db.Lookup("dynamodb")
	credentialProfile(t, `printf '{"Version": 1, "AccessKeyId": "AKIDPROC", "SecretAccessKey": "proc-secret"}'`)
	d, err := b.Open(context.Background(), dbtest.Props("dynamodb.profile", "default", "dynamodb.endpoint", srv.URL, "dynamodb.retries", "0"), db.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	if !srv.signedBy("AKIDPROC") {
		t.Errorf("the requests were not signed with the credential_process's keys: %v", srv.keys)
	}

	credentialProfile(t, "yes")
	_, err = b.Open(context.Background(), dbtest.Props("dynamodb.profile", "default", "dynamodb.endpoint", srv.URL, "dynamodb.retries", "0"), db.Options{Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "credential_process printed more than 1 MiB") || strings.Contains(err.Error(), "\n") {
		t.Errorf("a credential_process printing without end: %v", err)
	}
}

// Ctrl-C while a credential_process runs stops it, with what it started,
// and the binding's error is an interruption (the process was left
// running, and the run exited 1).
func TestCredentialProcessStopped(t *testing.T) {
	srv := newStandIn(t, 0)
	pidFile := filepath.Join(t.TempDir(), "pid")
	credentialProfile(t, "sleep 600 & echo $! > "+pidFile+"; wait")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	b, _ := db.Lookup("dynamodb")
	done := make(chan error, 1)
	go func() {
		_, err := b.Open(ctx, dbtest.Props("dynamodb.profile", "default", "dynamodb.endpoint", srv.URL, "dynamodb.retries", "0"), db.Options{Threads: 1})
		done <- err
	}()
	var pid int
	for i := 0; i < 500 && pid == 0; i++ {
		b, _ := os.ReadFile(pidFile)
		pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		time.Sleep(10 * time.Millisecond)
	}
	if pid == 0 {
		t.Fatal("the credential_process did not start")
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("stopped: %v, want an interruption", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open still running 10 s after its context ended")
	}
	for i := 0; ; i++ {
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break // gone, or a zombie: killed
		}
		if i == 500 {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the credential_process's child still runs after the stop")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// An endpoint that accepts and never answers is tried once when the
// binding connects, and said with its wait (it was tried four times,
// 40 s, and the wait unsaid).
func TestSilentEndpointSaidWithItsWait(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepts := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepts <- c // held, never answered
		}
	}()
	b, _ := db.Lookup("dynamodb")
	_, err = b.Open(context.Background(), dbtest.Props("dynamodb.endpoint", "http://"+ln.Addr().String(), "dynamodb.timeout", "200"), db.Options{Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "no answer within 200ms (dynamodb.timeout)") || !strings.Contains(err.Error(), "attempts, 1") {
		t.Errorf("%v", err)
	}
	if n := len(accepts); n != 1 {
		t.Errorf("%d connections, want 1 try", n)
	}
}

// The AWS configuration's settings that cannot be used (the
// environment's, a profile's) are bad input, said in one line with their
// control characters escaped (they exited 1, their escapes raw).
func TestAWSSettingsBadInput(t *testing.T) {
	for _, c := range []struct {
		env  []string
		kv   []string
		want string
	}{
		{[]string{"AWS_MAX_ATTEMPTS", "abc"}, nil, "AWS_MAX_ATTEMPTS=abc"},
		{[]string{"AWS_REGION", "us\x1b[31m"}, nil, `region (AWS_REGION, AWS_DEFAULT_REGION or a profile's region) "us\x1b[31m" is not`},
		{nil, []string{"dynamodb.region", "us\x01east"}, `property dynamodb.region: "us\x01east" is not a region's name`},
	} {
		t.Run(c.want[:12], func(t *testing.T) {
			t.Setenv("HOME", t.TempDir())
			for i := 0; i < len(c.env); i += 2 {
				t.Setenv(c.env[i], c.env[i+1])
			}
			b, _ := db.Lookup("dynamodb")
			_, err := b.Open(context.Background(), dbtest.Props(append([]string{"dynamodb.endpoint", "http://127.0.0.1:1"}, c.kv...)...), db.Options{Threads: 1})
			var pe *props.Error
			var ie *db.InputError
			if err == nil || !strings.Contains(err.Error(), c.want) || strings.ContainsAny(err.Error(), "\x1b\x01\n") || !errors.As(err, &pe) && !errors.As(err, &ie) {
				t.Errorf("%v, want bad input saying %q", err, c.want)
			}
		})
	}
}
