package dynamodb

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/internal/format"
	"github.com/servbench/servbench/props"
)

// creds is how the binding's requests are signed, from its properties:
//
//	dynamodb.accesskey, dynamodb.secretkey   static keys, with
//	dynamodb.sessiontoken                    the session token issued with them (temporary keys)
//	dynamodb.profile                         a profile of the AWS shared configuration files,
//	dynamodb.configfile                      which are ~/.aws/config and ~/.aws/credentials
//	dynamodb.credentialsfile                 (or AWS_CONFIG_FILE, AWS_SHARED_CREDENTIALS_FILE) unless these name them
//	dynamodb.role.arn                        a role assumed with those credentials (or the default chain's)
//	dynamodb.role.sessionname                its session's name (servbench)
//	dynamodb.role.externalid                 the external ID the role's trust policy asks for
//	dynamodb.sts.endpoint                    the STS endpoint that assumes it (else the region's)
//
// Without any of them the AWS SDK's default chain is used (environment,
// shared files, the instance's or container's role), but against a local
// endpoint, which takes any keys. The AWS SDK loads and refreshes them;
// the secret key and the session token are never printed (props'
// redaction knows their names).
type creds struct {
	accessKey, secretKey, token          string
	profile, configFile, credentialsFile string
	role, sessionName, externalID        string
	stsEndpoint                          string
}

// sessionName is what STS takes as a role session's name.
var sessionName = regexp.MustCompile(`^[\w+=,.@-]{2,64}$`)

func readCredentials(p *props.Props) (creds, error) {
	c := creds{
		accessKey: p.String("dynamodb.accesskey", ""), secretKey: p.String("dynamodb.secretkey", ""),
		token:   p.String("dynamodb.sessiontoken", ""),
		profile: p.String("dynamodb.profile", ""), configFile: p.String("dynamodb.configfile", ""),
		credentialsFile: p.String("dynamodb.credentialsfile", ""),
		role:            p.String("dynamodb.role.arn", ""), sessionName: p.String("dynamodb.role.sessionname", "servbench"),
		externalID: p.String("dynamodb.role.externalid", ""), stsEndpoint: p.String("dynamodb.sts.endpoint", ""),
	}
	shared := c.profile != "" || c.configFile != "" || c.credentialsFile != ""
	switch {
	case c.accessKey != "" && c.secretKey == "":
		return c, p.Errorf("dynamodb.accesskey", "an access key needs its secret key: give dynamodb.secretkey as well")
	case c.secretKey != "" && c.accessKey == "":
		return c, p.Errorf("dynamodb.secretkey", "a secret key needs its access key: give dynamodb.accesskey as well")
	case c.token != "" && c.accessKey == "":
		return c, p.Errorf("dynamodb.sessiontoken", "a session token goes with the temporary keys issued with it: give dynamodb.accesskey and dynamodb.secretkey as well")
	case c.accessKey != "" && shared:
		name := "dynamodb.profile"
		if c.profile == "" {
			name = "dynamodb.configfile"
			if c.configFile == "" {
				name = "dynamodb.credentialsfile"
			}
		}
		return c, p.Errorf(name, "and dynamodb.accesskey both say which credentials to use: set one")
	}
	if c.role == "" {
		for _, k := range []string{"dynamodb.role.sessionname", "dynamodb.role.externalid", "dynamodb.sts.endpoint"} {
			if _, ok := p.Get(k); ok {
				return c, p.Errorf(k, "is for a role to assume: set dynamodb.role.arn too")
			}
		}
		return c, nil
	}
	if !strings.HasPrefix(c.role, "arn:") || strings.Count(c.role, ":") < 5 {
		return c, p.Errorf("dynamodb.role.arn", "want a role's ARN (arn:aws:iam::ACCOUNT:role/NAME)")
	}
	if !sessionName.MatchString(c.sessionName) {
		return c, p.Errorf("dynamodb.role.sessionname", "want 2 to 64 letters, digits or +=,.@_-")
	}
	if c.stsEndpoint != "" {
		u, err := url.Parse(c.stsEndpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return c, p.Errorf("dynamodb.sts.endpoint", "want http(s)://host[:port]")
		}
		c.stsEndpoint = u.Scheme + "://" + u.Host
	}
	return c, nil
}

// files checks that the shared files named are there, where the phase
// runs (the AWS SDK takes a missing file for an empty one).
func (c creds) files(p *props.Props) error {
	for _, f := range []struct{ key, path string }{{"dynamodb.configfile", c.configFile}, {"dynamodb.credentialsfile", c.credentialsFile}} {
		if f.path == "" {
			continue
		}
		// The credentials file's path is not printed: its property is
		// a secret's.
		// One that is there but no regular file is checkFiles' to refuse.
		if _, err := os.Stat(f.path); err != nil {
			return p.Errorf(f.key, "no such file")
		}
	}
	return nil
}

// load is the AWS configuration's options for these credentials; local
// is whether the endpoint is a local one (which takes any keys).
func (c creds) load(local bool) []func(*config.LoadOptions) error {
	var opts []func(*config.LoadOptions) error
	if c.profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(c.profile))
	}
	if c.configFile != "" {
		opts = append(opts, config.WithSharedConfigFiles([]string{c.configFile}))
	}
	if c.credentialsFile != "" {
		opts = append(opts, config.WithSharedCredentialsFiles([]string{c.credentialsFile}))
	}
	switch {
	case c.accessKey != "":
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(c.accessKey, c.secretKey, c.token)))
	case local && c.profile == "" && c.configFile == "" && c.credentialsFile == "" && c.role == "":
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	}
	return opts
}

// explain says why the AWS configuration could not be loaded, naming the
// property: a profile that is not there.
func (c creds) explain(p *props.Props, err error) error {
	var nx config.SharedConfigProfileNotExistError
	if errors.As(err, &nx) {
		return p.Errorf("dynamodb.profile", "%q is in none of the AWS configuration files read (dynamodb.configfile, dynamodb.credentialsfile, else ~/.aws/config and ~/.aws/credentials)", nx.Profile)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return redacted{fmt.Errorf("dynamodb: the AWS configuration: %w", err)}
	}
	// The environment's or the shared files' settings: bad input, said
	// with its control characters escaped.
	return &db.InputError{Err: redacted{fmt.Errorf("dynamodb: the AWS configuration: %s", format.Printable(err.Error()))}}
}

// loadConfig is config.LoadDefaultConfig, given up when ctx ends: the
// AWS SDK reads the shared files it is not named (AWS_CONFIG_FILE,
// ~/.aws/credentials) whatever they are, and a named pipe with no
// writer never answers (the read left behind ends with the process).
func loadConfig(ctx context.Context, opts []func(*config.LoadOptions) error) (aws.Config, error) {
	type answer struct {
		cfg aws.Config
		err error
	}
	done := make(chan answer, 1)
	go func() {
		cfg, err := config.LoadDefaultConfig(ctx, opts...)
		done <- answer{cfg, err}
	}()
	select {
	case a := <-done:
		return a.cfg, a.err
	case <-ctx.Done():
		return aws.Config{}, fmt.Errorf("stopped while reading the AWS configuration files: %w", ctx.Err())
	}
}

// redacted is an error whose text has what props.RedactText finds
// hidden: the AWS SDK's errors quote what a profile's credential_process
// printed, keys and all, when it is not the JSON expected.
type redacted struct{ err error }

func (e redacted) Error() string { return props.RedactText(e.err.Error()) }
func (e redacted) Unwrap() error { return e.err }

// assumeRole is the role's credentials, assumed through STS with cfg's
// credentials (signed by them) and refreshed before they expire. STS is
// reached over a client of its own: its requests are not the database's
// traffic, its retries not DynamoDB's, and its certificates the
// system's.
func (c creds) assumeRole(cfg aws.Config, timeout time.Duration) aws.CredentialsProvider {
	client := sts.NewFromConfig(cfg, func(o *sts.Options) {
		o.HTTPClient = awshttp.NewBuildableClient().WithTimeout(timeout) // its answers bounded as cfg's (maxCredentialsAnswer)
		o.Retryer = retry.NewStandard()
		if c.stsEndpoint != "" {
			o.BaseEndpoint = aws.String(c.stsEndpoint)
		}
	})
	return aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(client, c.role, func(o *stscreds.AssumeRoleOptions) {
		o.RoleSessionName = c.sessionName
		if c.externalID != "" {
			o.ExternalID = aws.String(c.externalID)
		}
	}))
}
