package couchdb

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/servbench/servbench/db"
)

// nodeStats are the node statistics sampled: their path under
// /_node/_local/_stats, servbench's name and unit; all count up.
var nodeStats = []struct {
	group, key, name, unit string
}{
	{"couchdb", "database_reads", "document_reads", "ops"},
	{"couchdb", "database_writes", "document_writes", "ops"},
	{"httpd", "requests", "requests", "ops"},
	{"couchdb", "open_databases", "open_databases", ""},
}

// maxStatsBytes bounds the statistics' answer.
const maxStatsBytes = 8 << 20

// Sample reads the node's statistics (/_node/_local/_stats, CouchDB 2.0 and
// later): documents read and written, HTTP requests and open databases. A
// server that does not serve them (PouchDB Server) has them named in
// Missing.
func (s *Store) Sample(ctx context.Context) (db.Sample, error) {
	u := s.base.JoinPath("_node", "_local", "_stats")
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return db.Sample{}, fmt.Errorf("couchdb: statistics: %v", err)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return db.Sample{}, fmt.Errorf("couchdb: statistics at %s: %s", s.where, s.explain(db.WithoutURL(err)))
	}
	defer resp.Body.Close()
	missing := db.Sample{Missing: []string{"/_node/_local/_stats"}}
	if resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusBadRequest {
		return missing, nil
	}
	if resp.StatusCode != http.StatusOK {
		return db.Sample{}, fmt.Errorf("couchdb: statistics at %s: %s", s.where, resp.Status)
	}
	var st map[string]map[string]json.RawMessage
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxStatsBytes)).Decode(&st); err != nil {
		return missing, nil
	}
	var out db.Sample
	for _, n := range nodeStats {
		var v struct {
			Value *float64 `json:"value"`
			Type  string   `json:"type"`
		}
		if raw, ok := st[n.group][n.key]; ok && json.Unmarshal(raw, &v) == nil && v.Value != nil {
			out.Stats = append(out.Stats, db.Stat{Name: n.name, Unit: n.unit, Counter: v.Type == "counter", Value: *v.Value})
		} else {
			out.Missing = append(out.Missing, n.group+"."+n.key)
		}
	}
	return out, nil
}
