package dynamodb

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/ssocreds"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/internal/relay"
	"github.com/servbench/servbench/props"
)

// sharedFiles are the AWS shared files the SDK reads: those the
// properties name, else those the environment names (AWS_CONFIG_FILE,
// AWS_SHARED_CREDENTIALS_FILE), else ~/.aws/config and ~/.aws/credentials.
func (c creds) sharedFiles() (configFiles, credentialsFiles []wire.Option) {
	pick := func(prop, propValue, env, def string) []wire.Option {
		switch {
		case propValue != "":
			return []wire.Option{{Name: prop, Value: propValue}}
		case os.Getenv(env) != "":
			return []wire.Option{{Name: env + " (environment)", Value: os.Getenv(env)}}
		}
		return []wire.Option{{Name: "~/.aws/" + filepath.Base(def), Value: def}}
	}
	return pick("dynamodb.configfile", c.configFile, "AWS_CONFIG_FILE", config.DefaultSharedConfigFilename()),
		pick("dynamodb.credentialsfile", c.credentialsFile, "AWS_SHARED_CREDENTIALS_FILE", config.DefaultSharedCredentialsFilename())
}

// notFiles are the shared files' settings whose values are never a file's
// path (a command, a name a directory could have).
var notFiles = map[string]bool{"region": true, "output": true, "credential_process": true, "source_profile": true,
	"role_session_name": true, "sso_session": true, "sso_role_name": true}

// checkFiles checks every file the AWS SDK reads whole before it reads it
// (wire.RegularFile: a named pipe, a socket, a device or a file over 4
// MiB refused): the shared files, the files the environment names
// (AWS_WEB_IDENTITY_TOKEN_FILE, AWS_CA_BUNDLE, any AWS_ variable naming a
// file), and the files the shared files' settings name
// (web_identity_token_file, ca_bundle, any other). A 3 GB configuration
// file filled memory; a named pipe held the run.
func (c creds) checkFiles(p *props.Props) error {
	conf, cred := c.sharedFiles()
	var env []wire.Option
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") && k != "AWS_CONFIG_FILE" && k != "AWS_SHARED_CREDENTIALS_FILE" {
			env = append(env, wire.Option{Name: k + " (environment)", Value: v})
		}
	}
	for _, f := range append(conf, cred...) {
		key := ""
		if strings.HasPrefix(f.Name, "dynamodb.") {
			key = f.Name
		}
		if err := wire.OptionFiles(p, key, []wire.Option{f}); err != nil {
			return fileError(err)
		}
		b, err := os.ReadFile(f.Value) // regular, at most 4 MiB: checked
		if err != nil {
			continue // a missing file is the SDK's to take as empty
		}
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, "=")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if ok && !notFiles[strings.ToLower(k)] && v != "" {
				env = append(env, wire.Option{Name: k + " in " + f.Name, Value: v})
			}
		}
	}
	if err := wire.OptionFiles(p, "", env); err != nil {
		return fileError(err)
	}
	return nil
}

// fileError names the binding in an error that names no property.
func fileError(err error) error {
	var pe *props.Error
	if errors.As(err, &pe) {
		return err
	}
	return &db.InputError{Err: fmt.Errorf("dynamodb: %w", err)}
}

// maxProcessOutput bounds what a credential_process prints (its JSON is
// about 1 KB): one that printed without end filled memory.
const maxProcessOutput = 1 << 20

// processTimeout bounds a credential_process's time, as the AWS SDK's.
const processTimeout = time.Minute

// process is the credential_process of the profile the SDK would take its
// credentials from, when it would run one: "" otherwise (keys given, the
// environment's keys, a role assumed from it: left to the SDK).
func (c creds) process(ctx context.Context, local bool) string {
	if !c.fromChain(local) {
		return ""
	}
	profile := c.namedProfile()
	if profile == "" {
		if os.Getenv("AWS_ACCESS_KEY_ID") != "" || os.Getenv("AWS_WEB_IDENTITY_TOKEN_FILE") != "" {
			return "" // the environment's credentials come first
		}
		profile = "default"
	}
	sc, err := c.sharedProfile(ctx, profile)
	if err != nil || sc.RoleARN != "" || sc.CredentialProcess == "" {
		return ""
	}
	return sc.CredentialProcess
}

// fromChain reports whether the AWS SDK looks for the credentials itself
// (no keys given, no local endpoint without a profile).
func (c creds) fromChain(local bool) bool {
	return c.accessKey == "" && (!local || c.profile != "" || c.configFile != "" || c.credentialsFile != "" || c.role != "")
}

// namedProfile is the profile dynamodb.profile, AWS_PROFILE or
// AWS_DEFAULT_PROFILE names, "" for none (the SDK's default).
func (c creds) namedProfile() string {
	profile := c.profile
	for _, k := range []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE"} {
		if profile == "" {
			profile = os.Getenv(k)
		}
	}
	return profile
}

// sharedProfile is profile as the shared files the SDK reads set it.
func (c creds) sharedProfile(ctx context.Context, profile string) (config.SharedConfig, error) {
	conf, cred := c.sharedFiles()
	return config.LoadSharedConfigProfile(ctx, profile, func(o *config.LoadSharedConfigOptions) {
		o.ConfigFiles, o.CredentialsFiles = []string{conf[0].Value}, []string{cred[0].Value}
	})
}

// checkSSOCache makes the keys the shared files give that profile and its
// source profiles secrets for every writer, and checks the SSO token
// cache of the profile the SDK takes
// its credentials from, and of the profiles it takes them through
// (source_profile), before the SDK reads it whole
// (~/.aws/sso/cache/SHA1.json, of sso_session's name or sso_start_url):
// a link to /dev/zero filled memory, a named pipe held the run.
func (c creds) checkSSOCache(ctx context.Context, local bool) error {
	if !c.fromChain(local) {
		return nil
	}
	profile := c.namedProfile()
	if profile == "" {
		profile = "default"
	}
	sc, err := c.sharedProfile(ctx, profile)
	if err != nil {
		return nil // the SDK's to say
	}
	for s := &sc; s != nil; s = s.Source {
		// The shared files' keys are secrets for every writer: an endpoint
		// may quote them (a session token in an error).
		props.KnowEverywhere(s.Credentials.SecretAccessKey)
		props.KnowEverywhere(s.Credentials.SessionToken)
		key := s.SSOSessionName
		if key == "" {
			key = s.SSOStartURL
		}
		if key == "" {
			continue
		}
		path, err := ssocreds.StandardCachedTokenFilepath(key)
		if err != nil {
			continue
		}
		name := "the SSO cache of profile " + props.Cut(format.Printable(s.Profile), 80)
		if err := wire.OptionFiles(nil, "", []wire.Option{{Name: name, Value: path}}); err != nil {
			return fileError(err)
		}
	}
	return nil
}

// processCreds runs a credential_process as the AWS SDK's processcreds
// does (sh -c, the environment and stdin passed on; its stderr too, as
// relay.Stderr passes it on: bounded, its secrets hidden, its control
// characters escaped), bounded: its
// output read up to maxProcessOutput (past it the process is killed and
// the credentials refused), its time to processTimeout, and when ctx ends
// (Ctrl-C) it is killed with what it started (its process group), at
// once: the SDK's left it running and its error was no interruption.
//
// ctx is the run's: the SDK's credentials cache calls Retrieve with a
// context that never ends (the caller's cancellation suppressed), so the
// run's ending is taken from the binding's own.
type processCreds struct {
	ctx     context.Context
	command string
	stderr  io.Writer // where its stderr is passed on (nil: os.Stderr)
}

func (p processCreds) Retrieve(context.Context) (aws.Credentials, error) {
	parent := p.ctx
	ctx, cancel := context.WithTimeout(parent, processTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", p.command)
	cmd.Env = os.Environ()
	stderr := p.stderr
	if stderr == nil {
		stderr = os.Stderr
	}
	says := relay.New(stderr, "credential_process", []string{p.command}, cmd.Env)
	defer says.End()
	cmd.Stderr, cmd.Stdin = says, os.Stdin
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	out, err := cmd.StdoutPipe()
	if err != nil {
		return aws.Credentials{}, err
	}
	if err := cmd.Start(); err != nil {
		return aws.Credentials{}, fmt.Errorf("credential_process could not start: %w", err)
	}
	b, rerr := io.ReadAll(io.LimitReader(out, maxProcessOutput+1))
	if len(b) > maxProcessOutput {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
	werr := cmd.Wait()
	switch {
	case parent.Err() != nil:
		return aws.Credentials{}, fmt.Errorf("credential_process stopped: %w", parent.Err())
	case ctx.Err() != nil:
		return aws.Credentials{}, fmt.Errorf("credential_process gave no answer within %s", processTimeout)
	case len(b) > maxProcessOutput:
		return aws.Credentials{}, fmt.Errorf("credential_process printed more than %s, more than credentials: stopped", format.Bytes(maxProcessOutput))
	case rerr != nil:
		return aws.Credentials{}, fmt.Errorf("credential_process failed: %w", rerr)
	case werr != nil:
		return aws.Credentials{}, fmt.Errorf("credential_process failed: %w", werr)
	}
	var r struct {
		Version                       int
		AccessKeyID                   string `json:"AccessKeyId"`
		SecretAccessKey, SessionToken string
		Expiration                    *time.Time
		AccountID                     string `json:"AccountId"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(b), &r); err != nil {
		return aws.Credentials{}, errors.New("credential_process: its output is not the JSON of credentials")
	}
	switch {
	case r.Version != 1:
		return aws.Credentials{}, fmt.Errorf("credential_process: version %d of its output, not 1", r.Version)
	case r.AccessKeyID == "" || r.SecretAccessKey == "":
		return aws.Credentials{}, errors.New("credential_process: its output has no AccessKeyId or SecretAccessKey")
	}
	props.KnowEverywhere(r.SecretAccessKey) // an endpoint quoting them: hidden by every writer
	props.KnowEverywhere(r.SessionToken)
	cr := aws.Credentials{AccessKeyID: r.AccessKeyID, SecretAccessKey: r.SecretAccessKey, SessionToken: r.SessionToken,
		Source: "servbench credential_process", AccountID: r.AccountID}
	if r.Expiration != nil {
		cr.CanExpire, cr.Expires = true, *r.Expiration
	}
	return cr, nil
}

// boundAnswers cuts each of DynamoDB's answers at wire.MaxHTTPAnswer past
// the run's (DynamoDB answers at most 16 MB a request): read at the
// transport, under the SDK's deserializers, whatever HTTP client the SDK
// ends up with (it builds another when AWS_CA_BUNDLE is set). An endless
// item held the process until it died, nothing written.
type boundAnswers struct {
	max    int64
	budget *wire.AnswerBudget // every answer read at once (nil: none)
	named  bool               // the cut names the endpoint that answered
}

// maxCredentialsAnswer bounds every answer the AWS SDK reads on the way
// to credentials: a container's or the instance's (IMDS) credentials
// endpoint, STS (a role assumed), SSO (an AssumeRole answer is about 2 KB,
// a container's credentials less). One answering without end filled
// memory.
const maxCredentialsAnswer = 1 << 20

func (boundAnswers) ID() string { return "servbench.BoundAnswers" }

func (b boundAnswers) HandleDeserialize(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
	out, md, err := next.HandleDeserialize(ctx, in)
	if resp, ok := out.RawResponse.(*smithyhttp.Response); ok && resp != nil && resp.Response != nil {
		from := ""
		if req, ok := in.Request.(*smithyhttp.Request); ok && b.named {
			from = format.Printable(req.URL.Scheme + "://" + req.URL.Host)
		}
		if berr := wire.BoundResponseFrom(resp.Response, b.max, from, b.budget); berr != nil && err == nil {
			err = berr
		}
	}
	return out, md, err
}

// addBound adds boundAnswers to a client's stack, innermost, in place of
// the one there (the configuration's, at maxCredentialsAnswer).
func (b boundAnswers) addBound(s *middleware.Stack) error {
	if _, ok := s.Deserialize.Get(b.ID()); ok {
		_, err := s.Deserialize.Swap(b.ID(), b)
		return err
	}
	return s.Deserialize.Add(b, middleware.After)
}
