package plan

import (
	"maps"
	"slices"
	"strings"
)

// SharesServer reports whether deployment t names a server (a host of
// its connection properties) that another deployment of its binding
// names too, with another record count: a study that grew one cluster
// (S2's 4, 6 and 8 of the same 8 servers) or reused one. Their data sets
// are then kept in tables of their own, as a deployment's several record
// counts are: the next load would meet the keys of the one before.
func (p *Plan) SharesServer(t *Deployment) bool {
	mine := p.servers(t)
	for i := range p.Deployments {
		o := &p.Deployments[i]
		if o == t || o.Binding != t.Binding || slices.Equal(p.RecordsOf(o), p.RecordsOf(t)) {
			continue
		}
		for h := range p.servers(o) {
			if mine[h] {
				return true
			}
		}
	}
	return false
}

// Server names the server deployment t's data sets are kept on: its
// binding and the hosts its connection properties name, or its label when
// they name none. Deployments of one Server share one server (a
// rehearsal's, given one endpoint).
func (p *Plan) Server(t *Deployment) string {
	hosts := slices.Sorted(maps.Keys(p.servers(t)))
	if len(hosts) == 0 {
		return "deployment " + t.Label
	}
	return t.Binding + " on " + strings.Join(hosts, ",")
}

// servers are the hosts deployment t's connection properties name (the
// plan's, then its own): hosts, host and every key ending in .url, .host,
// .hosts or .endpoint, each value's hosts without their ports.
func (p *Plan) servers(t *Deployment) map[string]bool {
	vals := map[string]string{}
	for _, list := range [][]Property{p.Properties, t.Properties} {
		for _, x := range list {
			k := x.Key
			if k == "hosts" || k == "host" || strings.HasSuffix(k, ".url") || strings.HasSuffix(k, ".host") || strings.HasSuffix(k, ".hosts") || strings.HasSuffix(k, ".endpoint") {
				vals[k] = x.Value
			}
		}
	}
	hosts := map[string]bool{}
	for _, v := range vals {
		for _, h := range hostsOf(v) {
			hosts[strings.ToLower(h)] = true
		}
	}
	return hosts
}

// Endpoints are the hosts a connection string or a host list names, each
// with its port when it has one, lower case and sorted: where a run
// measured (credentials are not among them, so a value with its password
// hidden names the same).
func Endpoints(v string) []string {
	var out []string
	for _, h := range strings.Split(hostPart(v), ",") {
		if h = strings.ToLower(strings.TrimSpace(h)); h != "" {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

// hostsOf are the hosts a connection string or a host list names:
// scheme://[user[:password]@]host[:port][,host[:port]...][/...][?...],
// or host[,host...].
func hostsOf(v string) []string {
	var out []string
	for _, h := range strings.Split(hostPart(v), ",") {
		h = strings.TrimSpace(h)
		if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i+1:], "]") && strings.Count(h, ":") == 1 {
			h = h[:i]
		}
		if h != "" {
			out = append(out, h)
		}
	}
	return out
}

// hostPart is a connection string's list of hosts and ports: without its
// scheme, credentials, path and query.
func hostPart(v string) string {
	if _, rest, ok := strings.Cut(v, "://"); ok {
		v = rest
	}
	if i := strings.IndexAny(v, "/?"); i >= 0 {
		v = v[:i]
	}
	if i := strings.LastIndexByte(v, '@'); i >= 0 {
		v = v[i+1:]
	}
	return v
}
