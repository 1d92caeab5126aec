package cli

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/servbench/servbench/engine"
	"github.com/servbench/servbench/internal/output"
)

// serveMetrics serves the phase's Prometheus metrics on addr (property
// metrics.addr, --metrics-addr) until stop is called.
func serveMetrics(setup *engine.Setup, addr string, log io.Writer) (*output.Metrics, func(), error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("metrics.addr: %w", err)
	}
	run := setup.Outputs.Label
	if run == "" && !setup.Client.StartAt.IsZero() {
		run = setup.Client.StartAt.UTC().Format(time.RFC3339Nano) // the same for every client of a spread phase
	}
	if run == "" {
		run = time.Now().UTC().Format(time.RFC3339)
	}
	m := &output.Metrics{
		Labels: map[string]string{"run": run, "client": strconv.Itoa(setup.Client.Index),
			"workload": engine.WorkloadName(setup.Props), "binding": setup.Spec.Binding},
		Target: setup.Runner.Rate, LateThreshold: setup.Measurements.LateThreshold, CPU: engine.CPUTime,
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	if _, port, _ := net.SplitHostPort(addr); port == "0" {
		fmt.Fprintf(log, "servbench: metrics on http://%s/metrics\n", ln.Addr())
	}
	return m, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	}, nil
}

// clientMetricsAddr is where client i of a spread phase serves its
// metrics: the phase's port plus i.
func clientMetricsAddr(addr string, i int) string {
	host, port, _ := net.SplitHostPort(addr)
	p, _ := strconv.Atoi(port)
	if p == 0 { // each client takes a free port of its own and says which
		return addr
	}
	return net.JoinHostPort(host, strconv.Itoa(p+i))
}
