// Package measure records every operation's latency in per-thread HDR
// histograms, indexed by operation and outcome so recording is two array
// lookups, and merges them exactly for interval snapshots and final reports.
package measure

// Op names a measured operation. The names are YCSB's measurement names.
type Op uint8

// Measured operations.
const (
	Read Op = iota
	Update
	Insert
	Scan
	ReadModifyWrite
	Delete
	Query // filter = value OFFSET o LIMIT l (the Pagination workload)
	Verify
	BatchInsert // one call inserting batchsize records (load phase)
	Cleanup     // a thread releasing its binding state at the end (YCSB's CLEANUP)
	NumOps      // number of operations, for arrays indexed by Op
)

var opNames = [NumOps]string{
	Read:            "READ",
	Update:          "UPDATE",
	Insert:          "INSERT",
	Scan:            "SCAN",
	ReadModifyWrite: "READ-MODIFY-WRITE",
	Delete:          "DELETE",
	Query:           "QUERY",
	Verify:          "VERIFY",
	BatchInsert:     "BATCH-INSERT",
	Cleanup:         "CLEANUP",
}

func (o Op) String() string { return opNames[o] }

// ParseOp returns the operation named name.
func ParseOp(name string) (Op, bool) {
	for i, n := range opNames {
		if n == name {
			return Op(i), true
		}
	}
	return 0, false
}

// IsClientOp reports whether o is a call to the database (VERIFY is a
// local check; READ-MODIFY-WRITE is measured on top of its READ and
// UPDATE; CLEANUP happens once per thread after the run).
func (o Op) IsClientOp() bool { return o != Verify && o != ReadModifyWrite && o != Cleanup }

// IsWorkload reports whether o is part of the workload's operations, as
// opposed to CLEANUP, which each thread does once after the run.
func (o Op) IsWorkload() bool { return o != Cleanup }
