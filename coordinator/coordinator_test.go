package coordinator

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/servbench/servbench/db/basic"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
)

// An interrupted phase whose client 1 had measured (its progress said so)
// but whose result never came (hung, then killed) says so: not that the
// client measured nothing. A client stopped before it measured is still
// said to have measured nothing, and when none did, there is nothing.
func TestGatherSaysWhatWasMeasured(t *testing.T) {
	name := func(i int) string { return fmt.Sprintf("client %d of 2", i) }
	done := member{result: &result.Doc{}}
	killed := member{exited: true, exitErr: errors.New("signal: killed")}
	_, err := gather([]member{done, killed}, []time.Duration{4 * time.Second, 4 * time.Second}, name)
	if err == nil || !strings.Contains(err.Error(), "client 1 of 2 had measured for at least 4.0 s, but ended (signal: killed) without sending its result") ||
		strings.Contains(err.Error(), "neither its result") {
		t.Errorf("a client that measured 4 s: %v", err)
	}
	_, err = gather([]member{done, {exited: true}}, []time.Duration{4 * time.Second, 0}, name)
	if err == nil || !strings.Contains(err.Error(), "client 1 of 2 sent neither its result nor any progress") {
		t.Errorf("a client that measured nothing: %v", err)
	}
	if _, err = gather([]member{{exited: true}, {exited: true}}, []time.Duration{0, 0}, name); !errors.Is(err, engine.ErrInterruptedBeforeMeasuring) {
		t.Errorf("no client measured: %v", err)
	}
	if docs, err := gather([]member{done, done}, []time.Duration{0, 0}, name); err != nil || len(docs) != 2 {
		t.Errorf("every result: %d, %v", len(docs), err)
	}
}

// Clients told to stop are not killed before their own grace for
// operations still inside the binding (stopgrace) has run out: their
// results would be lost.
func TestKillGraceCoversTheClientsGrace(t *testing.T) {
	p := props.New()
	p.Set("stopgrace", "30", "test")
	setup, err := engine.Check(engine.Spec{Binding: "basic", Properties: p})
	if err != nil {
		t.Fatal(err)
	}
	if g := killGrace(setup); g <= 30*time.Second {
		t.Errorf("clients with a stop grace of 30 s are killed after %s", g)
	}
}

// A copy of servbench that an earlier run left on a host (its coordinator
// killed outright) is removed by the next run there: a copy directory
// older than staleAfter none of whose clients runs. A young one (a run
// copying or starting), one whose client runs, and anything that is not
// a copy's directory stay; a pid file's text is never run.
func TestSweepRemovesOnlyStaleCopies(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	home := t.TempDir()
	copies := filepath.Join(home, copiesDir)
	old := time.Now().Add(-2 * staleAfter)
	mk := func(name string, pids map[string]string, at time.Time) string {
		d := filepath.Join(copies, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "servbench"), []byte("a copy"), 0o700)
		for f, pid := range pids {
			os.WriteFile(filepath.Join(d, f), []byte(pid+"\n"), 0o600)
		}
		if err := os.Chtimes(d, at, at); err != nil {
			t.Fatal(err)
		}
		return d
	}
	marker := filepath.Join(home, "ran")
	stale := []string{
		mk("run.dead", map[string]string{"pid.0": "99999999", "pid.1": "99999998"}, old), // no such processes
		mk("run.none", nil, old), // killed before its clients started
		mk("run.text", map[string]string{"pid.0": "1; touch " + marker}, old), // not a process ID
	}
	kept := []string{
		mk("run.live", map[string]string{"pid.0": "99999999", "pid.1": strconv.Itoa(os.Getpid())}, old),
		mk("run.young", nil, time.Now()),
		mk("other", nil, old),
	}
	legacy := filepath.Join(home, ".servbench.abc123")
	os.MkdirAll(legacy, 0o700)
	os.Chtimes(legacy, old, old)
	c := exec.Command("sh", "-c", sweepScript)
	c.Env = append(os.Environ(), "HOME="+home)
	out, err := c.CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	var said []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		said = append(said, strings.TrimPrefix(l, "stale "))
	}
	slices.Sort(said)
	if !slices.Equal(said, stale) {
		t.Errorf("said %q removed, want %q", said, stale)
	}
	for _, d := range stale {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s is left", d)
		}
	}
	for _, d := range append(kept, legacy) {
		if _, err := os.Stat(d); err != nil {
			t.Errorf("%s was removed: %v", d, err)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a pid file's text was run")
	}
}
