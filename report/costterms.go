package report

import (
	"fmt"
	"strconv"

	"github.com/servbench/servbench/result"
)

// CostTerms is a cell's cost per billion operations by term, as providers
// bill it: the hourly price (compute), storage per GB-hour of the data
// loaded, transfer per GB the client sent and received, and DynamoDB's
// request units consumed. A term whose quantity was not measured is 0
// with Unmeasured naming it.
type CostTerms struct {
	Compute, Storage, Transfer, Requests, Capacity, Total float64
	StorageGB                                             float64 // the data loaded, estimated from its records
	TransferBytesPerOp                                    float64
	TransferFrom                                          string // "" for the client's own count of its connections' bytes
	ReadUnitsPerOp, WriteUnitsPerOp                       float64
	Unmeasured                                            []string
}

// recordBytes estimates one record's size from a result's properties:
// each field's name and value, and the key ("user" and up to 19 digits),
// as YCSB's workloads make them.
func recordBytes(p map[string]string) float64 {
	n := func(k string, def float64) float64 {
		if v, err := strconv.ParseFloat(p[k], 64); err == nil {
			return v
		}
		return def
	}
	fields, length := n("fieldcount", 10), n("fieldlength", 100)
	prefix := "field"
	if v, ok := p["fieldnameprefix"]; ok {
		prefix = v
	}
	names := 0.0
	for i := 0; i < int(fields); i++ {
		names += float64(len(prefix) + len(strconv.Itoa(i)))
	}
	return names + fields*length + 23
}

// costTerms computes g's terms from its prices, its load and its runs'
// server side.
func (s *Set) costTerms(g *Group) *CostTerms {
	t := &CostTerms{Compute: g.Cost}
	thr := g.Throughput.Mean
	if thr <= 0 {
		return t
	}
	hoursPerBillion := 1e9 / thr / 3600
	if price, ok := g.Usage["storage_gb_hour"]; ok {
		records := float64(g.Records)
		var props map[string]string
		for _, l := range s.Loads {
			if l.Deployment == g.Deployment && l.Asked == g.Records {
				records, props = float64(l.Doc.OKOperations), l.Doc.Properties
			}
		}
		if props == nil && len(g.Runs) > 0 {
			props = g.Runs[0].Doc.Properties
		}
		t.StorageGB = records * recordBytes(props) / 1e9
		t.Storage = price * t.StorageGB * hoursPerBillion
	}
	perOp := func(kind string, names ...string) (float64, bool) {
		v, found := 0.0, false
		for _, f := range g.Server {
			for _, n := range names {
				if f.Runs > 0 && f.Kind == kind && f.Name == n {
					v, found = v+f.PerOperation, true
				}
			}
		}
		return v, found
	}
	if price, ok := g.Usage["transfer_gb"]; ok {
		// The bytes the client's connections sent and received, as the
		// provider bills its transfer; else the server's count of them.
		b, found := perOp(result.SourceClient, "sent_bytes", "received_bytes")
		if !found {
			if b, found = perOp(result.SourceBinding, "network_receive_bytes", "network_transmit_bytes"); found {
				t.TransferFrom = "the server's count"
			}
		}
		if found {
			t.TransferBytesPerOp = b
			t.Transfer = price * b // per 10⁹ operations: bytes per op × 10⁹ / 10⁹ B per GB
		} else {
			t.Unmeasured = append(t.Unmeasured, "transfer (the binding counts no bytes of its connections, nor reads its server's)")
		}
	}
	for _, u := range []struct {
		price, series string
		dst           *float64
		term          *float64
		perUnit       float64 // what a unit per operation costs a billion operations at price 1
	}{
		{"read_request_units_million", "read_units", &t.ReadUnitsPerOp, &t.Requests, 1e9 / 1e6},
		{"write_request_units_million", "write_units", &t.WriteUnitsPerOp, &t.Requests, 1e9 / 1e6},
		// Provisioned: units/op × throughput units per second, held for
		// 10⁹ / throughput / 3600 hours: units/op × 10⁹ / 3600 unit-hours.
		{"read_capacity_unit_hour", "read_units", &t.ReadUnitsPerOp, &t.Capacity, 1e9 / 3600},
		{"write_capacity_unit_hour", "write_units", &t.WriteUnitsPerOp, &t.Capacity, 1e9 / 3600},
	} {
		price, ok := g.Usage[u.price]
		if !ok {
			continue
		}
		if units, found := perOp(result.SourceBinding, u.series); found {
			*u.dst = units
			*u.term += price * units * u.perUnit
		} else {
			t.Unmeasured = append(t.Unmeasured, fmt.Sprintf("%s (no consumed %s: a DynamoDB binding measures them)", u.price, u.series))
		}
	}
	t.Total = t.Compute + t.Storage + t.Transfer + t.Requests + t.Capacity
	return t
}

// costTermsTable is the cost per billion operations by term, for the cells
// whose deployments give usage prices.
func (s *Set) costTermsTable(gs []*Group) (*Table, []string) {
	t := &Table{Name: "cost-terms", Title: "Cost per billion operations by term (" + s.currency() + ")",
		Header: []string{"deployment", "workload", "records", "threads", "throughput ops/s", "compute (per hour)", "storage (GB-hours)", "data GB", "transfer (per GB)", "bytes per op", "requests (units)", "capacity (unit-hours)", "read units per op", "write units per op", "total per 10⁹ ops"}}
	var notes []string
	for _, g := range gs {
		c := g.Terms
		if c == nil {
			continue
		}
		t.Rows = append(t.Rows, []string{g.Deployment, wlName(g.Workload), strconv.FormatInt(g.Records, 10), strconv.Itoa(g.Threads), f0(g.Throughput.Mean),
			f2(c.Compute), f2(c.Storage), fmt.Sprintf("%.3g", c.StorageGB), f2(c.Transfer), f0(c.TransferBytesPerOp), f2(c.Requests), f2(c.Capacity),
			fmt.Sprintf("%.3g", c.ReadUnitsPerOp), fmt.Sprintf("%.3g", c.WriteUnitsPerOp), f2(c.Total)})
		if c.TransferFrom != "" {
			notes = append(notes, fmt.Sprintf("%s %s: transfer from %s of its network bytes (the binding counts none of its own).", g.Deployment, wlName(g.Workload), c.TransferFrom))
		}
		for _, u := range c.Unmeasured {
			notes = append(notes, fmt.Sprintf("%s %s: %s not measured, its term left at 0.", g.Deployment, wlName(g.Workload), u))
		}
	}
	if len(t.Rows) == 0 {
		return nil, nil
	}
	t.Note = "Compute is the price per hour over the hours a billion operations take at the measured throughput; storage the data loaded (its records' size, estimated from fieldcount and fieldlength) by the GB-hour over those hours; transfer the bytes the client's connections sent and received per operation (TLS included) by the GB, or the server's count of its network bytes where the binding counts none; requests the capacity units DynamoDB reported consumed per operation by the million (on demand); capacity the provisioned capacity those units need at the measured rate, by the unit-hour."
	return t, notes
}
