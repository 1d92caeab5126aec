package couchbase

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"

	"github.com/servbench/servbench/db"
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

// maxStatsBytes bounds the statistics' answer.
const maxStatsBytes = 8 << 20

// Sample reads the bucket's statistics from the cluster manager's REST API
// (port 8091, /pools/default/buckets/BUCKET/stats): operations, gets and
// sets per second, background fetches from disk, the cache miss ratio,
// memory used, items and the disk write queue, each the server's latest
// second. A server that does not serve them (CouchbaseMock) has them named
// in Missing.
func (s *Store) Sample(ctx context.Context) (db.Sample, error) {
	u := url.URL{Scheme: "http", Host: net.JoinHostPort(s.host, "8091"), Path: "/pools/default/buckets/" + s.bucket + "/stats"}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return db.Sample{}, fmt.Errorf("couchbase: bucket statistics: %v", err)
	}
	req.SetBasicAuth(s.user, s.password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		err = db.WithoutURL(err)
		return db.Sample{}, fmt.Errorf("couchbase: bucket statistics at %s: %v", u.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return db.Sample{Missing: []string{"bucket statistics (/pools/default/buckets/" + s.bucket + "/stats)"}}, nil
	}
	if resp.StatusCode != http.StatusOK {
		return db.Sample{}, fmt.Errorf("couchbase: bucket statistics at %s: %s", u.Host, resp.Status)
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
