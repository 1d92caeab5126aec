package couchbase

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/servbench/servbench/db"
	"github.com/servbench/servbench/db/wire"
	"github.com/servbench/servbench/props"
)

// bucketStats are the bucket statistics sampled (each already a rate or
// a level, the server's latest second): the REST field, servbench's name
// and unit.
var bucketStats = []struct{ field, name, unit string }{
	{"ops", "ops_per_s", "ops/s"},
	{"cmd_get", "gets_per_s", "ops/s"},
	{"cmd_set", "sets_per_s", "ops/s"},
	{"ep_bg_fetched", "disk_fetches_per_s", "ops/s"},
	{"ep_cache_miss_rate", "cache_miss_pct", "%"},
	{"mem_used", "memory_used_bytes", "B"},
	{"curr_items", "items", ""},
	{"disk_write_queue", "disk_write_queue", "items"},
	{"ep_tmp_oom_errors", "tmp_oom_per_s", "ops/s"},
}

// maxStatsBytes bounds the statistics' answer; maxPoolsBytes /pools'.
const (
	maxStatsBytes = 8 << 20
	maxPoolsBytes = 1 << 20
	// versionTimeout bounds the question of the server's version.
	versionTimeout = 5 * time.Second
)

// manager reaches the cluster manager's REST API (the bucket's
// statistics, the server's version) with the binding's connection
// security: over a couchbases:// connection, https on the management
// port (18091) with the same CAs and client certificate; over
// couchbase://, http on 8091, where a password is never sent (it would
// cross the network in clear).
type manager struct {
	base                   url.URL // scheme and host:port
	hc                     *http.Client
	tls                    wire.TLS
	bucket, user, password string
	cert                   bool // the client certificate authenticates (no password)
}

// newManager reads couchbase.managementport (18091 over TLS, 8091
// otherwise) for host; its TLS configuration is given by secure.
func newManager(p *props.Props, t wire.TLS, host, bucket, user, password string) (*manager, error) {
	scheme, port := "http", int64(8091)
	if t.On {
		scheme, port = "https", 18091
	}
	port, err := p.Int64Min("couchbase.managementport", port, 1)
	if err != nil {
		return nil, err
	}
	if port > 65535 {
		return nil, p.Errorf("couchbase.managementport", "%d is not a port", port)
	}
	m := &manager{
		base: url.URL{Scheme: scheme, Host: net.JoinHostPort(host, strconv.FormatInt(port, 10))},
		tls:  t, bucket: bucket, user: user, password: password, cert: t.Cert != "",
	}
	return m, nil
}

// secure makes m's client, with tc the connection's TLS configuration
// (nil: plain).
func (m *manager) secure(tc *tls.Config) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tc
	// A sample is one request per interval; the recorder bounds each in
	// time too.
	m.hc = &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// get asks path, with the bucket's credentials when authenticated; the
// caller closes the answer's body.
func (m *manager) get(ctx context.Context, path string, authenticated bool) (*http.Response, error) {
	u := m.base
	u.Path = path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	if authenticated && !m.cert {
		req.SetBasicAuth(m.user, m.password)
	}
	resp, err := m.hc.Do(req)
	if err != nil {
		return nil, m.unreachable(err)
	}
	return resp, nil
}

// within is ctx with four fifths of the time it has left: a port that
// does not answer is then said by the sample (see unreachable) before the
// sampler's own time is up.
func within(ctx context.Context) (context.Context, context.CancelFunc) {
	if dl, ok := ctx.Deadline(); ok {
		return context.WithDeadline(ctx, time.Now().Add(time.Until(dl)*4/5))
	}
	return context.WithCancel(ctx)
}

// unreachable says why the management port could not be reached, in one
// line: a TLS handshake that failed names the property to set; a port
// that refuses or does not answer may be one the service keeps from its
// users.
func (m *manager) unreachable(err error) error {
	err = db.WithoutURL(err)
	if e := m.tls.Explain(err); e != err {
		return e
	}
	var ne net.Error
	if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("the cluster manager's port does not answer (%v): a service that keeps it from its users (Couchbase Capella) has no statistics to sample; couchbase.managementport names another", err)
	}
	return err
}

// Sample reads the bucket's statistics from the cluster manager's REST API
// (/pools/default/buckets/BUCKET/stats on the management port):
// operations, gets and sets per second, background fetches from disk, the
// cache miss ratio, memory used, items and the disk write queue, each the
// server's latest second. A server that does not serve them
// (CouchbaseMock) has them named in Missing. Over a plain connection
// with a password it does not ask (the password would cross in clear),
// and says so.
func (s *Store) Sample(ctx context.Context) (db.Sample, error) { return s.mgmt.sample(ctx) }

func (m *manager) sample(ctx context.Context) (db.Sample, error) {
	path := "/pools/default/buckets/" + m.bucket + "/stats"
	if !m.tls.On && m.password != "" {
		return db.Sample{}, fmt.Errorf("couchbase: bucket statistics not sampled: over couchbase:// the cluster manager is plain http (port 8091), where couchbase.password would cross the network in clear; connect with couchbases:// to sample them over https (port 18091)")
	}
	ctx, cancel := within(ctx)
	defer cancel()
	resp, err := m.get(ctx, path, true)
	if err != nil {
		return db.Sample{}, fmt.Errorf("couchbase: bucket statistics at %s: %v", m.base.Host, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusNotFound:
		return db.Sample{Missing: []string{"bucket statistics (" + path + ")"}}, nil
	case http.StatusUnauthorized, http.StatusForbidden:
		who := "couchbase.username and couchbase.password"
		if m.cert {
			who = "the client certificate of couchbase.tls.cert"
		}
		return db.Sample{}, fmt.Errorf("couchbase: bucket statistics at %s: %s: the cluster manager does not let %s read them (a service such as Couchbase Capella keeps them from its users)", m.base.Host, resp.Status, who)
	default:
		return db.Sample{}, fmt.Errorf("couchbase: bucket statistics at %s: %s", m.base.Host, props.Cut(resp.Status, 80))
	}
	var st struct {
		Op struct {
			Samples map[string][]float64 `json:"samples"`
		} `json:"op"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxStatsBytes)).Decode(&st); err != nil {
		return db.Sample{Missing: []string{"bucket statistics (the answer is not Couchbase's)"}}, nil
	}
	var out db.Sample
	for _, b := range bucketStats {
		if v := st.Op.Samples[b.field]; len(v) > 0 {
			out.Stats = append(out.Stats, db.Stat{Name: b.name, Unit: b.unit, Value: v[len(v)-1]})
		} else {
			out.Missing = append(out.Missing, b.field)
		}
	}
	return out, nil
}

// version asks the cluster manager what it is (/pools, which needs no
// credentials). The CouchbaseMock answers with no implementation version;
// it is labelled as a key-value-only mock whose SQL++ paths are not
// exercised.
func (m *manager) version(ctx context.Context) (string, error) {
	// The version is asked once, before a run: a port that does not
	// answer (Capella's) delays it no more than this.
	ctx, cancel := context.WithTimeout(ctx, versionTimeout)
	defer cancel()
	ctx, cancel = within(ctx)
	defer cancel()
	resp, err := m.get(ctx, "/pools", false)
	if err != nil {
		return "", fmt.Errorf("couchbase: version at %s: %v", m.base.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("couchbase: version at %s: %s", m.base.Host, props.Cut(resp.Status, 80))
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxPoolsBytes))
	var pools struct {
		ImplementationVersion string `json:"implementationVersion"`
	}
	json.Unmarshal(body, &pools)
	if pools.ImplementationVersion == "" || strings.Contains(strings.ToLower(string(body)), "mock") {
		return "CouchbaseMock (key-value only; SQL++ scans not exercised)", nil
	}
	return "Couchbase Server " + props.Cut(pools.ImplementationVersion, 80), nil
}
