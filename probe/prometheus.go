package probe

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/result"
)

// MaxScrapeBytes bounds one scrape's body: node_exporter serves about
// 100 KB; a larger body is refused, not read whole.
const MaxScrapeBytes = 16 << 20

// Prometheus is an endpoint serving Prometheus' text format, scraped at
// every sample: the series servbench knows how to read from
// node_exporter (CPU busy, memory used, disk bytes, operations and busy
// time, network bytes) and those named in Extra, each summed over its
// label sets.
type Prometheus struct {
	URL    *url.URL
	Extra  []string
	Client *http.Client
	// Loopback counts the loopback interface's traffic as network: the
	// endpoint is on this host's loopback, so the database and its clients
	// talk over it.
	Loopback bool

	want map[string]bool // the names read (wanted)
}

// ParseEndpoint checks an endpoint given by a user: an http or https URL
// with a host. The error names it redacted.
func ParseEndpoint(s string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil {
		return nil, fmt.Errorf("%q is not a URL", Redact(s))
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%s: want http://HOST:PORT/PATH or https://…", u.Redacted())
	}
	return u, nil
}

// Redact hides a password in a URL given as text; text that is not a URL
// is hidden after its scheme.
func Redact(s string) string {
	if u, err := url.Parse(s); err == nil {
		return u.Redacted()
	}
	if i := strings.Index(s, "://"); i >= 0 {
		return s[:i+3] + "…"
	}
	return "…"
}

// NewPrometheus returns the endpoint u as a source, with the extra series
// named; loopback endpoints count the loopback interface's traffic.
func NewPrometheus(u *url.URL, extra []string) *Prometheus {
	ip := net.ParseIP(u.Hostname())
	return &Prometheus{URL: u, Extra: extra, Client: &http.Client{}, Loopback: u.Hostname() == "localhost" || (ip != nil && ip.IsLoopback())}
}

// Name is the endpoint's URL without its password or query.
func (p *Prometheus) Name() string {
	u := *p.URL
	u.RawQuery = ""
	return u.Redacted()
}

// Kind implements Source.
func (p *Prometheus) Kind() string { return result.SourcePrometheus }

// Sample scrapes the endpoint once.
func (p *Prometheus) Sample(ctx context.Context) (db.Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.URL.String(), nil)
	if err != nil {
		return db.Sample{}, fmt.Errorf("scrape %s: %v", p.Name(), err)
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := p.Client.Do(req)
	if err != nil {
		return db.Sample{}, fmt.Errorf("scrape %s: %v", p.Name(), db.WithoutURL(err))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return db.Sample{}, fmt.Errorf("scrape %s: %s", p.Name(), resp.Status)
	}
	m, err := parseText(io.LimitReader(resp.Body, MaxScrapeBytes+1), p.wanted())
	if err != nil {
		return db.Sample{}, fmt.Errorf("scrape %s: %v", p.Name(), err)
	}
	return db.Sample{Stats: p.stats(m)}, nil
}

// Series read from node_exporter.
var nodeSeries = []string{
	"node_cpu_seconds_total", "node_memory_MemTotal_bytes", "node_memory_MemAvailable_bytes",
	"node_disk_read_bytes_total", "node_disk_written_bytes_total", "node_disk_reads_completed_total",
	"node_disk_writes_completed_total", "node_disk_io_time_seconds_total",
	"node_network_receive_bytes_total", "node_network_transmit_bytes_total",
}

// wanted is the set of metric names read: node_exporter's and the extras.
func (p *Prometheus) wanted() map[string]bool {
	if p.want == nil {
		p.want = map[string]bool{}
		for _, n := range append(slices.Clone(nodeSeries), p.Extra...) {
			p.want[n] = true
		}
	}
	return p.want
}

// stats turns a scrape into servbench's quantities.
func (p *Prometheus) stats(m *scrape) []db.Stat {
	var out []db.Stat
	if cpu := m.samples["node_cpu_seconds_total"]; len(cpu) > 0 {
		var busy float64
		cpus := map[string]bool{}
		for _, s := range cpu {
			cpus[s.label("cpu")] = true
			if mode := s.label("mode"); mode != "idle" && mode != "iowait" && mode != "steal" {
				busy += s.value
			}
		}
		out = append(out, db.Stat{Name: "cpu_busy_pct", Unit: "%", Counter: true, Value: busy * 100 / float64(len(cpus))})
	}
	total, avail := m.sum("node_memory_MemTotal_bytes", nil), m.sum("node_memory_MemAvailable_bytes", nil)
	if total.n > 0 && avail.n > 0 {
		out = append(out, db.Stat{Name: "memory_used_bytes", Unit: "B", Value: total.v - avail.v})
	}
	disk := func(s sample) bool {
		d := s.label("device")
		return !strings.HasPrefix(d, "dm-") && !strings.HasPrefix(d, "loop") && !strings.HasPrefix(d, "ram")
	}
	for _, c := range []struct{ metric, name, unit string }{
		{"node_disk_read_bytes_total", "disk_read_bytes", "B"}, {"node_disk_written_bytes_total", "disk_write_bytes", "B"},
		{"node_disk_reads_completed_total", "disk_reads", "ops"}, {"node_disk_writes_completed_total", "disk_writes", "ops"},
	} {
		if s := m.sum(c.metric, disk); s.n > 0 {
			out = append(out, db.Stat{Name: c.name, Unit: c.unit, Counter: true, Value: s.v})
		}
	}
	for _, s := range m.samples["node_disk_io_time_seconds_total"] {
		if disk(s) {
			out = append(out, db.Stat{Name: "disk_busy_pct", Node: s.label("device"), Unit: "%", Counter: true, Value: s.value * 100})
		}
	}
	nic := func(s sample) bool { return p.Loopback || s.label("device") != "lo" }
	for _, c := range []struct{ metric, name string }{
		{"node_network_receive_bytes_total", "network_receive_bytes"}, {"node_network_transmit_bytes_total", "network_transmit_bytes"},
	} {
		if s := m.sum(c.metric, nic); s.n > 0 {
			out = append(out, db.Stat{Name: c.name, Unit: "B", Counter: true, Value: s.v})
		}
	}
	for _, name := range p.Extra {
		if s := m.sum(name, nil); s.n > 0 {
			out = append(out, db.Stat{Name: name, Counter: m.types[name] == "counter" || strings.HasSuffix(name, "_total"), Value: s.v})
		}
	}
	return out
}

// scrape is the samples of the metrics wanted, by name.
type scrape struct {
	samples map[string][]sample
	types   map[string]string
}

type sample struct {
	labels string // the text between the braces
	value  float64
}

type total struct {
	v float64
	n int
}

func (m *scrape) sum(name string, keep func(sample) bool) total {
	var t total
	for _, s := range m.samples[name] {
		if keep == nil || keep(s) {
			t.v += s.value
			t.n++
		}
	}
	return t
}

// label returns the value of label name ("" when absent).
func (s sample) label(name string) string {
	rest := s.labels
	for rest != "" {
		eq := strings.IndexByte(rest, '=')
		if eq < 0 || eq+1 >= len(rest) || rest[eq+1] != '"' {
			return ""
		}
		key := strings.TrimSpace(strings.TrimLeft(rest[:eq], ","))
		val, n := unquote(rest[eq+2:])
		if key == name {
			return val
		}
		rest = rest[min(eq+2+n+1, len(rest)):]
	}
	return ""
}

// unquote reads a label value up to its closing quote: the value and the
// bytes it took.
func unquote(s string) (string, int) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] == 'n' {
				b.WriteByte('\n')
			} else {
				b.WriteByte(s[i])
			}
		case c == '"':
			return b.String(), i
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), len(s)
}

// maxLine bounds one line of a scrape.
const maxLine = 1 << 20

// parseText reads Prometheus' text exposition format, keeping the samples
// of the metrics in want. It fails on a body over MaxScrapeBytes, a line
// over a MiB, or a sample line of a wanted metric it cannot read; lines of
// other metrics are skipped without being copied.
func parseText(r io.Reader, want map[string]bool) (*scrape, error) {
	m := &scrape{samples: map[string][]sample{}, types: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	read, line := 0, 0
	typePrefix := []byte("# TYPE ")
	for sc.Scan() {
		line++
		l := sc.Bytes()
		if read += len(l) + 1; read > MaxScrapeBytes {
			return nil, fmt.Errorf("more than %d MiB", MaxScrapeBytes>>20)
		}
		l = bytes.TrimSpace(l)
		if len(l) == 0 {
			continue
		}
		if l[0] == '#' {
			if bytes.HasPrefix(l, typePrefix) {
				if f := strings.Fields(string(l[len(typePrefix):])); len(f) >= 2 && want[f[0]] {
					m.types[f[0]] = f[1]
				}
			}
			continue
		}
		end := bytes.IndexAny(l, "{ \t")
		if end < 0 {
			end = len(l)
		}
		if !want[string(l[:end])] {
			continue
		}
		name, labels, rest := string(l[:end]), "", string(l[end:])
		if strings.HasPrefix(rest, "{") {
			end := closingBrace(rest)
			if end < 0 {
				return nil, fmt.Errorf("line %d: %s: labels not closed", line, name)
			}
			labels, rest = rest[1:end], rest[end+1:]
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			return nil, fmt.Errorf("line %d: %s: no value", line, name)
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: %s: value %q is not a number", line, name, cutText(f[0]))
		}
		m.samples[name] = append(m.samples[name], sample{labels, v})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line %d: longer than %d KiB", line+1, maxLine>>10)
		}
		return nil, err
	}
	return m, nil
}

// closingBrace is the index of the brace closing the label set s opens,
// skipping quoted values; -1 when there is none.
func closingBrace(s string) int {
	quoted := false
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			quoted = !quoted
		case '}':
			if !quoted {
				return i
			}
		}
	}
	return -1
}

func cutText(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
