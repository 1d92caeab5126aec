package plan

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// An index written by servbench 0.1 ("cells", "target") reads as one of
// today's; a written index reads back as it was.
func TestReadIndex(t *testing.T) {
	dir := t.TempDir()
	old := `{"format": "` + IndexFormat + `", "cells": [{"id": "r/a/x", "target": "redis", "binding": "redis", "status": "done"}],
	 "slo": {"latency": "p99", "curves": [{"series": "s", "target": "redis"}]}}`
	if err := os.WriteFile(filepath.Join(dir, "index.json"), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, err := ReadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Runs) != 1 || ix.Runs[0].Deployment != "redis" || ix.Runs[0].Status != "done" || ix.SLO.Curves[0].Deployment != "redis" {
		t.Fatalf("old index read as %+v", ix)
	}
	ix.Runs[0].Deployment = "pebble"
	if err := WriteIndex(dir, ix); err != nil {
		t.Fatal(err)
	}
	again, err := ReadIndex(dir)
	if err != nil || len(again.Runs) != 1 || again.Runs[0].Deployment != "pebble" || again.SLO.Curves[0].Deployment != "redis" {
		t.Fatalf("written index read as %+v, %v", again, err)
	}
}

// An index of more objects than a plan's runs can make is refused before
// it is decoded: 900,000 empty runs are 2.7 MB of text and hundreds of MB
// decoded (ten million ran report out of memory).
func TestReadIndexBoundsItsRuns(t *testing.T) {
	dir := t.TempDir()
	body := `{"format":"servbench-plan","version":1,"plan":"p","plan_file":"plan.yaml","runs":[{}` + strings.Repeat(",{}", 900_000) + `]}`
	if err := os.WriteFile(filepath.Join(dir, "index.json"), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadIndex(dir)
	if err == nil || !strings.Contains(err.Error(), "index.json") || !strings.Contains(err.Error(), "at most 100000 runs") {
		t.Errorf("got %v, want the index refused, named, with its bound", err)
	}
}

// A map in the index (a run's usage prices) is bounded too: 5,000,000
// names in 59 MB took report 470 MB.
func TestReadIndexBoundsItsMaps(t *testing.T) {
	old := indexMembersBound
	indexMembersBound = 100_000 // read past as at maxIndexMembers, without millions of names
	defer func() { indexMembersBound = old }()
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString(`{"format":"servbench-plan","version":1,"plan":"p","plan_file":"plan.yaml","runs":[{"usage_prices":{`)
	for i := range indexMembersBound + 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`":1`)
	}
	b.WriteString(`}}]}`)
	if err := os.WriteFile(filepath.Join(dir, "index.json"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadIndex(dir)
	if err == nil || !strings.Contains(err.Error(), "names in its objects") {
		t.Errorf("got %v, want the index refused by its names", err)
	}
}

// A run listed twice, or a result two runs name, is refused in one line
// naming the file and the run (60,000 entries naming one 3.6 KB result
// ran report out of memory; 20,000 made a 175 MB page), and so are more
// runs than a plan may make (100,000), each small enough to pass the
// bound on the index's objects.
func TestReadIndexRefusesARunTwice(t *testing.T) {
	write := func(runs ...string) string {
		dir := t.TempDir()
		body := `{"format":"servbench-plan","version":1,"plan":"p","plan_file":"plan.yaml","runs":[` + strings.Join(runs, ",") + `]}`
		if err := os.WriteFile(filepath.Join(dir, "index.json"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	run := func(id, result string) string {
		return `{"id":"` + id + `","status":"done","result":"` + result + `"}`
	}
	for _, c := range []struct {
		runs []string
		want string
	}{
		{[]string{run("a/c/r1-t1-qmax-1", "runs/a.json"), run("b", "runs/b.json"), run("a/c/r1-t1-qmax-1", "runs/c.json")}, `runs[0] and runs[2] are both run "a/c/r1-t1-qmax-1"`},
		{[]string{run("a", "runs/a.json"), run("b", "runs/./a.json")}, `runs[0] and runs[1] both name result "runs/./a.json"`},
	} {
		dir := write(c.runs...)
		_, err := ReadIndex(dir)
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "index.json")+": "+c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("got %v, want one line with %q", err, c.want)
		}
	}
	many := make([]string, maxRuns+1)
	for i := range many {
		many[i] = `{"id":"` + strconv.Itoa(i) + `"}`
	}
	if _, err := ReadIndex(write(many...)); err == nil || !strings.Contains(err.Error(), "100001 runs: a plan's index holds at most 100000 runs") {
		t.Errorf("%d runs: %v", len(many), err)
	}
	// Runs not run yet have no result: they share none.
	if ix, err := ReadIndex(write(`{"id":"a","status":"pending"}`, `{"id":"b","status":"pending"}`, run("c", "runs/c.json"))); err != nil || len(ix.Runs) != 3 {
		t.Errorf("two pending runs: %v", err)
	}
}

// A setup log of many empty steps (64 MiB of {} took 12 GB decoded) is
// refused as it is read, in one line naming the file; one of real steps
// reads.
func TestReadSetupBounded(t *testing.T) {
	dir := t.TempDir()
	many := `{"format":"servbench-setup","steps":[` + strings.Repeat(`{},`, 4*maxSetupSteps) + `{}]}`
	if err := os.WriteFile(filepath.Join(dir, SetupFile), []byte(many), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadSetup(dir); err == nil || !strings.Contains(err.Error(), SetupFile) || !strings.Contains(err.Error(), "at most 65536 steps") {
		t.Errorf("many steps: %v", err)
	}
	if err := WriteSetup(dir, &SetupLog{Steps: []SetupStep{{ID: "load/x/1", Deployment: "d"}}}); err != nil {
		t.Fatal(err)
	}
	if l, err := ReadSetup(dir); err != nil || len(l.Steps) != 1 {
		t.Errorf("a real log: %v, %v", l, err)
	}
}
