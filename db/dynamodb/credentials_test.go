package dynamodb_test

import (
	"context"
	"crypto/sha1"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/dbtest"
	"github.com/servbench/servbench/props"
)

// signed is what a request's SigV4 signature says of the credentials
// that signed it.
type signed struct {
	key, region, service, token string
}

// authorization reads the access key id, region and service of a SigV4
// Authorization header (Credential=AKID/DATE/REGION/SERVICE/aws4_request)
// and the session token sent beside it.
var credential = regexp.MustCompile(`Credential=([^/]+)/\d{8}/([^/]+)/([^/]+)/aws4_request`)

func signature(r *http.Request) signed {
	s := signed{token: r.Header.Get("X-Amz-Security-Token")}
	if m := credential.FindStringSubmatch(r.Header.Get("Authorization")); m != nil {
		s.key, s.region, s.service = m[1], m[2], m[3]
	}
	return s
}

// recorder stands in front of DynamoDB Local (which takes any keys) and
// records with what credentials each request was signed.
type recorder struct {
	URL  string
	mu   sync.Mutex
	seen []signed
}

func newRecorder(t *testing.T, endpoint string) *recorder {
	u, err := url.Parse(endpoint)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec.mu.Lock()
		rec.seen = append(rec.seen, signature(r))
		rec.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rec.URL = srv.URL
	return rec
}

// only is the one signature every request carried; it fails the test if
// there were none or several.
func (rec *recorder) only(t *testing.T) signed {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.seen) == 0 {
		t.Fatal("no request reached DynamoDB")
	}
	for _, s := range rec.seen[1:] {
		if s != rec.seen[0] {
			t.Fatalf("requests signed differently: %+v and %+v", rec.seen[0], s)
		}
	}
	return rec.seen[0]
}

// use opens the binding and writes and reads an item through it.
func use(t *testing.T, kv ...string) {
	t.Helper()
	d := dbtest.Open(t, "dynamodb", kv...)
	ctx := context.Background()
	if err := d.(db.Preparer).Prepare(ctx, "sbcreds", true); err != nil {
		t.Fatal(err)
	}
	v := &db.Record{}
	v.Add("field0", []byte("x"))
	if err := d.Insert(ctx, "sbcreds", "k1", v); err != nil {
		t.Fatal(err)
	}
	if err := d.Read(ctx, "sbcreds", "k1", nil, &db.Record{}); err != nil {
		t.Fatal(err)
	}
}

// awsFiles writes a shared config and credentials file with a profile
// "bench" (its keys and region eu-west-2) beside a default profile.
func awsFiles(t *testing.T) (configFile, credentialsFile string) {
	dir := t.TempDir()
	configFile, credentialsFile = filepath.Join(dir, "config"), filepath.Join(dir, "credentials")
	if err := os.WriteFile(configFile, []byte("[default]\nregion = ap-south-1\n\n[profile bench]\nregion = eu-west-2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	creds := "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = default-secret\n\n" +
		"[bench]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = profile-secret\n"
	if err := os.WriteFile(credentialsFile, []byte(creds), 0o600); err != nil {
		t.Fatal(err)
	}
	return configFile, credentialsFile
}

// Static keys with a session token sign every request, the token beside
// them.
func TestSessionToken(t *testing.T) {
	rec := newRecorder(t, dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL"))
	use(t, "dynamodb.endpoint", rec.URL, "dynamodb.accesskey", "ASIASTATIC", "dynamodb.secretkey", "static-secret",
		"dynamodb.sessiontoken", "static-token", "dynamodb.region", "eu-central-1")
	if got := rec.only(t); got != (signed{"ASIASTATIC", "eu-central-1", "dynamodb", "static-token"}) {
		t.Errorf("signed with %+v", got)
	}
}

// A named profile of the shared files gives the keys and the region.
func TestProfile(t *testing.T) {
	rec := newRecorder(t, dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL"))
	cf, crf := awsFiles(t)
	use(t, "dynamodb.endpoint", rec.URL, "dynamodb.profile", "bench", "dynamodb.configfile", cf, "dynamodb.credentialsfile", crf)
	if got := rec.only(t); got != (signed{"AKIDPROFILE", "eu-west-2", "dynamodb", ""}) {
		t.Errorf("signed with %+v", got)
	}
	// A region given overrides the profile's.
	rec = newRecorder(t, dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL"))
	use(t, "dynamodb.endpoint", rec.URL, "dynamodb.profile", "bench", "dynamodb.configfile", cf, "dynamodb.credentialsfile", crf, "dynamodb.region", "us-west-1")
	if got := rec.only(t); got.key != "AKIDPROFILE" || got.region != "us-west-1" {
		t.Errorf("signed with %+v", got)
	}
	// A profile that is not there is named in one line.
	b, _ := db.Lookup("dynamodb")
	_, err := b.Open(context.Background(), dbtest.Props("dynamodb.endpoint", rec.URL, "dynamodb.profile", "nobody",
		"dynamodb.configfile", cf, "dynamodb.credentialsfile", crf), db.Options{Threads: 1})
	if err == nil || !strings.Contains(err.Error(), `dynamodb.profile: "nobody" is in none of the AWS configuration files`) || strings.Contains(err.Error(), crf) {
		t.Errorf("missing profile: %v", err)
	}
}

// sts is a loopback stand-in for AWS STS: it answers AssumeRole for role
// (with its external ID) when the request is signed by the base keys,
// with temporary credentials of its own, and refuses anything else as
// STS does.
type stsServer struct {
	URL             string
	role, external  string
	base, baseToken string
	mu              sync.Mutex
	calls           int
	refused         []string
}

func newSTS(t *testing.T, role, external, base, baseToken string) *stsServer {
	s := &stsServer{role: role, external: external, base: base, baseToken: baseToken}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<16))
		form, _ := url.ParseQuery(string(body))
		sig := signature(r)
		s.mu.Lock()
		s.calls++
		var why string
		switch {
		case r.Method != http.MethodPost || form.Get("Action") != "AssumeRole":
			why = fmt.Sprintf("%s %s", r.Method, form.Get("Action"))
		case sig.key != s.base || sig.token != s.baseToken || sig.service != "sts":
			why = fmt.Sprintf("signed by %+v", sig)
		case form.Get("RoleArn") != s.role || form.Get("ExternalId") != s.external || form.Get("RoleSessionName") != "sbtest":
			why = fmt.Sprintf("role %q, external ID %q, session %q", form.Get("RoleArn"), form.Get("ExternalId"), form.Get("RoleSessionName"))
		}
		if why != "" {
			s.refused = append(s.refused, why)
		}
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/xml")
		if why != "" {
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>not authorized to perform sts:AssumeRole</Message></Error><RequestId>r1</RequestId></ErrorResponse>`)
			return
		}
		fmt.Fprintf(w, `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>
<Credentials><AccessKeyId>ASIAROLE</AccessKeyId><SecretAccessKey>role-secret</SecretAccessKey><SessionToken>role-token</SessionToken><Expiration>%s</Expiration></Credentials>
<AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/bench/sbtest</Arn><AssumedRoleId>AROAEXAMPLE:sbtest</AssumedRoleId></AssumedRoleUser>
</AssumeRoleResult><ResponseMetadata><RequestId>r2</RequestId></ResponseMetadata></AssumeRoleResponse>`, time.Now().Add(time.Hour).UTC().Format(time.RFC3339))
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *stsServer) result() (int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls, append([]string(nil), s.refused...)
}

// A role is assumed through STS with the base credentials (static keys
// with their token, or a profile's), once, and DynamoDB is called with
// the role's temporary credentials.
func TestAssumeRole(t *testing.T) {
	endpoint := dbtest.ServerURL(t, "SERVBENCH_DYNAMODB_URL")
	const role = "arn:aws:iam::123456789012:role/bench"
	cf, crf := awsFiles(t)
	for _, c := range []struct {
		name, base, token string
		kv                []string
	}{
		{"static keys", "ASIABASE", "base-token", []string{"dynamodb.accesskey", "ASIABASE", "dynamodb.secretkey", "base-secret", "dynamodb.sessiontoken", "base-token"}},
		{"profile", "AKIDPROFILE", "", []string{"dynamodb.profile", "bench", "dynamodb.configfile", cf, "dynamodb.credentialsfile", crf}},
	} {
		st := newSTS(t, role, "ext-42", c.base, c.token)
		rec := newRecorder(t, endpoint)
		use(t, append([]string{"dynamodb.endpoint", rec.URL, "dynamodb.role.arn", role, "dynamodb.role.sessionname", "sbtest",
			"dynamodb.role.externalid", "ext-42", "dynamodb.sts.endpoint", st.URL}, c.kv...)...)
		calls, refused := st.result()
		if calls != 1 || len(refused) != 0 {
			t.Errorf("%s: STS was called %d times (want once), refused %q", c.name, calls, refused)
		}
		if got := rec.only(t); got.key != "ASIAROLE" || got.token != "role-token" {
			t.Errorf("%s: DynamoDB requests signed with %+v, want the role's", c.name, got)
		}
	}
	// STS refusing (another external ID) fails the connection in a line
	// that holds neither the secret key nor the session token.
	st := newSTS(t, role, "ext-42", "ASIABASE", "base-token")
	rec := newRecorder(t, endpoint)
	b, _ := db.Lookup("dynamodb")
	p := dbtest.Props("dynamodb.endpoint", rec.URL, "dynamodb.role.arn", role, "dynamodb.role.sessionname", "sbtest",
		"dynamodb.role.externalid", "ext-7", "dynamodb.sts.endpoint", st.URL,
		"dynamodb.accesskey", "ASIABASE", "dynamodb.secretkey", "base-secret", "dynamodb.sessiontoken", "base-token", "dynamodb.retries", "0")
	_, err := b.Open(context.Background(), p, db.Options{Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "AssumeRole") || !strings.Contains(err.Error(), "AccessDenied") ||
		strings.Contains(err.Error(), "base-secret") || strings.Contains(err.Error(), "base-token") || strings.Contains(err.Error(), "\n") {
		t.Errorf("refused role: %v", err)
	}
	if calls, _ := st.result(); calls == 0 {
		t.Error("STS was not asked")
	}
	for _, k := range []string{"dynamodb.secretkey", "dynamodb.sessiontoken"} {
		if v := p.Redacted()[k]; v != props.Redacted {
			t.Errorf("%s is written as %q", k, v)
		}
	}
}

// Credentials that contradict or lack each other are refused in one line
// naming the property, before any connection.
func TestCredentialsBadInput(t *testing.T) {
	cf, _ := awsFiles(t)
	b, _ := db.Lookup("dynamodb")
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"dynamodb.accesskey", "AKID"}, "dynamodb.accesskey"},
		{[]string{"dynamodb.secretkey", "s"}, "dynamodb.secretkey"},
		{[]string{"dynamodb.sessiontoken", "t"}, "dynamodb.sessiontoken"},
		{[]string{"dynamodb.accesskey", "AKID", "dynamodb.secretkey", "s", "dynamodb.profile", "bench"}, "dynamodb.profile"},
		{[]string{"dynamodb.accesskey", "AKID", "dynamodb.secretkey", "s", "dynamodb.configfile", cf}, "dynamodb.configfile"},
		{[]string{"dynamodb.role.externalid", "x"}, "dynamodb.role.externalid"},
		{[]string{"dynamodb.sts.endpoint", "http://127.0.0.1:1"}, "dynamodb.sts.endpoint"},
		{[]string{"dynamodb.role.arn", "bench"}, "dynamodb.role.arn"},
		{[]string{"dynamodb.role.arn", "arn:aws:iam::1:role/x", "dynamodb.role.sessionname", "a b"}, "dynamodb.role.sessionname"},
		{[]string{"dynamodb.role.arn", "arn:aws:iam::1:role/x", "dynamodb.sts.endpoint", "sts.local"}, "dynamodb.sts.endpoint"},
	} {
		_, err := b.Open(context.Background(), dbtest.Props(c.kv...), db.Options{Threads: 1, CheckOnly: true})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want an error naming %s", c.kv, err, c.want)
		}
	}
	// The shared files are looked for where the phase runs, and a missing
	// one is named by its property, its path not printed.
	none := filepath.Join(t.TempDir(), "none")
	for _, k := range []string{"dynamodb.configfile", "dynamodb.credentialsfile"} {
		p := dbtest.Props("dynamodb.endpoint", "http://127.0.0.1:1", k, none)
		if _, err := b.Open(context.Background(), p, db.Options{Threads: 1, CheckOnly: true}); err != nil {
			t.Errorf("%s checked: %v", k, err)
		}
		_, err := b.Open(context.Background(), p, db.Options{Threads: 1})
		if err == nil || !strings.Contains(err.Error(), k+": no such file") || strings.Contains(err.Error(), none) {
			t.Errorf("%s missing: %v", k, err)
		}
	}
}

// An STS endpoint that answers without end fails the connection at the
// bound on its answers, at once, in one line (not at the timeout, its
// answer held in memory).
func TestSTSAnswerBounded(t *testing.T) {
	for _, status := range []int{http.StatusOK, http.StatusForbidden} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/xml")
			w.WriteHeader(status)
			io.WriteString(w, "<AssumeRoleResponse><AssumeRoleResult><Credentials><AccessKeyId>")
			chunk := strings.Repeat("A", 1<<16)
			for range 128 { // 8 MiB, then nothing until the client gives up
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
			<-r.Context().Done()
		}))
		b, _ := db.Lookup("dynamodb")
		p := dbtest.Props("dynamodb.endpoint", "http://127.0.0.1:1", "dynamodb.role.arn", "arn:aws:iam::123456789012:role/bench",
			"dynamodb.sts.endpoint", srv.URL, "dynamodb.accesskey", "ASIABASE", "dynamodb.secretkey", "base-secret",
			"dynamodb.retries", "0", "dynamodb.timeout", "5000")
		// Cut at the bound, not by the timeout: the error says which.
		_, err := b.Open(context.Background(), p, db.Options{Threads: 1})
		if err == nil || !strings.Contains(err.Error(), srv.URL+" answered more than 1 MiB: cut there") || strings.Contains(err.Error(), "\n") {
			t.Errorf("STS answering %d without end: %v", status, err)
		}
		srv.CloseClientConnections()
		srv.Close()
	}
}

// endlessServer answers for credentials with a body four times the bound
// on their answers (1 MiB) long, then stops: without end, as far as a
// bounded reader can tell. It answers IMDS' token and role name.
func endlessServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/latest/api/token":
			io.WriteString(w, "token")
			return
		case "/latest/meta-data/iam/security-credentials/":
			io.WriteString(w, "bench")
			return
		}
		io.WriteString(w, `{"AccessKeyId": "`)
		chunk := strings.Repeat("A", 1<<16)
		for range 64 { // 4 MiB, four times the bound
			if _, err := io.WriteString(w, chunk); err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A container's credentials endpoint (AWS_CONTAINER_CREDENTIALS_FULL_URI)
// and the instance's (IMDS, AWS_EC2_METADATA_SERVICE_ENDPOINT) answering
// without end fail the connection at the bound, 1 MiB, in one line
// naming the endpoint.
func TestCredentialsEndpointAnswerBounded(t *testing.T) {
	for _, env := range []string{"AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_EC2_METADATA_SERVICE_ENDPOINT"} {
		t.Run(env, func(t *testing.T) {
			srv := endlessServer(t)
			dir := t.TempDir()
			conf := filepath.Join(dir, "config")
			if err := os.WriteFile(conf, []byte("[profile bench]\nregion = us-east-1\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HOME", dir)
			t.Setenv("AWS_CONFIG_FILE", conf)
			t.Setenv("AWS_EC2_METADATA_DISABLED", "false")
			t.Setenv(env, srv.URL+"/creds")
			b, _ := db.Lookup("dynamodb")
			p := dbtest.Props("dynamodb.endpoint", "http://127.0.0.1:1", "dynamodb.profile", "bench", "dynamodb.retries", "0")
			_, err := b.Open(context.Background(), p, db.Options{Threads: 1})
			want := srv.URL + " answered more than 1 MiB: cut there"
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, want)
			}
		})
	}
}

// A profile's SSO token cache (~/.aws/sso/cache/SHA1.json, of its
// sso_start_url or its sso_session's name) that is larger than a file the
// SDK reads whole may be, a named pipe or a device is refused in one line
// naming it, before the SDK reads it.
func TestSSOCacheChecked(t *testing.T) {
	for _, c := range []struct{ name, key, profile, want string }{
		{"larger", "https://127.0.0.1/start", "sso_start_url = https://127.0.0.1/start\nsso_region = us-east-1\n", "4194305 bytes, more than 4 MiB"},
		{"fifo", "bench", "sso_session = bench\n", "a named pipe, not a regular file"},
		{"device", "https://127.0.0.1/start", "sso_start_url = https://127.0.0.1/start\nsso_region = us-east-1\n", "a device, not a regular file"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			conf := filepath.Join(dir, "config")
			text := "[profile sso]\nregion = us-east-1\nsso_account_id = 123456789012\nsso_role_name = bench\n" + c.profile +
				"[sso-session bench]\nsso_start_url = https://127.0.0.1/start\nsso_region = us-east-1\n"
			if err := os.WriteFile(conf, []byte(text), 0o600); err != nil {
				t.Fatal(err)
			}
			t.Setenv("HOME", dir)
			t.Setenv("AWS_CONFIG_FILE", conf)
			cache := filepath.Join(dir, ".aws", "sso", "cache")
			if err := os.MkdirAll(cache, 0o700); err != nil {
				t.Fatal(err)
			}
			file := filepath.Join(cache, fmt.Sprintf("%x.json", sha1.Sum([]byte(c.key))))
			var err error
			switch c.name {
			case "larger":
				err = os.WriteFile(file, nil, 0o600)
				if err == nil {
					err = os.Truncate(file, 4<<20+1)
				}
			case "fifo":
				err = syscall.Mkfifo(file, 0o600)
			case "device":
				err = os.Symlink(os.DevNull, file)
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := db.Lookup("dynamodb")
			p := dbtest.Props("dynamodb.endpoint", "http://127.0.0.1:1", "dynamodb.profile", "sso", "dynamodb.retries", "0")
			_, err = b.Open(context.Background(), p, db.Options{Threads: 1})
			want := "the SSO cache of profile sso " + file + ": " + c.want
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %v, want one line with %q", err, want)
			}
		})
	}
}

// A profile's credential_process that prints its keys in a form the AWS
// SDK cannot read fails the connection in a line that does not repeat
// them.
func TestCredentialProcessRedacted(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "creds.sh")
	out := `{"Version": 1, "AccessKeyId": "AKIDPROC", "SecretAccessKey": "proc-secret-1", "SessionToken": "proc-token-1",`
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s' '"+out+"'\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	cf := filepath.Join(dir, "config")
	if err := os.WriteFile(cf, []byte("[profile proc]\ncredential_process = "+script+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := db.Lookup("dynamodb")
	p := dbtest.Props("dynamodb.endpoint", "http://127.0.0.1:1", "dynamodb.profile", "proc", "dynamodb.configfile", cf, "dynamodb.retries", "0")
	_, err := b.Open(context.Background(), p, db.Options{Threads: 1})
	if err == nil || !strings.Contains(err.Error(), "process") || strings.Contains(err.Error(), "proc-secret-1") || strings.Contains(err.Error(), "proc-token-1") {
		t.Errorf("a credential_process printing what the SDK cannot read: %v", err)
	}
}

// The shared files the AWS SDK reads without being named (here
// AWS_SHARED_CREDENTIALS_FILE) do not hold the binding past Ctrl-C: a
// named pipe with no writer is refused at once.
func TestSharedFilesStoppable(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "credentials")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	defer func() { // let the read left behind end
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
	}()
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", fifo)
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "none"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	b, _ := db.Lookup("dynamodb")
	done := make(chan error, 1)
	go func() {
		_, err := b.Open(ctx, dbtest.Props("dynamodb.endpoint", "http://127.0.0.1:1"), db.Options{Threads: 1})
		done <- err
	}()
	select {
	case err := <-done:
		// Refused before it is read, now: the files the SDK reads are
		// checked first (wire.RegularFile).
		if err == nil || !strings.Contains(err.Error(), "AWS_SHARED_CREDENTIALS_FILE (environment): the file it names: a named pipe") {
			t.Errorf("a shared file that never answers: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open still reading a named pipe 10 s after its context ended")
	}
}
