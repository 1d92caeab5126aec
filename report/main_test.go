package report

import (
	"os"
	"testing"

	"github.com/servbench/servbench/internal/testaws"
)

// SharedEnv names the directory the test binary's tests share (the
// plan run once, report_test's runPlan), removed when they end.
const SharedEnv = "SERVBENCH_REPORT_TEST_SHARED"

// TestMain keeps the tests from the machine's own AWS configuration
// (testaws.Main), and gives them a directory to share.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "servbench-report-test-")
	if err != nil {
		panic(err)
	}
	os.Setenv(SharedEnv, dir)
	os.Setenv("XDG_DATA_HOME", dir) // the history bench records into: the tests' own
	testaws.Main(removing{m, dir})
}

// removing runs the tests, then removes dir.
type removing struct {
	m   *testing.M
	dir string
}

func (r removing) Run() int {
	defer os.RemoveAll(r.dir)
	return r.m.Run()
}
