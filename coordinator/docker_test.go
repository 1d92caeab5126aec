package coordinator

import (
	"strings"
	"testing"
)

// A job's tasks as docker inspect writes them (taskFormat): slot 0 and
// exit code 0 come out empty, a failed client is retried by Swarm, and the
// first failure ends the job.
func TestParseTasks(t *testing.T) {
	for _, c := range []struct {
		name, out string
		ended     bool
		states    []string // each client's state
		err       string
	}{
		{"starting", "|node|pending||\n1|node|running||\n", false, []string{"pending", "running"}, ""},
		{"not all listed", "1|node|complete||\n", false, []string{"", "complete"}, ""},
		{"all complete", "<no value>|node|complete|<no value>|<no value>\n1|node|complete||\n", true, []string{"complete", "complete"}, ""},
		{"one failed, retried", "1|node|pending||\n1|node|failed|1|task: non-zero exit (1)\n|node|running||\n", true, []string{"running", "failed"}, ""},
		{"a retry after completing", "1|node|complete||\n1|node|failed|1|x\n|node|complete||\n", true, []string{"complete", "complete"}, ""},
		{"rejected", "|node|rejected||No such image\n1|node|running||\n", true, []string{"rejected", "running"}, ""},
		{"bad slot", "7|node|running||\n", false, nil, "task slot \"7\""},
		{"bad line", "what\n", false, nil, "unexpected line"},
	} {
		states, ended, err := parseTasks(c.out, 2)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: error %v, want %q", c.name, err, c.err)
			}
			continue
		}
		if err != nil || ended != c.ended {
			t.Errorf("%s: ended %v, %v; want %v", c.name, ended, err, c.ended)
			continue
		}
		for i, want := range c.states {
			got := ""
			if states[i] != nil {
				got = states[i].state
			}
			if got != want {
				t.Errorf("%s: client %d %q, want %q", c.name, i, got, want)
			}
		}
	}
}
