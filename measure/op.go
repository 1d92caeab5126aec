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
// UPDATE).
func (o Op) IsClientOp() bool { return o != Verify && o != ReadModifyWrite }
