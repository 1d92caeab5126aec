package engine

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// The memory a run may take is the least of what the machine has, what
// the process's cgroup leaves and what its address-space limit leaves
// (a limit of 8 GB under a machine of more: the limit, less the process'
// size).
func TestAvailableMemoryHonoursTheAddressSpaceLimit(t *testing.T) {
	if os.Getenv("SERVBENCH_TEST_MEMORY_CHILD") != "" {
		os.Stdout.WriteString("available=" + strconv.FormatInt(availableMemory(), 10) + "\n")
		return
	}
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit")
	}
	const limit = 8_000_000_000
	cmd := exec.Command(prlimit, "--as="+strconv.Itoa(limit), os.Args[0], "-test.run=^TestAvailableMemoryHonoursTheAddressSpaceLimit$", "-test.v")
	cmd.Env = append(os.Environ(), "SERVBENCH_TEST_MEMORY_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	_, v, _ := strings.Cut(string(out), "available=")
	v, _, _ = strings.Cut(v, "\n")
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 || n >= limit {
		t.Errorf("available under an 8 GB address-space limit: %q (%v)", v, err)
	}
	if all := availableMemory(); all > 0 && n > all {
		t.Errorf("%d under the limit, more than the %d without", n, all)
	}
}
