package cli

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/servbench/servbench/coordinator"
	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/props"
	"github.com/servbench/servbench/result"
	"github.com/servbench/servbench/runner"
)

const clientUsageText = `Usage: servbench client [--coordinator URL] [--client-index I | --client-index-from TEMPLATED]

Runs one client of a phase spread over clients: what an orchestrator starts
on each client machine (servbench run --clients N does, through ssh, Docker
Swarm or processes here). It asks the coordinator for the phase (binding,
properties, credentials, the common start), runs its share, sends its
progress every interval and its result at the end, and stops when the
coordinator says so or stops answering. It writes no file.

  --coordinator URL         the coordinator (default: $SERVBENCH_COORDINATOR)
  --client-index I          this client's index (default: $SERVBENCH_CLIENT)
  --client-index-from NAME  read the index from the environment NAME gives its
                            clients (NAME: TEMPLATED_OR)

The client's secret is read from $SERVBENCH_TOKEN only, or derived from
the run's key in $SERVBENCH_KEY (an argument would be visible to every
user of the machine), and the fingerprint of the coordinator's
certificate from $SERVBENCH_COORDINATOR_CERT: the client trusts only that
certificate, over https only.
`

// client runs "servbench client": one client of a spread phase, given
// everything by its coordinator over the network.
func client(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("servbench client", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	url := fs.String("coordinator", getenv(coordinator.URLEnv), "")
	index := fs.String("client-index", getenv(coordinator.IndexEnv), "")
	from := fs.String("client-index-from", "", "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, clientUsage())
			return ExitOK, nil
		}
		return ExitUsage, badf("client: %v (see 'servbench client --help')", err)
	}
	if fs.NArg() > 0 {
		return ExitUsage, badf("client: unexpected arguments %q", strings.Join(fs.Args(), " "))
	}
	if *url == "" {
		return ExitUsage, badf("client: no coordinator: give --coordinator URL or set %s", coordinator.URLEnv)
	}
	i, err := strconv.Atoi(*index)
	if *from != "" {
		i, err = coordinator.IndexFromEnv(*from, getenv)
	} else if err != nil || i < 0 {
		err = fmt.Errorf("client: index %q: give --client-index I (from 0) or set %s", props.Cut(*index, 20), coordinator.IndexEnv)
	}
	if err != nil {
		return ExitUsage, usageError{err}
	}
	s, ph, err := coordinator.Join(ctx, *url, coordinator.Secret(getenv, i), getenv(coordinator.CertEnv), i)
	if err != nil {
		if ctx.Err() != nil {
			return ExitInterrupted, err
		}
		return ExitFailure, err
	}
	code, err := runClient(ctx, s, ph, i, stderr)
	if err != nil && code != ExitInterrupted {
		s.Fail(oneLine(err)) // also after a result it sent: a failed run fails the phase
	}
	return code, err
}

// clientUsage is the client's help, the orchestrators that start clients
// from a template as they are registered.
func clientUsage() string {
	t := coordinator.Templated()
	return strings.NewReplacer("TEMPLATED_OR", strings.Join(t, " or "), "TEMPLATED", strings.Join(t, "|")).Replace(clientUsageText)
}

// runClient runs client i's share of the phase the coordinator gave, and
// sends its result.
func runClient(ctx context.Context, s *coordinator.Session, ph *coordinator.Phase, i int, stderr io.Writer) (int, error) {
	if ph.Command != "load" && ph.Command != "run" {
		return ExitFailure, fmt.Errorf("client %d: the coordinator asked for %q, not load or run", i, props.Cut(ph.Command, 20))
	}
	p := props.New()
	if err := p.Parse(bytes.NewReader([]byte(ph.Properties)), "the coordinator's phase"); err != nil {
		return ExitFailure, fmt.Errorf("client %d: the coordinator's phase: %w", i, err)
	}
	p.Set("clientindex", strconv.Itoa(i), "coordinator")
	if addr, ok := p.Get("metrics.addr"); ok {
		p.Set("metrics.addr", coordinator.ClientMetricsAddr(addr, i), "coordinator")
	}
	setup, err := checkPhase(ctx, ph.Command, engine.Spec{Binding: ph.Binding, Properties: p, Log: stderr, Gate: s.Gate(i)}, stderr)
	if err != nil {
		return ExitUsage, err
	}
	coordinator.ClientOutputs(setup)
	run, stop := context.WithCancel(ctx)
	defer stop()
	watch, unwatch := context.WithCancel(context.WithoutCancel(ctx))
	defer unwatch()
	run = runner.WithAbandon(run, abandonOnEither(watch, runner.AbandonOf(ctx), func(abandon func()) {
		go s.Watch(watch, stop, abandon)
	}))
	go s.Send(run)
	res, err := setup.Execute(run, engine.Writers{Stderr: stderr}, s)
	if res == nil {
		if run.Err() != nil || errors.Is(err, engine.ErrInterruptedBeforeMeasuring) {
			return stopped(ctx, err)
		}
		return ExitFailure, err
	}
	if err := s.SendResult(res.Doc()); err != nil {
		return ExitFailure, err
	}
	switch {
	case res.Reason == result.Interrupted:
		return stopped(ctx, nil)
	case res.Err != nil:
		return ExitFailure, res.Err
	}
	return ExitOK, nil
}

// abandonOnEither is a channel closed when the process's own second
// signal closes own (nil: none) or when the coordinator says to abandon
// the operations in flight (its second Ctrl-C): watch is given the
// function that closes it for the coordinator's word. Nothing is left
// waiting after ctx ends.
func abandonOnEither(ctx context.Context, own <-chan struct{}, watch func(abandon func())) <-chan struct{} {
	c := make(chan struct{})
	var once sync.Once
	abandon := func() { once.Do(func() { close(c) }) }
	if own != nil {
		go func() {
			select {
			case <-own:
				abandon()
			case <-ctx.Done():
			}
		}()
	}
	watch(abandon)
	return c
}

// stopped is how a client ends that stopped before its end: interrupted
// (130) when it was itself, and well (0) when its coordinator told it to:
// then its coordinator judges the phase by the results, and an orchestrator
// that runs failed clients again (Swarm's jobs do) must not start it again.
// Either way it is no failure to report.
func stopped(ctx context.Context, err error) (int, error) {
	if ctx.Err() != nil {
		return ExitInterrupted, err
	}
	return ExitOK, nil
}

// osGetenv is the process's environment.
var osGetenv = os.Getenv
