package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/atomicfile"
	"github.com/servbench/servbench/internal/output"
	"github.com/servbench/servbench/result"
)

// runClients runs a phase as n clients on this machine (the local engine):
// n servbench processes of this binary, client i running its share
// (clientindex=i, package spread) from a common start a moment ahead, each
// writing its own result; then their results are merged exactly into the
// phase's (-o). A client that fails or writes no result fails the phase,
// named by its index, and nothing merged is written. Ctrl-C is passed on:
// every client stops and writes what it has, and those are merged.
func runClients(ctx context.Context, cmd string, args []string, pa *phaseArgs, setup *engine.Setup, stderr io.Writer) (int, error) {
	n := setup.Client.Count
	if pa.csv != "" || pa.hlog != "" || pa.cpuprof != "" || setup.Outputs.ExportFile != "" || setup.Outputs.RawFile != "" {
		return ExitUsage, badf("%s: with clients=%d each client writes its own result; --csv, --hlog, --cpuprofile, exportfile and measurement.raw.output_file are not merged: leave them out", cmd, n)
	}
	if pa.binding == "pebble" {
		return ExitUsage, badf("%s: clients=%d: pebble is embedded in each process, so each client would measure a store of its own; spread a phase over clients of a database server", cmd, n)
	}
	exe, err := os.Executable()
	if err != nil {
		return ExitFailure, fmt.Errorf("%s: clients: %w", cmd, err)
	}
	dir, err := os.MkdirTemp("", "servbench-clients-")
	if err != nil {
		return ExitFailure, err
	}
	defer os.RemoveAll(dir)
	// Each client gets this command line (nothing on it that the process
	// list did not show already), without its output file, plus its index,
	// the common start and a result file of its own.
	common := withoutFlags(args, "o", "json")
	outs := make([]string, n)
	for i := range outs {
		outs[i] = clientResultPath(pa.json, dir, i)
	}
	// Long enough for every client to start and connect first.
	start := time.Now().Add(2*time.Second + time.Duration(n)*100*time.Millisecond).UTC()
	fmt.Fprintf(stderr, "servbench: %s on %d clients here, starting together at %s\n", cmd, n, start.Format("15:04:05.000"))
	var mu sync.Mutex // one line at a time on stderr
	procs := make([]*exec.Cmd, n)
	for i := range procs {
		own := []string{"--client-index", strconv.Itoa(i), "-p", "startat=" + start.Format(time.RFC3339Nano), "-o", outs[i]}
		if addr := setup.Outputs.MetricsAddr; addr != "" {
			own = append(own, "-p", "metrics.addr="+clientMetricsAddr(addr, i))
		}
		c := exec.Command(exe, append(append([]string{cmd}, common...), own...)...)
		c.Env = append(os.Environ(), "SERVBENCH_CLIENT="+strconv.Itoa(i))
		c.Stdout = io.Discard // each client's text report; its result is what counts
		c.Stderr = &prefixed{w: stderr, prefix: fmt.Sprintf("client %d: ", i), mu: &mu}
		ownGroup(c)
		if err := c.Start(); err != nil {
			for _, p := range procs[:i] {
				p.Process.Kill()
				p.Wait()
			}
			return ExitFailure, fmt.Errorf("%s: start client %d: %w", cmd, i, err)
		}
		procs[i] = c
	}
	done := make(chan struct{})
	go func() { // Ctrl-C: every client stops and writes its results
		select {
		case <-ctx.Done():
			for _, p := range procs {
				p.Process.Signal(os.Interrupt)
			}
		case <-done:
		}
	}()
	ends := make([]error, n)
	for i, p := range procs {
		ends[i] = p.Wait()
		p.Stderr.(*prefixed).flush()
	}
	close(done)
	var docs []*result.Doc
	for i, end := range ends {
		var ee *exec.ExitError
		if end != nil && !(errors.As(end, &ee) && ee.ExitCode() == ExitInterrupted) {
			return ExitFailure, fmt.Errorf("%s: client %d of %d failed (%v): no merged result", cmd, i, n, end)
		}
		d, err := result.ReadFile(outs[i])
		if err != nil {
			return ExitFailure, fmt.Errorf("%s: client %d of %d wrote no result: %v", cmd, i, n, err)
		}
		docs = append(docs, d)
	}
	m, err := result.Merge(docs)
	if err != nil {
		return ExitFailure, err
	}
	if pa.json != "" {
		if err := atomicfile.WriteFile(pa.json, func(w io.Writer) error { return result.WriteJSON(w, m) }); err != nil {
			return ExitFailure, fmt.Errorf("write %s: %w", pa.json, err)
		}
	}
	fmt.Fprintf(stderr, "servbench: %d clients: %s ops/s over the %.1f s all were measuring, %s operations (%s ok)\n",
		m.Clients, output.Thousands(int64(m.Throughput+0.5)), m.RuntimeMs/1000, output.Thousands(m.Operations), output.Thousands(m.OKOperations))
	// Each client has said already, on its own lines, if its CPU was
	// nearly all used (it may be the limit, not the database).
	if ctx.Err() != nil || m.Stop == result.Interrupted {
		fmt.Fprintln(stderr, "servbench: interrupted; the clients' results so far were merged")
		return ExitInterrupted, nil
	}
	return ExitOK, nil
}

// clientResultPath is where client i writes its result: beside the phase's
// (r.json: r.client-0.json, ...), kept; or in dir, removed afterwards.
func clientResultPath(merged, dir string, i int) string {
	if merged == "" {
		return filepath.Join(dir, fmt.Sprintf("client-%d.json", i))
	}
	return strings.TrimSuffix(merged, ".json") + fmt.Sprintf(".client-%d.json", i)
}

// prefixed writes whole lines to w, each behind prefix.
type prefixed struct {
	w      io.Writer
	prefix string
	mu     *sync.Mutex
	buf    []byte
}

func (p *prefixed) Write(b []byte) (int, error) {
	p.buf = append(p.buf, b...)
	for {
		i := bytes.IndexAny(p.buf, "\r\n")
		if i < 0 {
			return len(b), nil
		}
		p.line(p.buf[:i])
		p.buf = p.buf[i+1:]
	}
}

func (p *prefixed) line(l []byte) {
	if len(bytes.TrimSpace(l)) == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	bw := bufio.NewWriter(p.w)
	bw.WriteString(p.prefix)
	bw.Write(l)
	bw.WriteByte('\n')
	bw.Flush()
}

func (p *prefixed) flush() {
	if len(p.buf) > 0 {
		p.line(p.buf)
		p.buf = nil
	}
}

// valueFlags are the phase's flags that take a value (see parsePhase).
var valueFlags = []string{"P", "property-file", "w", "workload", "p", "property", "threads", "threadcount", "target",
	"l", "label", "db", "clients", "client-index", "maxexecutiontime", "duration", "o", "json", "csv", "hlog", "cpuprofile"}

// withoutFlags returns args without the named flags and their values, in
// any of the forms the flag package takes (-o v, --o v, -o=v, --o=v).
func withoutFlags(args []string, drop ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		isFlag := strings.HasPrefix(a, "-") && a != "-" && a != "--"
		takesValue := isFlag && !hasValue && slices.Contains(valueFlags, name)
		if isFlag && slices.Contains(drop, name) {
			if takesValue {
				i++
			}
			continue
		}
		out = append(out, a)
		if takesValue && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
	}
	return out
}
