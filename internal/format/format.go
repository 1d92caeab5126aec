// Package format writes numbers as people read them on consoles and
// pages: counts with thousands separators, byte sizes in KiB, MiB and GiB.
// It depends on nothing, so that what only reads results (report, plan)
// links no runner, workload or driver to print a number.
package format

import (
	"fmt"
	"strconv"
	"strings"
)

// Thousands writes n with thousands separators: 1,234,567.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	digits := strings.TrimPrefix(s, "-")
	var b []byte
	if len(digits) < len(s) {
		b = append(b, '-')
	}
	for i, c := range []byte(digits) {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, c)
	}
	return string(b)
}

// Bytes writes a size: exact sizes as 16 MiB, 4 KiB or 100 bytes; others
// rounded, 286.1 GiB, 300 MiB.
func Bytes(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		switch {
		case n >= u.size && n%u.size == 0:
			return fmt.Sprintf("%d %s", n/u.size, u.name)
		case n >= u.size:
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d bytes", n)
}
