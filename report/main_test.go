package report

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain keeps the tests that run the dynamodb binding from the
// machine's own AWS configuration (a ~/.aws/credentials with a key and no
// secret failed TestCostTermsDynamoDB's load), and from the instance
// metadata address, off loopback.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "servbench-aws-")
	if err != nil {
		panic(err)
	}
	os.Setenv("AWS_CONFIG_FILE", filepath.Join(dir, "config"))
	os.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(dir, "credentials"))
	os.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	for _, k := range []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"} {
		os.Unsetenv(k)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
