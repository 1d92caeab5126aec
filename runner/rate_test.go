package runner

import (
	"strings"
	"testing"

	"github.com/servbench/servbench/props"
)

// A target rate whose time between a thread's operations does not fit in
// nanoseconds is refused in one line: 1e19 ran and was printed as
// -9,223,372,036,854,775,808 ops/s, 1e-300 ran as fast as it could.
func TestTargetBounds(t *testing.T) {
	for _, c := range []struct{ key, v, want string }{
		{"target", "1e19", "1e+19 operations per second: want 0 (none) or 0.001 to 1e+12"},
		{"target", "1e-300", "1e-300 operations per second: want 0 (none) or 0.001 to 1e+12"},
		{"target", "1e400", "is not a finite number"},
		{"target", "NaN", "is not a finite number"},
		{"target", "0x1p70", "operations per second: want 0 (none)"},
		{"target", "-1", "must not be negative"},
		{"stages", "10:1e-300", `stage 1 "10:1e-300": want SECONDS:RATE or SECONDS:RATE:step (60:1000,60:5000:step), RATE 0 or 0.001 to 1e+12`},
		{"stages", "10:1e13", `stage 1 "10:1e13"`},
		// A time under a nanosecond would read as none: no limit.
		{"maxexecutiontime", "1e-10", "1e-10 seconds is less than a nanosecond"},
		{"warmuptime", "1e-300", "1e-300 seconds is less than a nanosecond"},
	} {
		p := props.New()
		p.Set(c.key, c.v, "-"+c.key)
		_, err := ParseConfig(p, false)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s=%s: %v, want one line with %q", c.key, c.v, err, c.want)
		}
	}
	for _, v := range []string{"1e12", "0.001", "0"} {
		p := props.New()
		p.Set("target", v, "-target")
		p.Set("threadcount", "1000000", "-threads")
		if _, err := ParseConfig(p, false); err != nil {
			t.Errorf("target=%s: %v", v, err)
		}
	}
}
