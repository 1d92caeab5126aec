package result

import (
	"bufio"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
)

// Version is servbench's version.
const Version = "0.1.0"

// Commit returns the VCS revision the binary was built from ("+dirty" when
// the tree had changes), or "unknown".
func Commit() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	var rev, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return "unknown"
	}
	return rev + dirty
}

// Environment describes the machine a result was measured on.
type Environment struct {
	ServbenchVersion string `json:"servbench_version"`
	ServbenchCommit  string `json:"servbench_commit"`
	GoVersion        string `json:"go_version"`
	OS               string `json:"os"`
	Arch             string `json:"arch"`
	Kernel           string `json:"kernel,omitempty"`
	CPUModel         string `json:"cpu_model,omitempty"`
	Cores            int    `json:"cores"`
	GOMAXPROCS       int    `json:"gomaxprocs"`
	MemoryBytes      int64  `json:"memory_bytes,omitempty"`
	Hostname         string `json:"hostname,omitempty"`
}

// CurrentEnvironment reads the environment of this process.
func CurrentEnvironment() Environment {
	e := Environment{
		ServbenchVersion: Version,
		ServbenchCommit:  Commit(),
		GoVersion:        runtime.Version(),
		OS:               runtime.GOOS,
		Arch:             runtime.GOARCH,
		Cores:            runtime.NumCPU(),
		GOMAXPROCS:       runtime.GOMAXPROCS(0),
	}
	e.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.Kernel = strings.TrimSpace(string(b))
	}
	e.CPUModel = procField("/proc/cpuinfo", "model name")
	if m := procField("/proc/meminfo", "MemTotal"); m != "" {
		var kb int64
		for _, c := range strings.TrimSuffix(m, " kB") {
			if c >= '0' && c <= '9' {
				kb = kb*10 + int64(c-'0')
			}
		}
		e.MemoryBytes = kb * 1024
	}
	return e
}

func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
