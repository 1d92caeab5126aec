package plan

import (
	"slices"
	"testing"
)

// The hosts of a connection string or a host list, without ports or
// credentials.
func TestHostsOf(t *testing.T) {
	for v, want := range map[string][]string{
		"mongodb://u:p@h1:27017,h2:27018/db?x=1": {"h1", "h2"},
		"couchbases://cb-1.x.com":                {"cb-1.x.com"},
		"10.0.0.1,10.0.0.2":                      {"10.0.0.1", "10.0.0.2"},
		"http://127.0.0.1:8000":                  {"127.0.0.1"},
		"rediss://default:a@b@r.io:12000":        {"r.io"},
		"[::1]:9042":                             {"[::1]:9042"},
	} {
		if got := hostsOf(v); !slices.Equal(got, want) {
			t.Errorf("hostsOf(%q) = %v, want %v", v, got, want)
		}
	}
}

// Deployments of one binding that name a common server with other record
// counts share it (S2's clusters of 4, 6 and 8 of the same servers); other
// bindings, the same record counts or other servers do not.
func TestSharesServer(t *testing.T) {
	p := &Plan{Records: []int64{100}, Deployments: []Deployment{
		{Label: "m4", Binding: "mongodb", Records: []int64{20}, Properties: []Property{{Key: "mongodb.url", Value: "mongodb://mongos-1:27017/"}}},
		{Label: "m6", Binding: "mongodb", Records: []int64{30}, Properties: []Property{{Key: "mongodb.url", Value: "mongodb://mongos-1:27017/"}}},
		{Label: "c4", Binding: "cassandra", Records: []int64{20}, Properties: []Property{{Key: "hosts", Value: "10.0.0.1,10.0.0.2"}}},
		{Label: "c6", Binding: "cassandra", Records: []int64{30}, Properties: []Property{{Key: "hosts", Value: "10.0.0.2,10.0.0.3"}}},
		{Label: "a3", Binding: "couchbase", Records: []int64{20}, Properties: []Property{{Key: "couchbase.url", Value: "couchbases://cb-3"}}},
		{Label: "a6", Binding: "couchbase", Records: []int64{30}, Properties: []Property{{Key: "couchbase.url", Value: "couchbases://cb-6"}}},
		{Label: "r1", Binding: "redis", Properties: []Property{{Key: "redis.url", Value: "redis://h:1"}}},
		{Label: "r2", Binding: "redis", Properties: []Property{{Key: "redis.url", Value: "redis://h:1"}}},
	}}
	for i, want := range []bool{true, true, true, true, false, false, false, false} {
		if got := p.SharesServer(&p.Deployments[i]); got != want {
			t.Errorf("%s: %v, want %v", p.Deployments[i].Label, got, want)
		}
	}
}
