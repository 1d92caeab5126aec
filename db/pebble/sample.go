package pebble

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/servbench/servbench/db"
)

// stallCount counts the write stalls Pebble announces (writes held while
// memtables flush or L0 compacts) and the nanoseconds they lasted.
type stallCount struct {
	count, ns, began atomic.Int64
}

func (s *Store) stallListener() *pebble.EventListener {
	return &pebble.EventListener{
		WriteStallBegin: func(pebble.WriteStallBeginInfo) {
			s.stalls.count.Add(1)
			s.stalls.began.Store(time.Now().UnixNano())
		},
		WriteStallEnd: func() {
			if b := s.stalls.began.Swap(0); b != 0 {
				s.stalls.ns.Add(time.Now().UnixNano() - b)
			}
		},
	}
}

// Sample reads Pebble's own metrics: compactions and flushes, bytes
// compacted, flushed and read by compactions, WAL bytes, write stalls and
// their time, the block cache's hits and misses, read amplification and
// the store's size on disk.
func (s *Store) Sample(context.Context) (db.Sample, error) {
	m := s.db.Metrics()
	var compacted, flushed, read uint64
	for _, l := range m.Levels {
		compacted += l.BytesCompacted
		flushed += l.BytesFlushed
		read += l.BytesRead
	}
	c := func(name, unit string, v float64) db.Stat {
		return db.Stat{Name: name, Unit: unit, Counter: true, Value: v}
	}
	g := func(name, unit string, v float64) db.Stat { return db.Stat{Name: name, Unit: unit, Value: v} }
	return db.Sample{Stats: []db.Stat{
		c("compactions", "", float64(m.Compact.Count)),
		c("flushes", "", float64(m.Flush.Count)),
		c("compacted_bytes", "B", float64(compacted)),
		c("flushed_bytes", "B", float64(flushed)),
		c("compaction_read_bytes", "B", float64(read)),
		c("wal_bytes", "B", float64(m.WAL.BytesWritten)),
		c("write_stalls", "", float64(s.stalls.count.Load())),
		c("write_stall_busy_pct", "%", float64(s.stalls.ns.Load())/1e7),
		c("cache_hits", "ops", float64(m.BlockCache.Hits)),
		c("cache_misses", "ops", float64(m.BlockCache.Misses)),
		g("read_amplification", "", float64(m.ReadAmp())),
		g("disk_used_bytes", "B", float64(m.DiskSpaceUsage())),
		g("compaction_debt_bytes", "B", float64(m.Compact.EstimatedDebt)),
	}}, nil
}
