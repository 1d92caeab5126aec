// Package testaws keeps a test binary from the machine's own AWS
// configuration: a development tool for the tests of the packages that
// load it (the dynamodb binding, the report's cost terms).
package testaws

import (
	"os"
	"path/filepath"
)

// Main runs m (a *testing.M, or one that does more around it) with the AWS shared files pointed into a temporary
// directory, the environment's credentials and profile unset, and the
// instance metadata address (off loopback) never asked, and exits with
// its code: a ~/.aws/credentials with a key and no secret, or an
// AWS_PROFILE of the user running the tests, failed every test that loads
// the configuration. A test that wants a configuration sets its own.
func Main(m interface{ Run() int }) {
	dir, err := os.MkdirTemp("", "servbench-aws-")
	if err != nil {
		panic(err)
	}
	os.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	os.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	for _, k := range []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN",
		"AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN", "AWS_CONTAINER_CREDENTIALS_FULL_URI", "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"} {
		os.Unsetenv(k)
	}
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
