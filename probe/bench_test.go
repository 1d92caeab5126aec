package probe

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/servbench/servbench/db"
)

// nodeExporterLike is a scrape the size of node_exporter's on a 64-core
// database host: every CPU in every mode, disks, interfaces, and 3,000
// other series servbench skips.
func nodeExporterLike() string {
	var b strings.Builder
	b.WriteString("# TYPE node_cpu_seconds_total counter\n")
	for c := range 64 {
		for _, m := range []string{"idle", "iowait", "irq", "nice", "softirq", "steal", "system", "user"} {
			fmt.Fprintf(&b, "node_cpu_seconds_total{cpu=\"%d\",mode=\"%s\"} %d.25\n", c, m, 1000+c)
		}
	}
	b.WriteString("node_memory_MemTotal_bytes 2.5e+11\nnode_memory_MemAvailable_bytes 1.2e+11\n")
	for _, d := range []string{"nvme0n1", "nvme1n1", "dm-0", "loop0"} {
		for _, m := range []string{"node_disk_read_bytes_total", "node_disk_written_bytes_total", "node_disk_reads_completed_total", "node_disk_writes_completed_total", "node_disk_io_time_seconds_total"} {
			fmt.Fprintf(&b, "%s{device=\"%s\"} 1.234e+09\n", m, d)
		}
	}
	for _, d := range []string{"lo", "eth0", "eth1"} {
		fmt.Fprintf(&b, "node_network_receive_bytes_total{device=\"%s\"} 9.9e+10\nnode_network_transmit_bytes_total{device=\"%s\"} 8.8e+10\n", d, d)
	}
	for i := range 3000 {
		fmt.Fprintf(&b, "# HELP other_%d something else.\nother_metric_%d{a=\"x\",b=\"y\"} %d\n", i, i, i)
	}
	return b.String()
}

// BenchmarkPrometheusSample is one scrape of a node_exporter-sized
// endpoint on loopback, read into servbench's quantities: the sampling's
// CPU and allocation per endpoint per interval.
func BenchmarkPrometheusSample(b *testing.B) {
	body := nodeExporterLike()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(body)) }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL + "/metrics")
	p := NewPrometheus(u, nil)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if s, err := p.Sample(context.Background()); err != nil || len(s.Stats) < 8 {
			b.Fatal(len(s.Stats), err)
		}
	}
}

// BenchmarkRecorderAdd is a recorder taking one sample of 30 quantities:
// what each interval costs beside the source's own reading.
func BenchmarkRecorderAdd(b *testing.B) {
	m, err := parseText(strings.NewReader(nodeExporterLike()), (&Prometheus{}).wanted())
	if err != nil {
		b.Fatal(err)
	}
	stats := (&Prometheus{}).stats(m)
	t := &track{index: map[seriesKey]int{}, interval: 1}
	at := time.Now()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		for j := range stats {
			stats[j].Value++
		}
		t.add(at.Add(time.Duration(i)*time.Second), db.Sample{Stats: stats}, nil)
	}
}
